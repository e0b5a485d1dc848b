package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Encodings, and keyplan's bounds on them (DynamoDB's limits are in
// limits.go).
const (
	// MaxDigits bounds `digits`: an int64 holds 18 decimal digits safely.
	MaxDigits = 18
	// MaxShards bounds `shards`.
	MaxShards = 1000
	// Sep separates the parts of a key. Encoded values never contain it, nor
	// any byte below it, so "P" and "P#…" are exactly the keys in [P, P$).
	Sep = '#'
	// TimeLayout is the fixed-width UTC form times take in keys.
	TimeLayout = "2006-01-02T15:04:05.000Z"
)

// ErrValue is matched by every error about an attribute value.
var ErrValue = errors.New("invalid value")

// ValueError says which attribute's value could not be encoded or decoded.
type ValueError struct {
	Attr  string
	Value any
	Msg   string
}

func (e *ValueError) Error() string {
	var v any = e.Value
	if e.Value == "" {
		v = `""` // an empty value is shown, not left blank
	}
	if e.Attr == "" {
		return fmt.Sprintf("value %v: %s", v, e.Msg)
	}
	return fmt.Sprintf("attribute %q: value %v: %s", e.Attr, v, e.Msg)
}

// Is makes *ValueError match ErrValue.
func (e *ValueError) Is(target error) bool { return target == ErrValue }

// Bounds returns the integer range a number attribute is declared over, and
// whether it was declared.
func (a *Attribute) Bounds() (lo, hi int64, declared bool) {
	switch {
	case a.Digits > 0:
		m := int64(math.Pow10(a.Digits)) - 1
		return -m, m, true
	case a.Min != nil && a.Max != nil:
		return *a.Min, *a.Max, true
	case a.Min != nil:
		return *a.Min, math.MaxInt64, true
	case a.Max != nil:
		return math.MinInt64, *a.Max, true
	}
	return math.MinInt64, math.MaxInt64, false
}

// NumberWidth is the number of digits of an encoded number.
func (a *Attribute) NumberWidth() int {
	if a.KeyWidth > 0 {
		return a.KeyWidth
	}
	lo, hi, _ := a.Bounds()
	return DigitCount(uint64(hi) - uint64(lo))
}

// NumberOffset is what an encoded number is offset by: its lower bound, or
// the offset a lock pins.
func (a *Attribute) NumberOffset() int64 {
	if a.KeyOffset != nil {
		return *a.KeyOffset
	}
	lo, _, _ := a.Bounds()
	return lo
}

func DigitCount(u uint64) int {
	n := 1
	for u >= 10 {
		u /= 10
		n++
	}
	return n
}

func (numberCodec) fixedWidth(a *Attribute) bool {
	_, _, ok := a.Bounds()
	return ok
}

func (stringCodec) fixedWidth(*Attribute) bool { return false }

func (timeCodec) fixedWidth(*Attribute) bool { return true }

func (boolCodec) fixedWidth(*Attribute) bool { return true }

func (numberCodec) maxKeyBytes(a *Attribute) (int, bool) {
	if a.Decimals() {
		return maxDecimalKeyBytes, true
	}
	return a.NumberWidth(), true
}

func (timeCodec) maxKeyBytes(*Attribute) (int, bool) { return len(TimeLayout), true }

func (boolCodec) maxKeyBytes(*Attribute) (int, bool) { return len("false"), true }

func (stringCodec) maxKeyBytes(a *Attribute) (int, bool) {
	if len(a.Values) > 0 {
		n := 0
		for _, v := range a.Values {
			n = max(n, len(escape(v)))
		}
		return n, true
	}
	if a.MaxLength > 0 {
		return 3 * a.MaxLength, true // every byte may need escaping
	}
	return 0, false
}

// EncodeKey renders v as the attribute's key form: order-preserving, free
// of the separator, and made only of bytes above '$' (so value + "$" bounds
// every key that starts with the value). Strings escape every byte up to
// '%' (the separator '#', '$' and '%' included) as %XX, which sorts where
// the byte did: below every byte kept as it is;
// numbers are integers offset by the lower bound and zero-padded to a fixed
// width, so string order is numeric order; times are fixed-width UTC.
func (a *Attribute) EncodeKey(v any) (string, error) {
	s := a.ScalarType()
	if s == nil {
		return "", &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("a %s has no key form (KP206)", a.Type)}
	}
	return s.codec.key(a, v)
}

func (numberCodec) key(a *Attribute, v any) (string, error) {
	n, err := a.integer(v)
	if err != nil {
		if a.Decimals() {
			return a.encodeDecimal(v)
		}
		return "", err
	}
	return a.fixedWidth(n), nil
}

func (timeCodec) key(a *Attribute, v any) (string, error) {
	t, err := a.time(v)
	if err != nil {
		return "", err
	}
	return formatTime(t), nil
}

func (boolCodec) key(a *Attribute, v any) (string, error) {
	b, err := a.bool(v)
	if err != nil {
		return "", err
	}
	return strconv.FormatBool(b), nil
}

