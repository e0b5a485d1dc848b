package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// WriteMarkdown writes the validation table of seed 001 (pattern, operation,
// index, key condition) and the key layout of each index, per entity.
func WriteMarkdown(w io.Writer, d *patterns.Design) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# %s\n\n", d.Table)
	fmt.Fprintf(b, "%s.\n\n", gsiLine(d))
	b.WriteString("## Access patterns\n\n")
	b.WriteString("| # | Pattern | Operation | Index | Key condition | Requests |\n|---|---|---|---|---|---|\n")
	for i, p := range patternsInOrder(d) {
		op, ix, cond := p.Operation, p.Index, "`"+p.Text+"`"+extras(p)
		if !p.Served() {
			op, ix, cond = "**Scan**", "—", "not served: "+p.Reason
		}
		if ix == model.BaseIndex {
			ix = "base"
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %d |\n", i+1, p.Name, op, ix, mdEscape(cond), p.Requests)
	}
	indexes := []string{model.BaseIndex}
	for _, ix := range d.SecondaryIndexes() {
		indexes = append(indexes, ix.Name)
	}
	b.WriteString("\n## Key layout\n")
	for _, name := range indexes {
		pk, sk := d.KeyNames(name)
		title := "Base table"
		if ix := d.Index(name); ix != nil {
			title = fmt.Sprintf("%s (projection %s)", name, ix.ProjectionText())
			if ix.Local() {
				title = fmt.Sprintf("%s (local secondary index; projection %s)", name, ix.ProjectionText())
			}
			if ix.Native() {
				title = fmt.Sprintf("%s (native keys; projection %s)", name, ix.ProjectionText())
				pk, sk = "Partition key", "Sort key"
			}
		}
		fmt.Fprintf(b, "\n### %s\n\n| Entity | %s | %s | Attributes |\n|---|---|---|---|\n", title, pk, sk)
		for _, e := range entitiesInOrder(d) {
			k := e.Key(name)
			if k == nil {
				continue
			}
			attrs := strings.Join(d.Projected(e.Name, name), ", ")
			if attrs == "" {
				attrs = "— (keys only)"
			}
			kp, ks := d.KeyCells(e.Name, k)
			fmt.Fprintf(b, "| %s | `%s` | `%s` | %s%s |\n", e.Name, mdEscape(kp), mdEscape(ks), attrs, when(k.When))
		}
	}
	writeCostMarkdown(b, d, d.Cost)
	if len(d.Diagnostics) > 0 {
		b.WriteString("\n## Findings\n\n| Id | Severity | Subject | Message |\n|---|---|---|---|\n")
		for _, x := range d.Diagnostics {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", x.ID, x.Severity, x.Subject, mdEscape(x.Message))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCostMarkdown(b *strings.Builder, d *patterns.Design, c *patterns.Cost) {
	if c == nil {
		return
	}
	b.WriteString("\n## Cost estimate\n\n")
	fmt.Fprintf(b, "%.1f read units/s, %.1f write units/s: **$%.2f/month on-demand**, **$%.2f/month provisioned** (at %d%% utilization, each index sized on its own). us-east-1 prices.\n\n",
		c.ReadUnits, c.WriteUnits, c.OnDemand, c.Provisioned, patterns.TargetUtilizationPercent)
	b.WriteString("| Pattern | Index | Item bytes | Items | Read units/read | Rate/s | Units/s |\n|---|---|---|---|---|---|---|\n")
	for _, p := range inModelOrder(c.Patterns, patternNames(d), func(p *patterns.PatternCost) string { return p.Name }) {
		fmt.Fprintf(b, "| %s | %s | %d | %d | %g | %g | %g |\n", p.Name, p.Index, p.ItemBytes, p.Items, p.ReadUnits, p.Rate, p.UnitsPerSecond)
	}
	if len(c.Writes) > 0 {
		b.WriteString("\n| Write | Items | GSI writes | Write units/write | Writes/s | Units/s |\n|---|---|---|---|---|---|\n")
		for _, w := range c.Writes {
			fmt.Fprintf(b, "| %s | %d | %d | %g | %g | %g |\n", w.Name, w.Items, w.Indexes, w.WriteUnits, w.Rate, w.UnitsPerSecond)
		}
	}
	if len(c.Entities) > 0 {
		b.WriteString("\n| Entity | Item bytes | Write amplification | Write units/write | Writes/s | Units/s |\n|---|---|---|---|---|---|\n")
		for _, e := range inModelOrder(c.Entities, entityNames(d), func(e *patterns.EntityCost) string { return e.Name }) {
			fmt.Fprintf(b, "| %s | %d | %d | %g | %g | %g |\n", e.Name, e.ItemBytes, e.Amplification, e.WriteUnits, e.Rate, e.UnitsPerSecond)
		}
	}
	if o := c.Objects; o != nil {
		b.WriteString("\n" + mdEscape(o.Summary()) + ".\n")
	}
	if g := c.AllRegions; g != nil {
		fmt.Fprintf(b, "\nWith %s: %.1f replicated write units/s, **$%.2f/month on-demand**, **$%.2f/month provisioned**, all regions.\n\n",
			g.Summary(), g.ReplicatedWriteUnits, g.OnDemand, g.Provisioned)
		b.WriteString("| Replica | Read capacity | Write capacity | On-demand $/month | Provisioned $/month |\n|---|---|---|---|---|\n")
		for _, r := range g.Replicas {
			fmt.Fprintf(b, "| %s | %g | %g | %.2f | %.2f |\n", r.Region, r.ReadCapacity, r.WriteCapacity, r.OnDemand, r.Provisioned)
		}
	}
	if len(c.Assumptions) > 0 {
		b.WriteString("\nAssumed: " + strings.Join(c.Assumptions, "; ") + ".\n")
	}
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
