package patterns

import (
	"slices"
	"sort"

	"github.com/keyplan/keyplan/patterns/model"
)

// The GSI slot search: for one base placement of a group, every
// requirement the base table does not serve is assigned to an overloaded
// GSI slot, one shape per entity per GSI (or several, sparse on exclusive
// constants), exactly (depth-first, within the budget) or first-fit past
// it; each candidate is verified with the checks' matcher (layout.serve).

// fitKey is what a memoized fit is keyed by: the entity, the
// requirements' ids (fits of more are not memoized) and the options.
type fitKey struct {
	entity           string
	ids              [memoReqs]int32
	n                int
	pkFrom, mustFrom int
	cool, pk         bool
}

// memoReqs is the most requirements a memoized fit takes.
const memoReqs = 6

type fitResult struct {
	k  akey
	ok bool
}

// slot is one entity's keys on one GSI of the search: usually one shape;
// several when they are sparse on exclusive constants.
type slot struct {
	fams []*fam
	// locked: the entity has a locked key on this GSI (no new shape).
	locked bool
}

// fam is one shape and the requirements it serves.
type fam struct {
	reqs []*req
	key  akey
	// fixed is the partition attribute set a collection imposes;
	// fixedFrom is that collection's id.
	fixed     []string
	fixedFrom int
	owner     string
	// rendered is the shape rendered as keys, owner-first and
	// owner-below (renderings; nil until needed, and
	// again after the shape changes).
	rendered *renderings
}

// assignment is requirements placed on GSIs: per GSI, per entity, a slot.
type assignment []slots

// slots are one GSI's slots, by entity (a group has few entities: a
// slice beats a map).
type slots []entitySlot

type entitySlot struct {
	entity string
	slot   *slot
}

// get returns the entity's slot, or nil.
func (ss slots) get(entity string) *slot {
	for _, x := range ss {
		if x.entity == entity {
			return x.slot
		}
	}
	return nil
}

// set puts the entity's slot, in place.
func (ss *slots) set(entity string, s *slot) {
	for i, x := range *ss {
		if x.entity == entity {
			(*ss)[i].slot = s
			return
		}
	}
	*ss = append(*ss, entitySlot{entity, s})
}

// with returns a copy of a with r placed on GSI gi (len(a): a new one),
// sharing every GSI and slot it does not change; ok is false when r does
// not fit there.
func (pl *planner) with(a assignment, gi int, r *req) (assignment, bool) {
	if gi < pl.locked() && pl.pins.gsis[gi].Native() {
		// A deployed native index has one key schema: it takes no new
		// shape (a new native index over the attributes needs no backfill).
		return nil, false
	}
	var gsi slots
	if gi < len(a) {
		gsi = make(slots, len(a[gi]), len(a[gi])+len(r.ents))
		copy(gsi, a[gi])
	}
	// place changes only the slots of r's entities: copy those first.
	for _, e := range r.ents {
		if s := gsi.get(e); s != nil {
			fams := make([]*fam, len(s.fams))
			for i, f := range s.fams {
				c := *f
				c.reqs = slices.Clip(c.reqs) // appends copy, never share
				fams[i] = &c
			}
			gsi.set(e, &slot{fams: fams, locked: s.locked})
		}
	}
	if !pl.place(&gsi, r) {
		return nil, false
	}
	out := make(assignment, len(a), max(len(a), gi+1))
	copy(out, a)
	if gi == len(a) {
		out = append(out, gsi)
	} else {
		out[gi] = gsi
	}
	return out, true
}

// gsiSearch assigns the requirements the base keys leave unserved to GSIs
// and scores the result.
func (pl *planner) gsiSearch(g *group, base map[string]*EntityKey) *groupPlan {
	m := pl.m
	ly := pl.baseLayout(base)
	var todo []*req
	baseHot, baseLost := 0, 0
	for _, r := range g.reqs {
		pl.spend(1)
		plan := ly.serve(r.p)
		if plan.Served() {
			if ek := plan.keys[0]; introducesHot(m.Entity(r.ents[0]), r, ek.PK.Attrs(), ek.PK.Shards()) {
				baseHot++
			}
			if plan.ownerReadLast(r.p) {
				baseLost++
			}
			continue
		}
		todo = append(todo, r)
	}
	// Most constrained first: collections, then by entity and pattern name.
	sort.SliceStable(todo, func(i, j int) bool {
		a, b := todo[i], todo[j]
		if a.multi != b.multi {
			return a.multi
		}
		if a.ents[0] != b.ents[0] {
			return a.ents[0] < b.ents[0]
		}
		return a.p.Name < b.p.Name
	})
	if gp := pl.localSearch(g, base, todo); gp != nil {
		gp.score.hot += baseHot
		return gp
	}
	gp := &groupPlan{base: clone(base)}
	// A strong read the base keys leave is placed too (so the checks can
	// name it, KP102) but counts as unserved: base keys that serve it win.
	strong := 0
	for _, r := range todo {
		if r.p.BaseOnly() {
			strong++
		}
	}
	best, bestScore := pl.assign(g, base, todo)
	bestScore.unserved += strong
	bestScore.hot += baseHot
	if len(todo) == 0 {
		bestScore.lost = baseLost // else verify counted every requirement's
	}
	gp.gsis = pl.renderBest(g, base, best)
	gp.score = bestScore
	return gp
}

