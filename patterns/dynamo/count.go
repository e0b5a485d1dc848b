package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
)

// Patterns that return a number: a count (count: true, Select COUNT,
// every page summed) and a sharded counter's sum (one Query of its shard
// items, summed).

// Count runs a count pattern: how many items it matches (expired ones
// hidden unless it says expired: include), every page read.
func (t *Table) Count(ctx context.Context, pattern string, r Request) (int64, error) {
	n, _, err := t.count(ctx, pattern, &r)
	return n, wrap("Count", pattern, err)
}

func (t *Table) count(ctx context.Context, pattern string, r *Request) (int64, *Page, error) {
	_, pp, err := t.pattern(pattern)
	if err != nil {
		return 0, nil, err
	}
	if !pp.Count {
		return 0, nil, fmt.Errorf("%s returns items, not a count: use Read or All", pattern)
	}
	ins, err := t.queryInputs(pattern, r)
	if errors.Is(err, ErrEmptyRange) {
		return 0, &Page{}, nil
	}
	if err != nil {
		return 0, nil, err
	}
	page := &Page{}
	var n int64
	for _, in := range ins {
		for {
			out, err := t.client.Query(ctx, in)
			if err != nil {
				return 0, nil, err
			}
			page.Requests++
			page.Capacity += capacity(out.ConsumedCapacity)
			n += int64(out.Count)
			if t.hides(pp) != "" {
				page.Hidden += int(out.ScannedCount - out.Count)
			}
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			c := *in
			c.ExclusiveStartKey = out.LastEvaluatedKey
			in = &c
		}
	}
	return n, page, nil
}

// Sum reads a sharded counter's pattern: the sum of its shard items (0
// when none was ever added to).
func (t *Table) Sum(ctx context.Context, pattern string, params Params) (int64, error) {
	n, _, err := t.sum(ctx, pattern, &Request{Params: params})
	return n, wrap("Sum", pattern, err)
}

func (t *Table) sum(ctx context.Context, pattern string, r *Request) (int64, *Page, error) {
	_, pp, err := t.pattern(pattern)
	if err != nil {
		return 0, nil, err
	}
	if pp.Sum == "" {
		return 0, nil, fmt.Errorf("%s reads no sharded counter: use Read or Get", pattern)
	}
	ins, err := t.queryInputs(pattern, r)
	if err != nil {
		return 0, nil, err
	}
	page := &Page{}
	var n int64
	in := ins[0]
	for {
		out, err := t.client.Query(ctx, in)
		if err != nil {
			return 0, nil, err
		}
		page.Requests++
		page.Capacity += capacity(out.ConsumedCapacity)
		for _, it := range out.Items {
			x, ok := it[pp.Sum].(*types.AttributeValueMemberN)
			if !ok {
				continue
			}
			v, err := strconv.ParseInt(x.Value, 10, 64)
			if err != nil {
				return 0, nil, fmt.Errorf("counter %s: a shard holds %s, not a whole number", pp.Sum, x.Value)
			}
			n += v
		}
		if len(out.LastEvaluatedKey) == 0 {
			return n, page, nil
		}
		c := *in
		c.ExclusiveStartKey = out.LastEvaluatedKey
		in = &c
	}
}

// numberOnly refuses Read and All of a pattern that returns a number.
func numberOnly(pp *patterns.PatternPlan) error {
	switch {
	case pp.Count:
		return fmt.Errorf("%s returns a count: use Count", pp.Name)
	case pp.Sum != "":
		return fmt.Errorf("%s returns the sum of the counter %s: use Sum", pp.Name, pp.Sum)
	}
	return nil
}
