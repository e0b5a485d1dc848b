package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// ErrCondition is matched by a write that was well formed but did not
// hold: the item was (or was not) there, was not at the version or
// values given, failed a declared condition, or would break a unique
// value.
var ErrCondition = errors.New("condition failed")

func failed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCondition, fmt.Sprintf(format, args...))
}

// change is one item write of a write, prepared: what it tests and what
// it leaves.
type change struct {
	entity *model.Entity
	id     Values
	// test tells whether the write holds on the item as it is (nil:
	// absent); nil error when it does.
	test func(cur *Item) error
	// apply returns the item after the write (nil: deleted); nil apply:
	// the item is left as it is (a check).
	apply func(cur *Item) *Item
	// counters are the adds to sharded counters of a write that makes
	// them (the item is left as it is).
	counters map[string]*big.Rat
}

// Write applies a declared write pattern with the caller's parameters,
// by definition, all or nothing:
//
//   - put if absent: creates the item (version 1); fails when an item of
//     its identity (entity and id values) exists, whatever the layout.
//   - put if present: replaces an existing item's attributes, keeping its
//     id, immutable attributes (which must be passed as they are),
//     stream-kept attributes; the version read must be the item's.
//   - put: writes the item whatever is there (refused for an entity
//     with unique values, a version or stream-kept attributes).
//   - update: sets, adds to (ADD: an absent number counts as 0) and
//     removes attributes of an existing item; with attributes must be as
//     the item holds them; the version read must be the item's.
//   - delete: removes an existing item (at the version read, holding
//     the unique values given, as the item holds them).
//   - check (in a transaction): the conditions hold on the item.
//   - every declared condition holds, with DynamoDB's meaning on an
//     absent attribute or item (ne and absent hold, the rest do not).
//   - a transaction's steps are tested against the items as they were
//     before it, no item is written twice, and all or none apply.
//   - afterwards every unique alternate key (a unique get) has at most
//     one item per value among its entity's items.
//
// A write that is not well formed (a parameter missing, unknown or of
// the wrong type) is ErrInvalid and changes nothing; one that does not
// hold is ErrCondition and changes nothing.
func (s *State) Write(w *model.Write, params map[string]any) error {
	if w == nil {
		return invalid("no write pattern")
	}
	if w.Op == model.WriteBatch {
		return invalid("%s is a batch", w.Name)
	}
	takes := s.m.Params(w)
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if !slices.Contains(takes, k) {
			return invalid("%s takes no parameter %q (it takes %s)", w.Name, k, strings.Join(takes, ", "))
		}
	}
	var changes []*change
	for i, st := range w.Items() {
		c, err := s.prepare(st, stepParams(st, params))
		if err != nil {
			if w.Op == model.WriteTransact {
				return fmt.Errorf("step %d (%s %s): %w", i+1, st.Op, st.Entity, err)
			}
			return err
		}
		changes = append(changes, c)
	}
	return s.commit(changes)
}

// commit tests every change against the state as it is, then applies
// them all, then checks unique values: all or nothing.
func (s *State) commit(changes []*change) error {
	seen := map[string]bool{}
	for _, c := range changes {
		id, _ := identity(c.entity, c.id)
		if seen[id] {
			return invalid("%s is written twice: a transaction writes an item once", itemName(c.entity, c.id))
		}
		seen[id] = true
	}
	for _, c := range changes {
		id, _ := identity(c.entity, c.id)
		if err := c.test(s.items[id]); err != nil {
			return fmt.Errorf("%s: %w", itemName(c.entity, c.id), err)
		}
	}
	next := s.Clone()
	var touched []*Item
	for _, c := range changes {
		if c.apply == nil {
			continue
		}
		id, _ := identity(c.entity, c.id)
		if c.counters != nil {
			// An add to sharded counters leaves the item as it is.
			for attr, r := range c.counters {
				k := id + "\x00" + attr
				cv, ok := next.counters[k]
				if !ok {
					cv = CounterValue{Entity: c.entity.Name, ID: c.id, Attr: attr, N: "0"}
				}
				base, _ := rat(cv.N)
				cv.N = Number(numberText(base.Add(base, r)))
				next.counters[k] = cv
			}
			continue
		}
		after := c.apply(s.items[id])
		if after == nil {
			delete(next.items, id)
			for k := range next.counters {
				if strings.HasPrefix(k, id+"\x00") {
					delete(next.counters, k)
				}
			}
			continue
		}
		next.items[id] = after
		touched = append(touched, after)
	}
	if err := next.checkUnique(touched); err != nil {
		return err
	}
	s.items, s.counters = next.items, next.counters
	return nil
}

