package patterns

import (
	"slices"
	"sort"

	"github.com/keyplan/keyplan/patterns/model"
)

// Base placement: the base keys an entity may take (its own partition,
// its parent's, flat or nested under the parent's sort key, or a
// collection owner's), most promising first, and the layout of the base
// keys alone that the GSI search starts from.

// parentsFirst orders entities so that each comes after the entity it
// lives within, names breaking ties.
func parentsFirst(m *model.Model, ents []*model.Entity) []*model.Entity {
	depth := func(e *model.Entity) int {
		d := 0
		for p := m.Entity(e.Within); p != nil && d < len(m.Entities); p = m.Entity(p.Within) {
			d++
		}
		return d
	}
	out := slices.Clone(ents)
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := depth(out[i]), depth(out[j])
		if di != dj {
			return di < dj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// maxBaseCandidates bounds the base keys tried per entity.
const maxBaseCandidates = 12

// baseCandidates lists the base keys entity e may take, given the keys
// chosen for the entities before it (its parent's): the most promising
// first.
func (pl *planner) baseCandidates(e *model.Entity, chosen map[string]*EntityKey) []*EntityKey {
	if k := pl.pinnedBase(e); k != nil {
		return []*EntityKey{k}
	}
	m := pl.m
	identifying := func(a string) bool { return e.IsID(a) }
	var out []*EntityKey
	add := func(k *EntityKey) {
		if k == nil {
			return
		}
		for _, x := range out {
			if x.PK.Equal(k.PK) && x.SK.Equal(k.SK) {
				return
			}
		}
		out = append(out, k)
	}
	own := func(pk, sk []string) *EntityKey {
		return &EntityKey{Index: model.BaseIndex, PK: renderPK(e, e, pk, nil, 0), SK: renderSK(e, nil, pk, sk)}
	}
	// The requirement subsets one base key could serve, most first.
	rs := pl.single[e.Name]
	var sets [][]*req
	if len(rs) <= 6 {
		for mask := 1; mask < 1<<len(rs); mask++ {
			var s []*req
			for i, r := range rs {
				if mask&(1<<i) != 0 {
					s = append(s, r)
				}
			}
			sets = append(sets, s)
		}
	} else {
		for _, r := range rs {
			sets = append(sets, []*req{r})
		}
	}
	sort.SliceStable(sets, func(i, j int) bool { return len(sets[i]) > len(sets[j]) })
	if p := m.Entity(e.Within); p != nil {
		// Within a parent: its partition key, flat or nested under its
		// sort key.
		pk := chosen[p.Name]
		if pk == nil {
			return nil
		}
		pkAttrs := pk.PK.Attrs()
		if !subset(pkAttrs, e.AttrNames()) {
			return nil
		}
		for _, a := range pkAttrs {
			if !e.IsID(a) {
				return nil
			}
		}
		child := func(prefix model.Template, sk []string) *EntityKey {
			return &EntityKey{Index: model.BaseIndex, PK: pk.PK, SK: renderSK(e, prefix, pkAttrs, sk)}
		}
		skVariants := [][]string{minus(e.ID, pkAttrs)}
		for _, s := range append(sets, pl.sortedBy(e)...) {
			if k, ok := fit(e, s, fitOptions{pk: pkAttrs, allowed: identifying}); ok {
				skVariants = append(skVariants, k.sk)
			}
		}
		nestable := subset(pk.SK.Attrs(), e.AttrNames()) && !slices.ContainsFunc(pk.SK.Attrs(), func(a string) bool { return !e.IsID(a) })
		// Below the parent's sort key, for a limited collection read
		// that orders e descending: its parent then comes first
		// (ownerfirst.go); flat already does so when e's tag sorts below.
		var under model.Template
		if r := pl.sortedBy(e); len(r) > 0 && len(pk.SK) > 0 && slices.ContainsFunc(r, func(x []*req) bool { return x[0].owner == p.Name && ownerFirst(e, x) }) {
			under, _ = underOwner(pk.SK[0].Lit, e)
		}
		for _, sk := range skVariants {
			add(child(nil, sk))
			if len(under) > 0 {
				add(child(under, sk))
			}
			if nestable && readTogether(m, e.Name, p.Name) {
				used := append(slices.Clone(pkAttrs), pk.SK.Attrs()...)
				add(child(pk.SK.Lit(string(model.Sep)), minus(sk, used)))
			}
			if len(out) >= maxBaseCandidates {
				break
			}
		}
		return out
	}
	// Its own partition: the id's prefixes, then shapes that serve its
	// own patterns from the base table.
	for k := len(e.ID); k >= 1; k-- {
		add(own(e.ID[:k], e.ID[k:]))
	}
	for _, s := range sets {
		if k, ok := fit(e, s, fitOptions{allowed: identifying, cool: true}); ok && len(k.pk) > 0 && k.shards == 0 {
			add(own(k.pk, k.sk))
		}
		if len(out) >= maxBaseCandidates {
			break
		}
	}
	// A collection owner's partition, when a collection reads e with its
	// owner and e carries the owner's equality attributes.
	for _, r := range pl.reqs {
		if !r.multi || r.owner == e.Name || !slices.Contains(r.ents, e.Name) || r.shards > 0 {
			continue
		}
		if !subset(r.eq, e.AttrNames()) || slices.ContainsFunc(r.eq, func(a string) bool { return !e.IsID(a) }) {
			continue
		}
		owner := m.Entity(r.owner)
		var sk []string
		if r.sorted == e.Name && !slices.ContainsFunc(r.sort, func(a string) bool { return !e.Fixed(a) }) {
			sk = r.sort // the order the collection reads it in
		}
		for _, below := range []bool{true, false} { // the owner at either end (ownerfirst.go)
			add(&EntityKey{Index: model.BaseIndex, PK: renderPK(owner, e, r.eq, nil, 0), SK: renderSK(e, sortedPrefix(owner, e, []*req{r}, below), r.eq, sk)})
		}
	}
	if len(out) > maxBaseCandidates {
		out = out[:maxBaseCandidates]
	}
	return out
}

// sortedBy lists, each as a set of one, the sorted collections that
// order entity e: its base key may order them.
func (pl *planner) sortedBy(e *model.Entity) [][]*req {
	var out [][]*req
	for _, r := range pl.reqs {
		if r.multi && r.sorted == e.Name {
			out = append(out, []*req{r})
		}
	}
	return out
}

// readTogether reports whether a collection pattern reads both entities.
func readTogether(m *model.Model, a, b string) bool {
	for _, p := range m.Patterns {
		if len(p.Entities) > 1 && slices.Contains(p.Entities, a) && slices.Contains(p.Entities, b) {
			return true
		}
	}
	return false
}

// baseLayout is a layout of the base keys alone.
//
// With a lock it holds the locked GSIs too, with the locked keys of the
// entities that have base keys here, and their fixed projections.
func (pl *planner) baseLayout(keys map[string]*EntityKey) *layout {
	ly := &layout{m: pl.m, indexes: []string{model.BaseIndex}, keys: map[string][]*EntityKey{}, quiet: true}
	for n, k := range keys {
		ly.keys[n] = []*EntityKey{k}
	}
	if pl.pins != nil {
		ly.proj = map[string]*Index{}
		if len(pl.pins.lsis) > 0 {
			ly.local = map[string]bool{}
		}
		for _, ix := range pl.pins.lsis {
			ly.indexes = append(ly.indexes, ix.Name)
			ly.proj[ix.Name] = ix
			ly.local[ix.Name] = true
			for n, ks := range pl.pins.keys[ix.Name] {
				if keys[n] != nil {
					ly.keys[n] = append(ly.keys[n], ks...)
				}
			}
		}
		for _, ix := range pl.pins.gsis {
			ly.indexes = append(ly.indexes, ix.Name)
			ly.proj[ix.Name] = ix
			for n, ks := range pl.pins.keys[ix.Name] {
				if keys[n] != nil {
					ly.keys[n] = append(ly.keys[n], ks...)
				}
			}
		}
	}
	return ly
}

// pinnedBase is an entity's locked base key, when the lock has one it can
// keep.
func (pl *planner) pinnedBase(e *model.Entity) *EntityKey {
	if pl.pins == nil {
		return nil
	}
	return pl.pins.base[e.Name]
}
