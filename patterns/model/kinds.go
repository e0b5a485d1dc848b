package model

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Attributes beyond one scalar value: sets, lists and maps of scalars,
// sharded counters, and attributes derived from others. None of them is
// ever in a key (KP206): a key holds one scalar value of the item.

// Pattern.Expired values.
const (
	// ExpiredInclude returns items whose TTL has passed but that DynamoDB
	// has not deleted yet (audit, archive reads).
	ExpiredInclude = "include"
	// ExpiredHide hides them (the default).
	ExpiredHide = "hide"
)

// MaxCounterShards bounds a counter's shards: deleting its item deletes
// them too, in one transaction with the item and its guard items.
const MaxCounterShards = 64

// elementTypes are what a set, list or map holds.
var (
	setElements   = []AttrType{TypeString, TypeNumber}
	otherElements = []AttrType{TypeString, TypeNumber, TypeBool}
)

// Collection reports whether the attribute is a set, list or map.
func (a *Attribute) Collection() bool {
	return a.Type == TypeSet || a.Type == TypeList || a.Type == TypeMap
}

// Element is the attribute a collection's elements are values of.
func (a *Attribute) Element() *Attribute {
	of := a.Of
	if of == "" {
		of = TypeString
	}
	return &Attribute{Name: a.Name, Type: of}
}

// ElementType is a collection's element type (string when not given).
func (a *Attribute) ElementType() AttrType { return a.Element().Type }

// Counter returns the entity's sharded counter named attr, or nil.
func (e *Entity) Counter(attr string) *Attribute {
	if a := e.Attr(attr); a != nil && a.Type == TypeCounter {
		return a
	}
	return nil
}

// Stored reports whether an attribute is held by the entity's item: every
// attribute but its sharded counters (their shard items hold them).
func (a *Attribute) Stored() bool { return a.Type != TypeCounter }

// Derived is how an attribute is computed from others: From's values
// (one: that value; several: joined by '#'), or Template's text with
// {attribute} placeholders.
type Derived struct {
	From     []string `json:"from,omitempty"`
	Template string   `json:"template,omitempty"`
}

// Sources lists the attributes a derived value reads, in order.
func (d *Derived) Sources() []string {
	if d == nil {
		return nil
	}
	if d.Template == "" {
		return d.From
	}
	var out []string
	for _, s := range d.parts() {
		if s.Attr != "" && !slices.Contains(out, s.Attr) {
			out = append(out, s.Attr)
		}
	}
	return out
}

// parts are the template's literals and placeholders ({from} joined by
// '#' when there is no template).
func (d *Derived) parts() Template {
	var t Template
	if d.Template == "" {
		for i, a := range d.From {
			if i > 0 {
				t = t.Lit(string(Sep))
			}
			t = t.Attr(a)
		}
		return t
	}
	s := d.Template
	for s != "" {
		i := strings.IndexByte(s, '{')
		j := strings.IndexByte(s, '}')
		if i < 0 || j < i {
			return t.Lit(s)
		}
		if i > 0 {
			t = t.Lit(s[:i])
		}
		t = t.Attr(s[i+1 : j])
		s = s[j+1:]
	}
	return t
}

// checkTemplate reports what is wrong with a derived template's text.
func (d *Derived) checkTemplate() error {
	s := d.Template
	if s == "" {
		return fmt.Errorf("a template cannot be empty")
	}
	for s != "" {
		i, j := strings.IndexByte(s, '{'), strings.IndexByte(s, '}')
		switch {
		case i < 0 && j < 0:
			return nil
		case i < 0 || j < i:
			return fmt.Errorf("unmatched '}' in %q", d.Template)
		}
		k := strings.IndexByte(s[i+1:], '{')
		if k >= 0 && i+1+k < j {
			return fmt.Errorf("unclosed '{' in %q", d.Template)
		}
		if name := s[i+1 : j]; !ValidName(name) {
			return fmt.Errorf("{%s} is not an attribute placeholder; expected {attributeName}", name)
		}
		s = s[j+1:]
	}
	return nil
}

// Derive computes a derived attribute's value from an item's values: ok
// is false when a source is absent (the derived attribute is then
// absent too).
func (e *Entity) Derive(a *Attribute, v map[string]any) (value any, ok bool, err error) {
	srcs := a.Derived.Sources()
	if len(srcs) == 1 && a.Derived.Template == "" {
		x := v[srcs[0]]
		if x == nil {
			return nil, false, nil
		}
		src := e.Attr(srcs[0])
		if src == nil {
			return nil, false, fmt.Errorf("%s derives from %s, which %s lacks", a.Name, srcs[0], e.Name)
		}
		if a.Type == TypeNumber {
			n, err := src.canonicalNumber(x)
			if err != nil {
				return nil, false, err
			}
			return n, true, nil
		}
		s, err := src.Text(x)
		return s, err == nil, err
	}
	var b strings.Builder
	for _, s := range a.Derived.parts() {
		if s.Attr == "" {
			b.WriteString(s.Lit)
			continue
		}
		x := v[s.Attr]
		if x == nil {
			return nil, false, nil
		}
		src := e.Attr(s.Attr)
		if src == nil {
			return nil, false, fmt.Errorf("%s derives from %s, which %s lacks", a.Name, s.Attr, e.Name)
		}
		t, err := src.Text(x)
		if err != nil {
			return nil, false, err
		}
		b.WriteString(t)
	}
	return b.String(), true, nil
}

