package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A number attribute without digits, min or max holds any number DynamoDB
// holds, decimals included: up to 38 significant digits, magnitude 1E-130
// to below 1E+126 (limits.go). With digits, min or max it is a whole
// number, encoded in keys at a fixed width.
//
// In a key, such a number keeps the fixed-width form of its whole part
// (the form every earlier keyplan wrote, so integers' keys never change),
// and a decimal continues it with "." and its fraction. The whole part is
// the floor (-2.25 is -3 and .75), so that string order stays numeric
// order: E(-3) < E(-3).75 < E(-2), and '.' sorts above '$' and '#', so a
// range's bounds (E(v)+"$", E(v)+"#…") still fall where they did. A whole
// part beyond int64 takes a form that sorts beyond every fixed-width one:
// "9", its digit count in three digits and its digits above; "-", 999 less
// its digit count and its digits' nines' complements below.

// Decimals reports whether the attribute takes decimals: a number without
// digits, min or max (a ttl is whole epoch seconds).
func (a *Attribute) Decimals() bool {
	_, _, declared := a.Bounds()
	return a.Type == TypeNumber && !declared
}

// decimal is a number's exact decimal text: its sign, its whole part's
// digits (no leading zeros; "0" for none) and its fraction's (no trailing
// zeros; "" for none).
type decimal struct {
	neg         bool
	whole, frac string
}

// maxDecimalKeyBytes bounds a decimal's key form: the fixed-width whole
// part, ".", and a fraction of at most 130+37 digits (38 significant
// digits from the 130th place).
const maxDecimalKeyBytes = 20 + 1 + NumberMinExponent + NumberDigits - 1

// decimalOf reads v as an exact decimal and checks it against DynamoDB's
// numbers.
func decimalOf(v any) (decimal, error) {
	var s string
	switch x := v.(type) {
	case int:
		s = strconv.Itoa(x)
	case int32:
		s = strconv.FormatInt(int64(x), 10)
	case int64:
		s = strconv.FormatInt(x, 10)
	case uint32:
		s = strconv.FormatUint(uint64(x), 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return decimal{}, fmt.Errorf("%v is not a number DynamoDB holds", x)
		}
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		s = strconv.FormatFloat(float64(x), 'f', -1, 32)
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return decimal{}, fmt.Errorf("expected a number, found %T", v)
	}
	d, ok := parseDecimal(s)
	if !ok {
		return decimal{}, fmt.Errorf("expected a number")
	}
	return d, d.check()
}

// parseDecimal reads decimal text: an optional sign, digits with an
// optional point, an optional exponent (e or E).
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if s != "" && (s[0] == '-' || s[0] == '+') {
		d.neg = s[0] == '-'
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 || strings.HasPrefix(s[i+1:], "+-") {
			return d, false // far beyond DynamoDB's range: refused, never expanded
		}
		mant, exp = s[:i], e
	}
	whole, frac, _ := strings.Cut(mant, ".")
	if whole == "" && frac == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return d, false
	}
	digits, point := whole+frac, len(whole)+exp
	switch {
	case point < 0:
		digits, point = strings.Repeat("0", -point)+digits, 0
	case point > len(digits):
		digits += strings.Repeat("0", point-len(digits))
	}
	d.whole = strings.TrimLeft(digits[:point], "0")
	d.frac = strings.TrimRight(digits[point:], "0")
	if d.whole == "" {
		d.whole = "0"
	}
	if d.zero() {
		d.neg = false
	}
	return d, true
}

func (d decimal) zero() bool { return d.whole == "0" && d.frac == "" }

// check holds d to DynamoDB's numbers.
func (d decimal) check() error {
	if d.zero() {
		return nil
	}
	sig := strings.TrimRight(strings.TrimLeft(d.whole+d.frac, "0"), "0")
	lead := len(d.frac) - len(strings.TrimLeft(d.frac, "0")) // zeros after the point
	switch {
	case len(sig) > NumberDigits:
		return fmt.Errorf("more than the %d significant digits DynamoDB holds", NumberDigits)
	case d.whole != "0" && len(d.whole) > NumberMaxExponent+1:
		return fmt.Errorf("beyond the magnitude DynamoDB holds (below 1E+%d)", NumberMaxExponent+1)
	case d.whole == "0" && lead+1 > NumberMinExponent:
		return fmt.Errorf("below the magnitude DynamoDB holds (1E-%d and above)", NumberMinExponent)
	}
	return nil
}

