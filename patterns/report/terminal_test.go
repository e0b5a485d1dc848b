package report

import (
	"bytes"
	"testing"
)

// Terminal keeps lines and columns, and escapes what a terminal would act on.
func TestTerminal(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\n\twith a tab\n", "plain text\n\twith a tab\n"},
		{"é ünïcode ✓\n", "é ünïcode ✓\n"},
		{"name \x1b[2Jx\n", `name \x1b[2Jx` + "\n"},
		{"over\rwrite\n", `over\rwrite` + "\n"},
		{"c1 \u009b2J\tcol\n", `c1 \u009b2J` + "\tcol\n"},
		{"bad \xff utf-8\n", `bad \xff utf-8` + "\n"},
		{"line\u2028sep", `line\u2028sep`},
		{"del \x7f", `del \x7f`},
		{"rtl \u202egnp.exe", `rtl \u202egnp.exe`},
		{"isolate \u2066x\u2069\tzero\u200bwidth\n", `isolate \u2066x\u2069` + "\t" + `zero\u200bwidth` + "\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		n, err := Terminal(&b).Write([]byte(tt.in))
		if err != nil || n != len(tt.in) {
			t.Errorf("Write(%q) = %d, %v; want %d, nil", tt.in, n, err, len(tt.in))
		}
		if b.String() != tt.want {
			t.Errorf("Write(%q) wrote %q, want %q", tt.in, b.String(), tt.want)
		}
	}
}
