package report

import (
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// With more GSIs than the bound, the report says whose the gap is: the
// bound's when the search was complete, maybe the search's when it was
// cut (issue 22.5: "4 GSI(s), lower bound 3" said neither).
func TestGSILineSaysWhoseTheGapIs(t *testing.T) {
	four := []*patterns.Index{{Name: "GSI1"}, {Name: "GSI2"}, {Name: "GSI3"}, {Name: "GSI4"}}
	for _, c := range []struct {
		search  patterns.Search
		indexes []*patterns.Index
		want    string
	}{
		{patterns.SearchComplete, four, "4 GSI(s), lower bound 3; the search was complete (every layout it builds has as many), so the bound is not tight for this model"},
		{patterns.SearchCut, four, "4 GSI(s), lower bound 3; the search stopped before trying every layout (its budget, or too many base placements): one with fewer may exist"},
		{patterns.SearchComplete, four[:3], "3 GSI(s), lower bound 3"},
		{"", four, "4 GSI(s), lower bound 3"}, // a hand-made layout: no search
	} {
		d := &patterns.Design{Indexes: c.indexes, Bounds: patterns.Bounds{Any: 3, Cool: 3}, Search: c.search}
		if got := gsiLine(d); got != c.want {
			t.Errorf("%q with %d GSIs:\n got %s\nwant %s", c.search, len(c.indexes), got, c.want)
		}
	}
}
