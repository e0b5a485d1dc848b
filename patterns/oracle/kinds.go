package oracle

import (
	"encoding/base64"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/keyplan/keyplan/patterns/model"
)

// What a model says beyond scalars, by definition (docs/model.md),
// written here on its own:
//
//   - a set holds distinct strings or numbers, no order, at most maxItems;
//     an empty set is no value (DynamoDB holds none): the attribute is
//     absent. A list holds elements in order; a map holds entries by
//     name. Their elements are plain values of the element type.
//   - a sharded counter is on no item: it is a number per item (0 until
//     added to), read as a whole by its pattern, gone with its item.
//   - a derived attribute is computed from its sources on every write:
//     one source alone is its value; otherwise each source's text
//     (numbers in decimal, times in RFC 3339 at the millisecond) in the
//     template's places ({from} joined by '#'); absent when a source is.
//   - an item whose ttl (epoch seconds) is before the state's clock is
//     expired: reads leave it out unless they say expired: include, and
//     counts do not count it. It is still held (DynamoDB deletes it
//     later).

// Set is a set's canonical value: its elements in order (strings by
// bytes, numbers by value), each once.
type Set []any

// List is a list's canonical value.
type List []any

// Map is a map's canonical value.
type Map map[string]any

// element is the attribute an element of a set, list or map is.
func element(a *model.Attribute) *model.Attribute {
	return &model.Attribute{Name: a.Name + "[]", Type: a.ElementType()}
}

