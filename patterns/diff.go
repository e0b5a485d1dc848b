package patterns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// ChangeKind names what a change does.
type ChangeKind string

// Change kinds.
const (
	ChangeGSICreated     ChangeKind = "gsi-created"
	ChangeGSIDeleted     ChangeKind = "gsi-deleted"
	ChangeProjection     ChangeKind = "projection-replaced"
	ChangeKeyRewritten   ChangeKind = "key-rewritten"
	ChangeRemoved        ChangeKind = "removed"
	ChangeRenamed        ChangeKind = "renamed"
	ChangeBaseKey        ChangeKind = "base-key-changed"
	ChangeTTL            ChangeKind = "ttl-changed"
	ChangePending        ChangeKind = "migration-pending"
	ChangeShapeAdded     ChangeKind = "shape-added"
	ChangePatternAdded   ChangeKind = "pattern-added"
	ChangePatternRemoved ChangeKind = "pattern-removed"
	ChangeUniqueGuard    ChangeKind = "unique-guard"
	ChangePlacementKept  ChangeKind = "placement-kept"
	ChangeIndexBuild     ChangeKind = "index-build"
	ChangeCleanupPending ChangeKind = "cleanup-pending"
	ChangeConsistency    ChangeKind = "consistency-changed"
	// Upgrade changes: what this keyplan reads otherwise than the one
	// that wrote the lock (upgrade.go).
	ChangeLockFormat      ChangeKind = "lock-format"
	ChangeRequest         ChangeKind = "request-derived"
	ChangePhases          ChangeKind = "phases-derived"
	ChangeCleanupRecorded ChangeKind = "cleanup-recorded"
	// ChangeModel: what the model says that no key, index or pattern's
	// plan shows (an attribute, enum values, a rate): the lock records
	// it.
	ChangeModel       ChangeKind = "model-changed"
	ChangeLSIReplaces ChangeKind = "lsi-replaces-table"
)

// Change is one difference between a lock and a plan, classified by a
// change rule (ChangeRules).
type Change struct {
	ID       string     `json:"id"`
	Severity Severity   `json:"severity"`
	Kind     ChangeKind `json:"kind"`
	Subject  Subject    `json:"subject"`
	Message  string     `json:"message"`
}

// ChangeRule is one change rule: a stable id, its severity and what it is
// about (documented with a failing and a passing example in
// docs/checks.md).
type ChangeRule struct {
	ID       string
	Severity Severity
	Kind     ChangeKind
	Title    string
}

var changeRules = []ChangeRule{
	{"KP601", SeverityInfo, ChangeGSICreated, "A GSI is created in a phase of its own"},
	{"KP602", SeverityInfo, ChangeGSIDeleted, "A GSI is deleted in a phase of its own, last"},
	{"KP603", SeverityWarning, ChangeProjection, "A projection is never changed in place"},
	{"KP604", SeverityWarning, ChangeKeyRewritten, "A changed key moves to a new shape and is backfilled"},
	{"KP605", SeverityError, ChangeRemoved, "An entity or key attribute is renamed, not removed"},
	{"KP606", SeverityWarning, ChangeRenamed, "A rename follows renamedFrom"},
	{"KP607", SeverityError, ChangeBaseKey, "A base-table key never changes"},
	{"KP608", SeverityWarning, ChangeTTL, "The TTL attribute changes in two phases"},
	{"KP609", SeverityError, ChangePending, "One migration at a time"},
	{"KP610", SeverityWarning, ChangeShapeAdded, "A new key of an existing entity is backfilled"},
	{"KP611", SeverityInfo, ChangePatternAdded, "Patterns added (reads and writes)"},
	{"KP612", SeverityInfo, ChangePatternRemoved, "Patterns removed (reads and writes)"},
	{"KP613", SeverityError, ChangeUniqueGuard, "Unique alternate keys keep their guard items"},
	{"KP614", SeverityWarning, ChangePlacementKept, "An entity's items stay where their base key put them"},
	{"KP615", SeverityInfo, ChangeIndexBuild, "A native key over attributes the items hold is built by DynamoDB, not backfilled"},
	{"KP616", SeverityError, ChangeCleanupPending, "No edit reads what a migration left before its cleanup"},
	{"KP617", SeverityInfo, ChangeLockFormat, "A lock of an earlier format is read, and rewritten in the current one"},
	{"KP618", SeverityInfo, ChangeRequest, "A read is served with the request this keyplan derives from the deployed keys"},
	{"KP619", SeverityWarning, ChangePhases, "A migration goes on with this keyplan's backfills"},
	{"KP620", SeverityWarning, ChangeCleanupRecorded, "A cleanup an earlier keyplan recorded is kept as recorded"},
	{"KP621", SeverityInfo, ChangeModel, "Model changes no key or index shows are recorded"},
	{"KP622", SeverityError, ChangeConsistency, "A global table's multi-Region consistency never changes"},
	{"KP623", SeverityError, ChangeLSIReplaces, "An LSI is created and removed only with its table"},
}

// ChangeRules returns the change rules, in id order (a copy).
func ChangeRules() []ChangeRule { return slices.Clone(changeRules) }

func changeRule(k ChangeKind) ChangeRule {
	for _, r := range changeRules {
		if r.Kind == k {
			return r
		}
	}
	panic("patterns: no change rule for " + string(k))
}

