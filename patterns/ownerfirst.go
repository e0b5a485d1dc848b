package patterns

import "github.com/keyplan/keyplan/patterns/model"

// Owner first. A sorted collection read (query: [Site, Post], sort: ulid)
// returns its owner at one end of the items it orders. With a limit, a
// page holds the owner only when it comes first in the read's order
// (KP107 otherwise): below the items for an ascending read, above them for
// a descending one. Base placements offer both (base.go); a GSI shape is
// rendered owner-first for the order most of its limited reads take
// (sortedPrefix), and verified as rendered before (every owner below its
// items) too when that serves more, so no GSI is ever added for it.

// ownerFirst reports whether more of the limited sorted collection reads
// that order e among rs are descending than ascending: e's key then sorts
// below its owner's, which a descending read returns first.
func ownerFirst(e *model.Entity, rs []*req) bool {
	n := 0
	for _, r := range rs {
		if r.multi && r.sorted == e.Name && r.p.Limit > 0 {
			if r.p.Desc {
				n++
			} else {
				n--
			}
		}
	}
	return n > 0
}

// underOwner is the prefix that puts e's sort keys (its tag, the
// separator, values) below every key that starts with lead, its owner's
// constant start: none when e's tag already sorts below it (POST#… below
// SITE), else the separator (#COMMENT#… below POST: '#' sorts before
// letters and digits). ok is false when neither does.
func underOwner(lead string, e *model.Entity) (model.Template, bool) {
	for _, pre := range []string{"", string(model.Sep)} {
		// Every key of e lies below pre+tag+"$" (region: the separator
		// '#' is followed by '$'); every key of the owner is at least lead.
		if pre+model.TagOf(e)+"$" <= lead {
			return model.Template{}.Lit(pre), true
		}
	}
	return nil, false
}

// renderings caches a shape's keys: rendered owner-first (ownerFirst)
// and owner-below (the same key when the two do not differ).
type renderings struct{ first, below *EntityKey }

// render is the shape of f rendered as entity e's key on index, cached.
func (f *fam) render(m *model.Model, e *model.Entity, index string, below bool) *EntityKey {
	if f.rendered == nil {
		f.rendered = &renderings{}
	}
	at := &f.rendered.first
	if below || !ownerFirst(e, f.reqs) {
		at = &f.rendered.below
	}
	if *at == nil {
		*at = renderKey(m, e, f.key, f.reqs, index, below)
	}
	return *at
}

// ownerFirstIn reports whether an assignment renders some shape
// owner-first, otherwise than owner-below.
func (pl *planner) ownerFirstIn(a assignment) bool {
	for _, g := range a {
		for _, x := range g {
			for _, f := range x.slot.fams {
				if ownerFirst(pl.m.Entity(x.entity), f.reqs) {
					return true
				}
			}
		}
	}
	return false
}

// verify scores an assignment as rendered (owner-first), and, when that
// leaves a requirement unserved or a limited read losing its owner, as
// rendered owner-below: the better of the two.
func (pl *planner) verify(g *group, base map[string]*EntityKey, a assignment) (score, bool) {
	s, ok, _ := pl.verifyBest(g, base, a)
	return s, ok
}

// verifyBest is verify, and whether the owner-below rendering won.
func (pl *planner) verifyBest(g *group, base map[string]*EntityKey, a assignment) (score, bool, bool) {
	s, ok := pl.verifyAs(g, base, a, false)
	if ok && s.lost == 0 || !pl.ownerFirstIn(a) {
		return s, ok, false
	}
	if s2, ok2 := pl.verifyAs(g, base, a, true); ok2 && (!ok || s2.less(s)) {
		return s2, true, true
	}
	return s, ok, false
}

// renderBest renders an assignment the way verify scores it.
func (pl *planner) renderBest(g *group, base map[string]*EntityKey, a assignment) []map[string][]*EntityKey {
	below := false
	if len(a) > 0 && pl.ownerFirstIn(a) {
		_, _, below = pl.verifyBest(g, base, a)
	}
	return pl.renderAssignment(a, below)
}
