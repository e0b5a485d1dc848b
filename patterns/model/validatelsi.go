package model

import "slices"

// Validating a hand-made layout's local (LSI) key entries.

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