// weight is what one more GSI key on an entity costs: its writes per
// second (at least a token, so that fewer keys win when no rate is given).
func weight(e *model.Entity) float64 { return max(e.Writes, 0.001) }

// assign places requirements on the fewest GSIs it can, then the fewest
// keys, verifying each complete assignment against the real matcher.
func (pl *planner) assign(g *group, base map[string]*EntityKey, rs []*req) (assignment, score) {
	if len(rs) == 0 {
		return nil, score{}
	}
	var best assignment
	bestScore := score{unserved: len(rs) + 1}
	start := pl.lockedSlots(g)
	lb := 1
	for _, e := range g.ents {
		lb = max(lb, pl.localBound(e, rs))
	}
	if pl.pins != nil {
		lb = 0 // locked GSIs may take them all
	}
	// Iterative deepening on the count of new GSIs: the first count with a
	// verified assignment is the least; within it, the fewest backfills,
	// then keys. Past the GSI quota the model is refused anyway (KP301):
	// first fit.
	for k := lb; k <= min(len(rs), model.MaxGSIs+1) && best == nil && pl.steps > 0; k++ {
		pl.dfs(g, base, rs, 0, start, 0, k, &best, &bestScore)
	}
	if best == nil {
		// Budget spent: first fit, then each requirement the verification
		// still rejects on a GSI of its own.
		best, bestScore = pl.firstFit(g, base, rs, start)
	}
	return best, bestScore
}

// lockedSlots is an assignment of the lock's GSIs, each slot marking the
// group's entities that have a locked key there.
func (pl *planner) lockedSlots(g *group) assignment {
	if pl.pins == nil {
		return assignment{}
	}
	a := make(assignment, len(pl.pins.gsis))
	for gi, ix := range pl.pins.gsis {
		for _, e := range g.ents {
			if len(pl.pins.keys[ix.Name][e.Name]) > 0 {
				a[gi].set(e.Name, &slot{locked: true})
			}
		}
	}
	return a
}

// dfs tries each placement of rs[i:] on at most k GSIs.
//
// keys is a's write amplification (keysOf), carried along.
func (pl *planner) dfs(g *group, base map[string]*EntityKey, rs []*req, i int, a assignment, keys float64, k int, best *assignment, bestScore *score) {
	if !pl.spend(1 + len(a)) {
		return
	}
	if i == len(rs) {
		s, ok := pl.verify(g, base, a)
		if ok && (*best == nil || s.less(*bestScore)) {
			*best, *bestScore = a, s // never changed in place: with copies
		}
		return
	}
	r := rs[i]
	for gi := 0; gi <= len(a) && gi < pl.locked()+k; gi++ {
		next, ok := pl.with(a, gi, r)
		if !ok {
			continue
		}
		// Fewer keys cannot come from a branch that already has more
		// (keys decide once nothing before them can improve).
		added := keys
		for _, e := range r.ents {
			if gi == len(a) || a[gi].get(e) == nil || len(a[gi].get(e).fams) == 0 {
				added += weight(pl.m.Entity(e))
			}
		}
		if *best != nil && pl.pins == nil && bestScore.lost == 0 && bestScore.with == 0 && added >= bestScore.keys-1e-9 {
			continue
		}
		pl.dfs(g, base, rs, i+1, next, added, k, best, bestScore)
		if pl.steps <= 0 {
			return
		}
	}
}

// backfillsOf counts the entities with items under the lock that an
// assignment gives a new key.
func (pl *planner) backfillsOf(a assignment) int {
	if pl.pins == nil {
		return 0
	}
	seen := map[string]bool{}
	for _, g := range a {
		for _, x := range g {
			if len(x.slot.fams) > 0 && pl.pins.existed(x.entity) {
				seen[x.entity] = true
			}
		}
	}
	return len(seen)
}

// keysOf is an assignment's write amplification so far.
func keysOf(m *model.Model, a assignment) float64 {
	n := 0.0
	for _, g := range a {
		for _, x := range g {
			if len(x.slot.fams) > 0 {
				n += weight(m.Entity(x.entity))
			}
		}
	}
	return n
}