// elements reads a list of elements (any slice of plain values, or
// Set/List) as canonical values.
func elements(a *model.Attribute, v any) ([]any, error) {
	var raw []any
	switch x := v.(type) {
	case Set:
		raw = x
	case List:
		raw = x
	case []any:
		raw = x
	case []string:
		for _, s := range x {
			raw = append(raw, s)
		}
	case []float64:
		for _, f := range x {
			raw = append(raw, f)
		}
	case []int64:
		for _, n := range x {
			raw = append(raw, n)
		}
	case []int:
		for _, n := range x {
			raw = append(raw, n)
		}
	case []bool:
		for _, b := range x {
			raw = append(raw, b)
		}
	default:
		return nil, invalid("%s: %v (%T): expected a list of %ss", a.Name, v, v, a.ElementType())
	}
	el := element(a)
	out := make([]any, 0, len(raw))
	for _, x := range raw {
		n, err := Normalize(el, x)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// newSet is the canonical set of elements (nil when empty).
func newSet(els []any) Set {
	s := Set(slices.Clone(els))
	slices.SortFunc(s, func(x, y any) int { c, _ := compareValues(x, y); return c })
	s = slices.CompactFunc(s, equalValues)
	if len(s) == 0 {
		return nil
	}
	return s
}

// normalizeMany is Normalize of a set, list or map; a nil value (no
// error) is an empty set.
func normalizeMany(a *model.Attribute, v any) (any, error) {
	tooMany := func(n int) error {
		if a.MaxItems > 0 && n > a.MaxItems {
			return invalid("%s: %d elements; maxItems is %d", a.Name, n, a.MaxItems)
		}
		return nil
	}
	switch a.Type {
	case model.TypeSet:
		if a.ElementType() == model.TypeBool {
			return nil, invalid("%s: a set holds strings or numbers", a.Name)
		}
		els, err := elements(a, v)
		if err != nil {
			return nil, err
		}
		s := newSet(els)
		if err := tooMany(len(s)); err != nil {
			return nil, err
		}
		if s == nil {
			return nil, nil
		}
		return s, nil
	case model.TypeList:
		els, err := elements(a, v)
		if err != nil {
			return nil, err
		}
		if err := tooMany(len(els)); err != nil {
			return nil, err
		}
		return List(els), nil
	}
	raw := map[string]any{}
	switch x := v.(type) {
	case Map:
		raw = x
	case map[string]any:
		raw = x
	case map[string]string:
		for k, s := range x {
			raw[k] = s
		}
	case map[string]float64:
		for k, f := range x {
			raw[k] = f
		}
	case map[string]int64:
		for k, n := range x {
			raw[k] = n
		}
	case map[string]bool:
		for k, b := range x {
			raw[k] = b
		}
	default:
		return nil, invalid("%s: %v (%T): expected a map of %ss", a.Name, v, v, a.ElementType())
	}
	out := Map{}
	for k, x := range raw {
		if k == "" {
			return nil, invalid("%s: an entry without a name", a.Name)
		}
		n, err := Normalize(element(a), x)
		if err != nil {
			return nil, err
		}
		out[k] = n
	}
	if err := tooMany(len(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// equalMany compares two sets, lists or maps (ok: both are one of them).
func equalMany(x, y any) (equal, ok bool) {
	switch a := x.(type) {
	case Set:
		b, ok := y.(Set)
		return ok && slices.EqualFunc(a, b, equalValues), ok
	case List:
		b, ok := y.(List)
		return ok && slices.EqualFunc(a, b, equalValues), ok
	case Map:
		b, ok := y.(Map)
		return ok && maps.EqualFunc(a, b, equalValues), ok
	}
	return false, false
}

// textMany writes a set, list or map for messages.
func textMany(v any) (string, bool) {
	switch x := v.(type) {
	case Set, List:
		var els []any
		if s, ok := x.(Set); ok {
			els = s
		} else {
			els = x.(List)
		}
		parts := make([]string, len(els))
		for i, e := range els {
			parts[i] = Text(e)
		}
		if _, ok := x.(Set); ok {
			return "{" + strings.Join(parts, " ") + "}", true
		}
		return "[" + strings.Join(parts, " ") + "]", true
	case Map:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, k+":"+Text(x[k]))
		}
		return "map[" + strings.Join(parts, " ") + "]", true
	}
	return "", false
}

// plainMany converts a set, list or map to what the runtime takes:
// []string, []float64 or []bool; map[string] of those.
func plainMany(v any) (any, bool) {
	var els []any
	switch x := v.(type) {
	case Set:
		els = x
	case List:
		els = x
	case Map:
		out := map[string]any{}
		for k, e := range x {
			out[k] = plainElement(e)
		}
		return out, true
	default:
		return nil, false
	}
	if len(els) == 0 {
		return []string{}, true
	}
	switch els[0].(type) {
	case Number:
		out := make([]float64, len(els))
		for i, e := range els {
			f, _ := new(big.Rat).SetString(string(e.(Number)))
			out[i], _ = f.Float64()
		}
		return out, true
	case bool:
		out := make([]bool, len(els))
		for i, e := range els {
			out[i] = e.(bool)
		}
		return out, true
	}
	out := make([]string, len(els))
	for i, e := range els {
		out[i], _ = e.(string)
	}
	return out, true
}

func plainElement(e any) any {
	if n, ok := e.(Number); ok {
		f, _ := new(big.Rat).SetString(string(n))
		x, _ := f.Float64()
		return x
	}
	return e
}

// many reports whether an attribute holds several values.
func many(a *model.Attribute) bool {
	return a.Type == model.TypeSet || a.Type == model.TypeList || a.Type == model.TypeMap
}

// derive computes the entity's derived attributes from v (canonical),
// in place: set when every source is there, removed otherwise.
func derive(e *model.Entity, v Values) {
	for _, a := range e.Attributes {
		if a.Derived == nil {
			continue
		}
		x, ok := derivedValue(e, a, v)
		if ok {
			v[a.Name] = x
		} else {
			delete(v, a.Name)
		}
	}
}

func derivedValue(e *model.Entity, a *model.Attribute, v Values) (any, bool) {
	d := a.Derived
	srcs := d.From
	tmpl := d.Template
	if tmpl == "" {
		var parts []string
		for _, s := range srcs {
			parts = append(parts, "{"+s+"}")
		}
		tmpl = strings.Join(parts, "#")
	} else {
		srcs = nil
		for rest := tmpl; ; {
			i := strings.IndexByte(rest, '{')
			j := strings.IndexByte(rest, '}')
			if i < 0 || j < i {
				break
			}
			srcs = append(srcs, rest[i+1:j])
			rest = rest[j+1:]
		}
	}
	for _, s := range srcs {
		if _, ok := v[s]; !ok {
			return nil, false
		}
	}
	if d.Template == "" && len(srcs) == 1 {
		x := v[srcs[0]]
		if a.Type == model.TypeString {
			return textOf(x), true
		}
		n, err := Normalize(a, textOf(x))
		return n, err == nil
	}
	out := tmpl
	for _, s := range srcs {
		out = strings.Replace(out, "{"+s+"}", textOf(v[s]), 1)
	}
	n, err := Normalize(&model.Attribute{Name: a.Name, Type: model.TypeString}, out)
	return n, err == nil
}

// textOf is a scalar's text in a derived value.
func textOf(x any) string {
	switch y := x.(type) {
	case string:
		return y
	case Number:
		return string(y)
	case time.Time:
		return y.UTC().Format(timeLayout)
	case bool:
		return fmt.Sprint(y)
	case Binary:
		return base64.StdEncoding.EncodeToString([]byte(y))
	}
	return fmt.Sprint(x)
}

// ttlOf is the entity's ttl attribute ("": none).
func ttlOf(e *model.Entity) string {
	for _, a := range e.Attributes {
		if a.Type == model.TypeTTL {
			return a.Name
		}
	}
	return ""
}

// Expired reports whether an item's ttl is before the state's clock (a
// zero clock: nothing expires).
func (s *State) Expired(it *Item) bool {
	if s.now.IsZero() {
		return false
	}
	e := s.m.Entity(it.Entity)
	if e == nil {
		return false
	}
	ttl := ttlOf(e)
	if ttl == "" {
		return false
	}
	x, ok := it.Values[ttl]
	if !ok {
		return false
	}
	r, err := rat(x)
	return err == nil && r.Cmp(new(big.Rat).SetInt64(s.now.Unix())) < 0
}

// SetNow sets the clock reads judge expiry by (the zero time: nothing
// expires).
func (s *State) SetNow(t time.Time) { s.now = t }

// Now is the state's clock.
func (s *State) Now() time.Time { return s.now }

// CounterValue is one sharded counter of an item: its entity, id
// values, attribute and value.
type CounterValue struct {
	Entity string
	ID     Values
	Attr   string
	N      Number
}

// Counter is the value of an item's sharded counter: 0 until added to.
// An add needs no item (it writes a shard, not the item), and a delete
// of the item takes its counters with it.
func (s *State) Counter(entity string, id Values, attr string) Number {
	key, err := s.Identity(entity, id)
	if err != nil {
		return "0"
	}
	if c, ok := s.counters[key+"\x00"+attr]; ok {
		return c.N
	}
	return "0"
}

// Counters lists the counters that are not 0, by item identity and
// attribute.
func (s *State) Counters() []CounterValue {
	var out []CounterValue
	for _, k := range slices.Sorted(maps.Keys(s.counters)) {
		if c := s.counters[k]; c.N != "0" {
			out = append(out, c)
		}
	}
	return out
}

// stepParams are the parameters one step of a write sees: all of them,
// or for a step that names its item (as: follower), its item's by their
// attribute names (follower.userId as userId) and the increments' and
// conditions' as written.
func stepParams(st *model.Write, params map[string]any) map[string]any {
	if st.As == "" {
		return params
	}
	out := map[string]any{}
	prefix := st.As + "."
	for k, v := range params {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			out[rest] = v
		}
	}
	for _, inc := range slices.Concat(st.Add, st.Discard, st.Append) {
		if v, ok := params[inc.Param]; ok && inc.Param != "" {
			out[inc.Param] = v
		}
	}
	for _, c := range st.Condition {
		if v, ok := params[c.Param]; ok && c.Param != "" {
			out[c.Param] = v
		}
	}
	return out
}

// entryOf splits a map entry's name (prefs.theme) into the map attribute
// and the entry's name; ok is false for a plain attribute name.
func entryOf(e *model.Entity, name string) (a *model.Attribute, key string, ok bool) {
	m, k, found := strings.Cut(name, ".")
	if !found {
		return nil, "", false
	}
	a = e.Attr(m)
	if a == nil || a.Type != model.TypeMap || k == "" {
		return nil, "", false
	}
	return a, k, true
}
