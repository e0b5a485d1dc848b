package report

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/keyplan/keyplan/patterns/model"
)

// Terminal wraps w so that what a terminal would act on, or show as other
// text, is escaped (patterns.Printable, by patterns.Unprintable's one
// rule): control characters other than newline and tab (ANSI escapes,
// carriage returns, C1 controls), bidirectional and other format
// characters, line and paragraph separators and invalid UTF-8, however
// they reached the output (a name, a value, a file path, an engine's
// error). Text with none of them passes through unchanged; machine formats
// escape them in their own syntax first (patterns.PrintableJSON), so a
// JSON document passes through whole.
func Terminal(w io.Writer) io.Writer { return terminal{w} }

type terminal struct{ w io.Writer }

func (t terminal) Write(p []byte) (int, error) {
	if clean(p) {
		return t.w.Write(p)
	}
	lines := strings.Split(string(p), "\n")
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		for j, s := range parts {
			parts[j] = model.Printable(s)
		}
		lines[i] = strings.Join(parts, "\t")
	}
	if _, err := io.WriteString(t.w, strings.Join(lines, "\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// clean reports whether p holds nothing a terminal needs escaped.
func clean(p []byte) bool {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 || model.Unprintable(r) {
			return false
		}
		i += size
	}
	return true
}