func (stringCodec) key(a *Attribute, v any) (string, error) {
	s, err := a.string(v)
	if err != nil {
		return "", err
	}
	return escape(s), nil
}

// fixedWidth is a whole number's key form: offset by the lower bound,
// zero-padded to the attribute's width.
func (a *Attribute) fixedWidth(n int64) string {
	var buf [24]byte
	w := a.NumberWidth()
	u := uint64(n) - uint64(a.NumberOffset())
	for i := w - 1; i >= 0; i-- {
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	return string(buf[:w])
}

// formatTime writes t (UTC, years 0–9999) in TimeLayout without the
// general layout interpreter: keys are built on hot paths.
func formatTime(t time.Time) string {
	var b [len(TimeLayout)]byte
	put := func(at, width, n int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + n%10)
			n /= 10
		}
	}
	y, mo, d := t.Date()
	h, mi, sec := t.Clock()
	put(0, 4, y)
	b[4] = '-'
	put(5, 2, int(mo))
	b[7] = '-'
	put(8, 2, d)
	b[10] = 'T'
	put(11, 2, h)
	b[13] = ':'
	put(14, 2, mi)
	b[16] = ':'
	put(17, 2, sec)
	b[19] = '.'
	put(20, 3, t.Nanosecond()/int(time.Millisecond))
	b[23] = 'Z'
	return string(b[:])
}

func (numberCodec) rangeSide(a *Attribute, v any) (int, error) {
	n, err := a.anyInteger(v)
	if err != nil && a.Decimals() {
		if _, err := decimalOf(v); err != nil {
			return 0, &ValueError{Attr: a.Name, Value: v, Msg: err.Error()}
		}
		return 0, nil // no bounds: every number is within
	}
	if err != nil {
		return 0, err
	}
	lo := a.NumberOffset()
	if n < lo {
		return -1, nil
	}
	if w := a.NumberWidth(); w < 19 && uint64(n)-uint64(lo) >= uint64(math.Pow10(w)) {
		return 1, nil
	}
	if lo, hi, ok := a.Bounds(); ok && n < lo {
		return -1, nil
	} else if ok && n > hi {
		return 1, nil
	}
	return 0, nil
}

func (timeCodec) rangeSide(a *Attribute, v any) (int, error) {
	t, err := a.anyTime(v)
	if err != nil {
		return 0, err
	}
	switch {
	case t.Year() < 0:
		return -1, nil
	case t.Year() > 9999:
		return 1, nil
	}
	return 0, nil
}

func (boolCodec) rangeSide(*Attribute, any) (int, error) { return 0, nil }

func (stringCodec) rangeSide(*Attribute, any) (int, error) { return 0, nil }

// DecodeKey reverses EncodeKey: string, int64 (float64 for a decimal, or
// a whole number beyond int64), time.Time, bool or []byte.
func (a *Attribute) DecodeKey(s string) (any, error) {
	if t := a.ScalarType(); t != nil {
		return t.codec.decode(a, s)
	}
	return stringCodec{}.decode(a, s)
}

func (numberCodec) decode(a *Attribute, s string) (any, error) {
	if a.Decimals() && len(s) != a.NumberWidth() {
		return a.decodeDecimal(s)
	}
	if len(s) != a.NumberWidth() {
		return nil, &ValueError{Attr: a.Name, Value: s, Msg: fmt.Sprintf("expected %d digits", a.NumberWidth())}
	}
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil, &ValueError{Attr: a.Name, Value: s, Msg: "expected digits"}
	}
	return int64(u + uint64(a.NumberOffset())), nil
}

func (timeCodec) decode(a *Attribute, s string) (any, error) {
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		return nil, &ValueError{Attr: a.Name, Value: s, Msg: "expected a time of the form " + TimeLayout}
	}
	return t, nil
}

func (boolCodec) decode(a *Attribute, s string) (any, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return nil, &ValueError{Attr: a.Name, Value: s, Msg: "expected true or false"}
	}
	return b, nil
}

func (stringCodec) decode(a *Attribute, s string) (any, error) {
	v, err := unescape(s)
	if ve, ok := err.(*ValueError); ok {
		ve.Attr = a.Name
	}
	return v, err
}

// Check reports whether v is a valid value of the attribute.
func (a *Attribute) Check(v any) error {
	if !a.Scalar() {
		return a.checkMany(v)
	}
	_, err := a.EncodeKey(v)
	return err
}

func (a *Attribute) integer(v any) (int64, error) {
	n, err := a.anyInteger(v)
	if err != nil {
		if d, derr := decimalOf(v); derr == nil && d.frac != "" && !a.Decimals() {
			return 0, &ValueError{Attr: a.Name, Value: v, Msg: a.wholeOnly()}
		}
		return 0, err
	}
	lo, hi, _ := a.Bounds()
	if n < lo || n > hi {
		return 0, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("out of the declared range %d..%d", lo, hi)}
	}
	if a.Type == TypeTTL && n < 0 {
		return 0, &ValueError{Attr: a.Name, Value: v, Msg: "a ttl is epoch seconds, not negative"}
	}
	return n, nil
}

