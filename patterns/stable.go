package patterns

import (
	"math"
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// Stable planning. With a lock, a plan keeps what is deployed: every
// locked base key, entity tag, GSI name (and so its key attribute names),
// GSI key and projection, and the encoding of numbers in keys while the
// declared range still fits it. New needs are served, in order: by the
// shapes there are; by a new shape of an entity on an existing GSI (a
// backfill of that entity); by a new GSI. Renamed entities and attributes
// (renamedFrom) are followed.

// pins are what a lock fixes in a plan.
type pins struct {
	from *Design
	// entity maps a model entity to the lock's (its old self).
	entity map[string]*model.Entity
	// base is each entity's locked base key, in the model's names.
	base map[string]*EntityKey
	// gsis are the locked GSIs, in order.
	gsis []*Index
	// lsis are the locked LSIs, in order: they stay, keys and all (an LSI
	// is removed only with the table), and no new one is planned.
	lsis []*Index
	// keys holds the locked GSI and LSI keys: index → entity → keys.
	keys map[string]map[string][]*EntityKey
}

// pin derives the pins of a lock's design for model m (a copy the planner
// may change: number encodings and renamed entities' tags are set on it).
func pin(m *model.Model, from *Design) *pins {
	lm := from.Model()
	p := &pins{from: from, entity: map[string]*model.Entity{}, base: map[string]*EntityKey{}, keys: map[string]map[string][]*EntityKey{}}
	claimed := map[string]bool{}
	for _, e := range m.Entities {
		if e.RenamedFrom != "" && lm.Entity(e.RenamedFrom) != nil {
			claimed[e.RenamedFrom] = true
		}
	}
	for _, e := range m.Entities {
		old := e.Name
		if e.RenamedFrom != "" && lm.Entity(e.RenamedFrom) != nil {
			old = e.RenamedFrom // (a rename the lock already has: same name)
		} else if claimed[old] && e.RenamedFrom == "" {
			continue // another entity took this name's items
		}
		le := lm.Entity(old)
		lk := from.Entity(old)
		if le == nil || lk == nil {
			continue
		}
		p.entity[e.Name] = le
		e.KeptTag = lk.Tag
		// Attribute names: the lock's → the model's.
		names := map[string]string{}
		for _, a := range e.Attributes {
			was := a.Name
			if a.RenamedFrom != "" && le.Attr(a.RenamedFrom) != nil {
				was = a.RenamedFrom
			}
			la := le.Attr(was)
			if la == nil {
				continue
			}
			pinEncoding(a, la)
			if model.KeyEncoding(a) != model.KeyEncoding(la) {
				continue // written otherwise in keys: a key reading it moves
			}
			names[was] = a.Name
		}
		for _, k := range lk.Keys {
			t, ok := translateKey(k, names)
			if !ok {
				continue // it reads an attribute the model no longer has
			}
			if ix := from.Index(k.Index); ix != nil && ix.Native() && (!slices.Equal(t.PK.Attrs(), k.PK.Attrs()) || !slices.Equal(t.SK.Attrs(), k.SK.Attrs())) {
				continue // a native index is keyed on the names: a renamed one is another index
			}
			if k.Index == model.BaseIndex {
				p.base[e.Name] = t
				continue
			}
			if p.keys[k.Index] == nil {
				p.keys[k.Index] = map[string][]*EntityKey{}
			}
			p.keys[k.Index][e.Name] = append(p.keys[k.Index][e.Name], t)
		}
	}
	for _, ix := range from.Indexes {
		c := *ix
		c.Entities = nil
		p.gsis = append(p.gsis, &c)
	}
	for _, ix := range from.LocalIndexes {
		c := *ix
		c.Entities = nil
		p.lsis = append(p.lsis, &c)
	}
	return p
}

// pinEncoding keeps a number's locked key encoding when its declared range
// still fits (offset ≤ min, max - offset below 10^width). The pin is set
// only when the range alone would encode otherwise, so a model planned
// with the lock it was locked from plans to the same bytes.
func pinEncoding(a, locked *model.Attribute) {
	if (a.Type != model.TypeNumber && a.Type != model.TypeTTL) || (locked.Type != model.TypeNumber && locked.Type != model.TypeTTL) {
		return
	}
	off, width := locked.NumberOffset(), locked.NumberWidth()
	lo, hi, _ := a.Bounds()
	if width >= 19 || lo < off || uint64(hi)-uint64(off) >= uint64(math.Pow10(width)) {
		return
	}
	if a.KeyOffset == nil && a.KeyWidth == 0 && off == lo && width == model.DigitCount(uint64(hi)-uint64(lo)) {
		return // the range encodes so itself
	}
	a.KeyOffset, a.KeyWidth = &off, width
}

// translateKey renames a locked key's attributes; false when one is gone.
func translateKey(k *EntityKey, names map[string]string) (*EntityKey, bool) {
	out := &EntityKey{Index: k.Index}
	for _, part := range []struct {
		in  model.Template
		out *model.Template
	}{{k.PK, &out.PK}, {k.SK, &out.SK}} {
		for _, s := range part.in {
			if s.Attr != "" {
				n, ok := names[s.Attr]
				if !ok {
					return nil, false
				}
				s.Attr = n
			}
			*part.out = append(*part.out, s)
		}
	}
	for _, c := range k.When {
		n, ok := names[c.Attr]
		if !ok {
			return nil, false
		}
		out.When = append(out.When, model.Const{Attr: n, Value: c.Value})
	}
	return out, true
}

// locked reports whether an entity has items under the lock.
func (p *pins) existed(entity string) bool { return p != nil && p.entity[entity] != nil }

// nextGSINames names n new GSIs after the locked ones (never reusing a
// locked name).
func (p *pins) nextGSINames(n int) []string {
	top := 0
	if p != nil {
		for _, ix := range p.gsis {
			n, _ := model.GSINumber(ix.Name) // 0 for a hand-made name
			top = max(top, n)
		}
		top = max(top, len(p.gsis))
	}
	out := make([]string, n)
	for i := range out {
		out[i] = model.GSIName(top + i)
	}
	return out
}

// projectionOf is a pinned GSI's or LSI's projection, or nil.
func (p *pins) projectionOf(index string) *Index {
	if p == nil {
		return nil
	}
	for _, ixs := range [][]*Index{p.gsis, p.lsis} {
		for _, ix := range ixs {
			if ix.Name == index {
				return ix
			}
		}
	}
	return nil
}

// lockedIndex reports whether index is one of the lock's GSIs.
func (p *pins) lockedIndex(index string) bool {
	return p != nil && slices.ContainsFunc(p.gsis, func(ix *Index) bool { return ix.Name == index })
}
