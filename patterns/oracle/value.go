package oracle

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/keyplan/keyplan/patterns/model"
)

// Values are an item's attribute values by name, in the reference's
// canonical forms: string, Number, time.Time (UTC, whole milliseconds),
// bool, Binary.
type Values map[string]any

// Binary is a binary attribute's value: its bytes, held in a string so
// that it compares with == (DynamoDB orders binaries byte by byte, as Go
// orders strings).
type Binary string

// Number is a number attribute's value: exact decimal text, canonical
// (no exponent, no trailing zeros, "-0" is "0"), so two equal numbers
// have equal text.
type Number string

// ErrInvalid is matched by every error about a value the model does not
// allow (a wrong type, a value out of its declared range, a required
// attribute missing, an unknown name).
var ErrInvalid = errors.New("invalid")

// invalid is an ErrInvalid with a message.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// The value rules, from the model's documentation (DESIGN.md, the
// attribute types) and DynamoDB's limits, written here on their own: the
// reference never asks the runtime or the planner what a value is.
const (
	// timeLayout is how a time is written in messages.
	timeLayout = "2006-01-02T15:04:05.000Z"
)

// Normalize checks v against the attribute's declared type and returns its
// canonical form. A string is non-empty UTF-8 no longer than maxLength
// bytes and one of values for an enum; a number is finite, at most 38
// significant digits, and a whole number within min/max (or digits) when
// those are declared; a ttl is a whole number of epoch seconds, not
// negative; a time is a time.Time or RFC 3339 text, kept to the
// millisecond in UTC, years 0000 to 9999; a bool is true or false; a
// binary is bytes ([]byte, or standard base64 text), not empty, at most
// maxLength of them.
func Normalize(a *model.Attribute, v any) (any, error) {
	bad := func(msg string) error { return invalid("%s: %v (%T): %s", a.Name, v, v, msg) }
	switch a.Type {
	case model.TypeString:
		s, ok := v.(string)
		if !ok {
			return nil, bad("expected a string")
		}
		switch {
		case s == "":
			return nil, bad("empty")
		case !utf8.ValidString(s):
			return nil, bad("not UTF-8")
		case a.MaxLength > 0 && len(s) > a.MaxLength:
			return nil, bad(fmt.Sprintf("longer than maxLength %d", a.MaxLength))
		case len(a.Values) > 0 && !slices.Contains(a.Values, s):
			return nil, bad("not one of " + strings.Join(a.Values, ", "))
		}
		return s, nil
	case model.TypeNumber, model.TypeTTL:
		r, err := rat(v)
		if err != nil {
			return nil, bad(err.Error())
		}
		lo, hi, bounded := bounds(a)
		if a.Type == model.TypeTTL {
			lo, hi, bounded = new(big.Rat), nil, true
		}
		if bounded && !r.IsInt() {
			return nil, bad("expected a whole number")
		}
		if lo != nil && r.Cmp(lo) < 0 || hi != nil && r.Cmp(hi) > 0 {
			return nil, bad("out of the declared range")
		}
		n := numberText(r)
		if significant(n) > model.NumberDigits {
			return nil, bad("more than 38 significant digits")
		}
		if r.Sign() != 0 && (magnitude(r) > model.NumberMaxExponent || magnitude(r) < -model.NumberMinExponent) {
			return nil, bad("beyond the magnitude DynamoDB holds (1E-130 to below 1E+126)")
		}
		return Number(n), nil
	case model.TypeTime:
		var t time.Time
		switch x := v.(type) {
		case time.Time:
			t = x
		case string:
			var err error
			if t, err = time.Parse(time.RFC3339Nano, x); err != nil {
				return nil, bad("expected an RFC 3339 time")
			}
		default:
			return nil, bad("expected a time")
		}
		t = t.UTC().Truncate(time.Millisecond)
		if t.Year() < 0 || t.Year() > 9999 {
			return nil, bad("expected a year from 0000 to 9999")
		}
		return t, nil
	case model.TypeBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(x); err == nil && (x == "true" || x == "false") {
				return b, nil
			}
		}
		return nil, bad("expected true or false")
	case model.TypeBinary:
		var b []byte
		switch x := v.(type) {
		case []byte:
			b = x
		case Binary:
			b = []byte(x)
		case string:
			var err error
			if b, err = base64.StdEncoding.Strict().DecodeString(x); err != nil {
				return nil, bad("expected standard base64 text")
			}
		default:
			return nil, bad("expected bytes")
		}
		switch {
		case len(b) == 0:
			return nil, bad("empty")
		case a.MaxLength > 0 && len(b) > a.MaxLength:
			return nil, bad(fmt.Sprintf("longer than maxLength %d", a.MaxLength))
		}
		return Binary(b), nil
	case model.TypeSet, model.TypeList, model.TypeMap:
		return normalizeMany(a, v)
	case model.TypeCounter:
		return nil, bad("a sharded counter is on no item: add to it with a write")
	}
	return nil, bad("unknown type " + string(a.Type))
}

