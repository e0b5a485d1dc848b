package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// WriteText writes a design's summary for a terminal.
func WriteText(w io.Writer, d *patterns.Design) error {
	b := &strings.Builder{}
	mode := "designed"
	if d.Explicit {
		mode = "hand-made layout, checked"
	}
	fmt.Fprintf(b, "table %s (%s): %s/%s", d.Table, mode, d.PK, d.SK)
	if d.TTL != "" {
		fmt.Fprintf(b, ", ttl %s", d.TTL)
	}
	fmt.Fprintf(b, "\n%s\n", gsiLine(d))
	for _, ix := range d.SecondaryIndexes() {
		local := ""
		if ix.Local() {
			local = " local"
		}
		fmt.Fprintf(b, "  %s%s (%s) %s: %s\n", ix.Name, local, ix.KeyText(), ix.ProjectionText(), strings.Join(ix.Entities, ", "))
		for _, c := range d.Keying {
			if c.Index == ix.Name {
				fmt.Fprintf(b, "    %s\n", c.Why)
			}
		}
	}
	// Columns are as wide as their longest name, and no narrower than
	// short names need.
	ents, pats := entitiesInOrder(d), patternsInOrder(d)
	ew, iw, pw := 12, 6, 20
	for _, e := range ents {
		ew = max(ew, len(e.Name))
		for _, k := range e.Keys {
			iw = max(iw, len(k.Index))
		}
	}
	for _, p := range pats {
		pw = max(pw, len(p.Name))
	}
	b.WriteString("\nkeys\n")
	for _, e := range ents {
		for _, k := range e.Keys {
			fmt.Fprintf(b, "  %-*s %-*s %s%s\n", ew, e.Name, iw, k.Index, d.KeyLine(e.Name, k), when(k.When))
		}
	}
	b.WriteString("\npatterns\n")
	for _, p := range pats {
		if !p.Served() {
			fmt.Fprintf(b, "  %-*s NOT SERVED: %s\n", pw, p.Name, p.Reason)
			continue
		}
		fmt.Fprintf(b, "  %-*s %-7s %-*s %s%s\n", pw, p.Name, p.Operation, iw, p.Index, p.Text, extras(p))
	}
	if len(d.LocalChoices) > 0 {
		b.WriteString("\nlocal indexes\n")
		for _, c := range d.LocalChoices {
			fmt.Fprintf(b, "  %-*s %s\n", pw, c.Pattern, c.Why)
		}
	}
	if c := d.Cost; c != nil {
		fmt.Fprintf(b, "\ncost: %.1f read units/s, %.1f write units/s: $%.2f/month on-demand, $%.2f/month provisioned (us-east-1)\n",
			c.ReadUnits, c.WriteUnits, c.OnDemand, c.Provisioned)
		if g := c.AllRegions; g != nil {
			fmt.Fprintf(b, "with %s: %.1f replicated write units/s: $%.2f/month on-demand, $%.2f/month provisioned, all regions\n",
				g.Summary(), g.ReplicatedWriteUnits, g.OnDemand, g.Provisioned)
		}
		if o := c.Objects; o != nil {
			b.WriteString(o.Summary() + "\n")
		}
		if len(c.UpperBounds) > 0 {
			fmt.Fprintf(b, "upper bounds: the cost takes %s at maxLength or maxItems, so its figures are upper bounds (declare size: N, a typical value's bytes, for a typical cost)\n", strings.Join(c.UpperBounds, ", "))
		}
	}
	writeDiagnostics(b, d.Diagnostics)
	_, err := io.WriteString(w, b.String())
	return err
}

func when(cs []model.Const) string {
	if len(cs) == 0 {
		return ""
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Attr+"="+c.Value)
	}
	return " (sparse: only " + strings.Join(parts, ", ") + ")"
}

func extras(p *patterns.PatternPlan) string {
	var s []string
	if p.Desc {
		s = append(s, "ScanIndexForward=false")
	}
	switch {
	case p.Batch && p.Limit > 0:
		s = append(s, fmt.Sprintf("BatchGetItem of many ids, %d a call assumed", p.Limit))
	case p.Batch:
		s = append(s, "BatchGetItem of many ids")
	case p.Limit > 0:
		s = append(s, fmt.Sprintf("Limit=%d", p.Limit))
	}
	if p.Consistent {
		s = append(s, "ConsistentRead=true")
	}
	if p.Requests > 1 {
		s = append(s, fmt.Sprintf("%d requests merged", p.Requests))
	}
	if len(p.Verify) > 0 {
		s = append(s, "verifies "+strings.Join(p.Verify, ", ")+" on the item")
	}
	if len(s) == 0 {
		return ""
	}
	return " [" + strings.Join(s, ", ") + "]"
}

func writeDiagnostics(b *strings.Builder, ds []patterns.Diagnostic) {
	if len(ds) == 0 {
		b.WriteString("\nno findings\n")
		return
	}
	b.WriteString("\nfindings\n")
	for _, x := range ds {
		b.WriteString("  " + x.String() + "\n")
	}
}
