package patterns

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"weak"

	"github.com/keyplan/keyplan/patterns/model"
)

// req is what one pattern needs of a layout: the entities it reads, the
// attributes its caller fixes (where, and filter constants, whose values
// are known too), the attributes it orders by, and its shards.
type req struct {
	p      *model.Pattern
	ents   []string
	eq     []string          // where and filter attributes, sorted
	consts map[string]string // filter constants
	sort   []string
	shards int
	multi  bool
	// whole marks a read (without order) whose known attributes hold its
	// entity's id: any key it knows whole (and that holds the id) reads at
	// most its item.
	whole bool
	// owner is the entity whose tag leads a collection's partition key.
	owner string
	// sorted is the member a sorted collection orders by sort (the
	// others, its owner, sort before it).
	sorted string
	// id numbers the requirement within its plan (for memoized fits).
	id int
}

func newReq(m *model.Model, p *model.Pattern) *req {
	r := &req{p: p, ents: p.Entities, sort: p.Sort, multi: len(p.Entities) > 1, consts: map[string]string{}}
	r.eq = append(r.eq, m.Where(p)...)
	for _, c := range p.Filter {
		r.consts[c.Attr] = c.Value
		r.eq = append(r.eq, c.Attr)
	}
	sort.Strings(r.eq)
	if p.Shards > 1 {
		r.shards = p.Shards
	}
	if r.multi {
		r.owner = m.CollectionOwner(p)
		r.sorted = m.SortedMember(p)
	} else if e := m.Entity(r.ents[0]); len(p.Sort) == 0 && e != nil && subset(e.ID, r.eq) {
		r.whole = true
	}
	return r
}

// derived is what the planner keeps of each pattern of a validated model.
type derived struct {
	req   *req
	known known
}

// derivations holds each planned model's derived patterns (memoize),
// weakly: an entry goes with its model.
var derivations sync.Map // weak.Pointer[Model] → map[*Pattern]*derived

// memoize derives every pattern of a model that has just validated, once:
// the planner and the matcher read them for every candidate layout.
func memoize(m *model.Model) {
	ds := make(map[*model.Pattern]*derived, len(m.Patterns))
	for _, p := range m.Patterns {
		ds[p] = &derived{req: newReq(m, p), known: knownOf(m, p)}
	}
	k := weak.Make(m)
	if _, loaded := derivations.Swap(k, ds); !loaded {
		runtime.AddCleanup(m, func(k weak.Pointer[model.Model]) { derivations.Delete(k) }, k)
	}
}

// forget drops what memoize derived of a model (which has changed).
func forget(m *model.Model) { derivations.Delete(weak.Make(m)) }

// derive returns a pattern's requirement and known attributes: as memoize
// derived them, computed for a pattern it has not seen.
func derive(m *model.Model, p *model.Pattern) *derived {
	if ds, ok := derivations.Load(weak.Make(m)); ok {
		if d, ok := ds.(map[*model.Pattern]*derived)[p]; ok {
			return d
		}
	}
	return &derived{req: newReq(m, p), known: knownOf(m, p)}
}

// forMember is a collection's requirement as one of its members sees it:
// the order applies to the member it sorts, the others order nothing.
func (r *req) forMember(entity string) *req {
	if !r.multi || len(r.sort) == 0 || r.sorted == entity {
		return r
	}
	c := *r
	c.sort = nil
	return &c
}

