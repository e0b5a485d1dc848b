package types

import (
	"math/big"
	"sort"
	"testing"
)

func TestOrderedNumberSortsByValue(t *testing.T) {
	in := []string{"10", "-0.123", "9", "0", "-0.12", "1E2", "-5", "0.5", "-100", "99.5", "1e-3", "-1e-3", "12345678901234567890123456789012345678"}
	want := []string{"-100", "-5", "-0.123", "-0.12", "-1e-3", "0", "1e-3", "0.5", "9", "10", "99.5", "1E2", "12345678901234567890123456789012345678"}

	sorted := append([]string(nil), in...)
	sort.Slice(sorted, func(i, j int) bool {
		a, err := OrderedNumber(sorted[i])
		if err != nil {
			t.Fatal(err)
		}

		b, err := OrderedNumber(sorted[j])
		if err != nil {
			t.Fatal(err)
		}

		return a < b
	})

	for i := range want {
		if sorted[i] != want[i] {
			t.Fatalf("order %v, want %v", sorted, want)
		}
	}
}

func TestOrderedNumberEqualValues(t *testing.T) {
	for _, pair := range [][2]string{{"1", "1.0"}, {"10", "1E1"}, {"0.1", "10e-2"}, {"0", "-0.00"}, {"-2.50", "-25E-1"}} {
		a, err1 := OrderedNumber(pair[0])
		b, err2 := OrderedNumber(pair[1])

		if err1 != nil || err2 != nil || a != b {
			t.Errorf("%s and %s encode as %q and %q (%v, %v)", pair[0], pair[1], a, b, err1, err2)
		}
	}

	for _, bad := range []string{"", "abc", "1.2.3", "1e", "--1", "."} {
		if _, err := OrderedNumber(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseAndFormatNumberExact(t *testing.T) {
	a, err := ParseNumber("9007199254740992")
	if err != nil {
		t.Fatal(err)
	}

	b, _ := ParseNumber("1")
	if got := FormatNumber(new(big.Rat).Add(a, b)); got != "9007199254740993" {
		t.Errorf("2^53 + 1 = %s", got)
	}

	c, _ := ParseNumber("0.1")
	d, _ := ParseNumber("0.2")

	if got := FormatNumber(new(big.Rat).Add(c, d)); got != "0.3" {
		t.Errorf("0.1 + 0.2 = %s", got)
	}

	e, _ := ParseNumber("-1.5e2")
	if got := FormatNumber(e); got != "-150" {
		t.Errorf("-1.5e2 = %s", got)
	}
}

func TestNumberRange(t *testing.T) {
	for _, bad := range []string{"1E126", "1e-131", "123456789012345678901234567890123456789", "1e99999999999999999999"} {
		if _, err := OrderedNumber(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
		if _, err := ParseNumber(bad); err == nil {
			t.Errorf("%s: ParseNumber, no error", bad)
		}
	}
	for _, good := range []string{"9.9999999999999999999999999999999999999E+125", "1E-130", "12345678901234567890123456789012345678"} {
		if _, err := OrderedNumber(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// Encodings compare as the numbers do, for any two numbers.
func FuzzOrderedNumber(f *testing.F) {
	// The ends of DynamoDB's range (exponents -130 and 125), where an
	// encoding's exponent field is at its widest.
	for _, s := range [][2]string{{"1", "1.0"}, {"-0.12", "-0.123"}, {"10", "9"}, {"1e5", "99999"}, {"-1e-3", "0"},
		{"1e-130", "1.5e-110"}, {"-1e-130", "-1.5e-110"}, {"9.9999999999999999999999999999999999999E+125", "1e125"}, {"-9.9E+125", "-1e124"}} {
		f.Add(s[0], s[1])
	}

	f.Fuzz(func(t *testing.T, a, b string) {
		ea, errA := OrderedNumber(a)
		eb, errB := OrderedNumber(b)
		ra, errRA := ParseNumber(a)
		rb, errRB := ParseNumber(b)

		if (errA == nil) != (errRA == nil) || (errB == nil) != (errRB == nil) {
			t.Fatalf("OrderedNumber and ParseNumber disagree on validity: %q %v/%v, %q %v/%v", a, errA, errRA, b, errB, errRB)
		}

		if errA != nil || errB != nil {
			return
		}

		want := ra.Cmp(rb)
		got := 0

		switch {
		case ea < eb:
			got = -1
		case ea > eb:
			got = 1
		}

		if got != want {
			t.Fatalf("%q vs %q: encodings compare %d, numbers %d (%q, %q)", a, b, got, want, ea, eb)
		}

		if back, err := ParseNumber(FormatNumber(ra)); err != nil || back.Cmp(ra) != 0 {
			t.Fatalf("%q formats as %q, which reads back as %v (%v)", a, FormatNumber(ra), back, err)
		}
	})
}
