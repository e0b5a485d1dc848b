package oracle

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// RangeOp compares a pattern's sort attribute with a range's values.
type RangeOp string

// Range operators (the runtime's dynamo.Range takes the same).
const (
	Eq         RangeOp = "="
	Lt         RangeOp = "<"
	Le         RangeOp = "<="
	Gt         RangeOp = ">"
	Ge         RangeOp = ">="
	Between    RangeOp = "between"
	BeginsWith RangeOp = "begins_with"
)

// RangeOps lists the operators.
var RangeOps = []RangeOp{Eq, Lt, Le, Gt, Ge, Between, BeginsWith}

// Range bounds a pattern's (first) sort attribute: Value, and Upper for
// between (inclusive).
type Range struct {
	Op           RangeOp
	Value, Upper any
}

func (r *Range) String() string {
	if r == nil {
		return ""
	}
	if r.Op == Between {
		return fmt.Sprintf("between %v and %v", r.Value, r.Upper)
	}
	return fmt.Sprintf("%s %v", r.Op, r.Value)
}

// Answer is what a read must return, by definition.
type Answer struct {
	Pattern *model.Pattern
	// Items are the matching items: in sort order when Ordered (runs of
	// equal sort values in any order), by identity otherwise.
	Items []*Item
	// Ordered is true when the pattern sorts.
	Ordered bool
	// Limit is the page size (0: none): a first page holds the first
	// Limit items.
	Limit int
	// Returns are the attributes a returned item must carry (nil: all of
	// its entity's).
	Returns []string
	// Number is what a pattern that returns a number returns (nil: it
	// returns items): a count (count: true) is how many items match, a
	// counter's read (Model.CounterRead) the counter's value.
	Number *Number

	sortVals [][]any
}