func itemName(e *model.Entity, id Values) string {
	var parts []string
	for _, a := range e.ID {
		parts = append(parts, a+"="+Text(id[a]))
	}
	return e.Name + "(" + strings.Join(parts, " ") + ")"
}

// Unique lists the entity's unique alternate keys (unique gets).
func Unique(m *model.Model, entity string) []*model.Pattern {
	var out []*model.Pattern
	for _, p := range m.Patterns {
		if p.Unique && len(p.Entities) == 1 && p.Entities[0] == entity {
			out = append(out, p)
		}
	}
	return out
}

// checkUnique fails when a touched item shares a unique alternate key's
// values with another item of its entity.
func (s *State) checkUnique(touched []*Item) error {
	for _, t := range touched {
		for _, u := range Unique(s.m, t.Entity) {
			where := s.m.Where(u)
			tuple, ok := values(t, where)
			if !ok {
				continue
			}
			for _, o := range s.items {
				if o == t || o.Entity != t.Entity || s.IdentityOf(o) == s.IdentityOf(t) {
					continue
				}
				if other, ok := values(o, where); ok && compareTuple(tuple, other) == 0 {
					return failed("%s %s is taken by %s", u.Name, tupleText(where, tuple), o)
				}
			}
		}
	}
	return nil
}

