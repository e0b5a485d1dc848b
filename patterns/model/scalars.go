package model

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The scalar attribute types in one table: what each is stored as in
// DynamoDB, its Go type in generated code, which declarations it takes,
// and its encoder (key form, stored form, text, sizes). Every package that
// needs to tell one scalar type from another reads this table (the
// loader, the key encoding, the sizes and checks, the runtime, gen,
// workbench) instead of keeping a switch of its own; the reference
// evaluator (patterns/oracle) keeps its own semantics and is tested
// against the same list. Adding a scalar type is one entry here and its
// encoder (binary.go is one). Sets, lists, maps and counters are not scalars (kinds.go).

// ScalarType describes one scalar attribute type.
type ScalarType struct {
	// Type is the type's name in a model file.
	Type AttrType
	// Spellings are other names the loader accepts for it, read as Type.
	Spellings []AttrType
	// Dynamo is the DynamoDB type its values are stored as: S, N, B or
	// BOOL. Only S, N and B can be key attributes.
	Dynamo string
	// Noun names a value of the type in messages ("a string").
	Noun string
	// Facets are the declarations besides its name it takes.
	Facets Facet
	// Cardinality is how many distinct values it has (bool: 2), 0 for
	// many.
	Cardinality int
	// Discrete says every value but the least has a greatest value below
	// it (whole numbers, millisecond times), so a < range on a sort key
	// it ends is a <= range on that value; a string's or a binary's has
	// no single key condition.
	Discrete bool
	// StoredAsKey says its stored value is its key form (times: a
	// fixed-width UTC string), so a value encoded for a key is stored
	// as it is.
	StoredAsKey bool
	// Valid and Invalid are values of an attribute of the type
	// (undeclared facets) as a model file's examples or application code
	// give them: each consumer is tested on them.
	Valid, Invalid []any

	codec scalarCodec
}

// Facet is one declaration an attribute may carry besides its type.
type Facet uint8

// Facets.
const (
	// FacetValues: values, an enum.
	FacetValues Facet = 1 << iota
	// FacetRange: min, max and digits (a whole number).
	FacetRange
	// FacetMaxLength: maxLength, a bound in bytes.
	FacetMaxLength
	// FacetSize: size, a typical value's bytes (the cost estimate).
	FacetSize
	// FacetS3: store: s3, the value kept in the construct's bucket.
	FacetS3
)

// scalarCodec is a scalar type's encoder: its key form and back, its
// stored form, its text in a derived value, its sizes.
type scalarCodec interface {
	// key is v's key form (EncodeKey); decode reverses it (DecodeKey).
	key(a *Attribute, v any) (string, error)
	decode(a *Attribute, s string) (any, error)
	// fixedWidth: the key form has a declared, fixed width.
	fixedWidth(a *Attribute) bool
	// maxKeyBytes is the longest key form, and whether it is known.
	maxKeyBytes(a *Attribute) (int, bool)
	// rangeSide places a range bound against the keys' values (RangeSide).
	rangeSide(a *Attribute, v any) (int, error)
	// text is v as a derived attribute's text holds it.
	text(a *Attribute, v any) (string, error)
	// stored is v as its DynamoDB type holds it: a string (S), a number's
	// text (N), []byte (B) or a bool (BOOL); checked: v was checked
	// already (its key form was encoded).
	stored(a *Attribute, v any, checked bool) (any, error)
	// fromText reads a stored S value back.
	fromText(a *Attribute, s string) (any, error)
	// size is the bytes a stored value takes for the estimates, whether
	// that is the declared bound (maxLength), and what was assumed ("":
	// nothing); maxBytes is the most it takes, and whether that is known.
	size(e *Entity, a *Attribute) (n int, atBound bool, assumed string)
	maxBytes(a *Attribute) (int, bool)
	// encoding names how values are rendered in keys: equal encodings
	// render equal values to equal text (KP202).
	encoding(a *Attribute) string
	// goType is the Go type of a value in generated code.
	goType(a *Attribute) string
}