// place adds a requirement to a GSI, if each entity it reads can still
// hold one shape there (or a sparse one exclusive with the others).
func (pl *planner) place(gsi *slots, r *req) bool {
	m := pl.m
	if r.multi {
		for _, name := range r.ents {
			e := m.Entity(name)
			s := gsi.get(name)
			if s == nil {
				s = &slot{}
				gsi.set(name, s)
			}
			if len(s.fams) > 1 || s.locked {
				return false
			}
			if len(s.fams) == 0 {
				k, ok := pl.fit(e, []*req{r}, fitOptions{pk: r.eq, cool: true, pkFrom: r.id, mustFrom: -1})
				if !ok {
					return false
				}
				k.owner = r.owner
				s.fams = []*fam{{reqs: []*req{r}, key: k, fixed: r.eq, fixedFrom: r.id, owner: r.owner}}
				continue
			}
			f := s.fams[0]
			if f.fixed != nil && (!slices.Equal(f.fixed, r.eq) || f.owner != r.owner) {
				return false
			}
			k, ok := pl.fit(e, append(slices.Clone(f.reqs), r), fitOptions{pk: r.eq, cool: true, pkFrom: r.id, mustFrom: -1})
			if !ok {
				return false
			}
			k.owner = r.owner
			f.reqs, f.key, f.fixed, f.fixedFrom, f.owner, f.rendered = append(f.reqs, r), k, r.eq, r.id, r.owner, nil
		}
		return true
	}
	e := m.Entity(r.ents[0])
	s := gsi.get(e.Name)
	if s == nil {
		s = &slot{}
		gsi.set(e.Name, s)
	}
	if s.locked {
		return false
	}
	// Sparse on constants exclusive with every shape there: a shape of
	// its own (items hold one of them at most, and the others' items none
	// of it) beats widening a shape to every item.
	exclusive := len(s.fams) > 0 && len(r.consts) > 0
	for _, f := range s.fams {
		exclusive = exclusive && f.fixed == nil && exclusiveWith(f.reqs, r)
	}
	if exclusive {
		if k, ok := pl.fit(e, []*req{r}, fitOptions{must: sparseAttrs(r), cool: true, pkFrom: -1, mustFrom: r.id}); ok {
			s.fams = append(s.fams, &fam{reqs: []*req{r}, key: k})
			return true
		}
	}
	// A shape there already serves it: no new fit.
	for _, f := range s.fams {
		if f.key.serves(r) && !introducesHot(e, r, f.key.pk, f.key.shards) {
			f.reqs, f.rendered = append(f.reqs, r), nil
			return true
		}
	}
	for _, f := range s.fams {
		if len(f.reqs) >= memoReqs {
			continue // a large shape takes only what it already serves
		}
		k, ok := pl.fit(e, append(slices.Clone(f.reqs), r), fitOptions{pk: f.fixed, cool: true, pkFrom: f.fixedFrom, mustFrom: -1})
		if ok {
			if f.fixed != nil {
				k.owner = f.owner
			}
			f.reqs, f.key, f.rendered = append(f.reqs, r), k, nil
			return true
		}
	}
	// A new shape beside others: only sparse, on constants exclusive with
	// every other shape's.
	if len(s.fams) > 0 {
		when := sparseAttrs(r)
		if len(when) == 0 {
			return false
		}
		for _, f := range s.fams {
			if f.fixed != nil || !exclusiveWith(f.reqs, r) {
				return false
			}
		}
		k, ok := pl.fit(e, []*req{r}, fitOptions{must: when, cool: true, pkFrom: -1, mustFrom: r.id})
		if !ok {
			return false
		}
		s.fams = append(s.fams, &fam{reqs: []*req{r}, key: k})
		return true
	}
	k, ok := pl.fit(e, []*req{r}, fitOptions{cool: true, pkFrom: -1, mustFrom: -1})
	if !ok {
		return false
	}
	s.fams = []*fam{{reqs: []*req{r}, key: k}}
	return true
}