// Read evaluates a read pattern on the state, from the items' attributes
// alone:
//
//   - the items of the pattern's entities,
//   - whose where attributes equal the parameters (an item lacking one
//     does not match),
//   - whose filter attributes hold the constants,
//   - when the pattern sorts: that hold every sort attribute, within the
//     range on the first when one is given, ordered by the sort attributes
//     in turn (descending when the pattern says so); items with equal sort
//     values have no defined order among themselves (DynamoDB orders them
//     by the rest of the key, which the model does not fix);
//   - unless it says expired: include, not expired (State.Expired: its
//     ttl before the state's clock);
//   - at most Limit on a page, all of them over all pages;
//   - carrying the returns attributes (all attributes without returns);
//   - for a count (count: true), their number; for a sharded counter's
//     read (Model.CounterRead), the counter's value.
//
// Parameters must be exactly the pattern's where attributes, each a valid
// value of its attribute: otherwise the read is invalid (ErrInvalid).
func (s *State) Read(p *model.Pattern, params map[string]any, r *Range) (*Answer, error) {
	m := s.m
	where := m.Where(p)
	var ents []*model.Entity
	for _, n := range p.Entities {
		e := m.Entity(n)
		if e == nil {
			return nil, invalid("pattern %s: unknown entity %q", p.Name, n)
		}
		ents = append(ents, e)
	}
	for _, w := range where {
		if x, ok := params[w]; !ok || x == nil {
			return nil, invalid("pattern %s: parameter %s missing", p.Name, w)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if !slices.Contains(where, k) {
			return nil, invalid("pattern %s: %q is not one of its parameters (%s)", p.Name, k, strings.Join(where, ", "))
		}
	}
	// Each entity reads the parameters and constants as its attributes'
	// values.
	type test struct {
		attr string
		want any
	}
	tests := map[string][]test{}
	for _, e := range ents {
		for _, w := range where {
			v, err := Normalize(e.Attr(w), params[w])
			if err != nil {
				return nil, fmt.Errorf("pattern %s: parameter %w", p.Name, err)
			}
			tests[e.Name] = append(tests[e.Name], test{w, v})
		}
		for _, c := range p.Filter {
			v, err := Normalize(e.Attr(c.Attr), c.Value)
			if err != nil {
				return nil, fmt.Errorf("pattern %s: filter %w", p.Name, err)
			}
			tests[e.Name] = append(tests[e.Name], test{c.Attr, v})
		}
	}
	var bound *rangeTest
	if r != nil {
		if len(p.Sort) == 0 {
			return nil, invalid("pattern %s: a range needs a sort attribute", p.Name)
		}
		var err error
		if bound, err = newRangeTest(sortAttr(m, p), r); err != nil {
			return nil, fmt.Errorf("pattern %s: range %w", p.Name, err)
		}
	}
	if attr := m.CounterRead(p); attr != "" {
		id := Values{}
		for _, t := range tests[ents[0].Name] {
			id[t.attr] = t.want
		}
		n := s.Counter(ents[0].Name, id, attr)
		return &Answer{Pattern: p, Number: &n}, nil
	}
	ans := &Answer{Pattern: p, Ordered: len(p.Sort) > 0, Limit: p.Limit, Returns: p.Returns}
	hide := p.Expired != model.ExpiredInclude
	// A sorted collection (query: [Post, Comment], sort: createdAt desc)
	// orders its sorted member's items and reads the other members' (the
	// owner) at one end: the one SetOwnerFirst says, else first ascending
	// and last descending; a range selects among the sorted member's
	// items alone.
	sorted := m.SortedMember(p)
	var owners []*Item
	for _, it := range s.Items() {
		if !slices.Contains(p.Entities, it.Entity) || hide && s.Expired(it) {
			continue
		}
		ok := true
		for _, t := range tests[it.Entity] {
			if !equalValues(it.Values[t.attr], t.want) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if sorted != "" && it.Entity != sorted {
			if bound == nil {
				owners = append(owners, it)
			}
			continue
		}
		if len(p.Sort) > 0 {
			var vals []any
			for _, a := range p.Sort {
				v, has := it.Values[a]
				if !has {
					ok = false
					break
				}
				vals = append(vals, v)
			}
			if !ok || bound != nil && !bound.holds(vals[0]) {
				continue
			}
			ans.sortVals = append(ans.sortVals, vals)
		}
		ans.Items = append(ans.Items, it)
	}
	if ans.Ordered {
		idx := make([]int, len(ans.Items))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(i, j int) int {
			c := compareTuple(ans.sortVals[i], ans.sortVals[j])
			if p.Desc {
				return -c
			}
			return c
		})
		items := make([]*Item, len(idx))
		vals := make([][]any, len(idx))
		for k, i := range idx {
			items[k], vals[k] = ans.Items[i], ans.sortVals[i]
		}
		ans.Items, ans.sortVals = items, vals
	}
	if len(owners) > 0 {
		// The owners form one run of their own (no order among them), at
		// the end the collection puts them.
		end := make([][]any, len(owners))
		for i := range end {
			end[i] = []any{ownerMark{}}
		}
		first, said := s.ownerFirst[p.Name]
		if !said {
			first = !p.Desc
		}
		if !first {
			ans.Items, ans.sortVals = append(ans.Items, owners...), append(ans.sortVals, end...)
		} else {
			ans.Items, ans.sortVals = append(owners, ans.Items...), append(end, ans.sortVals...)
		}
	}
	if p.Count {
		n := Number(fmt.Sprint(len(ans.Items)))
		ans.Number = &n
	}
	return ans, nil
}

// CheckNumber compares the number a read returned with the answer's.
func (a *Answer) CheckNumber(got int64) error {
	if a.Number == nil {
		return fmt.Errorf("the pattern returns items, not a number")
	}
	if want := string(*a.Number); fmt.Sprint(got) != want {
		return fmt.Errorf("%d, expected %s", got, want)
	}
	return nil
}

// sortAttr is a sorted pattern's first sort attribute: its sorted
// member's, in a sorted collection.
func sortAttr(m *model.Model, p *model.Pattern) *model.Attribute {
	name := p.Entities[0]
	if sorted := m.SortedMember(p); sorted != "" {
		name = sorted
	}
	return m.Entity(name).Attr(p.Sort[0])
}

// ownerMark stands for a collection owner's sort values: it sorts with
// nothing but itself.
type ownerMark struct{}

func compareTuple(a, b []any) int {
	if _, ok := a[0].(ownerMark); ok {
		if _, ok := b[0].(ownerMark); ok {
			return 0
		}
		return 1
	}
	if _, ok := b[0].(ownerMark); ok {
		return -1
	}
	for i := range a {
		if c, _ := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// rangeTest is a range on one attribute, its bounds canonical.
type rangeTest struct {
	op     RangeOp
	lo, hi any
}

func newRangeTest(a *model.Attribute, r *Range) (*rangeTest, error) {
	if !slices.Contains(RangeOps, r.Op) {
		return nil, invalid("unknown operator %q", r.Op)
	}
	// A bound is any value of the attribute's type: the declared range
	// limits what items hold, not what a caller may compare with.
	loose := *a
	loose.Min, loose.Max, loose.Digits, loose.MaxLength, loose.Values = nil, nil, 0, 0, nil
	if loose.Type == model.TypeTTL {
		loose.Type = model.TypeNumber
	}
	rt := &rangeTest{op: r.Op}
	var err error
	if rt.lo, err = Normalize(&loose, r.Value); err != nil {
		return nil, err
	}
	switch r.Op {
	case Between:
		if rt.hi, err = Normalize(&loose, r.Upper); err != nil {
			return nil, err
		}
		if c, _ := compareValues(rt.lo, rt.hi); c > 0 {
			return nil, invalid("between %s and %s is empty", Text(rt.lo), Text(rt.hi))
		}
	case BeginsWith:
		if a.Type != model.TypeString {
			return nil, invalid("begins_with applies to strings; %s is a %s", a.Name, a.Type)
		}
	}
	return rt, nil
}

func (rt *rangeTest) holds(v any) bool {
	if rt.op == BeginsWith {
		s, _ := v.(string)
		return strings.HasPrefix(s, rt.lo.(string))
	}
	c, ok := compareValues(v, rt.lo)
	if !ok {
		return false
	}
	switch rt.op {
	case Eq:
		return c == 0
	case Lt:
		return c < 0
	case Le:
		return c <= 0
	case Gt:
		return c > 0
	case Ge:
		return c >= 0
	case Between:
		u, _ := compareValues(v, rt.hi)
		return c >= 0 && u <= 0
	}
	return false
}

// Check compares what a read returned with the answer: the same items
// (by entity and id), each with the values the answer's item has for
// every attribute it must return, in the answer's order when it is
// ordered (a run of equal sort values as a set), as a set otherwise.
// With page, got is a first page: the first Limit items of the answer
// (all when the pattern has no limit); otherwise got is every page.
// The error says what differs.
func (a *Answer) Check(m *model.Model, got []*Item, page bool) error {
	want := len(a.Items)
	if page && a.Limit > 0 {
		want = min(want, a.Limit)
	}
	byID := map[string]int{}
	for i, it := range a.Items {
		id, _ := identity(m.Entity(it.Entity), it.Values)
		byID[id] = i
	}
	seen := map[string]bool{}
	var problems []string
	pos := make([]int, len(got))
	for i, it := range got {
		e := m.Entity(it.Entity)
		if e == nil {
			problems = append(problems, fmt.Sprintf("item %d is of no entity of the model (%q)", i+1, it.Entity))
			pos[i] = -1
			continue
		}
		id, err := identity(e, it.Values)
		if err != nil {
			problems = append(problems, fmt.Sprintf("item %d (%s) lacks its id: %v", i+1, it, err))
			pos[i] = -1
			continue
		}
		if seen[id] {
			problems = append(problems, fmt.Sprintf("item %d (%s) returned twice", i+1, it))
		}
		seen[id] = true
		j, ok := byID[id]
		if !ok {
			problems = append(problems, fmt.Sprintf("extra %s", it))
			pos[i] = -1
			continue
		}
		pos[i] = j
		if diff := a.diffValues(m, a.Items[j], it); diff != "" {
			problems = append(problems, fmt.Sprintf("%s: %s", it.Entity, diff))
		}
	}
	if len(got) != want {
		var missing []string
		for _, it := range a.Items {
			id, _ := identity(m.Entity(it.Entity), it.Values)
			if !seen[id] {
				missing = append(missing, it.String())
			}
		}
		msg := fmt.Sprintf("%d item(s), expected %d", len(got), want)
		if len(missing) > 0 && (!page || a.Limit == 0) {
			msg += "; missing " + strings.Join(missing, ", ")
		}
		problems = append(problems, msg)
	}
	if len(problems) == 0 {
		// Which items: on a page, those of the first Limit positions up
		// to runs of equal sort values; in order when ordered.
		for i, j := range pos {
			switch {
			case a.Ordered && !a.sameRun(i, j):
				problems = append(problems, fmt.Sprintf("position %d holds %s, expected %s", i+1, got[i], a.runText(i)))
			case !a.Ordered && page && a.Limit > 0:
				// Any Limit of the matching items will do.
			}
			if len(problems) > 0 {
				break
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(problems, "; "))
}

// sameRun reports whether answer item j may stand at position i: it is
// the item there, or has the same sort values.
func (a *Answer) sameRun(i, j int) bool {
	if i == j {
		return true
	}
	if i >= len(a.sortVals) {
		return false
	}
	return compareTuple(a.sortVals[i], a.sortVals[j]) == 0
}

func (a *Answer) runText(i int) string {
	if i >= len(a.Items) {
		return "nothing"
	}
	var run []string
	for k := range a.Items {
		if a.sameRun(i, k) {
			run = append(run, a.Items[k].String())
		}
	}
	if len(run) == 1 {
		return run[0]
	}
	return "one of " + strings.Join(run, ", ")
}

// diffValues compares the attributes a returned item must carry.
func (a *Answer) diffValues(m *model.Model, want, got *Item) string {
	e := m.Entity(want.Entity)
	attrs := a.Returns
	if len(attrs) == 0 {
		for _, at := range e.Attributes {
			attrs = append(attrs, at.Name)
		}
	}
	var diffs []string
	for _, name := range attrs {
		at := e.Attr(name)
		if at == nil {
			continue // returns of another entity of the collection
		}
		w, hasW := want.Values[name]
		g, hasG := got.Values[name]
		switch {
		case !hasW && !hasG:
		case hasW && !hasG:
			diffs = append(diffs, fmt.Sprintf("%s missing (expected %s)", name, Text(w)))
		case !hasW && hasG:
			diffs = append(diffs, fmt.Sprintf("%s is %s, expected absent", name, Text(g)))
		case !equalValues(w, g):
			diffs = append(diffs, fmt.Sprintf("%s is %s, expected %s", name, Text(g), Text(w)))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return want.String() + " returned with " + strings.Join(diffs, ", ")
}

// FromRuntime reads an item the runtime returned (its entity and values
// as decoded: strings, int64 or float64, time.Time, bool) into canonical
// values; a value its attribute cannot hold is kept as its text, so that
// comparing shows it.
func FromRuntime(m *model.Model, entity string, v map[string]any) *Item {
	it := &Item{Entity: entity, Values: Values{}}
	e := m.Entity(entity)
	for k, x := range v {
		if x == nil {
			continue
		}
		if e != nil && e.Attr(k) != nil {
			a := *e.Attr(k)
			a.Min, a.Max, a.Digits, a.MaxLength, a.Values, a.Optional, a.MaxItems = nil, nil, 0, 0, nil, true, 0
			if n, err := Normalize(&a, x); err == nil {
				it.Values[k] = n
				continue
			}
		}
		it.Values[k] = fmt.Sprintf("%v (%T)", x, x)
	}
	return it
}
