package patterns

import (
	"slices"
	"sort"
	"strings"
)

// Splitting a change into phases: the deploys DynamoDB and CloudFormation
// accept, one GSI created or deleted at a time, each backfill after the
// index it fills.

// phases splits a change into deploys: a TTL attribute change first
// disabled; each new GSI in a phase of its own, every entity with keys on
// it backfilled after it; the other backfills; each deleted GSI in a phase of its own,
// last (reads have switched by then); the new TTL attribute enabled last.
func phases(from, to *Design, created, deleted, backfill map[string]bool) []*Phase {
	return phasesFrom(phaseIndexes(from), from.TTL, to, created, deleted, backfill)
}

// phasesFrom is phases from a table with the GSIs cur and the TTL
// attribute fromTTL (a lock's design, or what a live table has).
func phasesFrom(cur []*PhaseIndex, fromTTL string, to *Design, created, deleted, backfill map[string]bool) []*Phase {
	var out []*Phase
	ttl := fromTTL
	emit := func(p *Phase) {
		p.TTL = ttl
		p.Indexes = slices.Clone(cur)
		if p.Create == nil {
			p.Create = []string{}
		}
		if p.Delete == nil {
			p.Delete = []string{}
		}
		if p.Backfill == nil {
			p.Backfill = []string{}
		}
		out = append(out, p)
	}
	twoStep := fromTTL != "" && to.TTL != "" && fromTTL != to.TTL
	if twoStep {
		ttl = ""
		emit(&Phase{})
	} else {
		ttl = to.TTL
	}
	left := map[string]bool{}
	for e := range backfill {
		left[e] = true
	}
	for _, name := range slices.Sorted(mapKeys(created)) {
		ix := to.Index(name)
		cur = append(cur, to.phaseIndex(ix))
		// Every entity with keys on the new GSI is backfilled after it,
		// even one an earlier new GSI's phase backfilled: that phase
		// wrote only the keys of the GSIs it had (an entity given two new
		// GSIs gets its keys on the second here).
		var bf []string
		for _, e := range ix.Entities {
			if backfill[e] {
				bf = append(bf, e)
				delete(left, e)
			}
		}
		emit(&Phase{Create: []string{name}, Backfill: bf})
	}
	if len(left) > 0 {
		bf := slices.Sorted(mapKeys(left))
		if len(out) > 0 && len(out[len(out)-1].Delete) == 0 {
			last := out[len(out)-1]
			last.Backfill = append(last.Backfill, bf...)
			sort.Strings(last.Backfill)
		} else {
			emit(&Phase{Backfill: bf})
		}
	}
	for _, name := range slices.Sorted(mapKeys(deleted)) {
		cur = slices.DeleteFunc(slices.Clone(cur), func(ix *PhaseIndex) bool { return ix.Name == name })
		emit(&Phase{Delete: []string{name}})
	}
	if twoStep {
		ttl = to.TTL
		emit(&Phase{})
	} else if len(out) == 0 && fromTTL != to.TTL {
		emit(&Phase{})
	}
	return out
}

// indexesNow are the GSIs the table has at the migration's current phase:
// those of the last phase deployed (before Current, or Current itself once
// deployed); the accepted design's before the first.
func (mg *Migration) indexesNow(accepted *Design) []*PhaseIndex {
	if mg.Current == 0 {
		return phaseIndexes(accepted)
	}
	return mg.Phases[mg.Current-1].Indexes
}

// phaseIndexes lists a design's GSIs as a phase deploys them.
func phaseIndexes(d *Design) []*PhaseIndex {
	out := []*PhaseIndex{}
	for _, ix := range d.Indexes {
		out = append(out, d.phaseIndex(ix))
	}
	return out
}

// phaseIndex is a GSI of d as a phase deploys it: its keys (a native
// index's with their types) and projection.
func (d *Design) phaseIndex(ix *Index) *PhaseIndex {
	return &PhaseIndex{Name: ix.Name, PK: ix.PK, SK: ix.SK, PartitionKeys: ix.PartitionKeys, SortKeys: ix.SortKeys,
		KeyTypes: d.KeyTypes(ix), Projection: ix.Projection, NonKeyAttributes: ix.NonKeyAttributes}
}

// String says what a phase deploys: "create GSI3; backfill Order",
// "create GSI3 (index build)" for a native index (DynamoDB fills it from
// the items' own attributes while it is CREATING: its own backfill, no
// keyplan backfill for it), or the TTL it sets when it changes nothing
// else ("TTL expiresAt", "TTL off").
func (p *Phase) String() string {
	var parts []string
	for _, c := range p.Create {
		if p.IndexBuild(c) {
			c += " (index build)"
		}
		parts = append(parts, "create "+c)
	}
	for _, c := range p.Delete {
		parts = append(parts, "delete "+c)
	}
	if len(p.Backfill) > 0 {
		parts = append(parts, "backfill "+strings.Join(p.Backfill, ", "))
	}
	if len(parts) == 0 {
		ttl := p.TTL
		if ttl == "" {
			ttl = "off"
		}
		parts = append(parts, "TTL "+ttl)
	}
	return strings.Join(parts, "; ")
}

// IndexBuild reports whether the phase creates the named GSI keyed
// natively: DynamoDB fills it from the items' own attributes while it is
// CREATING (an index build, its own backfill), and keyplan writes nothing
// for it unless Backfill names its entities (a discriminator, a new
// attribute).
func (p *Phase) IndexBuild(name string) bool {
	return slices.Contains(p.Create, name) && slices.ContainsFunc(p.Indexes, func(ix *PhaseIndex) bool { return ix.Name == name && len(ix.PartitionKeys) > 0 })
}

// KeyText is the index's key as the reports show it: "GSI1PK/GSI1SK", or
// a native index's attributes "tenantId, status / createdAt" (as
// Index.KeyText).
func (ix *PhaseIndex) KeyText() string {
	return (&Index{Name: ix.Name, PK: ix.PK, SK: ix.SK, PartitionKeys: ix.PartitionKeys, SortKeys: ix.SortKeys}).KeyText()
}