// Diff is what deploying a plan over a lock takes.
type Diff struct {
	// Safe is true when the change deploys in one step, with no backfill
	// and nothing refused.
	Safe bool `json:"safe"`
	From struct {
		Indexes []*PhaseIndex `json:"indexes"`
	} `json:"from"`
	Changes []Change `json:"changes"`
	// Phases roll the change out, one deploy each (none: nothing to do,
	// or the change is refused).
	Phases []*Phase `json:"phases"`
	// Migration is set when the lock has started this change: the phase
	// it is at (Phases are those left).
	Migration *DiffMigration `json:"migration,omitempty"`
	// First is set when nothing is deployed yet (the model has no lock):
	// what the first deploy creates. The diff is then safe, with no
	// changes and no phases.
	First *DiffFirst `json:"first,omitempty"`
	// Cleanup is the lock's pending cleanup: what a finished migration
	// left in the items, which keyplan migrate (or the construct's cleanup
	// job) removes once the lock that ended it is deployed. Until then the
	// migration is in progress (keyplan diff exits 1).
	Cleanup *DiffCleanup `json:"cleanup,omitempty"`
}

// DiffFirst is what a first deploy creates: the table and its GSIs, and
// the lock keyplan lock writes for it.
type DiffFirst struct {
	Lock    string        `json:"lock"`
	Table   string        `json:"table"`
	PK      string        `json:"partitionKey"`
	SK      string        `json:"sortKey"`
	TTL     string        `json:"ttl,omitempty"`
	Indexes []*PhaseIndex `json:"indexes"`
}

// CompareLock is Compare(l, to), or CompareFirst(to, lockPath) when
// there is no lock (l nil): what keyplan diff shows.
func CompareLock(l *Lock, to *Design, lockPath string) *Diff {
	if l == nil {
		return CompareFirst(to, lockPath)
	}
	return Compare(l, to)
}

// CompareFirst is the diff of a design with nothing deployed (no lock at
// lockPath): nothing to migrate, and First says what deploying creates.
func CompareFirst(d *Design, lockPath string) *Diff {
	df := &Diff{Safe: true, Changes: []Change{}, Phases: []*Phase{}}
	df.From.Indexes = []*PhaseIndex{}
	df.First = &DiffFirst{Lock: lockPath, Table: d.Table, PK: d.PK, SK: d.SK, TTL: d.TTL, Indexes: phaseIndexes(d)}
	return df
}

// DiffCleanup is a pending cleanup as a diff shows it: the entities whose
// items are rewritten, and per entity the attributes removed (Cleanup).
type DiffCleanup struct {
	Entities []string            `json:"entities"`
	Remove   map[string][]string `json:"remove,omitempty"`
}

// String says what the cleanup removes from which entities' items.
func (c *DiffCleanup) String() string {
	return (&Cleanup{Entities: c.Entities, Remove: c.Remove}).String()
}

// Pending says what the cleanup removes and how to run it (model: the
// model file).
func (c *DiffCleanup) Pending(model string) string {
	return (&Cleanup{Entities: c.Entities, Remove: c.Remove}).Pending(model)
}

// InProgress reports whether the lock has work left that keyplan migrate
// does: a migration's phases, or its cleanup (keyplan diff exits 1).
func (d *Diff) InProgress() bool { return d.Migration != nil || d.Cleanup != nil }

// DiffMigration is where a migration in progress is: phase Phase (from
// 1) of Of.
type DiffMigration struct {
	Phase int `json:"phase"`
	Of    int `json:"of"`
}

// Errors returns the changes that are refused.
func (d *Diff) Errors() []Change {
	var out []Change
	for _, c := range d.Changes {
		if c.Severity == SeverityError {
			out = append(out, c)
		}
	}
	return out
}

// Backfills reports whether a phase rewrites existing items.
func (d *Diff) Backfills() bool {
	return slices.ContainsFunc(d.Phases, func(p *Phase) bool { return len(p.Backfill) > 0 })
}

// Compare classifies every change from a lock to a plan (planned with the
// lock: PlanWith, Options.Lock) and splits the change into phases. A lock
// in the middle of a migration compares the plan with its target: the same
// design is the migration in progress, another one is refused (KP609).
func Compare(l *Lock, to *Design) *Diff {
	df := compare(l, to)
	df.Changes = append(l.Upgrades(), df.Changes...)
	if c := l.Cleanup; c != nil {
		df.Cleanup = &DiffCleanup{Entities: c.Entities, Remove: c.Remove}
	}
	return df
}

func compare(l *Lock, to *Design) *Diff {
	from := l.Accepted
	df := &Diff{Changes: []Change{}, Phases: []*Phase{}}
	df.From.Indexes = phaseIndexes(from)
	if mg := l.Migration; mg != nil {
		df.From.Indexes = mg.indexesNow(from)
		if !sameDesign(mg.Target, to) {
			df.add(ChangePending, Subject{SubjectTable, to.Table}, "a migration to another design is at phase %d of %d: finish it (keyplan migrate) before changing the model again", mg.Current+1, len(mg.Phases))
			return df
		}
		df.Phases = mg.Phases[min(mg.Current, len(mg.Phases)):]
		df.Changes = compareDesigns(from, to).Changes
		df.Safe = false
		df.Migration = &DiffMigration{Phase: mg.Current + 1, Of: len(mg.Phases)}
		return df
	}
	c := compareDesigns(from, to)
	c.From = df.From
	cleanupConflicts(c, l.Cleanup, from, to)
	return c
}

// sameDesign reports whether two designs deploy the same table: a lock
// records them alike.
func sameDesign(a, b *Design) bool {
	la, errA := json.Marshal(lockedDesign{a})
	lb, errB := json.Marshal(lockedDesign{b})
	return errA == nil && errB == nil && bytes.Equal(la, lb)
}

func (d *Diff) add(k ChangeKind, s Subject, format string, args ...any) {
	r := changeRule(k)
	d.Changes = append(d.Changes, Change{ID: r.ID, Severity: r.Severity, Kind: k, Subject: s, Message: model.Printable(fmt.Sprintf(format, args...))})
}
