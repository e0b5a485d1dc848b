package patterns

import (
	"maps"
	"slices"
	"strconv"

	"github.com/keyplan/keyplan/patterns/model"
)

// The LSI slot search: for one base placement of a group, where an LSI
// can take part (a strongly consistent read the base keys leave, that a
// key in the base partition can serve; or a lock's LSIs), requirements are
// assigned to LSI slots and GSI slots together. An LSI slot holds one
// shape per entity whose partition key is the entity's base key's; a
// strong read goes only to an LSI (a GSI cannot read it consistently); an
// eventually consistent read goes to an LSI the table has anyway when that
// saves a GSI or a key, else to a GSI. The LSIs come first in the
// objective: the fewest LSIs that serve the strong reads (stage one: an
// LSI limits every item collection to 10 GB and is created only with the
// table), then, with that many, the fewest GSIs (stage two), exactly
// within the budget as the GSI search is.

// localLocked is the number of the lock's LSIs: the first LSI slots.
func (pl *planner) localLocked() int {
	if pl.pins == nil {
		return 0
	}
	return len(pl.pins.lsis)
}

// localSlotName names LSI slot li: a locked LSI's own name, else a
// placeholder that design() renames.
func (pl *planner) localSlotName(li int) string {
	if li < pl.localLocked() {
		return pl.pins.lsis[li].Name
	}
	return newLSIPrefix + strconv.Itoa(li-pl.localLocked())
}

// localCap is the most LSI slots a search may use: the lock's (a deployed
// table gets no new LSI), else DynamoDB's limit.
func (pl *planner) localCap() int {
	if pl.pins != nil {
		return pl.localLocked()
	}
	return model.MaxLSIs
}

// localSearch is gsiSearch with LSIs, for requirements todo the base keys
// leave; nil when no LSI can take part (the GSI search alone then runs,
// as it did before LSIs).
func (pl *planner) localSearch(g *group, base map[string]*EntityKey, todo []*req) *groupPlan {
	eligible := map[*req]bool{}
	var strong []*req
	for _, r := range todo {
		if pl.localFits(base, r) {
			eligible[r] = true
			if r.p.Consistent {
				strong = append(strong, r)
			}
		}
	}
	if len(strong) == 0 && (pl.localLocked() == 0 || len(eligible) == 0) {
		return nil
	}
	// Stage one: the fewest LSI slots that hold the strong reads (those
	// that fit none go to GSIs, where KP102 names them).
	start := pl.lockedLocalSlots(g)
	la, onLocal := pl.localStrong(base, strong, start)
	st := &localState{g: g, base: base, rs: todo, eligible: eligible, strong: map[*req]bool{}, slots: len(la)}
	for _, r := range strong {
		if onLocal[r] {
			st.strong[r] = true
		} else {
			eligible[r] = false // on a GSI, where KP102 names it
		}
	}
	for _, r := range todo {
		if r.p.Consistent && !st.strong[r] {
			st.lost++ // a strong read on a GSI: counted unserved
		}
	}
	// Stage two: with that many LSI slots, the fewest GSIs.
	lb := 0
	if pl.pins == nil {
		var eventual []*req
		for _, r := range todo {
			if !st.strong[r] {
				eventual = append(eventual, r)
			}
		}
		for _, e := range g.ents {
			if len(eventual) > 0 {
				lb = max(lb, pl.localBound(e, eventual)-(st.slots-pl.localLocked()))
			}
		}
		lb = max(lb, 0)
	}
	for k := lb; k <= min(len(todo), model.MaxGSIs+1) && st.best == nil && pl.steps > 0; k++ {
		pl.dfsLocal(st, 0, start, pl.lockedSlots(g), 0, k)
	}
	if st.best == nil {
		st.bestLocal, st.best, st.score = pl.firstFitLocal(st, la)
	}
	return &groupPlan{base: clone(base), gsis: pl.renderAssignment(st.best, false), lsis: pl.renderLocal(st.bestLocal, base), score: st.score}
}

// localState is one local search's inputs and its best assignment so far.
type localState struct {
	g    *group
	base map[string]*EntityKey
	rs   []*req
	// eligible: an LSI key in the base partition can serve it; strong:
	// a strong read placed on an LSI (it goes nowhere else).
	eligible, strong map[*req]bool
	// slots is the LSI slots there may be (the lock's, and stage one's).
	slots int
	// lost counts the strong reads no LSI holds.
	lost            int
	best, bestLocal assignment
	score           score
	hasBest         bool
}

// localFits reports whether an LSI key of r's entities, in their base
// partitions, could serve r: their base partition attributes are known to
// r (a collection's members share one base partition key) and r is not
// write-sharded.
func (pl *planner) localFits(base map[string]*EntityKey, r *req) bool {
	if r.shards > 0 {
		return false
	}
	var pk model.Template
	for i, name := range r.ents {
		bk := base[name]
		if bk == nil || !subset(bk.PK.Attrs(), r.eq) || bk.PK.Shards() > 0 {
			return false
		}
		if i == 0 {
			pk = bk.PK
		} else if !bk.PK.Equal(pk) {
			return false
		}
	}
	for _, name := range r.ents {
		if _, ok := pl.fit(pl.m.Entity(name), []*req{r}, pl.localOptions(base, name)); !ok {
			return false
		}
	}
	return true
}

