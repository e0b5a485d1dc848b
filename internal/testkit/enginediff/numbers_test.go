package enginediff

import "testing"

// The rules ScyllaDB's test_number.py checks on AWS, and the numbers the
// generator writes.
func TestCanonicalNumber(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "123": "123", "-5": "-5", "0": "0", "10": "10", "1000": "1000",
		"007": "7", "001.23": "1.23", "00": "0", "+3": "3", "+0": "0", "+1.5": "1.5",
		"1.0": "1", "1.00": "1", "1.10": "1.1", "100.000": "100", "0.0": "0", "0.10": "0.1",
		"1e3": "1000", "1E3": "1000", "1e+3": "1000", "1E+3": "1000", "5e1": "50", "-3e2": "-300", "1.5e2": "150", "1.23e4": "12300",
		"1e-3": "0.001", "5e-1": "0.5", "123e-2": "1.23", "1.23e-1": "0.123",
		"1.0e3": "1000", "1.00e2": "100", "1.0e-1": "0.1",
		"-0": "0", "-0.0": "0", "0e5": "0", "0.0e3": "0", "0e-5": "0",
		".5": "0.5", ".123": "0.123", "-.5": "-0.5",
		"1e20": "100000000000000000000", "9.9e10": "99000000000",
		"1e-20": "0.00000000000000000001", "3.14159": "3.14159", "-273.15": "-273.15", "0.001": "0.001",
		"-12.50": "-12.5", "01": "1",
		"1E-130":  "0." + zeros(129) + "1",
		"-1E-130": "-0." + zeros(129) + "1",
		"9.9999999999999999999999999999999999999E+125": "99999999999999999999999999999999999999" + zeros(88),
	} {
		if got, ok := CanonicalNumber(in); !ok || got != want {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "abc", "1..2", "1e", "e3", "-", "0x10", "1e3.5"} {
		if got, ok := CanonicalNumber(bad); ok {
			t.Errorf("CanonicalNumber(%q) = %q, ok; want not a number", bad, got)
		}
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}
