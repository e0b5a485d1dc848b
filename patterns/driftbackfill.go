package patterns

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// What drift stops the construct's backfill job (lambdas/backfill): the
// job compares the lock it carries with the table (CompareLive, as keyplan
// diff --live does) before it writes, and refuses to write on a
// difference that makes its writes wrong; the others it reports and goes
// on. Per kind (docs/adopt.md says the same):
//
//   - base-key stops it: the items it rewrites are not keyed as it reads
//     and writes them (another table, or one replaced).
//   - gsi-missing and gsi-keys stop it: a GSI the lock's phase has (the
//     ones whose keys it writes) is not on the table, or is keyed on
//     other attributes or types, so the keys it writes fill no index, or
//     one that reads them otherwise (or refuses them, a type differing).
//   - gsi-unexpected stops it when the GSI's key attributes are ones it
//     writes (a GSI added by hand on GSI2PK): its writes would fill an
//     index the lock knows nothing of, or be refused by its key type; a
//     GSI keyed on attributes it never writes is reported.
//   - gsi-status stops it when a GSI of the phase is DELETING (gone once
//     the deletion ends); CREATING or backfilling is reported: DynamoDB
//     takes writes while it builds an index.
//   - everything else is reported: the table's status (a write the table
//     cannot take fails by itself), an LSI, the TTL attribute, the
//     stream, billing, point-in-time recovery, deletion protection, the
//     table class, replicas, a GSI's projection (what a read returns, not
//     where an item goes), tags (not compared at all).

// BackfillDrift sorts a comparison of l with its table into the drift
// that stops the construct's backfill job and the drift it only reports.
func (ld *LiveDiff) BackfillDrift(l *Lock) (stops, reported []Drift) {
	written := l.writtenKeys()
	for _, d := range ld.Drifts {
		if d.stopsBackfill(ld, written) {
			stops = append(stops, d)
		} else {
			reported = append(reported, d)
		}
	}
	return stops, reported
}

// BackfillErr is the drift that stops the backfill job as one error (nil:
// none), each difference with what to do.
func (ld *LiveDiff) BackfillErr(l *Lock) error {
	stops, _ := ld.BackfillDrift(l)
	if len(stops) == 0 {
		return nil
	}
	lines := make([]string, len(stops))
	for i, d := range stops {
		lines[i] = d.String()
	}
	return fmt.Errorf("%w: table %s is not as the lock says where the backfill writes (%d difference(s)); nothing was written: %s; compare with keyplan diff --live, bring the table back to the lock (or the lock to the table), then run the job again",
		ErrBackfillDrift, ld.Table, len(stops), strings.Join(lines, "; "))
}

// ErrBackfillDrift is matched by BackfillErr's errors.
var ErrBackfillDrift = errors.New("backfill refused on drift")

func (d Drift) stopsBackfill(ld *LiveDiff, written []string) bool {
	switch d.Kind {
	case DriftBaseKey, DriftGSIMissing, DriftGSIKeys:
		return true
	case DriftGSIStatus:
		return strings.HasPrefix(d.Live, "DELETING")
	case DriftGSIExtra:
		i := slices.IndexFunc(ld.Indexes, func(ix *PhaseIndex) bool { return ix.Name == d.Subject.Name })
		return i >= 0 && slices.ContainsFunc(ld.Indexes[i].KeyAttributes(), func(a string) bool { return slices.Contains(written, a) })
	}
	return false
}

// writtenKeys are the attributes a backfill of l writes or removes: the
// ones the secondary indexes of its accepted design and of its target put
// on items (Index.StoredKeys, as the rekey engine owns them), and the
// keys of the GSIs its phase has.
func (l *Lock) writtenKeys() []string {
	var out []string
	add := func(keys ...string) {
		for _, k := range keys {
			if k != "" && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	for _, d := range []*Design{l.Accepted, l.Latest()} {
		if d == nil {
			continue
		}
		for _, ix := range d.SecondaryIndexes() {
			add(ix.StoredKeys()...)
		}
	}
	want, _ := l.Deployed()
	for _, ix := range want {
		if len(ix.PartitionKeys) == 0 {
			add(ix.PK, ix.SK)
		}
	}
	slices.Sort(out)
	return out
}
