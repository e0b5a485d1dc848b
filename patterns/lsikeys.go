package patterns

import (
	"sort"

	"github.com/keyplan/keyplan/patterns/model"
)

// A hand-made layout's LSIs: an index entry with local: true is keyed by
// the table's partition key and its own sort key,
//
//	keys:
//	  table:   {pk: "PLAYER#{playerId}", sk: "MATCH#{playedAt}"}
//	  ByScore: {local: true, sk: "SCORE#{score}#{playedAt}"}
//
// Its pk may be left out (it is the table entry's) or given, and then must
// be the table entry's: an item is in its base partition on an LSI too.
// Every entity keyed on the index says local: true, or none does.

// explicitLocal is the set of a hand-made layout's local indexes.
func explicitLocal(m *model.Model) map[string]bool {
	out := map[string]bool{}
	for _, e := range m.Entities {
		for _, ks := range e.Keys {
			if ks.Local && ks.Index != model.BaseIndex {
				out[ks.Index] = true
			}
		}
	}
	return out
}

// orderIndexes puts a layout's indexes in the order plans are served in:
// the table, the LSIs, then the GSIs, each by name.
func orderIndexes(ly *layout) {
	rest := ly.indexes[1:]
	sort.SliceStable(rest, func(i, j int) bool {
		if li, lj := ly.local[rest[i]], ly.local[rest[j]]; li != lj {
			return li
		}
		return rest[i] < rest[j]
	})
}
