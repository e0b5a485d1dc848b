package patterns

import (
	"slices"
	"strings"
)

// LSIs on a deployed table (KP623): DynamoDB creates a table's LSIs with
// the table and never adds, removes or changes one afterwards (an
// UpdateTable cannot; CloudFormation replaces the table, and its items
// with it). So a plan that adds, removes or changes an LSI, and a strong
// read that only a new LSI would serve, are refused, each with the
// alternatives: the read eventually consistent on a GSI, or a new table
// with the LSI and a copy of the items.

// globalIndex is the named GSI of d (not an LSI), or nil.
func globalIndex(d *Design, name string) *Index {
	if ix := d.Index(name); ix != nil && !ix.Local() {
		return ix
	}
	return nil
}

// localReplacement says what to do instead of a table replacement.
const localReplacement = "an LSI exists only from the table's creation: replacing the table loses its items. Instead read it eventually consistent (drop consistent: true: a GSI serves it), or create a new table with the LSI (a new table name in the model) and copy the items into it"

// localIndexes classifies the LSIs' changes.
func (c *comparison) localIndexes() {
	from, to, df := c.from, c.to, c.df
	for _, ix := range to.LocalIndexes {
		old := from.Index(ix.Name)
		switch {
		case old == nil || !old.Local():
			df.add(ChangeLSIReplaces, Subject{SubjectIndex, ix.Name}, "a new local secondary index (%s, for %s) replaces the table: refused; %s", ix.ProjectionText(), strings.Join(patternsOn(to, ix.Name), ", "), localReplacement)
		case old.Projection != ix.Projection || !slices.Equal(old.NonKeyAttributes, ix.NonKeyAttributes):
			df.add(ChangeLSIReplaces, Subject{SubjectIndex, ix.Name}, "its projection %s would become %s, which replaces the table (an LSI never changes): refused; keep the projection, or %s", old.ProjectionText(), ix.ProjectionText(), localReplacement)
		}
	}
	for _, ix := range from.LocalIndexes {
		if now := to.Index(ix.Name); now == nil || !now.Local() {
			df.add(ChangeLSIReplaces, Subject{SubjectIndex, ix.Name}, "the local secondary index would be removed, which replaces the table: refused; an LSI stays as long as its table (keep it in the layout, even with no pattern reading it)")
		}
	}
	for _, pp := range to.Patterns {
		if lc := to.LocalChoice(pp.Name); lc != nil && lc.cause == causeLock {
			df.add(ChangeLSIReplaces, Subject{SubjectPattern, pp.Name}, "reads strongly consistent in an order only a new local secondary index (%s / %s) would serve, and a new LSI replaces the table: refused; read it eventually consistent (drop consistent: true: %s serves it), or create a new table with the LSI (a new table name in the model) and copy the items into it", lc.Key.PK, lc.Key.SK, pp.Index)
		}
	}
}
