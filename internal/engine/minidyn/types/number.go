package types

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// A DynamoDB number has up to 38 significant digits and a magnitude
// between 1E-130 and 9.9999999999999999999999999999999999999E+125; the
// engine keeps numbers exact (math/big) instead of as float64, so counters
// past 2^53 add up as they do on DynamoDB.

// The messages DynamoDB refuses a number with.
const (
	MsgNotANumber      = "The parameter cannot be converted to a numeric value"
	MsgNumberPrecision = "Attempting to store more than 38 significant digits in a Number"
	MsgNumberOverflow  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	MsgNumberUnderflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
)

// decimal splits a DynamoDB number string into its sign, its significant
// digits (no leading or trailing zeros) and the exponent e such that the
// number is 0.digits × 10^e. Zero has no digits. It refuses what DynamoDB
// refuses, with its message.
func decimal(s string) (neg bool, digits string, exp int, err error) {
	// The error is made only when needed: decimal runs on every number an
	// item's size counts.
	number := s

	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}

	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		e, perr := strconv.ParseInt(strings.TrimPrefix(expPart, "+"), 10, 64)
		if perr != nil && !errors.Is(perr, strconv.ErrRange) || expPart == "" || strings.HasPrefix(expPart, "+-") || strings.HasPrefix(expPart, "++") {
			return false, "", 0, notANumber(number)
		}

		// An exponent past any number's range: keep its sign only.
		exp = int(max(min(e, 1<<20), -(1 << 20)))
	}

	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return false, "", 0, notANumber(number)
	}

	if !allDigits(intPart) || !allDigits(frac) {
		return false, "", 0, notANumber(number)
	}

	all := intPart
	if frac != "" {
		all += frac
	}

	exp += len(intPart)
	trimmed := strings.TrimLeft(all, "0")
	exp -= len(all) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")

	if digits == "" {
		return false, "", 0, nil
	}

	// DynamoDB's range: 1E-130 to 9.99…E+125 in magnitude, 38 digits.
	switch {
	case len(digits) > 38:
		return false, "", 0, errors.New(MsgNumberPrecision)
	case exp > 126:
		return false, "", 0, errors.New(MsgNumberOverflow)
	case exp < -129:
		return false, "", 0, errors.New(MsgNumberUnderflow)
	}

	return neg, digits, exp, nil
}

func notANumber(s string) error { return fmt.Errorf("%s: %s", MsgNotANumber, s) }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}

	return true
}

// OrderedNumber encodes a number so that encodings compare as strings in
// the numbers' order, and equal numbers ("1", "1.0", "10E-1") encode alike.
func OrderedNumber(s string) (string, error) {
	neg, digits, exp, err := decimal(s)
	if err != nil {
		return "", err
	}

	if digits == "" {
		return "1", nil
	}

	if !neg {
		return fmt.Sprintf("2%05d%s", exp+10000, digits), nil
	}

	complement := make([]byte, len(digits))
	for i := range len(digits) {
		complement[i] = '9' - (digits[i] - '0')
	}

	// '~' sorts after every digit, so a shorter magnitude (closer to
	// zero) sorts after a longer one with the same prefix.
	return fmt.Sprintf("0%05d%s~", 99999-(exp+10000), complement), nil
}

// ParseNumber reads a DynamoDB number exactly.
func ParseNumber(s string) (*big.Rat, error) {
	neg, digits, exp, err := decimal(s)
	if err != nil {
		return nil, err
	}

	r := new(big.Rat)
	if digits == "" {
		return r, nil
	}

	n, _ := new(big.Int).SetString(digits, 10)
	r.SetInt(n)

	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp-len(digits)))), nil)
	if exp-len(digits) >= 0 {
		r.Mul(r, new(big.Rat).SetInt(scale))
	} else {
		r.Quo(r, new(big.Rat).SetInt(scale))
	}

	if neg {
		r.Neg(r)
	}

	return r, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}

	return n
}

// FormatNumber writes r, a sum or difference of DynamoDB numbers (so a
// finite decimal), as DynamoDB does: no exponent, no trailing zeros.
func FormatNumber(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}

	// The denominator divides a power of ten: find the digits it needs.
	scaled := new(big.Rat).Set(r)
	ten := big.NewRat(10, 1)

	for places := 1; places <= 400; places++ {
		scaled.Mul(scaled, ten)
		if scaled.IsInt() {
			return r.FloatString(places)
		}
	}

	return r.FloatString(40)
}

// ValidateNumber refuses what is not a DynamoDB number: not a decimal
// number, more than 38 significant digits, or out of range.
func ValidateNumber(s string) error {
	_, _, _, err := decimal(s)
	return err
}

// NormalizeNumber is a number as DynamoDB stores it: plain decimal, no
// exponent, no leading or trailing zeros ("1e3" is "1000", "-0.0" is "0").
func NormalizeNumber(s string) (string, error) {
	neg, digits, exp, err := decimal(s)
	if err != nil {
		return "", err
	}

	if digits == "" {
		return "0", nil
	}

	var b strings.Builder

	if neg {
		b.WriteByte('-')
	}

	switch {
	case exp <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -exp))
		b.WriteString(digits)
	case exp >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp-len(digits)))
	default:
		b.WriteString(digits[:exp])
		b.WriteByte('.')
		b.WriteString(digits[exp:])
	}

	return b.String(), nil
}
