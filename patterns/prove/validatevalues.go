package prove

import (
	"fmt"
	"strconv"

	"github.com/keyplan/keyplan/patterns/dynamo"
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

// mismatches compares the values an expectation names with the items
// read (by example name): sets as sets, numbers as numbers.
func mismatches(t *dynamo.Table, want map[string]map[string]any, read map[string]dynamo.Item) []string {
	var out []string
	for _, name := range sortedNames(want) {
		it, ok := read[name]
		if !ok {
			out = append(out, fmt.Sprintf("%s: not read, so its values cannot be compared", name))
			continue
		}
		e := t.Design().Model().Entity(it.Entity)
		for _, attr := range sortedNames(want[name]) {
			a := e.Attr(attr)
			if a == nil {
				out = append(out, fmt.Sprintf("%s.%s: %s has no such attribute", name, attr, it.Entity))
				continue
			}
			if !dynamo.SameAs(a, want[name][attr], it.Values[attr]) {
				out = append(out, fmt.Sprintf("%s.%s: expected %v, got %v", name, attr, want[name][attr], it.Values[attr]))
			}
		}
	}
	return out
}