// localOptions constrain an LSI shape of an entity: its base key's
// partition attributes, no hot partition introduced.
func (pl *planner) localOptions(base map[string]*EntityKey, entity string) fitOptions {
	return fitOptions{pk: sortedCopy(base[entity].PK.Attrs()), cool: true, pkFrom: -1, mustFrom: -1}
}

// lockedLocalSlots is an assignment of the lock's LSIs, each slot marking
// the group's entities that have a locked key there.
func (pl *planner) lockedLocalSlots(g *group) assignment {
	a := make(assignment, pl.localLocked())
	for li := range a {
		ix := pl.pins.lsis[li]
		for _, e := range g.ents {
			if len(pl.pins.keys[ix.Name][e.Name]) > 0 {
				a[li].set(e.Name, &slot{locked: true})
			}
		}
	}
	return a
}

// localStrong is stage one: the strong reads on the fewest LSI slots
// (start: the lock's), placing as many as fit within localCap. It returns
// the assignment and the reads it placed.
func (pl *planner) localStrong(base map[string]*EntityKey, strong []*req, start assignment) (assignment, map[*req]bool) {
	best, bestOn := start, map[*req]bool{}
	bestLost := len(strong) + 1
	on := map[*req]bool{}
	var walk func(i int, a assignment, lost int)
	walk = func(i int, a assignment, lost int) {
		if !pl.spend(1+len(a)) || lost > bestLost || lost == bestLost && len(a) >= len(best) {
			return
		}
		if i == len(strong) {
			best, bestLost, bestOn = a, lost, maps.Clone(on)
			return
		}
		r := strong[i]
		for li := 0; li <= len(a) && li < pl.localCap(); li++ {
			if next, ok := pl.withLocal(a, li, r, base); ok {
				on[r] = true
				walk(i+1, next, lost)
				delete(on, r)
			}
		}
		walk(i+1, a, lost+1)
	}
	walk(0, start, 0)
	return best, bestOn
}

// clone copies base keys by entity.
func clone(base map[string]*EntityKey) map[string]*EntityKey { return maps.Clone(base) }

// dfsLocal is dfs with LSI slots: each requirement on an LSI slot (the
// eligible ones; a strong read only there) or on one of at most k new GSIs.
func (pl *planner) dfsLocal(st *localState, i int, la, a assignment, keys float64, k int) {
	if !pl.spend(1 + len(a) + len(la)) {
		return
	}
	if i == len(st.rs) {
		s, ok := pl.verifyLocal(st, la, a)
		if ok && (!st.hasBest || s.less(st.score)) {
			st.bestLocal, st.best, st.score, st.hasBest = la, a, s, true
		}
		return
	}
	r := st.rs[i]
	added := func(slots assignment, at int) float64 {
		n := keys
		for _, e := range r.ents {
			if at == len(slots) || slots[at].get(e) == nil || len(slots[at].get(e).fams) == 0 {
				n += weight(pl.m.Entity(e))
			}
		}
		return n
	}
	if st.eligible[r] {
		for li := 0; li <= len(la) && li < st.slots; li++ {
			if next, ok := pl.withLocal(la, li, r, st.base); ok {
				if n := added(la, li); !st.hasBest || pl.pins != nil || n < st.score.keys-1e-9 {
					pl.dfsLocal(st, i+1, next, a, n, k)
				}
				if pl.steps <= 0 {
					return
				}
			}
		}
	}
	if st.strong[r] {
		return
	}
	for gi := 0; gi <= len(a) && gi < pl.locked()+k; gi++ {
		next, ok := pl.with(a, gi, r)
		if !ok {
			continue
		}
		if n := added(a, gi); !st.hasBest || pl.pins != nil || n < st.score.keys-1e-9 {
			pl.dfsLocal(st, i+1, la, next, n, k)
		}
		if pl.steps <= 0 {
			return
		}
	}
}

// withLocal is with for LSI slot li.
func (pl *planner) withLocal(la assignment, li int, r *req, base map[string]*EntityKey) (assignment, bool) {
	var ss slots
	if li < len(la) {
		ss = make(slots, len(la[li]), len(la[li])+len(r.ents))
		copy(ss, la[li])
	}
	for _, e := range r.ents {
		if s := ss.get(e); s != nil {
			fams := make([]*fam, len(s.fams))
			for i, f := range s.fams {
				c := *f
				c.reqs = slices.Clip(c.reqs)
				fams[i] = &c
			}
			ss.set(e, &slot{fams: fams, locked: s.locked})
		}
	}
	if !pl.placeLocal(&ss, r, base) {
		return nil, false
	}
	out := make(assignment, len(la), max(len(la), li+1))
	copy(out, la)
	if li == len(la) {
		out = append(out, ss)
	} else {
		out[li] = ss
	}
	return out, true
}

