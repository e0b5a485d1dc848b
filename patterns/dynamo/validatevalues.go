package dynamo

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns/model"
)

// What an example's expectation says beyond the items: a number (a
// count, a counter's sum) and the values some items hold.

// requestsOK reports whether a read took the requests its plan says: one
// per page, more only when expired items it read and hid took room in a
// page (the runtime reads on to fill it).
func (r *Result) requestsOK() bool {
	return r.Requests == r.Planned || r.Hidden > 0 && r.Requests > r.Planned
}

func numberText(n *int64) string {
	if n == nil {
		return "nothing"
	}
	return strconv.FormatInt(*n, 10)
}

// number runs a pattern that returns a number.
func (t *Table) number(ctx context.Context, pattern string, r *Request) (*int64, float64, int, error) {
	_, pp, err := t.pattern(pattern)
	if err != nil {
		return nil, 0, 0, err
	}
	var n int64
	var page *Page
	switch {
	case pp.Count:
		n, page, err = t.count(ctx, pattern, r)
	case pp.Sum != "":
		n, page, err = t.sum(ctx, pattern, r)
	default:
		return nil, 0, 0, fmt.Errorf("%s returns items, not a number: expect items, not count", pattern)
	}
	if err != nil {
		return nil, 0, 0, err
	}
	return &n, page.Capacity, page.Hidden, nil
}

// mismatches compares the values an expectation names with the items
// read (by example name): sets as sets, numbers as numbers.
func (t *Table) mismatches(want map[string]map[string]any, read map[string]Item) []string {
	var out []string
	for _, name := range sortedNames(want) {
		it, ok := read[name]
		if !ok {
			out = append(out, fmt.Sprintf("%s: not read, so its values cannot be compared", name))
			continue
		}
		e := t.m.Entity(it.Entity)
		for _, attr := range sortedNames(want[name]) {
			a := e.Attr(attr)
			if a == nil {
				out = append(out, fmt.Sprintf("%s.%s: %s has no such attribute", name, attr, it.Entity))
				continue
			}
			if !SameAs(a, want[name][attr], it.Values[attr]) {
				out = append(out, fmt.Sprintf("%s.%s: expected %v, got %v", name, attr, want[name][attr], it.Values[attr]))
			}
		}
	}
	return out
}

// SameAs reports whether two values of an attribute are stored alike (a
// set's elements in any order; nil: absent, and an empty set is none).
func SameAs(a *model.Attribute, x, y any) bool {
	p, err1 := storedOrNil(a, x)
	q, err2 := storedOrNil(a, y)
	if err1 != nil || err2 != nil {
		return false
	}
	if p == nil || q == nil {
		return p == nil && q == nil
	}
	if a.Type == model.TypeSet {
		px, _ := fromStoredMany(a, p)
		qx, _ := fromStoredMany(a, q)
		return fmt.Sprint(px) == fmt.Sprint(qx)
	}
	return SameValue(p, q)
}

func storedOrNil(a *model.Attribute, v any) (types.AttributeValue, error) {
	if v == nil {
		return nil, nil
	}
	return stored(a, v)
}