func (numberCodec) text(a *Attribute, v any) (string, error) {
	n, err := a.canonicalNumber(v)
	if err != nil {
		return "", err
	}
	if i, ok := n.(int64); ok {
		return strconv.FormatInt(i, 10), nil
	}
	return strconv.FormatFloat(n.(float64), 'g', -1, 64), nil
}

func (timeCodec) text(a *Attribute, v any) (string, error) {
	t, err := a.time(v)
	if err != nil {
		return "", err
	}
	return formatTime(t), nil
}

func (boolCodec) text(a *Attribute, v any) (string, error) {
	b, err := a.bool(v)
	return strconv.FormatBool(b), err
}

func (stringCodec) text(a *Attribute, v any) (string, error) { return a.checkedText(v) }

// checkedText is a checked value's text as a string holds it.
func (a *Attribute) checkedText(v any) (string, error) {
	if err := a.Check(v); err != nil {
		return "", err
	}
	s, _ := v.(string)
	if n, ok := v.(json.Number); ok {
		s = string(n)
	}
	if st, ok := v.(fmt.Stringer); ok && s == "" {
		s = st.String()
	}
	return s, nil
}

// canonicalNumber is a number as int64 when whole (and in range), else
// float64.
func (a *Attribute) canonicalNumber(v any) (any, error) {
	if n, err := a.anyInteger(v); err == nil {
		if err := a.Check(n); err != nil {
			return nil, err
		}
		return n, nil
	}
	f, err := Float(v)
	if err != nil {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: "expected a number"}
	}
	if a.Type == TypeTTL || a.Min != nil || a.Max != nil || a.Digits > 0 {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: "expected a whole number"}
	}
	return f, nil
}

// Float reads a number: an integer type, float64, json.Number or numeric
// text; NaN and infinities are refused (DynamoDB holds neither).
func Float(v any) (float64, error) {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case float64:
		f = x
	case float32:
		f = float64(x)
	case json.Number:
		y, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, err
		}
		f = y
	case string:
		y, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return 0, err
		}
		f = y
	default:
		return 0, fmt.Errorf("%T is not a number", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%v is not a number DynamoDB holds", f)
	}
	return f, nil
}

// Elements reads a set's or list's value: the elements in order, each of
// the element type (strings as string, numbers as float64, bools as
// bool). A set's repeated elements are kept once (DynamoDB refuses a set
// with duplicates).
func (a *Attribute) Elements(v any) ([]any, error) {
	var raw []any
	switch x := v.(type) {
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
	case []int:
		for _, n := range x {
			raw = append(raw, n)
		}
	case []int64:
		for _, n := range x {
			raw = append(raw, n)
		}
	case []bool:
		for _, b := range x {
			raw = append(raw, b)
		}
	default:
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("expected a list of %ss, found %T", a.ElementType(), v)}
	}
	el := a.Element()
	out := make([]any, 0, len(raw))
	seen := map[string]bool{}
	for _, x := range raw {
		e, err := el.elementValue(x)
		if err != nil {
			return nil, err
		}
		if a.Type == TypeSet {
			k := fmt.Sprint(e)
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, e)
	}
	if a.MaxItems > 0 && len(out) > a.MaxItems {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("%d elements; maxItems is %d", len(out), a.MaxItems)}
	}
	return out, nil
}

// Entries reads a map's value: key to element.
func (a *Attribute) Entries(v any) (map[string]any, error) {
	raw := map[string]any{}
	switch x := v.(type) {
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
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("expected a map of %ss, found %T", a.ElementType(), v)}
	}
	el := a.Element()
	out := make(map[string]any, len(raw))
	for _, k := range sortedKeys(raw) {
		if k == "" {
			return nil, &ValueError{Attr: a.Name, Value: v, Msg: "an entry without a name (DynamoDB refuses an empty map key)"}
		}
		e, err := el.elementValue(raw[k])
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	if a.MaxItems > 0 && len(out) > a.MaxItems {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("%d entries; maxItems is %d", len(out), a.MaxItems)}
	}
	return out, nil
}

// elementValue checks one element: a string, a number (float64) or a
// bool.
func (a *Attribute) elementValue(v any) (any, error) {
	switch a.Type {
	case TypeNumber:
		f, err := Float(v)
		if err != nil {
			return nil, &ValueError{Attr: a.Name, Value: v, Msg: "expected a number element"}
		}
		return f, nil
	case TypeBool:
		b, err := a.bool(v)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("expected a string element, found %T", v)}
	}
	return s, nil
}

// checkMany checks a value of an attribute that is not a scalar.
func (a *Attribute) checkMany(v any) error {
	switch a.Type {
	case TypeSet, TypeList:
		_, err := a.Elements(v)
		return err
	case TypeMap:
		_, err := a.Entries(v)
		return err
	case TypeCounter:
		_, err := a.anyInteger(v)
		return err
	}
	return &ValueError{Attr: a.Name, Value: v, Msg: "unknown type " + string(a.Type)}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MapPath splits a map entry's path (prefs.theme) into the map attribute
// and the key; ok is false for a plain attribute name.
func MapPath(s string) (attr, key string, ok bool) {
	return strings.Cut(s, ".")
}

// Param is the parameter a step takes for one of its item's attributes:
// the attribute's name, after the step's alias (follower.userId) in a
// transaction step that names its item.
func (w *Write) Param(attr string) string {
	if w.As == "" {
		return attr
	}
	return w.As + "." + attr
}
