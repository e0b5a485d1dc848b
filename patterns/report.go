package patterns

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats of a report.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// Formats lists the report formats.
var Formats = []string{FormatText, FormatJSON, FormatMarkdown}

// Write renders the design in the named format.
func (d *Design) Write(w io.Writer, format string) error {
	switch format {
	case FormatJSON:
		return d.WriteJSON(w)
	case FormatMarkdown:
		return d.WriteMarkdown(w)
	case FormatText, "":
		return d.WriteText(w)
	}
	return fmt.Errorf("unknown format %q; expected one of: %s", format, strings.Join(Formats, ", "))
}

// WriteJSON writes the design as one indented JSON object.
func (d *Design) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// WriteText writes a summary for a terminal.
func (d *Design) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	mode := "designed"
	if d.Explicit {
		mode = "hand-made layout, checked"
	}
	fmt.Fprintf(b, "table %s (%s): %s/%s", d.Table, mode, d.PK, d.SK)
	if d.TTL != "" {
		fmt.Fprintf(b, ", ttl %s", d.TTL)
	}
	fmt.Fprintf(b, "\n%d GSI(s), lower bound %d\n", len(d.Indexes), d.LowerBound)
	for _, ix := range d.Indexes {
		fmt.Fprintf(b, "  %s (%s/%s) %s: %s\n", ix.Name, ix.PK, ix.SK, ix.ProjectionText(), strings.Join(ix.Entities, ", "))
	}
	b.WriteString("\nkeys\n")
	for _, e := range d.Entities {
		for _, k := range e.Keys {
			pk, sk := d.KeyNames(k.Index)
			fmt.Fprintf(b, "  %-12s %-6s %s=%s %s=%s%s\n", e.Name, k.Index, pk, k.PK, sk, k.SK, when(k.When))
		}
	}
	b.WriteString("\npatterns\n")
	for _, p := range d.Patterns {
		if !p.Served() {
			fmt.Fprintf(b, "  %-20s NOT SERVED: %s\n", p.Name, p.Reason)
			continue
		}
		fmt.Fprintf(b, "  %-20s %-7s %-6s %s%s\n", p.Name, p.Operation, p.Index, p.Text, extras(p))
	}
	if c := d.Cost; c != nil {
		fmt.Fprintf(b, "\ncost: %.1f read units/s, %.1f write units/s: $%.2f/month on-demand, $%.2f/month provisioned (us-east-1)\n",
			c.ReadUnits, c.WriteUnits, c.OnDemand, c.Provisioned)
	}
	writeDiagnostics(b, d.Diagnostics)
	_, err := io.WriteString(w, b.String())
	return err
}

func when(cs []Const) string {
	if len(cs) == 0 {
		return ""
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Attr+"="+c.Value)
	}
	return " (sparse: only " + strings.Join(parts, ", ") + ")"
}

func extras(p *PatternPlan) string {
	var s []string
	if p.Desc {
		s = append(s, "ScanIndexForward=false")
	}
	if p.Limit > 0 {
		s = append(s, fmt.Sprintf("Limit=%d", p.Limit))
	}
	if p.Consistent {
		s = append(s, "ConsistentRead=true")
	}
	if p.Requests > 1 {
		s = append(s, fmt.Sprintf("%d requests merged", p.Requests))
	}
	if len(s) == 0 {
		return ""
	}
	return " [" + strings.Join(s, ", ") + "]"
}

func writeDiagnostics(b *strings.Builder, ds []Diagnostic) {
	if len(ds) == 0 {
		b.WriteString("\nno findings\n")
		return
	}
	b.WriteString("\nfindings\n")
	for _, x := range ds {
		b.WriteString("  " + x.String() + "\n")
	}
}

// WriteMarkdown writes the validation table (pattern, operation, index, key
// condition) and the key layout of each index, per entity.
func (d *Design) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# %s\n\n", d.Table)
	fmt.Fprintf(b, "%d GSI(s); lower bound %d.\n\n", len(d.Indexes), d.LowerBound)
	b.WriteString("## Access patterns\n\n")
	b.WriteString("| # | Pattern | Operation | Index | Key condition | Requests |\n|---|---|---|---|---|---|\n")
	for i, p := range d.Patterns {
		op, ix, cond := p.Operation, p.Index, "`"+p.Text+"`"+extras(p)
		if !p.Served() {
			op, ix, cond = "**Scan**", "—", "not served: "+p.Reason
		}
		if ix == Table {
			ix = "base"
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %d |\n", i+1, p.Name, op, ix, mdEscape(cond), p.Requests)
	}
	indexes := []string{Table}
	for _, ix := range d.Indexes {
		indexes = append(indexes, ix.Name)
	}
	b.WriteString("\n## Key layout\n")
	for _, name := range indexes {
		pk, sk := d.KeyNames(name)
		title := "Base table"
		if ix := d.Index(name); ix != nil {
			title = fmt.Sprintf("%s (projection %s)", name, ix.ProjectionText())
		}
		fmt.Fprintf(b, "\n### %s\n\n| Entity | %s | %s | Attributes |\n|---|---|---|---|\n", title, pk, sk)
		for _, e := range d.Entities {
			k := e.Key(name)
			if k == nil {
				continue
			}
			var attrs []string
			for _, a := range d.model.Entity(e.Name).Attributes {
				attrs = append(attrs, a.Name)
			}
			fmt.Fprintf(b, "| %s | `%s` | `%s` | %s%s |\n", e.Name, k.PK, k.SK, strings.Join(attrs, ", "), when(k.When))
		}
	}
	writeCostMarkdown(b, d.Cost)
	if len(d.Diagnostics) > 0 {
		b.WriteString("\n## Findings\n\n| Id | Severity | Subject | Message |\n|---|---|---|---|\n")
		for _, x := range d.Diagnostics {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", x.ID, x.Severity, x.Subject, mdEscape(x.Message))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCostMarkdown(b *strings.Builder, c *Cost) {
	if c == nil {
		return
	}
	b.WriteString("\n## Cost estimate\n\n")
	fmt.Fprintf(b, "%.1f read units/s, %.1f write units/s: **$%.2f/month on-demand**, **$%.2f/month provisioned** (at %.0f%% utilization, each index sized on its own). us-east-1 prices.\n\n",
		c.ReadUnits, c.WriteUnits, c.OnDemand, c.Provisioned, TargetUtilization*100)
	b.WriteString("| Pattern | Index | Item bytes | Items | Read units/read | Rate/s | Units/s |\n|---|---|---|---|---|---|---|\n")
	for _, p := range c.Patterns {
		fmt.Fprintf(b, "| %s | %s | %d | %d | %g | %g | %g |\n", p.Name, p.Index, p.ItemBytes, p.Items, p.ReadUnits, p.Rate, p.UnitsPerSecond)
	}
	b.WriteString("\n| Entity | Item bytes | Write amplification | Write units/write | Writes/s | Units/s |\n|---|---|---|---|---|---|\n")
	for _, e := range c.Entities {
		fmt.Fprintf(b, "| %s | %d | %d | %g | %g | %g |\n", e.Name, e.ItemBytes, e.Amplification, e.WriteUnits, e.Rate, e.UnitsPerSecond)
	}
	if len(c.Assumptions) > 0 {
		b.WriteString("\nAssumed: " + strings.Join(c.Assumptions, "; ") + ".\n")
	}
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
