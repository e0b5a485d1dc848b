package patterns

import "fmt"

// Check runs every rule over a design and returns the findings.
func Check(d *Design) []Diagnostic {
	var out []Diagnostic
	m := d.model
	for _, pp := range d.Patterns {
		p := m.Pattern(pp.Name)
		if !pp.Served() {
			id, msg := "KP101", "needs a Scan or more than one request: "+pp.Reason
			if d.Explicit {
				id, msg = "KP103", "the hand-made layout cannot serve it in one request: "+pp.Reason
			}
			out = append(out, Diagnostic{ID: id, Severity: SeverityError, Subject: "pattern " + pp.Name, Message: msg, File: m.Source, Pos: p.Pos})
			continue
		}
		if pp.Consistent && pp.Index != Table {
			out = append(out, Diagnostic{ID: "KP102", Severity: SeverityError, Subject: "pattern " + pp.Name,
				Message: fmt.Sprintf("asks for a strongly consistent read, but is served by %s: GSIs are eventually consistent", pp.Index),
				File:    m.Source, Pos: p.field("consistent")})
		}
	}
	return out
}