// sparseAttrs are a requirement's filter attributes.
func sparseAttrs(r *req) []string {
	var out []string
	for a := range r.consts {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// exclusiveWith reports whether no item can be both on a shape serving rs
// (sparse on what they all fix) and on one sparse on r's constants.
func exclusiveWith(rs []*req, r *req) bool {
	for a, v := range r.consts {
		all := true
		for _, x := range rs {
			if c, ok := x.consts[a]; !ok || c == v {
				all = false
				break
			}
		}
		if all && len(rs) > 0 {
			// Every requirement of the other shape fixes a to one value
			// (not v) only if they agree among themselves.
			first := rs[0].consts[a]
			agree := true
			for _, x := range rs[1:] {
				agree = agree && x.consts[a] == first
			}
			if agree {
				return true
			}
		}
	}
	return false
}

// fit is fit, memoized, with the step budget spent.
func (pl *planner) fit(e *model.Entity, rs []*req, o fitOptions) (akey, bool) {
	if o.allowed != nil || len(rs) > memoReqs || o.pk != nil && o.pkFrom < 0 || o.must != nil && o.mustFrom < 0 {
		pl.spend(len(rs))
		return fit(e, rs, o)
	}
	key := fitKey{entity: e.Name, n: len(rs), pkFrom: o.pkFrom, mustFrom: o.mustFrom, cool: o.cool, pk: o.pk != nil}
	for i, r := range rs {
		key.ids[i] = int32(r.id)
	}
	slices.Sort(key.ids[:len(rs)])
	if r, ok := pl.fits[key]; ok {
		return r.k, r.ok
	}
	pl.spend(len(rs))
	k, ok := fit(e, rs, o)
	pl.fits[key] = fitResult{k, ok}
	return k, ok
}

// renderAssignment renders an assignment's shapes as keys, per GSI
// (below: every sorted collection's owner below its items, ownerFirst).
func (pl *planner) renderAssignment(a assignment, below bool) []map[string][]*EntityKey {
	var out []map[string][]*EntityKey
	for gi, g := range a {
		keys := map[string][]*EntityKey{}
		for _, x := range g {
			e := pl.m.Entity(x.entity)
			name := x.entity
			for _, f := range x.slot.fams {
				keys[name] = append(keys[name], f.render(pl.m, e, pl.slotName(gi), below))
			}
		}
		out = append(out, keys)
	}
	return out
}

// verifyAs builds the group's layout with an assignment (rendered
// owner-below or not: renderAssignment) and checks every requirement
// against the matcher, scoring the layout.
func (pl *planner) verifyAs(g *group, base map[string]*EntityKey, a assignment, below bool) (score, bool) {
	pl.spend(len(g.reqs) * (1 + len(a)))
	ly := pl.groupLayout(base, pl.renderAssignment(a, below))
	s := score{gsis: len(a) - pl.locked(), with: withDemand(pl.updates, ly.keys), keys: keysOf(pl.m, a), backfills: pl.backfillsOf(a)}
	for _, r := range g.reqs {
		plan := ly.serve(r.p)
		if !plan.Served() {
			return s, false
		}
		if plan.ownerReadLast(r.p) {
			s.lost++
		}
		ek := plan.keys[0]
		if introducesHot(pl.m.Entity(r.ents[0]), r, ek.PK.Attrs(), ek.PK.Shards()) {
			s.hot++
		}
	}
	return s, true
}

// groupLayout is a layout of base keys and GSI keys (GSIs named by their
// position).
func (pl *planner) groupLayout(base map[string]*EntityKey, gsis []map[string][]*EntityKey) *layout {
	ly := pl.baseLayout(base)
	for gi, g := range gsis {
		if gi >= pl.locked() {
			ly.indexes = append(ly.indexes, pl.slotName(gi))
		}
		for e, ks := range g {
			ly.keys[e] = append(ly.keys[e], ks...)
		}
	}
	return ly
}

// firstFit places each requirement on the first GSI that takes it, and
// gives any the matcher still rejects a GSI of its own.
func (pl *planner) firstFit(g *group, base map[string]*EntityKey, rs []*req, start assignment) (assignment, score) {
	a := start
	for _, r := range rs {
		a = pl.firstSlot(a, r)
	}
	s, ok := pl.verify(g, base, a)
	if ok {
		return a, s
	}
	// Isolate what the matcher rejects: one GSI per such requirement.
	ly := pl.groupLayout(base, pl.renderBest(g, base, a))
	var bad []*req
	for _, r := range rs {
		if !ly.serve(r.p).Served() {
			bad = append(bad, r)
		}
	}
	var keep []*req
	for _, r := range rs {
		if !slices.Contains(bad, r) {
			keep = append(keep, r)
		}
	}
	a = start
	for _, r := range keep {
		a = pl.firstSlot(a, r)
	}
	for _, r := range bad {
		if next, ok := pl.with(a, len(a), r); ok {
			a = next
		}
	}
	s, _ = pl.verify(g, base, a)
	ly = pl.groupLayout(base, pl.renderBest(g, base, a))
	s.unserved = 0
	for _, r := range g.reqs {
		if !ly.serve(r.p).Served() {
			s.unserved++
		}
	}
	return a, s
}

// firstFitTries bounds the GSIs first fit tries a requirement on: past
// twice the quota the model is refused anyway (KP301), so a new GSI will
// do.
const firstFitTries = 2 * model.MaxGSIs

// firstSlot places r on the first GSI that takes it, else a new one.
func (pl *planner) firstSlot(a assignment, r *req) assignment {
	for gi := range min(len(a), firstFitTries) {
		if next, ok := pl.with(a, gi, r); ok {
			return next
		}
	}
	if next, ok := pl.with(a, len(a), r); ok {
		return next
	}
	return a
}
