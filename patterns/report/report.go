package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns"
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

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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
