package patterns

import (
	"slices"
	"sort"
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

// validateLocalKeys checks the explicit keys' local entries.
func (m *Model) validateLocalKeys(l *errorList) {
	local := map[string]string{}  // index → an entity that keys it locally
	global := map[string]string{} // index → an entity that keys it as a GSI
	for _, e := range m.Entities {
		var table *KeySpec
		for _, ks := range e.Keys {
			if ks.Index == BaseIndex {
				table = ks
			}
		}
		for _, ks := range e.Keys {
			kp := "entities." + e.Name + ".keys." + ks.Index
			if !ks.Local {
				if ks.Index != BaseIndex && global[ks.Index] == "" {
					global[ks.Index] = e.Name
				}
				continue
			}
			if ks.Index == BaseIndex {
				l.add(ks.Pos, kp+".local", "the table's own key is not a local index; expected local: true on another index entry")
				continue
			}
			if local[ks.Index] == "" {
				local[ks.Index] = e.Name
			}
			if ks.PK == "" || table == nil || table.PK == "" {
				continue
			}
			pk, err1 := ParseTemplate(ks.PK)
			tpk, err2 := ParseTemplate(table.PK)
			if err1 == nil && err2 == nil && !pk.Equal(tpk) {
				at := ks.PKPos
				if at.Line == 0 {
					at = ks.Pos
				}
				l.add(at, kp+".pk", "%q is not the table's partition key %q: a local index is keyed by the table's partition key (leave pk out)", ks.PK, table.PK)
			}
		}
	}
	for _, ix := range slices.Sorted(func(yield func(string) bool) {
		for k := range local {
			if !yield(k) {
				return
			}
		}
	}) {
		if other := global[ix]; other != "" {
			e := m.Entity(other)
			at := e.Pos
			for _, ks := range e.Keys {
				if ks.Index == ix {
					at = ks.Pos
				}
			}
			l.add(at, "entities."+other+".keys."+ix, "%s keys %s as a global index, but %s keys it as a local one (local: true): an index is one or the other; say local: true on both, or name another index", other, ix, local[ix])
		}
	}
}

// explicitLocal is the set of a hand-made layout's local indexes.
func explicitLocal(m *Model) map[string]bool {
	out := map[string]bool{}
	for _, e := range m.Entities {
		for _, ks := range e.Keys {
			if ks.Local && ks.Index != BaseIndex {
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
