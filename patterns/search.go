package patterns

import (
	"maps"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/keyplan/keyplan/patterns/model"
)

// The search. Entities that interact (a within tree, the members of a
// collection read) form a group; groups share nothing but GSI numbers, so
// each is searched alone. For a group the planner enumerates base
// placements (each entity's base key: in its own partition, its parent's,
// or a collection owner's; which fixed attributes enter it and in which
// order), and for each, assigns every requirement the base table does not
// serve to an overloaded GSI, one key per entity per GSI (or several,
// sparse on exclusive constants). Every candidate layout is verified with
// the same matcher the checks use (layout.serve). The objective is
// lexicographic: requirements served; then no hot partition introduced;
// then the fewest GSIs; then the least write amplification (weighted by
// the entities' writes). The search is exact within a step budget; past
// it, base placements are tried in order of promise and GSIs are filled
// first-fit (see DESIGN notes in docs/planner.md).

// DefaultBudget bounds the steps (fits and verifications) one Plan takes,
// whatever the model: past it, the search keeps the best layout found.
const DefaultBudget = 400_000

// score orders candidate layouts: lower is better, field by field.
type score struct {
	unserved int // requirements no index serves
	hot      int // requirements served from a partition hotter than they need
	// lsis counts the new LSIs (none with a lock): before the GSIs, as an
	// LSI limits every item collection to 10 GB and stays with the table.
	lsis int
	gsis int // GSIs (with a lock: new GSIs)
	// with counts the parameters its GSI keys demand of the model's
	// updates beyond what they pass (KP701: with:), per step and attribute.
	with int
	// lost counts the sorted collection reads with a limit that read
	// their owner last (KP107): its item falls off the first page.
	lost int
	// backfills counts the entities (with items under a lock) that get a
	// new key: their existing items must be rewritten.
	backfills int
	keys      float64 // write amplification: GSI keys weighted by writes
}

func (a score) less(b score) bool {
	switch {
	case a.unserved != b.unserved:
		return a.unserved < b.unserved
	case a.hot != b.hot:
		return a.hot < b.hot
	case a.lsis != b.lsis:
		return a.lsis < b.lsis
	case a.gsis != b.gsis:
		return a.gsis < b.gsis
	case a.with != b.with:
		return a.with < b.with
	case a.lost != b.lost:
		return a.lost < b.lost
	case a.backfills != b.backfills:
		return a.backfills < b.backfills
	}
	return a.keys < b.keys-1e-9
}

type planner struct {
	m    *model.Model
	reqs []*req
	// search1 holds one requirement of each signature: what the search
	// places (the rest are served by the same keys).
	search1 []*req
	steps   int
	// single holds each entity's single-entity requirements.
	single map[string][]*req
	// fits memoizes fit results (fits without an attribute filter).
	fits map[fitKey]fitResult
	// pins are what a lock fixes (nil: plan from scratch).
	pins *pins
	// updates are the model's update steps (withDemand).
	updates []updateStep
	// cut records that a search did not try every layout it builds
	// (Design.Search).
	cut bool
}

// locked is the number of the lock's GSIs: the first slots of every
// assignment.
func (pl *planner) locked() int {
	if pl.pins == nil {
		return 0
	}
	return len(pl.pins.gsis)
}

// slotName names GSI slot gi of an assignment: a locked GSI's own name,
// else a placeholder that design() renames.
func (pl *planner) slotName(gi int) string {
	if gi < pl.locked() {
		return pl.pins.gsis[gi].Name
	}
	return newGSIPrefix + strconv.Itoa(gi-pl.locked())
}

// newGSIPrefix marks the new GSIs of a search until design() names them.
const newGSIPrefix = "new."

// spend takes n steps from the budget; false when it is spent.
func (pl *planner) spend(n int) bool {
	pl.steps -= n
	return pl.steps > 0
}

// group is entities searched together and the requirements on them.
type group struct {
	ents []*model.Entity // parents before children
	reqs []*req
}

// groups partitions the entities: within links and collection reads join
// them. Entities keep the model's order inside a group only for parents
// before children; groups are ordered by their first entity's name.
func (pl *planner) groups() []*group {
	m := pl.m
	parent := map[string]string{}
	find := func(x string) string {
		for parent[x] != "" && parent[x] != x {
			x = parent[x]
		}
		return x
	}
	union := func(a, b string) {
		ra, rb := find(a), find(b)
		if ra != rb {
			if rb < ra {
				ra, rb = rb, ra
			}
			parent[rb] = ra
		}
	}
	names := entityNames(m)
	for _, n := range names {
		parent[n] = n
	}
	for _, e := range m.Entities {
		if e.Within != "" {
			union(e.Name, e.Within)
		}
	}
	for _, r := range pl.reqs {
		for _, n := range r.ents[1:] {
			union(r.ents[0], n)
		}
	}
	byRoot := map[string]*group{}
	var out []*group
	for _, n := range names {
		root := find(n)
		g := byRoot[root]
		if g == nil {
			g = &group{}
			byRoot[root] = g
			out = append(out, g)
		}
		g.ents = append(g.ents, m.Entity(n))
	}
	for _, g := range out {
		g.ents = parentsFirst(m, g.ents)
		for _, r := range pl.search1 {
			if slices.ContainsFunc(g.ents, func(e *model.Entity) bool { return e.Name == r.ents[0] }) {
				g.reqs = append(g.reqs, r)
			}
		}
	}
	return out
}