// placeLocal adds a requirement to an LSI slot: each entity it reads holds
// one shape there, in its base partition.
func (pl *planner) placeLocal(ss *slots, r *req, base map[string]*EntityKey) bool {
	for _, name := range r.ents {
		e := pl.m.Entity(name)
		s := ss.get(name)
		if s == nil {
			s = &slot{}
			ss.set(name, s)
		}
		if s.locked {
			return false
		}
		owner := name
		if r.multi {
			owner = r.owner
		}
		if len(s.fams) == 0 {
			k, ok := pl.fit(e, []*req{r}, pl.localOptions(base, name))
			if !ok {
				return false
			}
			k.owner = owner
			s.fams = []*fam{{reqs: []*req{r}, key: k, owner: owner}}
			continue
		}
		f := s.fams[0]
		if !r.multi && f.key.serves(r) {
			f.reqs, f.rendered = append(f.reqs, r), nil
			continue
		}
		k, ok := pl.fit(e, append(slices.Clone(f.reqs), r), pl.localOptions(base, name))
		if !ok {
			return false
		}
		k.owner = f.owner
		f.reqs, f.key, f.rendered = append(f.reqs, r), k, nil
	}
	return true
}

// renderLocal renders LSI slots' shapes as keys: the entity's base
// partition key, the shape's sort key.
func (pl *planner) renderLocal(la assignment, base map[string]*EntityKey) []map[string][]*EntityKey {
	var out []map[string][]*EntityKey
	for li, ss := range la {
		keys := map[string][]*EntityKey{}
		for _, x := range ss {
			e := pl.m.Entity(x.entity)
			for _, f := range x.slot.fams {
				// An LSI's collection is keyed owner-below (the base
				// table's partition: its owner sorts first ascending).
				if f.rendered == nil {
					f.rendered = &renderings{}
				}
				if f.rendered.below == nil {
					owner := pl.m.Entity(f.owner)
					f.rendered.below = &EntityKey{Index: pl.localSlotName(li), PK: base[x.entity].PK, SK: renderSK(e, sortedPrefix(owner, e, f.reqs, true), f.key.pk, f.key.sk)}
				}
				keys[x.entity] = append(keys[x.entity], f.rendered.below)
			}
		}
		out = append(out, keys)
	}
	return out
}

// verifyLocal is verify with LSI slots: every requirement served, each
// strong read placed on an LSI served there, scored with the new LSIs.
func (pl *planner) verifyLocal(st *localState, la, a assignment) (score, bool) {
	pl.spend(len(st.g.reqs) * (1 + len(a) + len(la)))
	ly := pl.layoutWith(st.base, pl.renderAssignment(a, false), pl.renderLocal(la, st.base))
	s := score{lsis: len(la) - pl.localLocked(), gsis: len(a) - pl.locked(), with: withDemand(pl.updates, ly.keys), keys: keysOf(pl.m, a) + keysOf(pl.m, la),
		backfills: pl.backfillsOf(append(slices.Clip(a), la...)), unserved: st.lost}
	for _, r := range st.g.reqs {
		plan := ly.serve(r.p)
		if !plan.Served() || st.strong[r] && !ly.local[plan.Index] {
			return s, false
		}
		ek := plan.keys[0]
		if introducesHot(pl.m.Entity(r.ents[0]), r, ek.PK.Attrs(), ek.PK.Shards()) {
			s.hot++
		}
	}
	return s, true
}

// firstFitLocal is the local search past its budget: stage one's LSIs for
// the strong reads, the rest first fit on GSIs.
func (pl *planner) firstFitLocal(st *localState, la assignment) (assignment, assignment, score) {
	var rest []*req
	for _, r := range st.rs {
		if !st.strong[r] {
			rest = append(rest, r)
		}
	}
	a := pl.lockedSlots(st.g)
	for _, r := range rest {
		a = pl.firstSlot(a, r)
	}
	s, _ := pl.verifyLocal(st, la, a)
	ly := pl.layoutWith(st.base, pl.renderAssignment(a, false), pl.renderLocal(la, st.base))
	s.unserved = st.lost
	for _, r := range st.g.reqs {
		if plan := ly.serve(r.p); !plan.Served() || st.strong[r] && !ly.local[plan.Index] {
			s.unserved++
		}
	}
	return la, a, s
}

// layoutWith is groupLayout with LSI keys: the table, the LSIs (the
// lock's, then new ones), the GSIs.
func (pl *planner) layoutWith(base map[string]*EntityKey, gsis, lsis []map[string][]*EntityKey) *layout {
	ly := pl.groupLayout(base, gsis)
	if len(lsis) == 0 {
		return ly
	}
	if ly.local == nil {
		ly.local = map[string]bool{}
	}
	var names []string
	for li, keys := range lsis {
		name := pl.localSlotName(li)
		if li >= pl.localLocked() {
			names = append(names, name)
			ly.local[name] = true
		}
		for e, ks := range keys {
			ly.keys[e] = append(ly.keys[e], ks...)
		}
	}
	at := 1 + pl.localLocked()
	ly.indexes = append(ly.indexes[:at:at], append(names, ly.indexes[at:]...)...)
	return ly
}
