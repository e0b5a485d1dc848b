package patterns

import (
	"slices"
	"sort"
	"strings"
)

// requirement is a pattern the base table cannot serve: it needs a GSI key
// shape for its entity (or, for a collection, one shared by its entities).
type requirement struct {
	pattern  *Pattern
	entities []string
	eq       []string
	consts   []Const
	sort     string
	shards   int
}

// shape is a GSI key shape: partition attributes and constants, sort
// attributes (single entity), and the entities that hold it.
type shape struct {
	entities []string
	pk       []string
	consts   []Const
	sk       []string
	shards   int
	reqs     []*requirement
	index    int
}

func newRequirement(m *Model, p *Pattern) *requirement {
	r := &requirement{pattern: p, entities: p.Entities, eq: whereOf(m, p), sort: p.Sort}
	r.consts = append([]Const(nil), p.Filter...)
	sort.Slice(r.consts, func(i, j int) bool { return r.consts[i].Attr < r.consts[j].Attr })
	if p.Shards > 1 {
		r.shards = p.Shards
	}
	return r
}

func sameConsts(a, b []Const) bool { return slices.Equal(a, b) }

// exclusive reports whether no item can match both sets of constants.
func exclusive(a, b []Const) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Attr == y.Attr && x.Value != y.Value {
				return true
			}
		}
	}
	return false
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// serves reports whether a single-entity shape serves a requirement.
func (s *shape) serves(r *requirement) bool {
	if len(r.entities) != 1 || len(s.entities) != 1 || s.entities[0] != r.entities[0] ||
		s.shards != r.shards || !sameConsts(s.consts, r.consts) || !subset(s.pk, r.eq) {
		return false
	}
	rest := minus(r.eq, s.pk)
	if len(rest) > len(s.sk) || !subset(s.sk[:len(rest)], rest) {
		return false
	}
	if r.sort != "" {
		return len(s.sk) > len(rest) && s.sk[len(rest)] == r.sort
	}
	return true
}

// singleShapes covers one entity's requirements with few shapes: each
// requirement's own shape, plus shapes that serve two requirements at once
// (a coarser partition whose sort key leads with the finer one's extra
// equality attributes), chosen greedily.
func singleShapes(reqs []*requirement) []*shape {
	var cands []*shape
	add := func(s *shape) {
		for _, c := range cands {
			if slices.Equal(c.pk, s.pk) && slices.Equal(c.sk, s.sk) && c.shards == s.shards && sameConsts(c.consts, s.consts) {
				return
			}
		}
		cands = append(cands, s)
	}
	for _, r := range reqs {
		s := &shape{entities: r.entities, pk: r.eq, consts: r.consts, shards: r.shards}
		if r.sort != "" {
			s.sk = []string{r.sort}
		}
		add(s)
	}
	for _, a := range reqs {
		for _, b := range reqs {
			if a == b || a.shards != b.shards || !sameConsts(a.consts, b.consts) || !subset(a.eq, b.eq) || len(a.eq) >= len(b.eq) {
				continue
			}
			extra := minus(b.eq, a.eq)
			if a.sort != "" && !slices.Contains(extra, a.sort) {
				continue
			}
			var sk []string
			if a.sort != "" {
				sk = append(sk, a.sort)
			}
			sk = append(sk, minus(extra, sk)...)
			if b.sort != "" {
				sk = append(sk, b.sort)
			}
			add(&shape{entities: a.entities, pk: a.eq, consts: a.consts, sk: sk, shards: a.shards})
		}
	}
	var chosen []*shape
	covered := map[*requirement]bool{}
	for len(covered) < len(reqs) {
		var best *shape
		var bestReqs []*requirement
		for _, c := range cands {
			var rs []*requirement
			for _, r := range reqs {
				if !covered[r] && c.serves(r) {
					rs = append(rs, r)
				}
			}
			if len(rs) > len(bestReqs) || len(rs) == len(bestReqs) && len(rs) > 0 && len(c.pk) > len(best.pk) {
				best, bestReqs = c, rs
			}
		}
		if best == nil {
			break // cannot happen: every requirement's own shape serves it
		}
		for _, r := range bestReqs {
			covered[r] = true
		}
		best.reqs = bestReqs
		chosen = append(chosen, best)
	}
	return chosen
}

