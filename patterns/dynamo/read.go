package dynamo

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
)

// Item is an item read back: its entity, its values, and the raw item.
type Item struct {
	Entity string
	Values Values
	Raw    map[string]types.AttributeValue
}

// Page is one read's result.
type Page struct {
	Items []Item
	// LastEvaluatedKey continues the read (nil: nothing more). A sharded
	// read has none: use All to read it to the end.
	LastEvaluatedKey map[string]types.AttributeValue
	// Cursor is LastEvaluatedKey as an opaque string bound to the
	// pattern ("": nothing more): Request.Cursor continues the read.
	Cursor string
	// Requests is how many requests the read took.
	Requests int
	// Capacity is the read capacity consumed, when asked for.
	Capacity float64
	// Hidden counts the expired items the read read and did not return
	// (their TTL has passed; DynamoDB has not deleted them yet).
	Hidden int
}

// decodeAll decodes a read's items, keeping those whose verified
// attributes (PatternPlan.Verify: a get's where attributes its key does
// not hold) equal the request's.
func (t *Table) decodeAll(pp *patterns.PatternPlan, params Params, raw []map[string]types.AttributeValue) ([]Item, error) {
	items := make([]Item, 0, len(raw))
	for _, r := range raw {
		name, v, err := t.Decode(r)
		if err != nil {
			return nil, err
		}
		if ok, err := t.verified(pp, name, v, params); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		items = append(items, Item{Entity: name, Values: v, Raw: r})
	}
	return items, nil
}

// verified reports whether an item holds the values the pattern verifies.
func (t *Table) verified(pp *patterns.PatternPlan, entity string, v Values, params Params) (bool, error) {
	if pp == nil || len(pp.Verify) == 0 {
		return true, nil
	}
	e := t.m.Entity(entity)
	p := t.m.Pattern(pp.Name)
	for _, name := range pp.Verify {
		a := e.Attr(name)
		var x any = params[name]
		if c, ok := p.FilterValue(name); ok {
			x = c // a filter constant the key does not hold
		}
		want, err := a.EncodeKey(x)
		if err != nil {
			return false, err
		}
		got, err := a.EncodeKey(v[name])
		if err != nil || got != want {
			return false, nil
		}
	}
	return true, nil
}

// Read runs one read of a pattern: a GetItem, one Query, or, for a sharded
// pattern, one Query per shard merged in sort order with the limit
// honoured.
func (t *Table) Read(ctx context.Context, pattern string, r Request) (*Page, error) {
	if err := r.startAt(pattern); err != nil {
		return nil, wrap("Read", pattern, err)
	}
	var page *Page
	var err error
	if via := t.via(pattern); via != nil {
		page, err = via.read(ctx, t, pattern, r)
	} else {
		page, err = t.read(ctx, pattern, &r)
		err = wrap("Read", pattern, err)
	}
	if err == nil && page.LastEvaluatedKey != nil {
		if page.Cursor, err = Cursor(pattern, page.LastEvaluatedKey); err != nil {
			return nil, wrap("Read", pattern, err)
		}
	}
	return page, err
}

func (t *Table) read(ctx context.Context, pattern string, r *Request) (*Page, error) {
	_, pp, err := t.pattern(pattern)
	if err != nil {
		return nil, err
	}
	if err := numberOnly(pp); err != nil {
		return nil, err
	}
	if pp.Batch {
		return nil, fmt.Errorf("%w: %s is a batch pattern (batch: true); read it with GetBatch", ErrBatchPattern, pattern)
	}
	if pp.Operation == patterns.GetItem {
		in, err := t.getItemInput(pattern, r)
		if err != nil {
			return nil, err
		}
		out, err := t.client.GetItem(ctx, in)
		if err != nil {
			return nil, err
		}
		page := &Page{Requests: 1, Capacity: capacity(out.ConsumedCapacity)}
		if ttl := t.hides(pp); ttl != "" && out.Item != nil && t.expired(ttl, out.Item) {
			page.Items, page.Hidden = []Item{}, 1
			return page, nil
		}
		if out.Item != nil {
			page.Items, err = t.decodeAll(pp, r.Params, []map[string]types.AttributeValue{out.Item})
		}
		return page, err
	}
	ins, err := t.queryInputs(pattern, r)
	if errors.Is(err, ErrEmptyRange) {
		return &Page{Items: []Item{}}, nil
	}
	if err != nil {
		return nil, err
	}
	page := &Page{}
	var lists [][]Item
	hides := t.hides(pp) != ""
	for _, in := range ins {
		raw, last, err := t.fill(ctx, in, hides, page)
		if err != nil {
			return nil, err
		}
		items, err := t.decodeAll(pp, r.Params, raw)
		if err != nil {
			return nil, err
		}
		lists = append(lists, items)
		if len(ins) == 1 {
			page.LastEvaluatedKey = last
		}
	}
	page.Items = t.merge(pp, lists, int(aws.ToInt32(ins[0].Limit)))
	return page, nil
}