// wholeOnly says why a number attribute takes no decimal.
func (a *Attribute) wholeOnly() string {
	if a.Type == TypeTTL {
		return "expected a whole number: a ttl is epoch seconds"
	}
	return "expected a whole number: a number with digits, min or max is whole (keys hold it at a fixed width); declare it without them to allow decimals"
}

// anyInteger reads v as a whole number, in or out of the declared range.
func (a *Attribute) anyInteger(v any) (int64, error) {
	bad := func(msg string) error { return &ValueError{Attr: a.Name, Value: v, Msg: msg} }
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case uint32:
		n = int64(x)
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return 0, bad("expected a whole number in keys")
		}
		n = int64(x)
	case json.Number:
		i, err := parseInteger(string(x))
		if err != nil {
			return 0, bad(err.Error())
		}
		n = i
	case string:
		i, err := parseInteger(x)
		if err != nil {
			return 0, bad(err.Error())
		}
		n = i
	default:
		return 0, bad(fmt.Sprintf("expected a number, found %T", v))
	}
	return n, nil
}

// parseInteger accepts integers, also written as 1e3 or 12.0.
func parseInteger(s string) (int64, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	r, ok := new(big.Rat).SetString(s)
	switch {
	case !ok || !r.IsInt():
		return 0, errors.New("expected a whole number")
	case !r.Num().IsInt64():
		return 0, errors.New("a whole number beyond the 19 digits a key holds")
	}
	return r.Num().Int64(), nil
}

func (a *Attribute) time(v any) (time.Time, error) {
	t, err := a.anyTime(v)
	if err != nil {
		return t, err
	}
	if t.Year() < 0 || t.Year() > 9999 {
		return t, &ValueError{Attr: a.Name, Value: v, Msg: "expected a year from 0000 to 9999"}
	}
	return t, nil
}

// anyTime reads v as a time, in or out of the years keys can hold.
func (a *Attribute) anyTime(v any) (time.Time, error) {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case string:
		var err error
		if t, err = time.Parse(time.RFC3339, x); err != nil {
			return t, &ValueError{Attr: a.Name, Value: v, Msg: "expected an RFC 3339 time such as 2026-01-02T15:04:05Z"}
		}
	default:
		return t, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("expected a time, found %T", v)}
	}
	return t.UTC().Truncate(time.Millisecond), nil
}

// CheckIDTimes refuses id times finer than a millisecond, the precision
// of times in keys: two items whose ids differ below it would share one
// key, the second overwriting the first.
func (e *Entity) CheckIDTimes(v map[string]any) error {
	for _, id := range e.ID {
		a := e.Attr(id)
		if a == nil || a.Type != TypeTime {
			continue
		}
		var t time.Time
		switch x := v[id].(type) {
		case time.Time:
			t = x
		case string:
			t, _ = time.Parse(time.RFC3339Nano, x)
		}
		if t.Nanosecond()%int(time.Millisecond) != 0 {
			return &ValueError{Attr: id, Value: v[id], Msg: "an id time finer than a millisecond (keys keep milliseconds: another item at the same millisecond would share this one's key); truncate it, t.Truncate(time.Millisecond)"}
		}
	}
	return nil
}

func (a *Attribute) bool(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(x); err == nil {
			return b, nil
		}
	}
	return false, &ValueError{Attr: a.Name, Value: v, Msg: "expected true or false"}
}

func (a *Attribute) string(v any) (string, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	case fmt.Stringer:
		s = x.String()
	default:
		return "", &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("expected a string, found %T", v)}
	}
	if len(a.Values) > 0 && !slices.Contains(a.Values, s) {
		return "", &ValueError{Attr: a.Name, Value: v, Msg: "expected one of " + strings.Join(a.Values, ", ")}
	}
	if a.MaxLength > 0 && len(s) > a.MaxLength {
		return "", &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("longer than maxLength %d", a.MaxLength)}
	}
	if s == "" {
		return "", &ValueError{Attr: a.Name, Value: v, Msg: a.emptyString()}
	}
	return s, nil
}

// emptyString says why "" is refused and what to do instead: keyplan
// refuses it in and out of keys alike (no key can hold it, and a GSI
// added later may key on the attribute), so an item's validity does not
// depend on the layout.
func (a *Attribute) emptyString() string {
	why := "keyplan refuses an empty string in and out of keys: no key can hold it, and a GSI added later may key on it"
	if a.Optional {
		return "an empty string is no value: leave the attribute out (" + why + ")"
	}
	return "a required string cannot be empty: give it a value, or declare the attribute optional: true and leave it out (" + why + ")"
}

const hexDigits = "0123456789ABCDEF"

// needsEscape: the bytes up to '%' (0x25): the separator '#', the bound
// '$', the escape '%' and every byte below them.
func needsEscape(c byte) bool { return c <= '%' }

func escape(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if needsEscape(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", &ValueError{Value: s, Msg: "truncated %XX escape"}
		}
		x, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", &ValueError{Value: s, Msg: "bad %XX escape"}
		}
		b.WriteByte(byte(x))
		i += 2
	}
	return b.String(), nil
}
