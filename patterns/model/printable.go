package model

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Unprintable reports whether r is a character keyplan never prints as
// it is: what strconv.Quote (and so every %q in a message) escapes, which
// is anything but letters, marks, numbers, punctuation, symbols and the
// ASCII space (control characters C0, DEL and C1; format characters such
// as the bidirectional controls U+202A–U+202E and U+2066–U+2069, the
// zero-width U+200B–U+200D and U+FEFF, soft hyphen; line and paragraph
// separators; spaces other than ' '; private-use and unassigned code
// points), and the letters that show as nothing (the Hangul fillers). This
// is the one rule: Printable, the terminal (report.Terminal), HTML and
// JSON output (PrintableJSON) all escape exactly these, so one text reads
// the same on every line and in every format.
func Unprintable(r rune) bool {
	switch r {
	case '\u115f', '\u1160', '\u3164', '\uffa0': // Hangul fillers: letters that show as nothing
		return true
	}
	return !strconv.IsPrint(r)
}

// Printable returns s safe to print on a terminal or in a page:
// Unprintable characters and bytes that are not UTF-8 are written as Go
// escapes (\x1b, \u009b, \u202e, \xff), as %q writes them, and newlines
// as \n, so a value can neither move the cursor, forge a line, nor read
// as other text (a right-to-left override). Text without any of them is
// returned as it is.
func Printable(s string) string {
	clean := true
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				clean = false
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || Unprintable(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Unprintable(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapeRune is r as strconv.QuoteRune writes it, without the quotes
// ('\x1b', '\n', '\u202e', '\U000e0041'); the Hangul fillers, which Go
// prints, as \u escapes.
func escapeRune(r rune) string {
	if strconv.IsPrint(r) {
		return fmt.Sprintf(`\u%04x`, r)
	}
	q := strconv.QuoteRune(r)
	return q[1 : len(q)-1]
}

// PrintableJSON rewrites JSON text so that every Unprintable character in
// it is a JSON escape (\u007f, \u202e, a surrogate pair beyond U+FFFF):
// the same JSON value, which a terminal shows as it is (report.Terminal
// leaves it alone) and no reader mistakes. Newlines and tabs, which valid
// JSON holds only between tokens (encoding/json escapes them in strings),
// stay. Text with nothing to escape is returned as it is.
func PrintableJSON(b []byte) []byte {
	var out []byte
	done := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f || c < ' ' && c != '\n' && c != '\t' {
				out = appendJSONEscape(append(out, b[done:i]...), rune(c))
				done = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 || Unprintable(r) {
			out = appendJSONEscape(append(out, b[done:i]...), r)
			done = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

func appendJSONEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		r -= 0x10000
		return fmt.Appendf(out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
	}
	return fmt.Appendf(out, `\u%04x`, r)
}

// maxShown bounds a value quoted in a message: a 5 MB name is named by its
// start and its size.
const maxShown = 80

// clip shortens a long string argument of a message.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