// scalarTypes is the table. Its order is the order the loader lists the
// types in.
var scalarTypes = []*ScalarType{
	{Type: TypeString, Dynamo: "S", Noun: "a string", Facets: FacetValues | FacetMaxLength | FacetSize | FacetS3, codec: stringCodec{},
		Valid: []any{"a", "a#b", "%", "日本"}, Invalid: []any{"", int64(5), true}},
	{Type: TypeNumber, Dynamo: "N", Noun: "a number", Facets: FacetRange, Discrete: true, codec: numberCodec{},
		Valid: []any{int64(0), int64(-7), 2.5, "42"}, Invalid: []any{"many", true, "NaN"}},
	{Type: TypeTime, Dynamo: "S", Noun: "a time", StoredAsKey: true, Discrete: true, codec: timeCodec{},
		Valid: []any{"2026-01-02T15:04:05Z", "0001-01-01T00:00:00.123Z"}, Invalid: []any{"yesterday", int64(3), "10000-01-01T00:00:00Z"}},
	{Type: TypeBool, Dynamo: "BOOL", Noun: "a bool", Cardinality: 2, codec: boolCodec{},
		Valid: []any{true, false, "true"}, Invalid: []any{"maybe", int64(1)}},
	{Type: TypeTTL, Dynamo: "N", Noun: "a ttl", Discrete: true, codec: ttlCodec{},
		Valid: []any{int64(0), int64(4102444800)}, Invalid: []any{int64(-1), "1.5", "soon"}},
	{Type: TypeBinary, Spellings: []AttrType{"blob"}, Dynamo: "B", Noun: "a binary", Facets: FacetMaxLength | FacetSize | FacetS3, codec: binaryCodec{},
		Valid:   []any{[]byte{0}, []byte{0, 0}, []byte{0, 0xff}, []byte{0xff}, []byte("a#b"), "AAE="},
		Invalid: []any{[]byte{}, "", "not base64!", int64(3), true}},
}

// ScalarTypes lists the scalar attribute types.
func ScalarTypes() []*ScalarType { return slices.Clone(scalarTypes) }

// Scalar returns the scalar type t names (a spelling included), or nil.
func Scalar(t AttrType) *ScalarType {
	for _, s := range scalarTypes {
		if s.Type == t || slices.Contains(s.Spellings, t) {
			return s
		}
	}
	return nil
}

// Takes reports whether the type takes the facet.
func (s *ScalarType) Takes(f Facet) bool { return s.Facets&f != 0 }

// takes reports whether the attribute's type is a scalar taking f.
func (a *Attribute) takes(f Facet) bool {
	s := a.ScalarType()
	return s != nil && s.Takes(f)
}

// ScalarNames are the names of the scalar types (spellings too: all).
func ScalarNames(all bool) []string {
	var out []string
	for _, s := range scalarTypes {
		out = append(out, string(s.Type))
		if all {
			for _, sp := range s.Spellings {
				out = append(out, string(sp))
			}
		}
	}
	return out
}

// nounsTaking names the scalar types taking f, as a message says them:
// "a string or a binary".
func nounsTaking(f Facet) string {
	var out []string
	for _, s := range scalarTypes {
		if s.Takes(f) {
			out = append(out, s.Noun)
		}
	}
	return strings.Join(out, " or ")
}

// namesTaking lists the scalar types taking f: "string, binary".
func namesTaking(f Facet) string {
	var out []string
	for _, s := range scalarTypes {
		if s.Takes(f) {
			out = append(out, string(s.Type))
		}
	}
	return strings.Join(out, ", ")
}

// DynamoNoun names a value of DynamoDB type t ("S", "N", "B", "BOOL") in
// messages, as the first scalar type stored so does.
func DynamoNoun(t string) string {
	for _, s := range scalarTypes {
		if s.Dynamo == t {
			return s.Noun
		}
	}
	return "a non-scalar value"
}

// ScalarType is the attribute's scalar type, or nil.
func (a *Attribute) ScalarType() *ScalarType {
	for _, s := range scalarTypes {
		if s.Type == a.Type {
			return s
		}
	}
	return nil
}

// Scalar reports whether the attribute holds one value that a key can
// hold: one of ScalarTypes.
func (a *Attribute) Scalar() bool { return a.ScalarType() != nil }

// DynamoType is the DynamoDB type an attribute is stored as: "S"
// (strings, enums, times), "N" (numbers, ttls), "B" (binaries) or
// "BOOL"; "" for a type keyplan does not store as a scalar. Only S, N and
// B may be key attributes.
func (a *Attribute) DynamoType() string {
	if s := a.ScalarType(); s != nil {
		return s.Dynamo
	}
	return ""
}

// GoType is the Go type of a scalar attribute's values in generated code
// (an enum's named type is the generator's), "" for another type.
func (a *Attribute) GoType() string {
	if s := a.ScalarType(); s != nil {
		return s.codec.goType(a)
	}
	return ""
}

// StoredValue is v as the attribute's DynamoDB type holds it: a string
// (S), a number's text (N), []byte (B) or a bool (BOOL). checked says v's
// key form was encoded already (it is not checked again).
func (a *Attribute) StoredValue(v any, checked bool) (any, error) {
	s := a.ScalarType()
	if s == nil {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: "a " + string(a.Type) + " is no scalar"}
	}
	return s.codec.stored(a, v, checked)
}

// FromStoredText reads an S value the attribute's items hold: a string,
// or a time.
func (a *Attribute) FromStoredText(text string) (any, error) {
	if s := a.ScalarType(); s != nil {
		return s.codec.fromText(a, text)
	}
	return text, nil
}

