package patterns

import (
	"maps"
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// The LSIs of a designed layout: the lock's stay as deployed (names, keys,
// projections: an LSI is created and removed only with its table); the
// new ones of each group are laid side by side (the i-th of each group
// shares LSI i, as GSIs do) and named LSI1… in canonical order.

// pinLocal puts the lock's LSIs, with their keys, on a layout that holds
// the table (and the lock's GSIs): right after the table.
func (pl *planner) pinLocal(ly *layout) {
	if pl.localLocked() == 0 {
		return
	}
	if ly.local == nil {
		ly.local = map[string]bool{}
	}
	if ly.proj == nil {
		ly.proj = map[string]*Index{}
	}
	var names []string
	for _, ix := range pl.pins.lsis {
		names = append(names, ix.Name)
		ly.local[ix.Name] = true
		ly.proj[ix.Name] = ix
		for _, e := range entityNames(pl.m) {
			ly.keys[e] = append(ly.keys[e], pl.pins.keys[ix.Name][e]...)
		}
	}
	ly.indexes = append(append([]string{model.BaseIndex}, names...), ly.indexes[1:]...)
}

// mergeLocal adds a group's LSI keys: those on the lock's LSIs to the
// layout, the new LSIs' to merged (by position), which it returns.
func (pl *planner) mergeLocal(ly *layout, gp *groupPlan, merged []map[string][]*EntityKey) []map[string][]*EntityKey {
	for li, keys := range gp.lsis {
		if li < pl.localLocked() {
			for e, ks := range keys {
				ly.keys[e] = append(ly.keys[e], ks...)
			}
			continue
		}
		i := li - pl.localLocked()
		if i == len(merged) {
			merged = append(merged, map[string][]*EntityKey{})
		}
		for e, ks := range keys {
			merged[i][e] = append(merged[i][e], ks...)
		}
	}
	return merged
}

// nameLocal names the new LSIs (in the order given) after the lock's and
// puts them, with their keys, on the layout after the lock's.
func (pl *planner) nameLocal(ly *layout, merged []map[string][]*EntityKey) {
	if len(merged) == 0 {
		return
	}
	if ly.local == nil {
		ly.local = map[string]bool{}
	}
	names := pl.nextLSINames(len(merged))
	for i, keys := range merged {
		ly.local[names[i]] = true
		for _, e := range slices.Sorted(maps.Keys(keys)) {
			for _, k := range keys[e] {
				c := *k
				c.Index = names[i]
				ly.keys[e] = append(ly.keys[e], &c)
			}
		}
	}
	at := 1 + pl.localLocked()
	ly.indexes = append(ly.indexes[:at:at], append(names, ly.indexes[at:]...)...)
}

// nextLSINames names n new LSIs after the lock's (never reusing a name).
func (pl *planner) nextLSINames(n int) []string {
	top := pl.localLocked()
	for _, ix := range pl.locals() {
		if k, ok := model.LSINumber(ix.Name); ok {
			top = max(top, k)
		}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = model.LSIName(top + i)
	}
	return out
}

// locals are the lock's LSIs (none without a lock).
func (pl *planner) locals() []*Index {
	if pl.pins == nil {
		return nil
	}
	return pl.pins.lsis
}

// lockedLocal reports whether index is one of the lock's LSIs.
func (p *pins) lockedLocal(index string) bool {
	return p != nil && slices.ContainsFunc(p.lsis, func(ix *Index) bool { return ix.Name == index })
}

// lockedLocalKey reports whether k is a locked key of entity e on one of
// the lock's LSIs: kept whether or not a pattern reads it (an LSI stays
// as deployed).
func (p *pins) lockedLocalKey(e string, k *EntityKey) bool {
	if p == nil || !p.lockedLocal(k.Index) {
		return false
	}
	return slices.Contains(p.keys[k.Index][e], k)
}