// finerThanMillis reports whether v is a time with a part below the
// millisecond (an id time must not have one: two items differing only
// there would be one item).
func finerThanMillis(v any) bool {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case string:
		var err error
		if t, err = time.Parse(time.RFC3339Nano, x); err != nil {
			return false
		}
	default:
		return false
	}
	return t.Nanosecond()%int(time.Millisecond) != 0
}

// bounds is the declared integer range of a number (nil: unbounded on
// that side) and whether one was declared.
func bounds(a *model.Attribute) (lo, hi *big.Rat, declared bool) {
	if a.Digits > 0 {
		m := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.Digits)), nil)
		m.Sub(m, big.NewInt(1))
		hi = new(big.Rat).SetInt(m)
		lo = new(big.Rat).Neg(hi)
		return lo, hi, true
	}
	if a.Min != nil {
		lo = new(big.Rat).SetInt64(*a.Min)
	}
	if a.Max != nil {
		hi = new(big.Rat).SetInt64(*a.Max)
	}
	return lo, hi, lo != nil || hi != nil
}

// rat reads a number: Go integers and floats, json.Number, Number, and
// decimal text.
func rat(v any) (*big.Rat, error) {
	var s string
	switch x := v.(type) {
	case int:
		return new(big.Rat).SetInt64(int64(x)), nil
	case int32:
		return new(big.Rat).SetInt64(int64(x)), nil
	case int64:
		return new(big.Rat).SetInt64(x), nil
	case uint32:
		return new(big.Rat).SetInt64(int64(x)), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("not a finite number")
		}
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		s = string(x)
	case Number:
		s = string(x)
	case string:
		s = x
	default:
		return nil, errors.New("expected a number")
	}
	if s == "" || strings.ContainsAny(s, "/_ ") || strings.EqualFold(s, "nan") || strings.Contains(strings.ToLower(s), "inf") {
		return nil, errors.New("expected a number")
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, errors.New("expected a number")
	}
	return r, nil
}

// numberText is a number's canonical decimal text.
func numberText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	// A decimal's denominator divides a power of ten: find the digits.
	s := r.FloatString(model.NumberMinExponent + model.NumberDigits)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// magnitude is the power of ten of r's leading digit: 2 for 123.4, -3
// for 0.0012.
func magnitude(r *big.Rat) int {
	t := strings.TrimPrefix(numberText(r), "-")
	whole, frac, _ := strings.Cut(t, ".")
	if whole != "0" {
		return len(whole) - 1
	}
	return -(len(frac) - len(strings.TrimLeft(frac, "0")) + 1)
}

// significant counts a canonical number's significant digits.
func significant(s string) int {
	s = strings.TrimPrefix(s, "-")
	s = strings.Replace(s, ".", "", 1)
	s = strings.TrimLeft(s, "0")
	s = strings.TrimRight(s, "0")
	return max(len(s), 1)
}

// compareValues orders two canonical values of one attribute: strings by
// their UTF-8 bytes (DynamoDB's order of strings), numbers by value,
// times by instant, false before true. ok is false when they are of
// different kinds.
func compareValues(x, y any) (int, bool) {
	switch a := x.(type) {
	case string:
		if b, ok := y.(string); ok {
			return strings.Compare(a, b), true
		}
	case Number:
		if b, ok := y.(Number); ok {
			p, _ := new(big.Rat).SetString(string(a))
			q, _ := new(big.Rat).SetString(string(b))
			return p.Cmp(q), true
		}
	case time.Time:
		if b, ok := y.(time.Time); ok {
			return a.Compare(b), true
		}
	case Binary:
		if b, ok := y.(Binary); ok {
			return strings.Compare(string(a), string(b)), true
		}
	case Set, List, Map:
		if eq, ok := equalMany(x, y); ok {
			if eq {
				return 0, true
			}
			return 1, true
		}
	case bool:
		if b, ok := y.(bool); ok {
			switch {
			case a == b:
				return 0, true
			case !a:
				return -1, true
			}
			return 1, true
		}
	}
	return 0, false
}

// equalValues reports whether two canonical values are equal.
func equalValues(x, y any) bool {
	c, ok := compareValues(x, y)
	return ok && c == 0
}

// Text writes a canonical value for messages and identities: strings
// quoted (so "a#b" shows its bytes), times at the millisecond.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return "absent"
	case string:
		return strconv.Quote(x)
	case Number:
		return string(x)
	case time.Time:
		return x.UTC().Format(timeLayout)
	case bool:
		return strconv.FormatBool(x)
	case Binary:
		return "0x" + hex.EncodeToString([]byte(x))
	}
	if s, ok := textMany(v); ok {
		return s
	}
	return fmt.Sprintf("%v", v)
}

// Plain converts a canonical value to what keyplan's runtime and
// encoding/json take: a Number becomes an int64 when it is a whole number
// that fits, json.Number otherwise; a Binary becomes []byte.
func Plain(v any) any {
	if n, ok := v.(Number); ok {
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return i
		}
		return json.Number(n)
	}
	if b, ok := v.(Binary); ok {
		return []byte(b)
	}
	if p, ok := plainMany(v); ok {
		return p
	}
	return v
}
