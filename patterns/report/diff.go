package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/keyplan/keyplan/patterns"
)

// DiffFormats are the formats of a diff (keyplan diff).
func DiffFormats() []Format { return []Format{Text, JSON, Markdown, HTML} }

// WriteDiff renders what deploying a plan over a lock takes: the
// changes, each classified by a change rule, and the phases.
func WriteDiff(w io.Writer, model string, df *patterns.Diff, f Format) error {
	switch f {
	case HTML:
		return WriteDiffHTML(w, model, df)
	case JSON:
		return writeJSON(w, df)
	case Markdown:
		return writeDiffMarkdown(w, model, df)
	case Text, "":
		return writeDiffText(w, model, df)
	}
	return fmt.Errorf("unknown format %q; expected one of: %s", f, join(DiffFormats()))
}

// verdict says in a line what the diff means for the operator (of the
// model file model), and what is left of a migration's cleanup.
func verdict(model string, df *patterns.Diff) string {
	v := changeVerdict(df)
	c := df.Cleanup
	if c == nil {
		return v
	}
	how := c.Pending(model)
	if len(df.Changes) == 0 && len(df.Phases) == 0 && df.Migration == nil {
		return "no change to the design; " + how
	}
	return v + "; " + how
}

func changeVerdict(df *patterns.Diff) string {
	switch {
	case df.First != nil:
		return fmt.Sprintf("no lock yet (%s): nothing is deployed, so nothing migrates; the first deploy creates the table below (keyplan lock writes the lock, then cdk deploy)", df.First.Lock)
	case len(df.Errors()) > 0:
		return "refused: the change would lose or strand data (see the errors)"
	case len(df.Changes) == 0 && len(df.Phases) == 0:
		return "no change: the lock is up to date"
	case df.Safe && len(df.Phases) == 0 && df.Migration == nil:
		return "no change to the table: keyplan lock records the changes below (then cdk deploy)"
	case df.Safe:
		return "safe: one deploy, no backfill (keyplan lock, then cdk deploy)"
	case df.Migration != nil:
		return fmt.Sprintf("a migration in progress, at phase %d of %d (keyplan lock started it): per phase left, cdk deploy and keyplan migrate", df.Migration.Phase, df.Migration.Of)
	}
	return fmt.Sprintf("a migration of %d phase(s): keyplan lock, then per phase cdk deploy and keyplan migrate", len(df.Phases))
}

// firstText says what a first deploy creates: the table, then its GSIs.
func firstText(f *patterns.DiffFirst) (string, []string) {
	ttl := "no TTL"
	if f.TTL != "" {
		ttl = "TTL " + f.TTL
	}
	table := fmt.Sprintf("table %s (%s/%s) (%s)", f.Table, f.PK, f.SK, ttl)
	var ixs []string
	for _, ix := range f.Indexes {
		ixs = append(ixs, indexText(ix))
	}
	if len(ixs) == 0 {
		ixs = append(ixs, "no GSIs")
	}
	return table, ixs
}

func indexText(ix *patterns.PhaseIndex) string {
	s := fmt.Sprintf("%s (%s) %s", ix.Name, ix.KeyText(), ix.Projection)
	if len(ix.NonKeyAttributes) > 0 {
		s += " (" + strings.Join(ix.NonKeyAttributes, ", ") + ")"
	}
	return s
}

func phaseText(p *patterns.Phase) string {
	var parts []string
	for _, c := range p.Create {
		if p.IndexBuild(c) {
			c += " (index build)"
		}
		parts = append(parts, "create "+c)
	}
	if len(p.Delete) > 0 {
		parts = append(parts, "delete "+strings.Join(p.Delete, ", "))
	}
	if len(p.Backfill) > 0 {
		parts = append(parts, "backfill "+strings.Join(p.Backfill, ", "))
	}
	ttl := "no TTL"
	if p.TTL != "" {
		ttl = "TTL " + p.TTL
	}
	if len(parts) == 0 {
		parts = append(parts, "table settings only")
	}
	return strings.Join(parts, "; ") + " (" + ttl + ")"
}

func writeDiffText(w io.Writer, model string, df *patterns.Diff) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", model, verdict(model, df))
	if df.First != nil {
		table, ixs := firstText(df.First)
		fmt.Fprintf(&b, "\nfirst deploy\n  %s\n", table)
		for _, ix := range ixs {
			fmt.Fprintf(&b, "       %s\n", ix)
		}
	}
	if len(df.Changes) > 0 {
		b.WriteString("\nchanges\n")
		for _, c := range df.Changes {
			fmt.Fprintf(&b, "  %s [%s] %s: %s\n", c.Severity, c.ID, c.Subject, c.Message)
		}
	}
	if len(df.Phases) > 0 {
		b.WriteString("\nphases\n")
		for i, p := range df.Phases {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, phaseText(p))
			for _, ix := range p.Indexes {
				fmt.Fprintf(&b, "       %s\n", indexText(ix))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeDiffMarkdown(w io.Writer, model string, df *patterns.Diff) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### keyplan diff: `%s`\n\n**%s**\n", mdEscape(model), verdict(model, df))
	if df.First != nil {
		table, ixs := firstText(df.First)
		fmt.Fprintf(&b, "\n| First deploy | GSIs |\n|---|---|\n| %s | %s |\n", mdEscape(table), mdEscape(strings.Join(ixs, "<br>")))
	}
	if len(df.Changes) > 0 {
		b.WriteString("\n| Id | Severity | Subject | Change |\n|---|---|---|---|\n")
		for _, c := range df.Changes {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.ID, c.Severity, mdEscape(c.Subject.String()), mdEscape(c.Message))
		}
	}
	if len(df.Phases) > 0 {
		b.WriteString("\n| Phase | Deploy | GSIs after it |\n|---|---|---|\n")
		for i, p := range df.Phases {
			var ixs []string
			for _, ix := range p.Indexes {
				ixs = append(ixs, indexText(ix))
			}
			fmt.Fprintf(&b, "| %d | %s | %s |\n", i+1, mdEscape(phaseText(p)), mdEscape(strings.Join(ixs, "<br>")))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
