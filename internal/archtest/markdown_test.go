package archtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The README and docs/ render as written: every heading is outside a code
// fence, and every fence closes on a line of its own. Fences follow
// CommonMark: an opening line of three or more backticks or tildes
// (indented at most three spaces) closes only on a line of the same
// character, at least as long, with nothing after it but spaces; text
// after a closing fence ("``` The table is…") leaves the block open, and
// the README's Quick start was once lost in one (issue 35).
func TestMarkdownHeadingsOutsideFences(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../README.md", "../../ARCHITECTURE.md", "../../CONTRIBUTING.md")
	if len(files) < 5 {
		t.Fatalf("found %d Markdown files: the walk missed docs/", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range fenceProblems(string(b)) {
			t.Errorf("%s:%s", filepath.Base(f), p)
		}
	}
}

// fenceProblems lists headings inside code fences, fences that never
// close, and lines that look like a closing fence but carry text.
func fenceProblems(md string) []string {
	var out []string
	open, openAt := "", 0 // the opening fence's run (``` or ~~~~), its line
	for i, line := range strings.Split(md, "\n") {
		n := i + 1
		trim := strings.TrimLeft(line, " ")
		indented := len(line)-len(trim) > 3
		run := fenceRun(trim)
		if open == "" {
			switch {
			case indented:
			case run != "":
				if run[0] == '`' && strings.Contains(trim[len(run):], "`") {
					continue // inline code, not a fence
				}
				open, openAt = run, n
			}
			continue
		}
		switch {
		case !indented && run != "" && run[0] == open[0] && len(run) >= len(open) && strings.TrimSpace(trim[len(run):]) == "":
			open = ""
		case !indented && run != "" && run[0] == open[0] && len(run) >= len(open):
			out = append(out, strconv.Itoa(n)+": text after a closing fence leaves the block of line "+strconv.Itoa(openAt)+" open: "+line)
		case isHeading(trim):
			out = append(out, strconv.Itoa(n)+": heading inside the code fence of line "+strconv.Itoa(openAt)+": "+line)
		}
	}
	if open != "" {
		out = append(out, strconv.Itoa(openAt)+": a code fence that never closes")
	}
	return out
}

// isHeading tells a Markdown heading of level 2 to 6 from a comment in a
// code block (a "#" in shell or YAML): "## " and its text, starting with a
// capital letter or a backquote.
func isHeading(line string) bool {
	text := strings.TrimLeft(line, "#")
	level := len(line) - len(text)
	if level < 2 || level > 6 || !strings.HasPrefix(text, " ") {
		return false
	}
	text = strings.TrimLeft(text, " ")
	return text != "" && (text[0] >= 'A' && text[0] <= 'Z' || text[0] == '`')
}

// fenceRun is the run of backticks or tildes a line starts with, when it
// is three or more long.
func fenceRun(s string) string {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return ""
	}
	n := len(s) - len(strings.TrimLeft(s, s[:1]))
	if n < 3 {
		return ""
	}
	return s[:n]
}
