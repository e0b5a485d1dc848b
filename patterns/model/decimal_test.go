package model

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A number without digits, min or max takes decimals and whole numbers
// beyond int64; its key forms sort as the numbers do, alone and followed
// by "#…" or a range bound's "$", keep only bytes above '$', and decode
// back; integers keep the fixed-width form earlier keyplans wrote.
func TestDecimalKeysSortAsNumbers(t *testing.T) {
	a := &Attribute{Name: "amount", Type: TypeNumber}
	fixed := []string{"0", "1", "-1", "-2.25", "2.25", "12.99", "0.5", "0.05", "-0.05", "1E-130", "-1E-130",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
		"99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "1E+125", "-1E+125",
		"9.9999999999999999999999999999999999999E+125", "1.2345678901234567890123456789012345678E-100", "-3", "-2", "-2.5"}
	r := rand.New(rand.NewPCG(35, 1))
	vals := slices.Clone(fixed)
	for range 400 {
		digits := 1 + r.IntN(NumberDigits)
		var b strings.Builder
		for i := range digits {
			d := r.IntN(10)
			if i == 0 && d == 0 {
				d = 1
			}
			b.WriteByte(byte('0' + d))
		}
		exp := r.IntN(60) - 30
		if r.IntN(8) == 0 {
			exp = r.IntN(2*NumberMinExponent) - NumberMinExponent
		}
		if exp+digits-1 > NumberMaxExponent || exp+digits-1 < -NumberMinExponent {
			continue
		}
		s := fmt.Sprintf("%se%d", b.String(), exp)
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		vals = append(vals, s)
	}
	type kv struct {
		n   *big.Rat
		key string
	}
	var all []kv
	for _, v := range vals {
		k, err := a.EncodeKey(json.Number(v))
		if err != nil {
			t.Fatalf("EncodeKey(%s): %v", v, err)
		}
		for i := 0; i < len(k); i++ {
			if k[i] <= '$' {
				t.Fatalf("EncodeKey(%s) = %q: byte %q at %d", v, k, k[i], i)
			}
		}
		if len(k) > maxDecimalKeyBytes {
			t.Errorf("EncodeKey(%s): %d bytes, beyond MaxKeyBytes %d", v, len(k), maxDecimalKeyBytes)
		}
		n, _ := new(big.Rat).SetString(v)
		all = append(all, kv{n, k})
		back, err := a.DecodeKey(k)
		if err != nil {
			t.Fatalf("DecodeKey(%q): %v", k, err)
		}
		want, _ := strconv.ParseFloat(v, 64)
		var got float64
		switch x := back.(type) {
		case int64:
			got = float64(x)
		case float64:
			got = x
		}
		if got != want && (want == 0 || (got-want)/want > 1e-12 || (want-got)/want > 1e-12) {
			t.Errorf("DecodeKey(EncodeKey(%s)) = %v (%T)", v, back, back)
		}
	}
	for _, x := range all {
		for _, y := range all {
			c := x.n.Cmp(y.n)
			for _, suffix := range []string{"", "#b", "$"} {
				ks, ys := x.key+suffix, y.key
				if suffix == "#b" {
					ys += "#a"
				}
				switch {
				case c < 0 && ks >= ys, c > 0 && ks <= ys:
					t.Fatalf("%s vs %s: keys %q and %q (suffix %q) out of order", x.n.FloatString(3), y.n.FloatString(3), ks, ys, suffix)
				}
			}
			if c == 0 && x.key != y.key {
				t.Fatalf("%s: two keys %q, %q", x.n.FloatString(3), x.key, y.key)
			}
			if c < 0 && x.key+"$" >= y.key {
				t.Fatalf("<= %s reaches %s: %q$ >= %q", x.n.FloatString(3), y.n.FloatString(3), x.key, y.key)
			}
			if c < 0 && a.KeyBelow(y.key) < x.key || c >= 0 && a.KeyBelow(y.key) >= x.key {
				t.Fatalf("KeyBelow(%q) against %q: %s vs %s", y.key, x.key, x.n.FloatString(3), y.n.FloatString(3))
			}
		}
	}
	for _, v := range []int64{0, 1, -1, 1 << 40} {
		k, _ := a.EncodeKey(v)
		if len(k) != 20 {
			t.Errorf("EncodeKey(%d) = %q: an integer's key form changed", v, k)
		}
	}
}

// Values are checked against what the attribute declares: decimals where
// it takes them, within DynamoDB's numbers; whole numbers where digits,
// min or max (or a ttl) make it whole, saying so.
func TestNumberValues(t *testing.T) {
	plain := &Attribute{Name: "amount", Type: TypeNumber}
	ranged := &Attribute{Name: "qty", Type: TypeNumber, Min: int64p(0), Max: int64p(1000)}
	digits := &Attribute{Name: "d", Type: TypeNumber, Digits: 4}
	ttl := &Attribute{Name: "expiresAt", Type: TypeTTL}
	for _, c := range []struct {
		a    *Attribute
		v    any
		want string // "" when valid
	}{
		{plain, 12.99, ""},
		{plain, json.Number("12.99"), ""},
		{plain, "-0.000001", ""},
		{plain, json.Number("1E-130"), ""},
		{plain, json.Number("9.9999999999999999999999999999999999999E+125"), ""},
		{plain, json.Number("100000000000000000000"), ""},
		{plain, json.Number("1E-131"), "below the magnitude DynamoDB holds"},
		{plain, json.Number("1E+126"), "beyond the magnitude DynamoDB holds"},
		{plain, json.Number("1.23456789012345678901234567890123456789"), "more than the 38 significant digits"},
		{plain, json.Number("1e999999999"), "expected a number"},
		{plain, "twelve", "expected a number"},
		{ranged, 12.5, "a number with digits, min or max is whole"},
		{ranged, json.Number("7"), ""},
		{digits, "3.5", "a number with digits, min or max is whole"},
		{ttl, 1.5, "a ttl is epoch seconds"},
	} {
		err := c.a.Check(c.v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v; want valid", c.a.Name, c.v, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v: %v; want %q", c.a.Name, c.v, err, c.want)
		}
	}
}

// An example item may hold a decimal in a plain number (AWS's
// recurring-payments sample's prices); in a number with min/max it is
// refused, and the message says why (issue 35).
func TestExampleDecimals(t *testing.T) {
	src := `table: Payments
entities:
  Sub:
    id: [subId]
    attributes:
      subId: string
      amount: number
      qty: {type: number, min: 0, max: 100}
patterns:
  GetSub: {get: Sub}
examples:
  items:
    s1: {Sub: {subId: s1, amount: 12.99, qty: %s}}
`
	if _, err := Parse("sub.yaml", []byte(fmt.Sprintf(src, "2"))); err != nil {
		t.Fatalf("a decimal amount: %v", err)
	}
	_, err := Parse("sub.yaml", []byte(fmt.Sprintf(src, "2.5")))
	if err == nil || !strings.Contains(err.Error(), "sub.yaml:13:") || !strings.Contains(err.Error(), "qty") || !strings.Contains(err.Error(), "min or max is whole") {
		t.Fatalf("a decimal qty (min/max): %v", err)
	}
}