// coupledShapes groups collection requirements that share partition
// attributes and constants, when their entity sets stay contiguous ranges
// of the merged collection's tags.
func coupledShapes(m *Model, reqs []*requirement) []*shape {
	var out []*shape
	for _, r := range reqs {
		merged := false
		for _, s := range out {
			if !slices.Equal(sortedCopy(s.pk), sortedCopy(r.eq)) || !sameConsts(s.consts, r.consts) || s.shards != r.shards {
				continue
			}
			union := append(append([]string(nil), s.entities...), minus(r.entities, s.entities)...)
			all := append(append([]*requirement(nil), s.reqs...), r)
			if contiguous(m, union, all) {
				s.entities, s.reqs = declOrder(m, union), all
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, &shape{entities: declOrder(m, r.entities), pk: r.eq, consts: r.consts, shards: r.shards, reqs: []*requirement{r}})
		}
	}
	return out
}

// contiguous reports whether each requirement's entities are a contiguous
// run of the union sorted by tag.
func contiguous(_ *Model, union []string, reqs []*requirement) bool {
	tags := make([]string, len(union))
	for i, e := range union {
		tags[i] = Tag(e)
	}
	sort.Strings(tags)
	for _, r := range reqs {
		lo, hi, n := -1, -1, 0
		for i, t := range tags {
			for _, e := range r.entities {
				if Tag(e) == t {
					if lo < 0 {
						lo = i
					}
					hi, n = i, n+1
				}
			}
		}
		if hi-lo+1 != n {
			return false
		}
	}
	return true
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

func declOrder(m *Model, names []string) []string {
	var out []string
	for _, e := range m.Entities {
		if slices.Contains(names, e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

func (s *shape) conflicts(t *shape) bool {
	if exclusive(s.consts, t.consts) {
		return false
	}
	for _, e := range s.entities {
		if slices.Contains(t.entities, e) {
			return true
		}
	}
	return false
}

// lowerBound is the most shapes one entity holds that pairwise conflict:
// no design with these base keys has fewer GSIs.
func lowerBound(m *Model, shapes []*shape) int {
	best := 0
	for _, e := range m.Entities {
		var mine []*shape
		for _, s := range shapes {
			if slices.Contains(s.entities, e.Name) {
				mine = append(mine, s)
			}
		}
		best = max(best, maxClique(mine))
	}
	return best
}

// maxClique finds the largest set of pairwise conflicting shapes
// (exhaustive for the handful one entity holds, greedy beyond).
func maxClique(ss []*shape) int {
	if len(ss) > 20 {
		n := 0
		var clique []*shape
		for _, s := range ss {
			ok := true
			for _, c := range clique {
				ok = ok && s.conflicts(c)
			}
			if ok {
				clique, n = append(clique, s), n+1
			}
		}
		return n
	}
	best := 0
	var grow func(i int, clique []*shape)
	grow = func(i int, clique []*shape) {
		if len(clique)+len(ss)-i <= best {
			return
		}
		if i == len(ss) {
			best = len(clique)
			return
		}
		ok := true
		for _, c := range clique {
			ok = ok && ss[i].conflicts(c)
		}
		if ok {
			grow(i+1, append(clique, ss[i]))
		}
		grow(i+1, clique)
	}
	grow(0, nil)
	return best
}

// color assigns each shape an index so that conflicting shapes differ,
// using as few as it can find: an exact search from the lower bound up for
// small graphs, DSatur otherwise. It returns the number of indexes.
func color(shapes []*shape, lb int) int {
	n := len(shapes)
	if n == 0 {
		return 0
	}
	adj := make([][]int, n)
	for i := range shapes {
		for j := range shapes {
			if i != j && shapes[i].conflicts(shapes[j]) {
				adj[i] = append(adj[i], j)
			}
		}
	}
	// Model order first: it keeps the earliest patterns together on GSI1
	// and reaches the bound in the common case; DSatur and an exact search
	// improve on it where it does not.
	colors, k := sequential(adj)
	if k > lb {
		if c, kd := dsatur(adj); kd < k {
			colors, k = c, kd
		}
	}
	for try := max(lb, 1); try < k; try++ {
		if exact, ok := exactColor(adj, try, 200000); ok {
			colors, k = exact, try
			break
		}
	}
	// Renumber by first use, so GSI1 holds the earliest patterns.
	remap := map[int]int{}
	for i, c := range colors {
		if _, ok := remap[c]; !ok {
			remap[c] = len(remap)
		}
		shapes[i].index = remap[c]
	}
	return k
}

func sequential(adj [][]int) ([]int, int) {
	colors := make([]int, len(adj))
	k := 0
	for v := range adj {
		used := map[int]bool{}
		for _, u := range adj[v] {
			if u < v {
				used[colors[u]] = true
			}
		}
		c := 0
		for used[c] {
			c++
		}
		colors[v], k = c, max(k, c+1)
	}
	return colors, k
}

func dsatur(adj [][]int) ([]int, int) {
	n := len(adj)
	colors := make([]int, n)
	for i := range colors {
		colors[i] = -1
	}
	for range n {
		pick, bestSat, bestDeg := -1, -1, -1
		for v := range n {
			if colors[v] >= 0 {
				continue
			}
			seen := map[int]bool{}
			for _, u := range adj[v] {
				if colors[u] >= 0 {
					seen[colors[u]] = true
				}
			}
			if len(seen) > bestSat || len(seen) == bestSat && len(adj[v]) > bestDeg {
				pick, bestSat, bestDeg = v, len(seen), len(adj[v])
			}
		}
		used := map[int]bool{}
		for _, u := range adj[pick] {
			if colors[u] >= 0 {
				used[colors[u]] = true
			}
		}
		c := 0
		for used[c] {
			c++
		}
		colors[pick] = c
	}
	k := 0
	for _, c := range colors {
		k = max(k, c+1)
	}
	return colors, k
}

// exactColor searches for a k-coloring, giving up after budget steps.
func exactColor(adj [][]int, k, budget int) ([]int, bool) {
	n := len(adj)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(adj[order[a]]) > len(adj[order[b]]) })
	colors := make([]int, n)
	for i := range colors {
		colors[i] = -1
	}
	steps := 0
	var try func(i, used int) bool
	try = func(i, used int) bool {
		if i == n {
			return true
		}
		if steps++; steps > budget {
			return false
		}
		v := order[i]
		for c := 0; c < k && c <= used; c++ {
			ok := true
			for _, u := range adj[v] {
				if colors[u] == c {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			colors[v] = c
			if try(i+1, max(used, c+1)) {
				return true
			}
			colors[v] = -1
		}
		return false
	}
	return colors, try(0, 0)
}

// keys renders a shape's key for one entity on the named GSI.
func (s *shape) key(m *Model, entity, index string) *EntityKey {
	owner := m.Entity(s.entities[0])
	e := m.Entity(entity)
	pk := Template{}.lit(Tag(owner.Name))
	for _, a := range s.pk {
		if owner.IsID(a) {
			pk = pk.lit(string(Sep)).attr(a)
		} else {
			pk = pk.lit(string(Sep) + strings.ToUpper(a) + string(Sep)).attr(a)
		}
	}
	for _, c := range s.consts {
		enc, _ := e.Attr(c.Attr).EncodeKey(c.Value)
		pk = pk.lit(string(Sep) + strings.ToUpper(c.Attr) + string(Sep) + enc)
	}
	if s.shards > 1 {
		pk = pk.lit(string(Sep))
		pk = append(pk, Segment{Shards: s.shards})
	}
	sk := Template{}.lit(Tag(e.Name))
	var used []string
	used = append(used, s.pk...)
	for _, a := range s.sk {
		sk = sk.lit(string(Sep)).attr(a)
		used = append(used, a)
	}
	for _, id := range e.ID {
		if !slices.Contains(used, id) {
			sk = sk.lit(string(Sep)).attr(id)
		}
	}
	return &EntityKey{Index: index, PK: pk, SK: sk, When: s.consts}
}
