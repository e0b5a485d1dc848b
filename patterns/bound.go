package patterns

import (
	"fmt"
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// Lower bounds on the GSI count, from the model alone (no layout): for
// every layout the checks accept, each entity has one key per index (or,
// on one index, several sparse on exclusive constants), and a key serves a
// pattern only if its partition attributes are among the pattern's known
// attributes, the rest of them lead its sort key and its sort attributes
// follow. Two of an entity's patterns conflict when no key can serve both
// (and their filters are not exclusive); conflicting patterns need keys on
// different indexes, one of which may be the base table. So each entity
// needs at least (the largest set of pairwise conflicting patterns) - 1
// GSIs, and the bound is the most over all entities. A collection read
// counts for each of its entities as a read by its equality attributes. A
// base key holds only id attributes (KP104): a set of
// pairwise conflicting patterns none of which such a key can serve needs a
// GSI each.
//
// Two bounds are kept: Any, over every layout the checks accept; and Cool,
// over the layouts that serve no pattern from a constant or low-cardinality
// partition its own equality attributes would have avoided (which every
// designed plan is). Cool ≥ Any.
type Bounds struct {
	Any  int `json:"anyLayout"`
	Cool int `json:"noHotPartition"`
}

// boundLimit bounds the patterns per entity the exact clique search
// covers; past it a greedy clique (still a valid bound) is used.
const boundLimit = 24

// boundCap bounds the distinct requirements per entity the bound looks
// at (the first, by pattern name): a clique among some of them is a clique
// among all, so the bound stays valid, only weaker past the cap.
const boundCap = 64

// lowerBounds computes both bounds for a model.
func lowerBounds(m *model.Model, reqs []*req) Bounds {
	var b Bounds
	for _, e := range m.Entities {
		var mine []*req
		for _, r := range reqs {
			if slices.Contains(r.ents, e.Name) && len(mine) < boundCap {
				mine = append(mine, r)
			}
		}
		for _, cool := range []bool{false, true} {
			adj := make([][]bool, len(mine))
			for i := range adj {
				adj[i] = make([]bool, len(mine))
			}
			for i := range mine {
				for j := i + 1; j < len(mine); j++ {
					c := conflicts(e, mine[i], mine[j], cool)
					adj[i][j], adj[j][i] = c, c
				}
			}
			// One of a clique may ride the base key, if a base key (id
			// attributes only) can serve it: a clique of patterns no base
			// key serves needs a GSI each.
			var strict []int
			for i, r := range mine {
				if !baseable(e, r) {
					strict = append(strict, i)
				}
			}
			sub := make([][]bool, len(strict))
			for i, a := range strict {
				sub[i] = make([]bool, len(strict))
				for j, b := range strict {
					sub[i][j] = adj[a][b]
				}
			}
			n := max(maxClique(adj)-1, maxClique(sub))
			if cool {
				b.Cool = max(b.Cool, n)
			} else {
				b.Any = max(b.Any, n)
			}
		}
	}
	b.Cool = max(b.Cool, b.Any)
	return b
}

// conflicts reports whether no key of e can serve both requirements (a
// collection read as a read of e by its equality attributes).
func conflicts(e *model.Entity, a, b *req, cool bool) bool {
	if exclusiveWith([]*req{a}, b) {
		return false
	}
	as, bs := asSingle(a), asSingle(b)
	_, ok := fit(e, []*req{as, bs}, fitOptions{cool: cool})
	return !ok
}

// baseable reports whether some base key of e (which holds id attributes
// only: the id identifies the item, and never changes) could serve r.
func baseable(e *model.Entity, r *req) bool {
	_, ok := fit(e, []*req{asSingle(r)}, fitOptions{allowed: e.IsID})
	return ok
}

// asSingle is a requirement as one entity's read: a collection read
// orders nothing.
func asSingle(r *req) *req {
	if !r.multi {
		return r
	}
	c := *r
	c.multi, c.sort = false, nil
	return &c
}

// maxClique is the size of the largest set of pairwise adjacent vertices:
// exact up to boundLimit vertices, greedy (a clique, so still a lower
// bound) beyond.
func maxClique(adj [][]bool) int {
	n := len(adj)
	if n == 0 {
		return 0
	}
	if n > boundLimit {
		best := 0
		for start := range n {
			clique := []int{start}
			for v := range n {
				if v != start && !slices.ContainsFunc(clique, func(u int) bool { return !adj[u][v] }) {
					clique = append(clique, v)
				}
			}
			best = max(best, len(clique))
		}
		return best
	}
	best := 0
	var grow func(cands []int, size int)
	grow = func(cands []int, size int) {
		if size+len(cands) <= best {
			return
		}
		if len(cands) == 0 {
			best = max(best, size)
			return
		}
		v := cands[0]
		var with []int
		for _, u := range cands[1:] {
			if adj[v][u] {
				with = append(with, u)
			}
		}
		grow(with, size+1)
		grow(cands[1:], size)
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	grow(all, 0)
	return best
}

// String says what the bound is relative to when the two differ.
func (b Bounds) String() string {
	if b.Cool == b.Any {
		return fmt.Sprintf("lower bound %d", b.Cool)
	}
	return fmt.Sprintf("lower bound %d (%d if a pattern may be served from a hotter partition than its where needs)", b.Cool, b.Any)
}

// localBound is a quick lower bound on the GSIs one entity's unserved
// requirements need: the most of them that pairwise cannot share a shape.
func (pl *planner) localBound(e *model.Entity, rs []*req) int {
	var mine []*req
	for _, r := range rs {
		if slices.Contains(r.ents, e.Name) {
			mine = append(mine, r)
		}
	}
	if len(mine) > 16 {
		return 1
	}
	conflict := func(a, b *req) bool {
		_, ok := pl.fit(e, []*req{a, b}, fitOptions{cool: true, pkFrom: -1, mustFrom: -1})
		if ok || exclusiveWith([]*req{a}, b) {
			return false
		}
		return true
	}
	adj := make([][]bool, len(mine))
	for i := range mine {
		adj[i] = make([]bool, len(mine))
		for j := range mine {
			if i < j {
				c := conflict(mine[i], mine[j])
				adj[i][j] = c
			} else if i > j {
				adj[i][j] = adj[j][i]
			}
		}
	}
	return max(1, maxClique(adj))
}