// floor splits d into its floor's digits (and sign) and the fraction
// that remains, 0 <= fraction < 1: -2.25 is -3 and .75.
func (d decimal) floor() (neg bool, whole, frac string) {
	if !d.neg || d.frac == "" {
		return d.neg, d.whole, d.frac
	}
	return true, increment(d.whole), complement(d.frac)
}

// complement is 1 - 0.frac for a fraction without trailing zeros (nines'
// complement, the last digit ten's): its own inverse.
func complement(frac string) string {
	c := []byte(frac)
	for i := range c {
		c[i] = '9' - c[i] + '0'
	}
	c[len(c)-1]++
	return string(c)
}

// decrement subtracts one from a string of digits above zero.
func decrement(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] > '0' {
			b[i]--
			break
		}
		b[i] = '9'
	}
	if t := strings.TrimLeft(string(b), "0"); t != "" {
		return t
	}
	return "0"
}

// increment adds one to a string of digits.
func increment(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < '9' {
			b[i]++
			return string(b)
		}
		b[i] = '0'
	}
	return "1" + string(b)
}

// encodeDecimal is the key form of a number of an attribute that takes
// decimals (see above).
func (a *Attribute) encodeDecimal(v any) (string, error) {
	d, err := decimalOf(v)
	if err != nil {
		return "", &ValueError{Attr: a.Name, Value: v, Msg: err.Error()}
	}
	neg, whole, frac := d.floor()
	text := whole
	if neg {
		text = "-" + whole
	}
	var body string
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		body = a.fixedWidth(n)
	} else if a.NumberWidth() != 20 || a.NumberOffset() != math.MinInt64 {
		// a width a lock pins leaves no room beyond it
		return "", &ValueError{Attr: a.Name, Value: v, Msg: "a whole part beyond the 19 digits this key holds"}
	} else if neg {
		c := []byte(whole)
		for i := range c {
			c[i] = '9' - c[i] + '0'
		}
		body = fmt.Sprintf("-%03d%s", 999-len(whole), c)
	} else {
		body = fmt.Sprintf("9%03d%s", len(whole), whole)
	}
	if frac != "" {
		body += "." + frac
	}
	return body, nil
}

// decodeDecimal reverses encodeDecimal: an int64 when whole and within
// it, else a float64 (as a decimal read from a stored N comes back).
func (a *Attribute) decodeDecimal(s string) (any, error) {
	bad := &ValueError{Attr: a.Name, Value: s, Msg: "expected a number's key form"}
	body, frac, hasFrac := strings.Cut(s, ".")
	if hasFrac && (frac == "" || strings.Trim(frac, "0123456789") != "") {
		return nil, bad
	}
	var text string
	switch {
	case len(body) == a.NumberWidth() && strings.Trim(body, "0123456789") == "":
		u, err := strconv.ParseUint(body, 10, 64)
		if err != nil {
			return nil, bad
		}
		if !hasFrac {
			return int64(u + uint64(a.NumberOffset())), nil
		}
		text = strconv.FormatInt(int64(u+uint64(a.NumberOffset())), 10)
	case len(body) > 4 && (body[0] == '9' || body[0] == '-'):
		n, err := strconv.Atoi(body[1:4])
		digits := body[4:]
		if err != nil || strings.Trim(digits, "0123456789") != "" {
			return nil, bad
		}
		if body[0] == '9' {
			if n != len(digits) {
				return nil, bad
			}
			text = digits
			break
		}
		if 999-n != len(digits) {
			return nil, bad
		}
		c := []byte(digits)
		for i := range c {
			c[i] = '9' - c[i] + '0'
		}
		text = "-" + string(c)
	default:
		return nil, bad
	}
	if hasFrac {
		if w, neg := strings.CutPrefix(text, "-"); neg {
			// floor + fraction: -3 + .75 is -(2 + (1 - .75)), -2.25
			text = "-" + decrement(w) + "." + complement(frac)
		} else {
			text += "." + frac
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, bad
	}
	return f, nil
}

// KeyBelow is the greatest key form below s (a key form of the
// attribute's) that any key form of the attribute can reach: for a
// ranged read "< v" on a value that ends the key. Decimals have no
// predecessor value; their key forms use only '-', '.' and digits, at
// most maxDecimalKeyBytes of them, so s with its last byte lowered and
// nines after it is above every key form below s.
func (a *Attribute) KeyBelow(s string) string {
	if s == "" {
		return ""
	}
	return s[:len(s)-1] + string(s[len(s)-1]-1) + strings.Repeat("9", maxDecimalKeyBytes)
}