func capacity(c *types.ConsumedCapacity) float64 {
	if c == nil || c.CapacityUnits == nil {
		return 0
	}
	return *c.CapacityUnits
}

// sortKey is the value an item sorts by on the pattern's index.
func (t *Table) sortKey(pp *patterns.PatternPlan, it Item) string {
	_, sk := t.d.KeyNames(pp.Index)
	if s, ok := it.Raw[sk].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// merge combines per-shard results in the index's order, keeping limit.
func (t *Table) merge(pp *patterns.PatternPlan, lists [][]Item, limit int) []Item {
	if len(lists) == 1 {
		return lists[0]
	}
	var all []Item
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortStableFunc(all, func(a, b Item) int {
		c := compare(t.sortKey(pp, a), t.sortKey(pp, b))
		if pp.Desc {
			return -c
		}
		return c
	})
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	return all
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Get reads one item by a get pattern (GetItem, or a Query on an
// alternate key); nil when there is none.
func (t *Table) Get(ctx context.Context, pattern string, params Params) (*Item, error) {
	page, err := t.Read(ctx, pattern, Request{Params: params})
	if err != nil {
		if e, ok := err.(*Error); ok && e.Op == "Read" && e.Subject == pattern {
			return nil, &Error{Op: "Get", Subject: pattern, Err: e.Err} // not "Get P: Read P: …"
		}
		return nil, wrap("Get", pattern, err)
	}
	if len(page.Items) == 0 {
		return nil, nil
	}
	return &page.Items[0], nil
}

// All iterates every item a pattern reads, page after page; a sharded
// pattern's shards are read page by page and merged in sort order.
func (t *Table) All(ctx context.Context, pattern string, r Request) iter.Seq2[Item, error] {
	if err := r.startAt(pattern); err != nil {
		return func(yield func(Item, error) bool) { yield(Item{}, wrap("All", pattern, err)) }
	}
	if via := t.via(pattern); via != nil {
		return via.all(ctx, t, pattern, r)
	}
	return func(yield func(Item, error) bool) {
		_, pp, err := t.pattern(pattern)
		if err == nil && pp.Operation != patterns.Query {
			err = fmt.Errorf("served by %s; use Get", pp.Operation)
		}
		if err == nil {
			err = numberOnly(pp)
		}
		var ins []*dynamodb.QueryInput
		if err == nil {
			ins, err = t.queryInputs(pattern, &r)
		}
		if errors.Is(err, ErrEmptyRange) {
			return // nothing to read
		}
		if err != nil {
			yield(Item{}, wrap("All", pattern, err))
			return
		}
		// One cursor per shard: its buffered page and where it goes on.
		type cursor struct {
			in    *dynamodb.QueryInput
			items []Item
			done  bool
		}
		cursors := make([]*cursor, len(ins))
		for i, in := range ins {
			cursors[i] = &cursor{in: in}
		}
		fill := func(c *cursor) error {
			for len(c.items) == 0 && !c.done {
				out, err := t.client.Query(ctx, c.in)
				if err != nil {
					return err
				}
				items, err := t.decodeAll(pp, r.Params, out.Items)
				if err != nil {
					return err
				}
				c.items = items
				c.in.ExclusiveStartKey = out.LastEvaluatedKey
				c.done = len(out.LastEvaluatedKey) == 0
			}
			return nil
		}
		for {
			var next *cursor
			for _, c := range cursors {
				if err := fill(c); err != nil {
					yield(Item{}, wrap("All", pattern, err))
					return
				}
				if len(c.items) == 0 {
					continue
				}
				if next == nil {
					next = c
					continue
				}
				cmp := compare(t.sortKey(pp, c.items[0]), t.sortKey(pp, next.items[0]))
				if pp.Desc && cmp > 0 || !pp.Desc && cmp < 0 {
					next = c
				}
			}
			if next == nil {
				return
			}
			it := next.items[0]
			next.items = next.items[1:]
			if !yield(it, nil) {
				return
			}
		}
	}
}