func values(it *Item, attrs []string) ([]any, bool) {
	out := make([]any, len(attrs))
	for i, a := range attrs {
		v, ok := it.Values[a]
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

func tupleText(attrs []string, vals []any) string {
	var parts []string
	for i, a := range attrs {
		parts = append(parts, a+"="+Text(vals[i]))
	}
	return strings.Join(parts, " ")
}

// prepare checks one single-item write's parameters and returns what it
// tests and does.
func (s *State) prepare(st *model.Write, params map[string]any) (*change, error) {
	e := s.m.Entity(st.Entity)
	if e == nil {
		return nil, invalid("unknown entity %q", st.Entity)
	}
	conds, err := s.conditions(e, st.Condition, params)
	if err != nil {
		return nil, err
	}
	switch st.Op {
	case model.WritePut:
		return s.preparePut(e, st.If, conds, params)
	case model.WriteUpdate:
		return s.prepareUpdate(e, st, conds, params)
	case model.WriteDelete, model.WriteCheck:
		id, err := normalizeID(e, params)
		if err != nil {
			return nil, err
		}
		var version any
		if e.Version != "" && st.Op == model.WriteDelete {
			if version, err = versionParam(e, params); err != nil {
				return nil, err
			}
		}
		var uniq map[string]any
		if st.Op == model.WriteDelete {
			if uniq, err = s.uniqueParams(e, params); err != nil {
				return nil, err
			}
		}
		c := &change{entity: e, id: id}
		c.test = func(cur *Item) error {
			if st.Op == model.WriteDelete {
				if cur == nil {
					return failed("the item does not exist")
				}
				if err := testVersion(e, cur, version); err != nil {
					return err
				}
				if err := testUnique(cur, uniq); err != nil {
					return err
				}
			}
			return testAll(conds, cur)
		}
		if st.Op == model.WriteDelete {
			c.apply = func(*Item) *Item { return nil }
		}
		return c, nil
	}
	return nil, invalid("a %s is not a single-item write", st.Op)
}

// maintained reports whether a stream handler keeps the attribute.
func maintained(e *model.Entity, attr string) bool {
	for _, c := range e.Counters {
		if c.Attr == attr {
			return true
		}
	}
	for _, c := range e.Copies {
		if c.Attr == attr {
			return true
		}
	}
	return false
}

func (s *State) preparePut(e *model.Entity, mode string, conds []cond, params map[string]any) (*change, error) {
	given := map[string]any{}
	for _, a := range e.Attributes {
		if a.Name == e.Version || maintained(e, a.Name) && mode != model.IfAbsent {
			continue
		}
		if x, ok := params[a.Name]; ok && x != nil {
			given[a.Name] = x
		}
	}
	switch mode {
	case model.IfAbsent:
		if e.Version != "" {
			given[e.Version] = 1
		}
		v, err := normalizeItem(e, given, true)
		if err != nil {
			return nil, err
		}
		return &change{entity: e, id: v, test: func(cur *Item) error {
			if cur != nil {
				return failed("the item exists")
			}
			return testAll(conds, nil)
		}, apply: func(*Item) *Item { return &Item{Entity: e.Name, Values: v} }}, nil
	case model.IfPresent:
		if u := Unique(s.m, e.Name); len(u) > 0 {
			return nil, invalid("%s has unique alternate keys (%s): a put if present cannot keep them", e.Name, u[0].Name)
		}
		var version any
		var err error
		if e.Version != "" {
			if version, err = versionParam(e, params); err != nil {
				return nil, err
			}
		}
		// What the item keeps: its id, its stream-kept attributes and its
		// immutable ones (which the caller passes as they are).
		set := Values{}
		fixed := map[string]any{}
		for _, a := range e.Attributes {
			switch {
			case e.IsID(a.Name) || maintained(e, a.Name) || a.Name == e.Version || a.Type == model.TypeCounter || a.Derived != nil:
			case a.Immutable:
				fixed[a.Name] = nil
				if x := given[a.Name]; x != nil {
					n, err := Normalize(a, x)
					if err != nil {
						return nil, err
					}
					fixed[a.Name] = n
				}
			case given[a.Name] != nil:
				n, err := Normalize(a, given[a.Name])
				if err != nil {
					return nil, err
				}
				if n != nil { // an empty set is no value
					set[a.Name] = n
				}
			case !a.Optional && a.Type != model.TypeSet:
				return nil, invalid("%s.%s is required", e.Name, a.Name)
			}
		}
		id, err := normalizeID(e, params)
		if err != nil {
			return nil, err
		}
		return &change{entity: e, id: id, test: func(cur *Item) error {
			if cur == nil {
				return failed("the item does not exist")
			}
			for name, want := range fixed {
				if !sameOrAbsent(cur.Values[name], want) {
					return failed("%s is %s, not %s (immutable)", name, Text(cur.Values[name]), Text(want))
				}
			}
			if err := testVersion(e, cur, version); err != nil {
				return err
			}
			return testAll(conds, cur)
		}, apply: func(cur *Item) *Item {
			out := &Item{Entity: e.Name, Values: Values{}}
			for _, a := range e.Attributes {
				switch {
				case e.IsID(a.Name) || maintained(e, a.Name) || a.Immutable:
					if x, ok := cur.Values[a.Name]; ok {
						out.Values[a.Name] = x
					}
				case a.Name == e.Version:
					out.Values[a.Name] = plusOne(cur.Values[a.Name])
				default:
					if x, ok := set[a.Name]; ok {
						out.Values[a.Name] = x
					}
				}
			}
			derive(e, out.Values)
			return out
		}}, nil
	}
	// Whatever is there.
	if why := unconditional(s.m, e, true); why != "" {
		return nil, invalid("%s has %s: a put without if would break them", e.Name, why)
	}
	v, err := normalizeItem(e, given, true)
	if err != nil {
		return nil, err
	}
	return &change{entity: e, id: v, test: func(cur *Item) error { return testAll(conds, cur) },
		apply: func(*Item) *Item { return &Item{Entity: e.Name, Values: v} }}, nil
}

// unconditional says why an entity's items cannot be written without
// conditions ("": they can): unique values, a version, and for whole-item
// puts the attributes stream handlers keep.
func unconditional(m *model.Model, e *model.Entity, put bool) string {
	var why []string
	if len(Unique(m, e.Name)) > 0 {
		why = append(why, "unique values")
	}
	if e.Version != "" {
		why = append(why, "a version")
	}
	if put && len(e.Counters)+len(e.Copies) > 0 {
		why = append(why, "stream-kept attributes")
	}
	return strings.Join(why, " and ")
}

func sameOrAbsent(x, y any) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return equalValues(x, y)
}

func versionParam(e *model.Entity, params map[string]any) (any, error) {
	x, ok := params[e.Version]
	if !ok || x == nil {
		return nil, invalid("%s has a version (%s): the version read is missing", e.Name, e.Version)
	}
	return Normalize(e.Attr(e.Version), x)
}

func testVersion(e *model.Entity, cur *Item, read any) error {
	if e.Version == "" {
		return nil
	}
	if !equalValues(cur.Values[e.Version], read) {
		return failed("%s is %s, not the version read (%s)", e.Version, Text(cur.Values[e.Version]), Text(read))
	}
	return nil
}

func plusOne(v any) any {
	r, err := rat(v)
	if err != nil {
		r = new(big.Rat)
	}
	return Number(numberText(r.Add(r, big.NewRat(1, 1))))
}

func (s *State) prepareUpdate(e *model.Entity, st *model.Write, conds []cond, params map[string]any) (*change, error) {
	id, err := normalizeID(e, params)
	if err != nil {
		return nil, err
	}
	set := Values{}
	entries := map[string]map[string]any{} // map entries set: map, entry, value
	for _, name := range st.Set {
		x, ok := params[name]
		if !ok || x == nil {
			return nil, invalid("parameter %s (set) missing", name)
		}
		if ma, key, ok := entryOf(e, name); ok {
			n, err := Normalize(element(ma), x)
			if err != nil {
				return nil, err
			}
			if entries[ma.Name] == nil {
				entries[ma.Name] = map[string]any{}
			}
			entries[ma.Name][key] = n
			continue
		}
		if set[name], err = Normalize(e.Attr(name), x); err != nil {
			return nil, err
		}
		if set[name] == nil { // an empty set
			return nil, invalid("%s: an empty set is no value: remove the attribute", name)
		}
	}
	// Elements added to sets (add), taken from sets (discard), appended
	// to lists (append): a list of elements, or one.
	els := func(inc *model.Increment, what string) ([]any, error) {
		x, ok := params[inc.Param]
		if !ok || x == nil {
			return nil, invalid("parameter %s (%s %s) missing", inc.Param, what, inc.Attr)
		}
		switch x.(type) {
		case string, float64, int, int64, bool, Number, json.Number:
			x = []any{x} // one element, as the runtime takes it
		}
		a := e.Attr(inc.Attr)
		out, err := elements(a, x)
		if err != nil {
			return nil, err
		}
		if len(out) == 0 && a.Type == model.TypeSet {
			return nil, invalid("parameter %s: a change of the set %s with no element", inc.Param, inc.Attr)
		}
		if a.MaxItems > 0 && len(out) > a.MaxItems {
			return nil, invalid("parameter %s: %d elements; maxItems is %d", inc.Param, len(out), a.MaxItems)
		}
		return out, nil
	}
	union, minus, appended := map[string][]any{}, map[string][]any{}, map[string][]any{}
	for _, inc := range st.Discard {
		if minus[inc.Attr], err = els(inc, "discard from"); err != nil {
			return nil, err
		}
	}
	for _, inc := range st.Append {
		if appended[inc.Attr], err = els(inc, "append to"); err != nil {
			return nil, err
		}
	}
	add := map[string]*big.Rat{}
	counters := map[string]*big.Rat{}
	for _, inc := range st.Add {
		if a := e.Attr(inc.Attr); a != nil && a.Type == model.TypeSet {
			if union[inc.Attr], err = els(inc, "add to"); err != nil {
				return nil, err
			}
			continue
		}
		r := big.NewRat(inc.By, 1)
		if inc.Param != "" {
			x, ok := params[inc.Param]
			if !ok || x == nil {
				return nil, invalid("parameter %s (add to %s) missing", inc.Param, inc.Attr)
			}
			if r, err = rat(x); err != nil {
				return nil, invalid("parameter %s (add to %s): %v", inc.Param, inc.Attr, err)
			}
			if inc.Negate {
				r.Neg(r)
			}
		}
		if a := e.Attr(inc.Attr); a != nil && a.Type == model.TypeCounter {
			if !r.IsInt() {
				return nil, invalid("parameter %s (add to the counter %s): a whole number", inc.Param, inc.Attr)
			}
			counters[inc.Attr] = r
			continue
		}
		add[inc.Attr] = r
	}
	if len(counters) > 0 {
		// An add to sharded counters writes their shard items, never the
		// item: no condition, whether or not the item is there.
		if len(add)+len(set)+len(entries)+len(union)+len(minus)+len(appended)+len(st.Remove) > 0 || len(st.Condition) > 0 {
			return nil, invalid("an add to a sharded counter adds to counters only, without conditions")
		}
		return &change{entity: e, id: id, test: func(*Item) error { return nil },
			apply: func(cur *Item) *Item { return cur }, counters: counters}, nil
	}
	with := map[string]any{}
	for _, name := range st.With {
		x, ok := params[name]
		if !ok {
			return nil, invalid("parameter %s (with) missing", name)
		}
		with[name] = nil
		if x != nil {
			if with[name], err = Normalize(e.Attr(name), x); err != nil {
				return nil, err
			}
		}
	}
	var version any
	if e.Version != "" {
		if version, err = versionParam(e, params); err != nil {
			return nil, err
		}
	}
	return &change{entity: e, id: id, test: func(cur *Item) error {
		if cur == nil {
			return failed("the item does not exist")
		}
		for _, name := range st.With {
			if !sameOrAbsent(cur.Values[name], with[name]) {
				return failed("%s is %s, not %s as passed (with)", name, Text(cur.Values[name]), Text(with[name]))
			}
		}
		if err := testVersion(e, cur, version); err != nil {
			return err
		}
		if err := testAll(conds, cur); err != nil {
			return err
		}
		for name := range entries {
			if _, ok := cur.Values[name].(Map); !ok {
				return invalid("%s holds no map: an entry of it cannot be set", name)
			}
		}
		for _, name := range st.Remove {
			if ma, _, ok := entryOf(e, name); ok {
				if _, ok := cur.Values[ma.Name].(Map); !ok {
					return invalid("%s holds no map: an entry of it cannot be removed", ma.Name)
				}
			}
		}
		return nil
	}, apply: func(cur *Item) *Item {
		out := cur.clone()
		maps.Copy(out.Values, set)
		for name, r := range add {
			base, err := rat(out.Values[name])
			if err != nil {
				base = new(big.Rat)
			}
			out.Values[name] = Number(numberText(base.Add(base, r)))
		}
		for name, kv := range entries {
			m := maps.Clone(out.Values[name].(Map))
			maps.Copy(m, kv)
			out.Values[name] = m
		}
		for name, x := range union {
			cur, _ := out.Values[name].(Set)
			out.Values[name] = newSet(append(slices.Clone([]any(cur)), x...))
		}
		for name, x := range minus {
			cur, _ := out.Values[name].(Set)
			left := slices.DeleteFunc(slices.Clone([]any(cur)), func(v any) bool { return slices.ContainsFunc(x, func(y any) bool { return equalValues(v, y) }) })
			if s := newSet(left); s != nil {
				out.Values[name] = s
			} else {
				delete(out.Values, name)
			}
		}
		for name, x := range appended {
			cur, _ := out.Values[name].(List)
			out.Values[name] = append(slices.Clone(cur), x...)
		}
		for _, name := range st.Remove {
			if ma, key, ok := entryOf(e, name); ok {
				m := maps.Clone(out.Values[ma.Name].(Map))
				delete(m, key)
				out.Values[ma.Name] = m
				continue
			}
			delete(out.Values, name)
		}
		if e.Version != "" {
			out.Values[e.Version] = plusOne(cur.Values[e.Version])
		}
		derive(e, out.Values)
		return out
	}}, nil
}

// cond is a declared condition with its operands canonical.
type cond struct {
	c    *model.Condition
	want any   // eq … ge
	in   []any // in
}

func (s *State) conditions(e *model.Entity, cs []*model.Condition, params map[string]any) ([]cond, error) {
	var out []cond
	for _, c := range cs {
		a := e.Attr(c.Attr)
		if a == nil {
			return nil, invalid("condition on %s: no attribute of %s", c.Attr, e.Name)
		}
		k := cond{c: c}
		switch c.Op {
		case model.CondExists, model.CondAbsent:
		case model.CondIn:
			for _, v := range c.Values {
				n, err := Normalize(a, v)
				if err != nil {
					return nil, err
				}
				k.in = append(k.in, n)
			}
		default:
			var x any = c.Value
			if c.Param != "" {
				var ok bool
				if x, ok = params[c.Param]; !ok || x == nil {
					return nil, invalid("parameter %s (condition on %s) missing", c.Param, c.Attr)
				}
			}
			n, err := Normalize(a, x)
			if err != nil {
				return nil, err
			}
			k.want = n
		}
		out = append(out, k)
	}
	return out, nil
}

// holds evaluates a condition on an item (nil: absent) as DynamoDB does:
// a comparison with an absent attribute is false, except <> which is
// true; attribute_not_exists holds on an absent item.
func (k cond) holds(cur *Item) bool {
	var v any
	has := false
	if cur != nil {
		v, has = cur.Values[k.c.Attr]
	}
	switch k.c.Op {
	case model.CondExists:
		return has
	case model.CondAbsent:
		return !has
	case model.CondNe:
		return !has || !equalValues(v, k.want)
	case model.CondIn:
		return has && slices.ContainsFunc(k.in, func(x any) bool { return equalValues(v, x) })
	}
	if !has {
		return false
	}
	c, ok := compareValues(v, k.want)
	if !ok {
		return false
	}
	switch k.c.Op {
	case model.CondEq:
		return c == 0
	case model.CondLt:
		return c < 0
	case model.CondLe:
		return c <= 0
	case model.CondGt:
		return c > 0
	case model.CondGe:
		return c >= 0
	}
	return false
}

func testAll(conds []cond, cur *Item) error {
	for _, k := range conds {
		if !k.holds(cur) {
			var v any
			if cur != nil {
				v = cur.Values[k.c.Attr]
			}
			return failed("%s: %s is %s", k.c, k.c.Attr, Text(v))
		}
	}
	return nil
}

// Create writes a new item (Table.Create): a put if absent without
// declared conditions, values naming only the entity's attributes.
func (s *State) Create(entity string, v map[string]any) error {
	e := s.m.Entity(entity)
	if e == nil {
		return invalid("unknown entity %q", entity)
	}
	for k, x := range v {
		if e.Attr(k) == nil && x != nil {
			return invalid("%q is no attribute of %s", k, e.Name)
		}
	}
	c, err := s.preparePut(e, model.IfAbsent, nil, v)
	if err != nil {
		return err
	}
	return s.commit([]*change{c})
}

// Delete removes an item (Table.Delete): v gives its id, the version read
// (an entity with one) and the unique attributes the item holds, as it
// holds them (one it lacks is absent from v); the write holds only if the
// item exists and is so.
func (s *State) Delete(entity string, v map[string]any) error {
	e := s.m.Entity(entity)
	if e == nil {
		return invalid("unknown entity %q", entity)
	}
	id, err := normalizeID(e, v)
	if err != nil {
		return err
	}
	var version any
	if e.Version != "" {
		if version, err = versionParam(e, v); err != nil {
			return err
		}
	}
	uniq, err := s.uniqueParams(e, v)
	if err != nil {
		return err
	}
	return s.commit([]*change{{entity: e, id: id, test: func(cur *Item) error {
		if cur == nil {
			return failed("the item does not exist")
		}
		if err := testVersion(e, cur, version); err != nil {
			return err
		}
		return testUnique(cur, uniq)
	}, apply: func(*Item) *Item { return nil }}})
}

// uniqueParams reads the unique attributes (not of the id) a delete is
// given as the item holds them (nil: it lacks one), so that their guards
// go with it.
func (s *State) uniqueParams(e *model.Entity, v map[string]any) (map[string]any, error) {
	uniq := map[string]any{}
	for _, u := range Unique(s.m, e.Name) {
		for _, a := range s.m.Where(u) {
			if e.IsID(a) {
				continue
			}
			uniq[a] = nil
			if x := v[a]; x != nil {
				var err error
				if uniq[a], err = Normalize(e.Attr(a), x); err != nil {
					return nil, err
				}
			}
		}
	}
	return uniq, nil
}

// testUnique holds when the item has the unique values given.
func testUnique(cur *Item, uniq map[string]any) error {
	for _, a := range slices.Sorted(maps.Keys(uniq)) {
		if !sameOrAbsent(cur.Values[a], uniq[a]) {
			return failed("%s is %s, not %s as passed", a, Text(cur.Values[a]), Text(uniq[a]))
		}
	}
	return nil
}

// Replace rewrites an item from old (as read) to new (Table.Replace):
// every attribute that is not fixed (id, immutable), stream-kept or the
// version takes new's value (absent: removed). It holds only if the item
// exists and each of those attributes, its immutable ones and the version
// are as old says.
// A change of a fixed attribute is invalid; a replace that changes
// nothing does nothing (and tests nothing).
func (s *State) Replace(entity string, old, new map[string]any) error {
	e := s.m.Entity(entity)
	if e == nil {
		return invalid("unknown entity %q", entity)
	}
	for _, a := range e.Attributes {
		if !e.Fixed(a.Name) {
			continue
		}
		o, n := old[a.Name], new[a.Name]
		if o == nil && n == nil {
			continue
		}
		if o == nil || n == nil {
			return invalid("%s.%s is fixed: from %v to %v", e.Name, a.Name, o, n)
		}
		on, err1 := Normalize(a, o)
		nn, err2 := Normalize(a, n)
		if err1 != nil || err2 != nil || !equalValues(on, nn) {
			return invalid("%s.%s is fixed: from %v to %v", e.Name, a.Name, o, n)
		}
	}
	id, err := normalizeID(e, old)
	if err != nil {
		return err
	}
	was := map[string]any{}
	set := Values{}
	var removed []string
	for _, a := range e.Attributes {
		if a.Immutable && !e.IsID(a.Name) {
			// It holds only if the item is as old says.
			was[a.Name] = nil
			if o := old[a.Name]; o != nil {
				if was[a.Name], err = Normalize(a, o); err != nil {
					return err
				}
			}
			continue
		}
		if e.Fixed(a.Name) || maintained(e, a.Name) || a.Name == e.Version || a.Type == model.TypeCounter || a.Derived != nil {
			continue
		}
		o, n := old[a.Name], new[a.Name]
		was[a.Name] = nil
		if o != nil {
			if was[a.Name], err = Normalize(a, o); err != nil {
				return err
			}
		}
		var nn any
		if n != nil {
			if nn, err = Normalize(a, n); err != nil {
				return err
			}
		}
		switch {
		case nn == nil && was[a.Name] != nil: // absent, or an empty set
			if !a.Optional && a.Type != model.TypeSet {
				return invalid("%s.%s is required; it cannot be removed", e.Name, a.Name)
			}
			removed = append(removed, a.Name)
		case nn != nil && !sameOrAbsent(was[a.Name], nn):
			set[a.Name] = nn
		}
	}
	if len(set)+len(removed) == 0 {
		return nil
	}
	var version any
	if e.Version != "" {
		if old[e.Version] == nil {
			return invalid("%s has a version (%s): the version read is missing", e.Name, e.Version)
		}
		if version, err = Normalize(e.Attr(e.Version), old[e.Version]); err != nil {
			return err
		}
	}
	return s.commit([]*change{{entity: e, id: id, test: func(cur *Item) error {
		if cur == nil {
			return failed("the item does not exist")
		}
		for _, a := range slices.Sorted(maps.Keys(was)) {
			if !sameOrAbsent(cur.Values[a], was[a]) {
				return failed("%s is %s, not %s as read", a, Text(cur.Values[a]), Text(was[a]))
			}
		}
		return testVersion(e, cur, version)
	}, apply: func(cur *Item) *Item {
		out := cur.clone()
		maps.Copy(out.Values, set)
		for _, a := range removed {
			delete(out.Values, a)
		}
		if e.Version != "" {
			out.Values[e.Version] = plusOne(cur.Values[e.Version])
		}
		derive(e, out.Values)
		return out
	}}})
}

// Batch applies a batch write pattern (Table.WriteBatch): each item put
// whatever is there, or each id deleted whether or not it exists, without
// conditions. It is refused for an entity whose writes need conditions
// (unique values, a version, for puts stream-kept attributes), for an
// invalid item, and for an item given twice; then nothing is written.
func (s *State) Batch(w *model.Write, items []map[string]any) error {
	if w == nil || w.Op != model.WriteBatch {
		return invalid("not a batch write")
	}
	e := s.m.Entity(w.Entity)
	if e == nil {
		return invalid("unknown entity %q", w.Entity)
	}
	if why := unconditional(s.m, e, w.Batch == model.WritePut); why != "" {
		return invalid("%s has %s: a batch would break them", e.Name, why)
	}
	var changes []*change
	for i, v := range items {
		if w.Batch == model.WritePut {
			vals, err := normalizeItem(e, v, false)
			if err != nil {
				return fmt.Errorf("item %d: %w", i+1, err)
			}
			changes = append(changes, &change{entity: e, id: vals, test: func(*Item) error { return nil },
				apply: func(*Item) *Item { return &Item{Entity: e.Name, Values: vals} }})
			continue
		}
		id, err := normalizeID(e, v)
		if err != nil {
			return fmt.Errorf("item %d: %w", i+1, err)
		}
		changes = append(changes, &change{entity: e, id: id, test: func(*Item) error { return nil },
			apply: func(*Item) *Item { return nil }})
	}
	return s.commit(changes)
}
