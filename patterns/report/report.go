package report

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Format is an output format.
type Format string

// Formats.
const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	SARIF    Format = "sarif"
)

// PlanFormats are the formats of a design (keyplan plan).
func PlanFormats() []Format { return []Format{Text, JSON, Markdown} }

// FindingFormats are the formats of findings alone (keyplan check).
func FindingFormats() []Format { return []Format{Text, JSON, SARIF} }

// ParseFormat reads a format name, one of allowed.
func ParseFormat(name string, allowed []Format) (Format, error) {
	if f := Format(name); slices.Contains(allowed, f) {
		return f, nil
	}
	return "", fmt.Errorf("unknown --format %q; expected one of: %s", name, join(allowed))
}

// FormatFlag declares --format on fs, one of formats (the first the
// default), checked as it is parsed.
func FormatFlag(fs *flag.FlagSet, formats []Format) *Format {
	f := new(Format)
	*f = formats[0]
	fs.Func("format", fmt.Sprintf("output format, one of %s (default %s)", join(formats), *f), func(s string) error {
		if !slices.Contains(formats, Format(s)) {
			return fmt.Errorf("expected one of: %s", join(formats))
		}
		*f = Format(s)
		return nil
	})
	return f
}

func join(fs []Format) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// Write renders a design in one of PlanFormats.
func Write(w io.Writer, d *patterns.Design, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, d)
	case Markdown:
		return WriteMarkdown(w, d)
	case Text, "":
		return WriteText(w, d)
	}
	return fmt.Errorf("unknown format %q; expected one of: %s", f, join(PlanFormats()))
}

// WriteJSON writes the design as one indented JSON object.
func WriteJSON(w io.Writer, d *patterns.Design) error { return writeJSON(w, d) }

// writeJSON writes v as indented JSON, every character a terminal would
// not show as it is written as a JSON escape (patterns.PrintableJSON): the
// same value, whole through Terminal.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(model.PrintableJSON(b), '\n'))
	return err
}

// WriteFindings renders findings alone, in one of FindingFormats: one line
// each and a summary (text), {file, diagnostics} (json), or a SARIF log.
func WriteFindings(w io.Writer, file string, ds []patterns.Diagnostic, f Format) error {
	switch f {
	case SARIF:
		return WriteSARIF(w, ds)
	case JSON:
		return writeJSON(w, struct {
			File        string                `json:"file"`
			Diagnostics []patterns.Diagnostic `json:"diagnostics"`
		}{file, ds})
	case Text, "":
		errs := 0
		var b strings.Builder
		for _, x := range ds {
			if x.Severity == patterns.SeverityError {
				errs++
			}
			b.WriteString(x.String() + "\n")
		}
		fmt.Fprintf(&b, "%s: %d error(s), %d warning(s)\n", file, errs, len(ds)-errs)
		_, err := io.WriteString(w, b.String())
		return err
	}
	return fmt.Errorf("unknown format %q; expected one of: %s", f, join(FindingFormats()))
}

// The design lists entities and patterns by name (canonical: the order of
// the model file never changes it); reports for people follow the model's
// own order, as its author wrote it.

func patternNames(d *patterns.Design) []string {
	var out []string
	if m := d.Model(); m != nil {
		for _, p := range m.Patterns {
			out = append(out, p.Name)
		}
	}
	return out
}

func entityNames(d *patterns.Design) []string {
	var out []string
	if m := d.Model(); m != nil {
		for _, e := range m.Entities {
			out = append(out, e.Name)
		}
	}
	return out
}

// inModelOrder orders xs by their names' positions in order (names not in
// it keep their place after the others).
func inModelOrder[T any](xs []T, order []string, name func(T) string) []T {
	at := make(map[string]int, len(order))
	for i, n := range order {
		at[n] = i
	}
	pos := func(x T) int {
		if i, ok := at[name(x)]; ok {
			return i
		}
		return len(order)
	}
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int { return pos(a) - pos(b) })
	return out
}

func patternsInOrder(d *patterns.Design) []*patterns.PatternPlan {
	return inModelOrder(d.Patterns, patternNames(d), func(p *patterns.PatternPlan) string { return p.Name })
}

func entitiesInOrder(d *patterns.Design) []*patterns.EntityKeys {
	return inModelOrder(d.Entities, entityNames(d), func(e *patterns.EntityKeys) string { return e.Name })
}

// gsiLine is the GSI count beside the lower bound, saying what the bound
// is relative to and why a count is below it.
//
// With LSIs the bound is on the secondary indexes, LSIs and GSIs together
// (an LSI can serve what a GSI would).
func gsiLine(d *patterns.Design) string {
	n := len(d.Indexes) + len(d.LocalIndexes)
	s := fmt.Sprintf("%d GSI(s), %s", n, d.Bounds)
	if len(d.LocalIndexes) > 0 {
		s = fmt.Sprintf("%d LSI(s) and %d GSI(s), %s on secondary indexes", len(d.LocalIndexes), len(d.Indexes), d.Bounds)
	}
	unserved := 0
	for _, p := range d.Patterns {
		if !p.Served() {
			unserved++
		}
	}
	switch {
	case n < d.Bounds.Any && unserved > 0:
		s += fmt.Sprintf("; below the bound because %d pattern(s) are not served", unserved)
	case n < d.Bounds.Cool:
		s += "; below the bound because this layout serves a pattern from a hotter partition than its where needs (KP403)"
	case n > d.Bounds.Cool && d.Search == patterns.SearchComplete:
		s += "; the search was complete (every layout it builds has as many), so the bound is not tight for this model"
	case n > d.Bounds.Cool && d.Search == patterns.SearchCut:
		s += "; the search stopped before trying every layout (its budget, or too many base placements): one with fewer may exist"
	}
	return s
}