// membersOf is rs as entity e's shapes see them (forMember).
func membersOf(e *model.Entity, rs []*req) []*req {
	for i, r := range rs {
		if c := r.forMember(e.Name); c != r {
			out := slices.Clone(rs)
			for j := i; j < len(rs); j++ {
				out[j] = rs[j].forMember(e.Name)
			}
			return out
		}
	}
	return rs
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

func (r *req) has(a string) bool { return slices.Contains(r.eq, a) }

// signature identifies what a requirement asks of a layout: two with the
// same one are served by the same keys (the planner searches for one of
// them). strong tells strong reads apart (they need the base table).
func (r *req) signature(strong bool) string {
	var b strings.Builder
	b.WriteString(strings.Join(r.ents, ","))
	b.WriteString("|" + strings.Join(r.eq, ","))
	for _, a := range sparseAttrs(r) {
		b.WriteString("|" + a + "=" + r.consts[a])
	}
	b.WriteString("|" + strings.Join(r.sort, ","))
	fmt.Fprintf(&b, "|%d|%v|%v", r.shards, r.whole, strong && r.p.BaseOnly())
	if r.multi && r.sorted != "" && r.p.Limit > 0 {
		// Which end its owner must be at to come on the first page
		// (ownerfirst.go): a limited read each way is searched apart.
		fmt.Fprintf(&b, "|desc=%v", r.p.Desc)
	}
	return b.String()
}

// distinct keeps the first requirement of each signature.
func distinct(rs []*req, strong bool) []*req {
	seen := map[string]bool{}
	var out []*req
	for _, r := range rs {
		s := r.signature(strong)
		if !seen[s] {
			seen[s] = true
			out = append(out, r)
		}
	}
	return out
}

// highCardinality stands for an attribute of unknown cardinality: assumed
// high.
const highCardinality = math.MaxInt32

// cardinalityOf is the number of partitions a key over attrs (and shards)
// spreads an entity's items over: the product of the attributes'
// cardinalities, where a filter constant counts once.
func cardinalityOf(e *model.Entity, attrs []string, consts map[string]string, shards int) int64 {
	n := int64(max(shards, 1))
	for _, a := range attrs {
		if _, fixed := consts[a]; fixed {
			continue
		}
		c := int64(highCardinality)
		if attr := e.Attr(a); attr != nil && cardinality(attr) > 0 {
			c = int64(cardinality(attr))
		}
		n = min(n*c, highCardinality)
	}
	return n
}

// introducesHot reports whether serving r from a partition over pk puts it
// on a constant or low-cardinality partition that its own equality
// attributes would have avoided: a hot key introduced by the layout, not
// asked for by the pattern.
func introducesHot(e *model.Entity, r *req, pk []string, shards int) bool {
	return cardinalityOf(e, pk, r.consts, shards) < LowCardinality &&
		cardinalityOf(e, r.eq, r.consts, r.shards) >= LowCardinality
}

// akey is a key shape, before it is rendered as templates: the entity
// whose tag leads the partition key, the partition attributes, the sort
// attributes after the entity's tag (the rest of the id follows them).
type akey struct {
	owner  string
	pk     []string
	shards int
	sk     []string
}

// serves reports whether the shape serves a single-entity requirement in
// one request: its partition attributes are known, the rest of the known
// attributes lead the sort key, and the sort attributes follow them.
func (k *akey) serves(r *req) bool {
	if k.shards != r.shards {
		return false
	}
	for _, a := range k.pk {
		if !r.has(a) {
			return false
		}
	}
	rest := len(r.eq) - len(k.pk)
	if len(k.sk) < rest+len(r.sort) {
		return false
	}
	for _, a := range k.sk[:rest] {
		if !r.has(a) || slices.Contains(k.pk, a) {
			return false
		}
	}
	return slices.Equal(k.sk[rest:rest+len(r.sort)], r.sort)
}

// servesWhole reports whether a get that knows its entity's whole id also
// knows every attribute of the shape: the key is known whole and, holding
// the id (the rendered sort key ends with the rest of it), names one item.
func (r *req) servesWhole(pk, sk []string) bool {
	return r.whole && subset(pk, r.eq) && subset(sk, r.eq)
}

// fitOptions constrain a fit.
type fitOptions struct {
	// pk, when set, is the exact partition attribute set (a collection
	// fixes it for its members).
	pk []string
	// must lists attributes the partition key must hold.
	must []string
	// allowed, when set, limits the attributes a key may use (a base key
	// may use only fixed attributes).
	allowed func(string) bool
	// cool refuses keys that introduce a hot partition for a requirement.
	cool bool
	// pkFrom and mustFrom name the requirements pk and must come from
	// (their ids, -1 for none): what a memoized fit is keyed by.
	pkFrom, mustFrom int
}

// fitLimit bounds the attributes a fit permutes; beyond it, no fit is
// tried (the requirements get their own shapes).
const fitLimit = 7

// fit finds a shape of entity e that serves every requirement in rs (a
// collection counts as a requirement with no sort order), preferring the
// finest partition, then the shortest sort key. ok is false when none
// does.
func fit(e *model.Entity, rs []*req, o fitOptions) (akey, bool) {
	if len(rs) == 0 {
		return akey{}, false
	}
	rs = membersOf(e, rs)
	shards := rs[0].shards
	common := slices.Clone(rs[0].eq)
	for _, r := range rs[1:] {
		if r.shards != shards {
			return akey{}, false
		}
		common = slices.DeleteFunc(common, func(a string) bool { return !r.has(a) })
	}
	var cands []string
	for _, a := range common {
		if o.allowed == nil || o.allowed(a) {
			cands = append(cands, a)
		}
	}
	if len(cands) > fitLimit {
		return akey{}, false
	}
	var subsets [][]string
	if o.pk != nil {
		for _, a := range o.pk {
			if !slices.Contains(cands, a) {
				return akey{}, false
			}
		}
		subsets = [][]string{sortedCopy(o.pk)}
	} else {
		for mask := (1 << len(cands)) - 1; mask >= 0; mask-- {
			var s []string
			for i, a := range cands {
				if mask&(1<<i) != 0 {
					s = append(s, a)
				}
			}
			subsets = append(subsets, s)
		}
		// Larger partitions first, then by name: deterministic.
		slices.SortStableFunc(subsets, func(a, b []string) int { return len(b) - len(a) })
	}
	for _, pk := range subsets {
		if !subset(o.must, pk) {
			continue
		}
		if o.cool && slices.ContainsFunc(rs, func(r *req) bool { return introducesHot(e, r, pk, shards) }) {
			continue
		}
		if sk, ok := order(rs, pk, o.allowed); ok {
			return akey{owner: e.Name, pk: pk, shards: shards, sk: sk}, true
		}
	}
	return akey{}, false
}

// order finds the sort attributes after a partition pk: each
// requirement's other known attributes lead them (in any order among
// themselves), its sort attributes right after.
func order(rs []*req, pk []string, allowed func(string) bool) ([]string, bool) {
	type need struct {
		rest  []string
		sort  []string
		whole *req
	}
	var needs []need
	var all []string
	for _, r := range rs {
		if r.whole && r.servesWhole(pk, nil) {
			// Served either way: as a prefix read, or known whole; decided
			// on the finished sequence.
			needs = append(needs, need{whole: r})
			continue
		}
		n := need{sort: r.sort}
		for _, a := range r.eq {
			if !slices.Contains(pk, a) {
				n.rest = append(n.rest, a)
			}
		}
		for _, a := range append(slices.Clone(n.rest), n.sort...) {
			if allowed != nil && !allowed(a) {
				return nil, false
			}
			if !slices.Contains(all, a) {
				all = append(all, a)
			}
		}
		needs = append(needs, n)
	}
	if len(all) > fitLimit {
		return nil, false
	}
	sort.Strings(all)
	seq := make([]string, 0, len(all))
	used := make([]bool, len(all))
	// ok checks every need against the sequence so far.
	ok := func() bool {
		i := len(seq)
		for _, n := range needs {
			if n.whole != nil {
				continue
			}
			for j := 0; j < min(i, len(n.rest)); j++ {
				if !slices.Contains(n.rest, seq[j]) {
					return false
				}
			}
			for j := len(n.rest); j < min(i, len(n.rest)+len(n.sort)); j++ {
				if seq[j] != n.sort[j-len(n.rest)] {
					return false
				}
			}
		}
		return true
	}
	// wholeOK checks the gets known whole, on a finished sequence.
	wholeOK := func() bool {
		for _, n := range needs {
			if n.whole != nil && !n.whole.servesWhole(pk, seq) && !(&akey{pk: pk, shards: n.whole.shards, sk: seq}).serves(n.whole) {
				return false
			}
		}
		return true
	}
	var walk func() bool
	walk = func() bool {
		if len(seq) == len(all) {
			return wholeOK()
		}
		for i, a := range all {
			if used[i] {
				continue
			}
			used[i] = true
			seq = append(seq, a)
			if ok() && walk() {
				return true
			}
			seq = seq[:len(seq)-1]
			used[i] = false
		}
		return false
	}
	if !walk() {
		return nil, false
	}
	return seq, true
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
