package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Drift: a lock compared with the table it says is deployed (keyplan diff
// --live, the construct's backfill job before it writes). The lock says
// what the table must have at its current phase (Lock.Deployed: the base
// key, the GSIs with their keys and projections, the TTL attribute) and,
// for a table keyplan import took over, the settings it had then
// (Lock.Adopted: billing, stream, point-in-time recovery, deletion
// protection, table class, replicas). Every difference is a Drift.

// DriftKind names what differs; the kinds are stable (docs/adopt.md).
type DriftKind string

// Drift kinds.
const (
	DriftTable      DriftKind = "table-status"
	DriftBaseKey    DriftKind = "base-key"
	DriftGSIMissing DriftKind = "gsi-missing"
	DriftGSIExtra   DriftKind = "gsi-unexpected"
	DriftGSIKeys    DriftKind = "gsi-keys"
	DriftProjection DriftKind = "gsi-projection"
	DriftGSIStatus  DriftKind = "gsi-status"
	DriftLSI        DriftKind = "lsi"
	DriftTTL        DriftKind = "ttl"
	DriftStream     DriftKind = "stream"
	DriftBilling    DriftKind = "billing"
	DriftPITR       DriftKind = "point-in-time-recovery"
	DriftProtection DriftKind = "deletion-protection"
	DriftTableClass DriftKind = "table-class"
	DriftReplicas   DriftKind = "replicas"
)

// DriftKinds lists every drift kind, in the order CompareLive reports them.
func DriftKinds() []DriftKind {
	return []DriftKind{DriftTable, DriftBaseKey, DriftGSIMissing, DriftGSIExtra, DriftGSIKeys, DriftProjection, DriftGSIStatus,
		DriftLSI, DriftTTL, DriftStream, DriftBilling, DriftPITR, DriftProtection, DriftTableClass, DriftReplicas}
}

// Drift is one difference between a lock and its live table.
type Drift struct {
	Kind DriftKind `json:"kind"`
	// Subject is what differs: "table Shop", "index GSI2".
	Subject Subject `json:"subject"`
	// Lock and Live are what each says ("" for nothing).
	Lock string `json:"lock"`
	Live string `json:"live"`
	// Message says it in a sentence, with what to do.
	Message string `json:"message"`
}

func (d Drift) String() string { return fmt.Sprintf("%s %s: %s", d.Kind, d.Subject, d.Message) }

// LiveDiff is a lock compared with its live table.
type LiveDiff struct {
	Table string `json:"table"`
	// ARN and Created identify the table compared.
	ARN     string `json:"arn,omitempty"`
	Created string `json:"created,omitempty"`
	// Drifts are the differences, by kind in DriftKinds order.
	Drifts []Drift `json:"drifts"`
	// Unrecorded are the settings not compared because the lock does not
	// record them (it was not written by keyplan import table).
	Unrecorded []string `json:"unrecorded,omitempty"`
	// Indexes are the table's GSIs as it has them.
	Indexes []*PhaseIndex `json:"indexes"`
}

// Clean reports whether the table is as the lock says.
func (ld *LiveDiff) Clean() bool { return len(ld.Drifts) == 0 }

// IndexDrift reports whether the table's GSIs differ from the lock's
// (missing, unexpected, keyed or projected otherwise): the phases must be
// planned from what is deployed (LivePhases).
func (ld *LiveDiff) IndexDrift() bool {
	return slices.ContainsFunc(ld.Drifts, func(d Drift) bool {
		return d.Kind == DriftGSIMissing || d.Kind == DriftGSIExtra || d.Kind == DriftGSIKeys || d.Kind == DriftProjection
	})
}

// Err is the drift as one error (nil when clean): what the backfill job
// refuses to write on.
func (ld *LiveDiff) Err() error {
	if ld.Clean() {
		return nil
	}
	var lines []string
	for _, d := range ld.Drifts {
		lines = append(lines, d.String())
	}
	return fmt.Errorf("table %s is not as its lock says (%d difference(s)): %s", ld.Table, len(ld.Drifts), strings.Join(lines, "; "))
}

type driftList struct{ ld *LiveDiff }

func (dl driftList) add(kind DriftKind, s Subject, lock, live, format string, args ...any) {
	dl.ld.Drifts = append(dl.ld.Drifts, Drift{Kind: kind, Subject: s, Lock: lock, Live: live, Message: model.Printable(fmt.Sprintf(format, args...))})
}

// CompareLive compares a lock with the table it is deployed to: the
// table's status, its base key, its GSIs at the lock's current phase
// (names, keys, projections, each ACTIVE), that it has no LSI (keyplan
// designs none), its TTL attribute, and, when the lock records them
// (Adopted), its stream, billing, point-in-time recovery, deletion
// protection, table class and replicas; without that record, the stream
// is compared with what the design's stream handlers need and the rest is
// listed as Unrecorded.
func CompareLive(l *Lock, t *LiveTable) *LiveDiff {
	ld := &LiveDiff{Table: t.Name, ARN: t.ARN, Drifts: []Drift{}, Indexes: liveIndexes(t)}
	if !t.Created.IsZero() {
		ld.Created = t.Created.UTC().Format("2006-01-02T15:04:05Z")
	}
	dl := driftList{ld}
	table := Subject{SubjectTable, t.Name}
	if t.Status != "" && t.Status != StatusActive {
		dl.add(DriftTable, table, StatusActive, t.Status, "the table is %s, not ACTIVE: a change is being applied; compare again once it is done", t.Status)
	}
	d := l.Accepted
	lockKey, liveKey := d.PK+"/"+d.SK, t.PK+"/"+t.SK
	if t.SK == "" {
		liveKey = t.PK + " (no sort key)"
	}
	if lockKey != liveKey || t.Types[t.PK] != "S" || t.Types[t.SK] != "S" {
		dl.add(DriftBaseKey, table, lockKey+" (S, S)", fmt.Sprintf("%s (%s, %s)", liveKey, t.Types[t.PK], t.Types[t.SK]),
			"the table is keyed %s, the lock's design %s (strings): this is not the lock's table, or it was replaced", liveKey, lockKey)
	}
	want, ttl := l.Deployed()
	compareGSIs(dl, want, t)
	for _, ix := range t.Local {
		dl.add(DriftLSI, Subject{SubjectIndex, ix.Name}, "", ix.KeyText()+", "+ix.ProjectionText(),
			"the table has a local secondary index %s (%s), which the lock does not hold (keyplan designs no LSI): its keys are not written by keyplan", ix.Name, ix.KeyText())
	}
	if ttl != t.TTL {
		dl.add(DriftTTL, table, orNone(ttl), orNone(t.TTL)+ttlState(t), "the TTL attribute is %s on the table, %s in the lock%s", orNone(t.TTL), orNone(ttl), ttlFix(ttl))
	}
	compareSettings(dl, l, t)
	return ld
}

func ttlState(t *LiveTable) string {
	if t.TTLStatus == "" {
		return ""
	}
	return " (" + t.TTLStatus + ")"
}

func ttlFix(ttl string) string {
	if ttl == "" {
		return ": items expire that the design keeps; disable TTL, or declare the attribute `ttl` and lock"
	}
	return ": the design's items do not expire; deploy the lock (cdk deploy) to enable it"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// liveIndexes are the table's GSIs as a phase lists them (keys of one
// attribute a side as PK/SK, others as a native index's).
func liveIndexes(t *LiveTable) []*PhaseIndex {
	out := []*PhaseIndex{}
	for _, ix := range t.Indexes {
		pi := &PhaseIndex{Name: ix.Name, Projection: ix.Projection, NonKeyAttributes: sortedCopy(ix.NonKeyAttributes)}
		if pk, sk := model.IndexKeyNames(ix.Name); len(ix.PartitionKeys) == 1 && len(ix.SortKeys) == 1 && ix.PartitionKeys[0] == pk && ix.SortKeys[0] == sk {
			pi.PK, pi.SK = pk, sk
		} else {
			pi.PartitionKeys, pi.SortKeys = slices.Clone(ix.PartitionKeys), slices.Clone(ix.SortKeys)
			pi.KeyTypes = map[string]string{}
			for _, a := range pi.KeyAttributes() {
				pi.KeyTypes[a] = t.Types[a]
			}
		}
		out = append(out, pi)
	}
	return out
}

// KeyAttributes are the index's key attributes: PK and SK, or a native
// index's partition then sort attributes.
func (ix *PhaseIndex) KeyAttributes() []string {
	if len(ix.PartitionKeys) > 0 {
		return append(slices.Clone(ix.PartitionKeys), ix.SortKeys...)
	}
	return []string{ix.PK, ix.SK}
}

// keyLists are the index's partition and sort attributes.
func (ix *PhaseIndex) keyLists() (part, sort []string) {
	if len(ix.PartitionKeys) > 0 {
		return ix.PartitionKeys, ix.SortKeys
	}
	return []string{ix.PK}, []string{ix.SK}
}

// compareGSIs compares the lock's GSIs at its phase with the table's.
func compareGSIs(dl driftList, want []*PhaseIndex, t *LiveTable) {
	for _, ix := range want {
		s := Subject{SubjectIndex, ix.Name}
		g := t.Index(ix.Name)
		if g == nil {
			dl.add(DriftGSIMissing, s, ix.KeyText()+", "+sortedText(ix.Projection, ix.NonKeyAttributes), "",
				"the lock's GSI %s (%s) is not on the table: it was deleted by hand, or the lock's phase is not deployed yet (cdk deploy)", ix.Name, ix.KeyText())
			continue
		}
		part, sort := ix.keyLists()
		types := ix.KeyTypes
		if len(ix.PartitionKeys) == 0 {
			types = map[string]string{ix.PK: "S", ix.SK: "S"}
		}
		sameTypes := true
		for _, a := range append(slices.Clone(part), sort...) {
			sameTypes = sameTypes && t.Types[a] == types[a]
		}
		if !slices.Equal(part, g.PartitionKeys) || !slices.Equal(sort, g.SortKeys) || !sameTypes {
			dl.add(DriftGSIKeys, s, ix.KeyText(), g.KeyText(),
				"GSI %s is keyed %s on the table, %s in the lock: a GSI's keys cannot change in place; the items' keys for it are not where the design reads them", ix.Name, g.KeyText(), ix.KeyText())
		}
		if lp, gp := sortedText(ix.Projection, ix.NonKeyAttributes), sortedText(g.Projection, g.NonKeyAttributes); lp != gp {
			dl.add(DriftProjection, s, lp, gp, "GSI %s projects %s on the table, %s in the lock: a read of it returns other attributes than the design expects", ix.Name, gp, lp)
		}
		if g.Status != "" && g.Status != StatusActive || g.Backfilling {
			st := g.Status
			if g.Backfilling {
				st += " (backfilling)"
			}
			dl.add(DriftGSIStatus, s, StatusActive, st, "GSI %s is %s: DynamoDB is still changing it; its reads are not complete until it is ACTIVE", ix.Name, st)
		}
	}
	for _, g := range t.Indexes {
		if !slices.ContainsFunc(want, func(ix *PhaseIndex) bool { return ix.Name == g.Name }) {
			dl.add(DriftGSIExtra, Subject{SubjectIndex, g.Name}, "", g.KeyText()+", "+g.ProjectionText(),
				"the table has GSI %s (%s), which the lock does not: added by hand, or a phase the lock has not reached; every deploy counts it (one GSI change per deploy)", g.Name, g.KeyText())
		}
	}
}

// sortedText is a projection with its attributes sorted.
func sortedText(p Projection, attrs []string) string {
	return (&Index{Projection: p, NonKeyAttributes: sortedCopy(attrs)}).ProjectionText()
}

// compareSettings compares what the lock records of the table's settings
// (Adopted), or, without a record, the stream the design's handlers need.
func compareSettings(dl driftList, l *Lock, t *LiveTable) {
	table := Subject{SubjectTable, t.Name}
	a := l.Adopted
	if a == nil {
		dl.ld.Unrecorded = []string{"billing", "point-in-time recovery", "deletion protection", "table class", "replicas"}
		if hs := l.Latest().Handlers(); len(hs) > 0 && t.Stream == "" {
			names := make([]string, len(hs))
			for i, h := range hs {
				names[i] = string(h)
			}
			dl.add(DriftStream, table, StreamNewAndOld, "", "the design's stream handlers (%s) read the table's stream; the table has none", strings.Join(names, ", "))
		} else if len(hs) == 0 {
			dl.ld.Unrecorded = append(dl.ld.Unrecorded, "stream")
		}
		return
	}
	if a.Stream != t.Stream {
		dl.add(DriftStream, table, orNone(a.Stream), orNone(t.Stream), "the table's stream is %s, %s when it was adopted", orNone(t.Stream), orNone(a.Stream))
	}
	if a.Billing != t.Billing {
		dl.add(DriftBilling, table, a.Billing, t.Billing, "the table is billed %s, %s when it was adopted", t.Billing, a.Billing)
	}
	if t.PointInTimeRecovery != nil && *t.PointInTimeRecovery != a.PointInTimeRecovery {
		dl.add(DriftPITR, table, onOff(a.PointInTimeRecovery), onOff(*t.PointInTimeRecovery), "point-in-time recovery is %s, %s when the table was adopted", onOff(*t.PointInTimeRecovery), onOff(a.PointInTimeRecovery))
	}
	if a.DeletionProtection != t.DeletionProtection {
		dl.add(DriftProtection, table, onOff(a.DeletionProtection), onOff(t.DeletionProtection), "deletion protection is %s, %s when the table was adopted", onOff(t.DeletionProtection), onOff(a.DeletionProtection))
	}
	class := t.TableClass
	if class == "" {
		class = TableClassStandard
	}
	if a.TableClass != "" && a.TableClass != class {
		dl.add(DriftTableClass, table, a.TableClass, class, "the table class is %s, %s when the table was adopted", class, a.TableClass)
	}
	if !slices.Equal(a.Replicas, t.Replicas) {
		dl.add(DriftReplicas, table, listOrNone(a.Replicas), listOrNone(t.Replicas), "the table's replicas are %s, %s when it was adopted", listOrNone(t.Replicas), listOrNone(a.Replicas))
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

// LivePhases plans the phases of a change from the table as it is, not
// as the lock says: the deploys that bring the table's GSIs (ld.Indexes)
// and TTL attribute (liveTTL) to the design to's, one GSI created or
// deleted each, since DynamoDB and CloudFormation count that against what
// is deployed. A GSI the table has under the name of one of to's but
// keyed or projected otherwise is deleted first, then created as to has
// it. The entities df backfills are backfilled after the index they fill
// (a GSI the table lost, re-created, is rebuilt by DynamoDB from the
// attributes the items still hold: no backfill of its own).
func LivePhases(df *Diff, ld *LiveDiff, liveTTL string, to *Design) []*Phase {
	target := phaseIndexes(to)
	cur := slices.Clone(ld.Indexes)
	var out []*Phase
	for _, want := range target {
		i := slices.IndexFunc(cur, func(ix *PhaseIndex) bool { return ix.Name == want.Name })
		if i < 0 || samePhaseIndex(cur[i], want) {
			continue
		}
		cur = slices.Delete(cur, i, i+1)
		out = append(out, &Phase{Create: []string{}, Delete: []string{want.Name}, Backfill: []string{}, TTL: liveTTL, Indexes: slices.Clone(cur)})
	}
	created, deleted, backfill := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, want := range target {
		if !slices.ContainsFunc(cur, func(ix *PhaseIndex) bool { return ix.Name == want.Name }) {
			created[want.Name] = true
		}
	}
	for _, ix := range cur {
		if !slices.ContainsFunc(target, func(w *PhaseIndex) bool { return w.Name == ix.Name }) {
			deleted[ix.Name] = true
		}
	}
	for _, p := range df.Phases {
		for _, e := range p.Backfill {
			backfill[e] = true
		}
	}
	out = append(out, phasesFrom(cur, liveTTL, to, created, deleted, backfill)...)
	// A GSI the lock has, created again, needs no backfill of its own:
	// the items hold its keys, and a later phase's backfill writes them
	// for every entity it names.
	locked := df.lockIndexes()
	for i, p := range out {
		if len(p.Create) == 0 || !slices.Contains(locked, p.Create[0]) {
			continue
		}
		p.Backfill = slices.DeleteFunc(p.Backfill, func(e string) bool {
			return slices.ContainsFunc(out[i+1:], func(q *Phase) bool { return slices.Contains(q.Backfill, e) })
		})
	}
	return out
}

// lockIndexes are the names of the GSIs the diff starts from.
func (df *Diff) lockIndexes() []string {
	var out []string
	for _, ix := range df.From.Indexes {
		out = append(out, ix.Name)
	}
	return out
}

// samePhaseIndex reports whether two GSIs have the same keys (and key
// types) and projection.
func samePhaseIndex(a, b *PhaseIndex) bool {
	ap, as := a.keyLists()
	bp, bs := b.keyLists()
	if !slices.Equal(ap, bp) || !slices.Equal(as, bs) || sortedText(a.Projection, a.NonKeyAttributes) != sortedText(b.Projection, b.NonKeyAttributes) {
		return false
	}
	for _, k := range a.KeyAttributes() {
		if a.KeyTypes[k] != b.KeyTypes[k] {
			return false
		}
	}
	return true
}