// FixedWidth reports whether the attribute's key encoding has a declared,
// fixed width: numbers need min/max or digits (else keyplan falls back to 20
// digits), times, bools and enums always have one.
func (a *Attribute) FixedWidth() bool {
	if s := a.ScalarType(); s != nil {
		return s.codec.fixedWidth(a)
	}
	return true
}

// MaxKeyBytes is the most bytes the attribute's encoded value can take in a
// key, and whether that is known (unbounded strings are not).
func (a *Attribute) MaxKeyBytes() (int, bool) {
	if s := a.ScalarType(); s != nil {
		return s.codec.maxKeyBytes(a)
	}
	return 0, false
}

// RangeSide places a range bound against the values the attribute's keys
// can hold: -1 below them all, +1 above them all, 0 within (or for a type
// without bounds). A bound outside makes a range empty or whole rather
// than an error.
func (a *Attribute) RangeSide(v any) (int, error) {
	if s := a.ScalarType(); s != nil {
		return s.codec.rangeSide(a, v)
	}
	return 0, nil
}

// Text is a scalar value as a derived attribute's text holds it: a
// string as it is, a number in its shortest decimal form, a time in
// TimeLayout, a bool as true or false, a binary in base64.
func (a *Attribute) Text(v any) (string, error) {
	if s := a.ScalarType(); s != nil {
		return s.codec.text(a, v)
	}
	return a.checkedText(v)
}

// The built-in types' encoders. Their key forms are in encode.go, their
// text in kinds.go, their sizes and KP202 encodings in scalarsize.go;
// binary's in binary.go.
type (
	stringCodec struct{}
	numberCodec struct{}
	// ttlCodec is a number of epoch seconds: whole, not negative.
	ttlCodec  struct{ numberCodec }
	timeCodec struct{}
	boolCodec struct{}
)

func (stringCodec) goType(*Attribute) string { return "string" }

func (numberCodec) goType(a *Attribute) string {
	if a.Min != nil || a.Max != nil || a.Digits > 0 {
		return "int64" // a bounded number is an integer
	}
	return "float64"
}

func (ttlCodec) goType(*Attribute) string { return "int64" } // seconds since the epoch

func (timeCodec) goType(*Attribute) string { return "time.Time" }

func (boolCodec) goType(*Attribute) string { return "bool" }

func (stringCodec) stored(a *Attribute, v any, checked bool) (any, error) {
	s, ok := v.(string)
	if n, isNum := v.(json.Number); isNum {
		s, ok = string(n), true
	}
	if !ok {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("expected a string, found %T", v)}
	}
	if !checked && (len(a.Values) > 0 || a.MaxLength > 0 || s == "") {
		// An empty string is refused in or out of a key (Check), so an
		// item's validity does not depend on the layout: a GSI added
		// later could not hold the item.
		if err := a.Check(v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (numberCodec) stored(a *Attribute, v any, checked bool) (any, error) {
	return a.NumberText(v, checked)
}

func (timeCodec) stored(a *Attribute, v any, _ bool) (any, error) { return a.EncodeKey(v) }

func (boolCodec) stored(a *Attribute, v any, checked bool) (any, error) {
	if !checked {
		if err := a.Check(v); err != nil {
			return nil, err
		}
	}
	b, _ := v.(bool)
	if s, ok := v.(string); ok {
		b, _ = strconv.ParseBool(s)
	}
	return b, nil
}

func (stringCodec) fromText(_ *Attribute, s string) (any, error) { return s, nil }

func (numberCodec) fromText(_ *Attribute, s string) (any, error) { return s, nil }

func (boolCodec) fromText(_ *Attribute, s string) (any, error) { return s, nil }

func (timeCodec) fromText(_ *Attribute, s string) (any, error) { return time.Parse(TimeLayout, s) }

// NumberText renders a number attribute's value in DynamoDB's N form;
// bounded numbers (and ttls) must be integers in range. checked: v was
// checked already.
func (a *Attribute) NumberText(v any, checked bool) (string, error) {
	if !checked && !isInt(v) {
		// a decimal (or a whole number beyond int64): within DynamoDB's
		// numbers, and whole where the attribute says so
		if err := a.Check(v); err != nil {
			return "", err
		}
	} else if bounded := a.Type == TypeTTL || a.Min != nil || a.Max != nil || a.Digits > 0; bounded && !checked {
		if err := a.Check(v); err != nil {
			return "", err
		}
	}
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			break
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case json.Number:
		if _, err := x.Float64(); err == nil {
			return string(x), nil
		}
	case string:
		if _, err := strconv.ParseFloat(x, 64); err == nil {
			return x, nil
		}
	}
	return "", &ValueError{Attr: a.Name, Value: v, Msg: "expected a number"}
}

// isInt reports a Go integer (which DynamoDB's numbers always hold).
func isInt(v any) bool {
	switch v.(type) {
	case int, int32, int64:
		return true
	}
	return false
}
