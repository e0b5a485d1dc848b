package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Upgrade changes: what this keyplan derives otherwise than the one that
// wrote a lock (or a design), each classified by a change rule. They are
// read as this keyplan derives them (a read is served with the request
// derived from the deployed keys at once; a migration backfills what this
// keyplan's phases backfill), listed by keyplan diff and recorded by
// keyplan lock; never refused as a hand edit (docs/compatibility.md).

// RecordedPlans are the plans the file a design was read from states
// otherwise than its keys give: the requests an earlier keyplan derived
// (or a hand edit). The design serves the derived ones (Patterns); nil
// when the file states what the keys give.
func (d *Design) RecordedPlans() []*PatternPlan { return slices.Clone(d.recorded) }

// Upgrades are the lock's upgrade changes: what this keyplan reads
// otherwise than the keyplan that wrote the lock recorded it. Compare
// lists them first; keyplan lock records them (Modified).
func (l *Lock) Upgrades() []Change { return slices.Clone(l.upgrades) }

// writer names the keyplan that wrote the lock, for messages.
func (l *Lock) writer() string {
	if l.Keyplan != "" {
		return "keyplan " + model.Printable(l.Keyplan)
	}
	return "an earlier keyplan"
}

// upgrade finds the lock's upgrade changes, once it is read, and reads
// each as this keyplan derives it: the requests (decodeDesign already
// serves the derived ones), a migration's phases an older keyplan
// backfilled less in (re-derived), a cleanup recorded without its designs
// (kept as recorded: valid checked it).
func (l *Lock) upgrade() {
	df := &Diff{}
	table := Subject{SubjectTable, l.Table}
	if l.Format < LockFormat {
		df.add(ChangeLockFormat, table, "lock format %d (no keyplan version, no digest: a keyplan before lock format %d wrote it), read by re-deriving it; keyplan lock rewrites it in format %d, with the version that writes it and a digest of its content", l.Format, LockFormat, LockFormat)
	}
	requests(df, l, "", l.Accepted)
	if mg := l.Migration; mg != nil {
		requests(df, l, "the migration's target", mg.Target)
		l.phasesUpgrade(df)
	}
	if c := l.Cleanup; c != nil {
		switch {
		case len(c.Before) == 0 && !l.verified:
			df.add(ChangeCleanupRecorded, table, "the pending cleanup (%s) is recorded without the designs it is derived from (cleanup.before: %s wrote it so), so it cannot be re-derived: it is kept as recorded, having been checked to remove nothing the accepted design writes; keyplan lock keeps it, and the cleanup removes it", c, l.writer())
		case l.verified && len(c.Before) > 0:
			if err := c.check(l.Accepted); err != nil {
				df.add(ChangeCleanupRecorded, table, "the pending cleanup (%s) is not what this keyplan derives from its designs (%v): it is kept as %s recorded it", c, err, l.writer())
			}
		}
	}
	l.upgrades = df.Changes
}

// requests lists a design's requests this keyplan derives otherwise than
// the lock records (which: "" for the accepted design).
func requests(df *Diff, l *Lock, which string, d *Design) {
	for _, rec := range d.recorded {
		p := d.Pattern(rec.Name)
		s := Subject{SubjectPattern, rec.Name}
		in := ""
		if which != "" {
			in = ", in " + which + ","
		}
		if p.Served() {
			df.add(ChangeRequest, s, "%s recorded%s %s; on the same keys this keyplan derives %s: the runtime, the construct and generated code serve it at once (no table change), keyplan lock records it", l.writer(), in, requestText(rec), requestText(p))
			continue
		}
		df.add(ChangeRequest, s, "%s recorded%s %s, which this keyplan does not serve on the deployed keys (%s): its reads answer an error until the migration keyplan diff plans (a key that serves it) is done; every other pattern serves", l.writer(), in, requestText(rec), p.Reason)
	}
}

// requestText renders a plan for messages: "Query on table (PK = … AND …)".
func requestText(p *PatternPlan) string {
	s := fmt.Sprintf("%s on %s", p.Operation, p.Index)
	if p.Text != "" {
		s += " (" + p.Text + ")"
	}
	if p.Requests > 1 {
		s += fmt.Sprintf(", %d requests", p.Requests)
	}
	return s
}

// phasesUpgrade reads a migration's phases as this keyplan derives them
// when an older keyplan's backfill less (the same deploys: re-derived,
// keeping the phase the migration is at), and keeps phases a verified
// lock records otherwise (the table follows them).
func (l *Lock) phasesUpgrade(df *Diff) {
	mg := l.Migration
	want := compareDesigns(l.Accepted, mg.Target)
	if len(want.Errors()) > 0 {
		return // Check says so
	}
	s := Subject{SubjectTable, l.Table}
	switch {
	case olderPhases(mg.Phases, want.Phases):
		var more []string
		for i := range mg.Phases {
			if extra := minus(want.Phases[i].Backfill, mg.Phases[i].Backfill); len(extra) > 0 {
				more = append(more, fmt.Sprintf("phase %d also backfills %s", i+1, strings.Join(extra, ", ")))
			}
		}
		df.add(ChangePhases, s, "the migration's phases are %s's, which backfill less than this keyplan derives (the same deploys): %s, so no item misses a key of an index a pattern reads; keyplan migrate follows them from the phase the migration is at (%d of %d), keyplan lock records them", l.writer(), strings.Join(more, "; "), mg.Current+1, len(mg.Phases))
		mg.Phases = want.Phases
	case l.verified:
		if err := samePhases(mg.Phases, want.Phases); err != nil {
			df.add(ChangePhases, s, "the migration's phases are not those this keyplan derives (%v): the table follows the recorded ones (%s), which keyplan migrate keeps", err, l.writer())
		}
	}
}

// Says is what keyplan lock says once it has applied a diff to the lock
// of the model file model: "up to date" when it records nothing new (the
// file stays as it is), where a migration is, or what it records, one
// change a line (an edit the table does not see, an upgrade change).
func (l *Lock) Says(model string, df *Diff) string {
	if mg := l.Migration; mg != nil {
		s := fmt.Sprintf("migration at phase %d of %d", mg.Current+1, len(mg.Phases))
		if !l.Modified() {
			s += " (nothing new to record)"
		}
		return s
	}
	if !l.Modified() {
		s := "up to date (nothing to record: the file is unchanged)"
		if l.Cleanup != nil {
			s += "; " + l.Cleanup.Pending(model)
		}
		return s
	}
	var b strings.Builder
	switch {
	case len(df.Changes) == 0:
		b.WriteString("recorded, with no change to the table")
	case len(df.Phases) == 0:
		fmt.Fprintf(&b, "recorded %d change(s), none to the table:", len(df.Changes))
	default:
		fmt.Fprintf(&b, "recorded %d change(s), one deploy (cdk deploy):", len(df.Changes))
	}
	for _, c := range df.Changes {
		fmt.Fprintf(&b, "\n  %s [%s] %s: %s", c.Severity, c.ID, c.Subject, c.Message)
	}
	if l.Cleanup != nil {
		b.WriteString("\n" + l.Cleanup.Pending(model))
	}
	return b.String()
}