// entityNames lists the entity names, sorted: the planner's order, so
// that the order of the model file never changes a plan.
func entityNames(m *model.Model) []string {
	out := make([]string, len(m.Entities))
	for i, e := range m.Entities {
		out[i] = e.Name
	}
	sort.Strings(out)
	return out
}

// groupPlan is a group's best layout: base keys, and per GSI (numbered
// within the group) each entity's keys.
type groupPlan struct {
	base map[string]*EntityKey
	gsis []map[string][]*EntityKey
	// lsis are the keys per LSI slot (the lock's, then new ones).
	lsis  []map[string][]*EntityKey
	score score
	// cut is true when the search did not try every layout it builds:
	// its budget ran out, or base placements were too many (descend).
	cut bool
}

// minGroupBudget is the least budget a group gets, however small its share.
const minGroupBudget = 2_000

// searchAll searches every group, on as many cores as there are, each
// with its own share of the budget (in proportion to its requirements), so
// that a group's result never depends on the others' or on timing.
func (pl *planner) searchAll(gs []*group) []*groupPlan {
	total := 0
	for _, g := range gs {
		total += len(g.reqs)
	}
	out := make([]*groupPlan, len(gs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(gs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &planner{m: pl.m, reqs: pl.reqs, search1: pl.search1, single: pl.single, fits: map[fitKey]fitResult{}, pins: pl.pins, updates: pl.updates}
			for i := range work {
				w.steps = max(minGroupBudget, pl.steps*len(gs[i].reqs)/max(total, 1))
				w.cut = false
				out[i] = w.search(gs[i])
				if out[i] != nil {
					out[i].cut = w.cut || w.steps <= 0
				}
			}
		}()
	}
	for i := range gs {
		work <- i
	}
	close(work)
	wg.Wait()
	return out
}

// search finds a group's best layout.
//
// When the group's base placements are few (at most exhaustiveCombos) it
// tries them all; otherwise it starts from every entity's first candidate
// and improves one entity at a time (coordinate descent, two passes).
func (pl *planner) search(g *group) *groupPlan {
	if pl.combos(g) > exhaustiveCombos {
		pl.cut = true
		return pl.descend(g)
	}
	var best *groupPlan
	chosen := map[string]*EntityKey{}
	var walk func(i int)
	walk = func(i int) {
		if pl.steps <= 0 && best != nil {
			return
		}
		if i == len(g.ents) {
			gp := pl.gsiSearch(g, chosen)
			if best == nil || gp.score.less(best.score) {
				best = gp
			}
			return
		}
		e := g.ents[i]
		for _, k := range pl.baseCandidates(e, chosen) {
			chosen[e.Name] = k
			walk(i + 1)
			delete(chosen, e.Name)
			if best != nil && (pl.steps <= 0 || best.score.unserved == 0 && best.score.hot == 0 && best.score.lsis == 0 && best.score.gsis == 0 && best.score.lost == 0 && best.score.keys == 0) {
				return
			}
		}
	}
	walk(0)
	return best
}

// exhaustiveCombos bounds the base placements a group's search tries all
// of.
const exhaustiveCombos = 256

// combos estimates a group's base placements: the product of its
// entities' candidate counts, each taken after the first candidates of
// the entities before it.
func (pl *planner) combos(g *group) int {
	n := 1
	chosen := map[string]*EntityKey{}
	for _, e := range g.ents {
		cs := pl.baseCandidates(e, chosen)
		n *= max(len(cs), 1)
		if n > exhaustiveCombos {
			return n
		}
		if len(cs) > 0 {
			chosen[e.Name] = cs[0]
		}
	}
	return n
}

// descend is coordinate descent over base placements: start from each
// entity's first candidate, then, entity by entity, keep the candidate
// that scores best with the others fixed (a child's candidates follow its
// parent's choice).
func (pl *planner) descend(g *group) *groupPlan {
	chosen := map[string]*EntityKey{}
	fill := func(from int) bool {
		for _, e := range g.ents[from:] {
			cs := pl.baseCandidates(e, chosen)
			if len(cs) == 0 {
				return false
			}
			chosen[e.Name] = cs[0]
		}
		return true
	}
	if !fill(0) {
		return pl.gsiSearch(g, chosen)
	}
	best := pl.gsiSearch(g, chosen)
	for range 2 {
		improved := false
		for i, e := range g.ents {
			current := chosen[e.Name]
			for _, k := range pl.baseCandidates(e, chosen) {
				if pl.steps <= 0 {
					return best
				}
				if k == current || k.PK.Equal(current.PK) && k.SK.Equal(current.SK) {
					continue
				}
				trial := maps.Clone(chosen)
				chosen[e.Name] = k
				if !fill(i + 1) {
					chosen = trial
					continue
				}
				if gp := pl.gsiSearch(g, chosen); gp.score.less(best.score) {
					best, current, improved = gp, k, true
				} else {
					chosen = trial
				}
			}
		}
		if !improved {
			break
		}
	}
	return best
}
