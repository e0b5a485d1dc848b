package enginediff

import (
	"slices"
	"strconv"
	"strings"
)

// CanonicalNumber is how AWS DynamoDB answers the number s: plain
// decimal, no exponent, no leading or trailing zeros, no sign on zero
// (1e3 → 1000, -0 → 0, 1.50 → 1.5, 1E-3 → 0.001). ScyllaDB's
// test_number.py, written to pass on AWS, lists these rules. ok is false
// when s is not a number.
func CanonicalNumber(s string) (string, bool) {
	t := s
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	exp := 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		e, err := strconv.Atoi(t[i+1:])
		if err != nil {
			return s, false
		}
		exp, t = e, t[:i]
	}
	intPart, frac, _ := strings.Cut(t, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return s, false
	}
	exp -= len(frac)
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	var out string
	switch p := len(digits) + exp; {
	case exp >= 0:
		out = digits + strings.Repeat("0", exp)
	case p > 0:
		out = digits[:p] + "." + digits[p:]
	default:
		out = "0." + strings.Repeat("0", -p) + digits
	}
	if neg {
		out = "-" + out
	}
	return out, true
}

// canonicalNumbers puts every number of v (decoded JSON holding
// attribute values) in CanonicalNumber's form, and number sets back in
// order. It is applied to DynamoDB Local's answers only: DynamoDB Local
// keeps a number's spelling inside lists, maps and number sets and its
// leading zeros ("01"), where AWS answers the canonical form; the engine
// is held to AWS's.
func canonicalNumbers(v any) any {
	switch x := v.(type) {
	case Outcome:
		return Outcome(canonicalNumbers(map[string]any(x)).(map[string]any))
	case map[string]any:
		if len(x) == 1 {
			if n, ok := x["N"].(string); ok {
				c, _ := CanonicalNumber(n)
				return map[string]any{"N": c}
			}
			if ns, ok := x["NS"].([]any); ok {
				out := make([]any, len(ns))
				for i, m := range ns {
					s, _ := m.(string)
					out[i], _ = CanonicalNumber(s)
				}
				slices.SortFunc(out, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
				return map[string]any{"NS": out}
			}
		}
		out := make(map[string]any, len(x))
		for k, y := range x {
			out[k] = canonicalNumbers(y)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = canonicalNumbers(y)
		}
		return out
	}
	return v
}
