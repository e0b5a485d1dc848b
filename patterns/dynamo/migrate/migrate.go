package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// MigrateClient is what Migrate needs of DynamoDB: the table's indexes
// (PhaseReady) and its items (a backfill).
type MigrateClient interface {
	dynamo.IndexAdmin
	BackfillClient
}

// MigrateOptions say how Migrate runs a migration.
type MigrateOptions struct {
	// Apply brings the table's GSIs to each phase itself (PhaseOptions:
	// local engines; on AWS, cdk deploy does it) and goes on through
	// every phase.
	// Default: the lock's current phase alone, on a table already at it.
	Apply bool
	// Environment is the environment the table is, when the lock names
	// several (patterns.Lock.Environments): the table is checked to be
	// the lock's (TurnOf), the phase runs in the environments' order, and
	// the lock advances once every environment has verified it (Apply
	// then stops: the next environment's table is another).
	// Default: the lock names none.
	Environment string
	// Verify writes nothing: it checks that every item is as the phase
	// needs (after the construct's backfill job ran); the lock advances if
	// so. The checkpoint is not used.
	Verify bool
	// Deployed says the lock that ended the migration is deployed (the
	// runtime writes its accepted design alone): a cleanup records it in
	// the table (MarkDeployed) before it runs, which it refuses to do
	// otherwise (CheckDeployed). The construct's cleanup job records it
	// itself.
	// Default: the table must record the deploy already.
	Deployed bool
	// Objects is the bucket of values kept in S3 (S3Objects), needed by a
	// migration that moves an attribute's values into or out of S3
	// (store: s3 added or removed: ErrNoObjectsForMigration otherwise).
	// Default: the bucket $KEYPLAN_OBJECTS_BUCKET names (ObjectsFromEnv),
	// if any.
	Objects dynamo.ObjectStore
	// Backfill tunes the backfill.
	// Default: Segments from the table (SegmentsFor), progress through Log.
	Backfill BackfillOptions
	// Save records the lock once a phase is done (Lock.WriteFile, say).
	// Default: the lock is advanced in memory only.
	Save func(*patterns.Lock) error
	// Say is told each step a person follows (what a phase backfills, how
	// the backfill ended); Log what PhaseReady applies and waits for, and
	// the backfill's progress.
	// Default: nothing is said.
	Say, Log func(string)
}

// MigrateError says where a migration stopped: at which phase ("phase 2
// of 3"), and whether in its backfill (Backfill: it may be run again, and
// resumes from its checkpoint) or before it (the table is not at the
// phase, the phase cannot be backfilled, the lock cannot be saved).
type MigrateError struct {
	Phase    string
	Backfill bool
	Err      error
}

func (e *MigrateError) Error() string { return e.Phase + ": " + e.Err.Error() }
func (e *MigrateError) Unwrap() error { return e.Err }

// Migrate runs a lock's migration on a table, as keyplan migrate does: it
// checks the environment's table records what the lock says it verified
// (Witnessed), that the table holds the lock's model and that it is the
// environment's turn (TurnOf), waits for the table to be at the current
// phase (PhaseReady), backfills the phase's items (a Rekeyer; or verifies
// them), and only when that is complete (BackfillResult.Complete) records
// the environment's verification (patterns.Lock.Verify: the lock advances
// once every environment has) and saves it; with Apply it goes on through
// every phase while the lock advances; with Apply and no migration
// pending it brings the table's GSIs to the lock's (a native index build
// is such a change: deployIndexes). It returns the last backfill's
// result (nil when none ran) and a *MigrateError.
func Migrate(ctx context.Context, client MigrateClient, table string, lk *patterns.Lock, o MigrateOptions) (*BackfillResult, error) {
	say, log := o.Say, o.Log
	for _, f := range []*func(string){&say, &log} {
		if *f == nil {
			*f = func(string) {}
		}
	}
	if err := Witnessed(ctx, client, lk, table, o.Environment); err != nil {
		return nil, &MigrateError{Phase: "the lock's verifications", Err: err}
	}
	if lk.Migration == nil && lk.Cleanup != nil {
		return cleanUp(ctx, client, table, lk, o, say, log)
	}
	if lk.Migration == nil && o.Apply {
		if err := deployIndexes(ctx, client, table, lk, say, log); err != nil {
			return nil, &MigrateError{Phase: "the lock's indexes", Err: err}
		}
		return nil, nil
	}
	for {
		if lk.Migration == nil {
			return nil, ErrNoMigration
		}
		name := lk.Migration.PhaseName()
		skip, err := TurnOf(ctx, client, lk, table, o.Environment)
		var res *BackfillResult
		if err == nil && !skip {
			res, err = migratePhase(ctx, client, table, lk, name, o, say, log)
		}
		advanced := false
		if err == nil {
			advanced, err = lk.Verify(o.Environment)
		}
		if err == nil && o.Save != nil {
			err = o.Save(lk)
		}
		if err != nil {
			var be *backfillError
			if errors.As(err, &be) {
				return res, &MigrateError{Phase: name, Backfill: true, Err: be.err}
			}
			return res, &MigrateError{Phase: name, Err: err}
		}
		if lk.Migration == nil || !o.Apply || !advanced || lk.Next() != o.Environment {
			return res, nil
		}
	}
}

// deployIndexes brings a table with no migration pending to the lock's
// GSIs, as cdk deploy does on AWS: a change the lock accepted in one step
// (a native index build, KP615: the engine fills the new GSI from the
// items' own attributes; a GSI deleted) has no phase to apply it, so
// without this a local engine's table would never get it. A new
// synthetic GSI is filled by no engine: its keys are strings the items
// carry. So when one is missing, a verifying scan (checkKeysCarried)
// first checks that every item of the entities the lock's synthetic
// GSIs serve carries the keys the lock's design gives it on them (none
// there yet, say); otherwise the table was not at the lock's design (a
// fresh plan may also have moved a pattern to another GSI of the same
// name), and the run is refused before anything is created.
func deployIndexes(ctx context.Context, client MigrateClient, table string, lk *patterns.Lock, say, log func(string)) error {
	if err := CheckTableOf(ctx, client, lk, table); err != nil {
		return err
	}
	t, err := dynamo.DescribeTable(ctx, client, table)
	if err != nil {
		return err
	}
	want, _ := lk.Deployed()
	absent, extra := dynamo.IndexDiff(t, want)
	var created, missing []string
	for _, ix := range absent {
		if len(storedKeys(lk.Accepted, ix.Name)) == 0 {
			created = append(created, ix.Name+" (index build: the engine fills it from the items' own attributes)")
			continue
		}
		missing = append(missing, ix.Name)
	}
	if len(missing) > 0 {
		var carried []*patterns.PhaseIndex
		for _, ix := range want {
			if len(storedKeys(lk.Accepted, ix.Name)) > 0 {
				carried = append(carried, ix)
			}
		}
		verified, err := checkKeysCarried(ctx, client, table, lk, carried, missing, SegmentsFor(t, ""))
		if err != nil {
			return err
		}
		for _, name := range missing {
			created = append(created, name+" (its keys verified on the items)")
		}
		say(fmt.Sprintf("%s: %s", table, verified))
	}
	if _, err := dynamo.PhaseReady(ctx, client, table, lk, dynamo.PhaseOptions{Apply: true, Log: log}); err != nil {
		return err
	}
	switch {
	case len(created) == 0 && len(extra) == 0:
		say(fmt.Sprintf("%s: no migration in progress and its GSIs are the lock's: nothing to do", table))
	default:
		say(fmt.Sprintf("%s: no migration in progress; its GSIs brought to the lock's (created %v, deleted %v)", table, created, extra))
	}
	return nil
}

// storedKeys are the attributes the design's index name alone puts on
// items (patterns.Index.StoredKeys): none for a native index over the
// items' own attributes, which the engine fills as it builds it.
func storedKeys(d *patterns.Design, name string) []string {
	if ix := d.Index(name); ix != nil {
		return ix.StoredKeys()
	}
	return nil
}

// carriedKeys lists the attributes the design's indexes named put on
// items.
func carriedKeys(d *patterns.Design, names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, storedKeys(d, n)...)
	}
	return strings.Join(out, ", ")
}

// servedBy is the entities the design gives keys on the indexes, sorted.
func servedBy(d *patterns.Design, ixs []*patterns.PhaseIndex) []string {
	var out []string
	for _, pi := range ixs {
		if ix := d.Index(pi.Name); ix != nil {
			out = append(out, ix.Entities...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkKeysCarried runs the verifying scan (a Rekeyer's dry run) of a
// one-phase migration to the accepted design that deploys the GSIs ixs
// (those whose keys the items carry: synthetic, or a native one's
// discriminator) and backfills the entities they serve: it counts the items of
// those entities lacking a key the design gives them on ixs, or holding
// another value. It says what it verified when every item carries its
// keys, else returns an error naming each index, entity and attribute at
// fault, with the remedy.
func checkKeysCarried(ctx context.Context, client MigrateClient, table string, lk *patterns.Lock, ixs []*patterns.PhaseIndex, missing []string, segments int) (string, error) {
	entities := servedBy(lk.Accepted, ixs)
	var names []string
	for _, ix := range ixs {
		names = append(names, ix.Name)
	}
	_, ttl := lk.Deployed()
	check := &patterns.Lock{Format: lk.Format, Table: lk.Table, Accepted: lk.Accepted,
		Migration: &patterns.Migration{Target: lk.Accepted, Phases: []*patterns.Phase{{
			Create: missing, Delete: []string{}, Backfill: entities, TTL: ttl, Indexes: ixs}}}}
	r, err := NewRekeyer(check, client, table)
	if err != nil {
		return "", err
	}
	r.DryRun = true
	res, err := r.Backfill(ctx, client, BackfillOptions{Segments: segments})
	if err != nil {
		return "", fmt.Errorf("verifying that the items carry the keys of %s: %w", strings.Join(names, ", "), err)
	}
	v := res.Verify
	if v.Failed > 0 {
		return "", fmt.Errorf("verifying that the items carry the keys of %s: %d item(s) cannot be keyed by the lock's design (%s)", strings.Join(names, ", "), v.Failed, strings.Join(v.Examples, "; "))
	}
	var faults []string
	for _, ix := range ixs {
		keys := storedKeys(lk.Accepted, ix.Name)
		for _, e := range entities {
			var parts []string
			for _, k := range keys {
				if n := v.Needs[e][k]; n != nil && n.Lack > 0 {
					parts = append(parts, fmt.Sprintf("%d lack %s", n.Lack, k))
				}
				if n := v.Needs[e][k]; n != nil && n.Other > 0 {
					parts = append(parts, fmt.Sprintf("%d hold another %s than the lock's design gives", n.Other, k))
				}
			}
			if len(parts) > 0 {
				what := "existing"
				if slices.Contains(missing, ix.Name) {
					what = "new"
				}
				faults = append(faults, fmt.Sprintf("%s (%s): %s item(s): %s", ix.Name, what, e, strings.Join(parts, ", ")))
			}
		}
	}
	if len(faults) > 0 {
		return "", fmt.Errorf("the lock's new GSI(s) %s are filled by no engine (their keys are attributes the items carry: %s), and the items are not at the lock's design: %s; nothing was created. "+
			"The table is not at the lock's design: lock from the design the table holds (the lock it was deployed from, or keyplan lock on the model it was deployed from), then add the patterns and run keyplan lock again: it plans the backfill (keyplan migrate)",
			strings.Join(missing, ", "), carriedKeys(lk.Accepted, missing), strings.Join(faults, "; "))
	}
	return fmt.Sprintf("the new GSI(s) %s are filled by no engine (their keys are attributes the items carry: %s): verified first that the %d item(s) of %s carry the keys the lock's design gives them on %s",
		strings.Join(missing, ", "), carriedKeys(lk.Accepted, missing), v.Unchanged+v.Pending, strings.Join(entities, ", "), strings.Join(names, ", ")), nil
}

// backfillError marks an error of the backfill itself.
type backfillError struct{ err error }

func (e *backfillError) Error() string { return e.err.Error() }

// migratePhase runs the lock's current phase: the table at the phase,
// then its backfill; nil when every item is as it needs.
func migratePhase(ctx context.Context, client MigrateClient, table string, lk *patterns.Lock, name string, o MigrateOptions, say, log func(string)) (*BackfillResult, error) {
	phase := lk.Migration.Phases[lk.Migration.Current]
	t, err := dynamo.PhaseReady(ctx, client, table, lk, dynamo.PhaseOptions{Apply: o.Apply, Log: log})
	if err != nil {
		return nil, err
	}
	r, err := NewRekeyer(lk, client, table)
	if err != nil {
		return nil, err
	}
	if r.Objects = o.Objects; r.Objects == nil && r.movesObjects() {
		if r.Objects, err = ObjectsFromEnv(ctx); err != nil {
			return nil, err
		}
		if r.Objects == nil && !o.Verify {
			return nil, ErrNoObjectsForMigration // before writing anything
		}
	}
	if len(phase.Backfill) == 0 {
		// Nothing to backfill (an index build: the table is at the phase,
		// its new GSIs ACTIVE): the phase is verified, and the table
		// records it as a backfill's verification does, so that the next
		// run (another environment's turn) finds the lock and the table
		// agreeing (TurnOf).
		say(fmt.Sprintf("%s: nothing to backfill (%s)", name, phase))
		digest, err := MigrationDigest(lk)
		if err != nil {
			return nil, err
		}
		return nil, r.recordVerified(ctx, client, digest, lk.Migration.Current+1)
	}
	r.DryRun = o.Verify
	bo := o.Backfill
	if bo.Segments == 0 {
		bo.Segments = SegmentsFor(t, bo.Checkpoint)
	}
	if o.Verify {
		bo.Checkpoint = ""
	}
	if bo.Progress == nil {
		bo.Progress = func(p BackfillProgress) { log(p.Line(aws.ToInt64(t.ItemCount))) }
	}
	what := map[bool]string{false: "backfilling", true: "verifying"}[o.Verify]
	say(fmt.Sprintf("%s: %s %s (%s) of %s with %d segment(s)%s", name, what, strings.Join(phase.Backfill, ", "), phase, table, bo.Segments, bo.Limits()))
	start := time.Now()
	res, err := r.Backfill(ctx, client, bo)
	if res != nil {
		say(name + " " + res.Summary(time.Since(start), o.Verify))
	}
	if err == nil {
		err = res.Complete()
	}
	if err != nil {
		return res, &backfillError{err}
	}
	return res, nil
}

// CleanupName names the cleanup step in messages.
const CleanupName = "cleanup"

// CleanupLock is the lock the cleanup of a finished migration runs as
// (l.Cleanup): one phase at the accepted design's indexes that rewrites
// the cleanup's entities to it, removing what the design before left
// (their keys on GSIs that no longer serve them, Cleanup.Remove). Its
// digest, which ties a checkpoint and the verifying scan's progress to
// it, covers the cleanup. Run only once the lock that ended the
// migration is deployed: the runtime writes the accepted design alone.
func CleanupLock(l *patterns.Lock) (*patterns.Lock, error) {
	if l.Migration != nil || l.Cleanup == nil {
		return nil, errors.New("no cleanup pending")
	}
	ixs, ttl := l.Deployed()
	c := *l.Cleanup
	c.Verified = nil
	return &patterns.Lock{Format: l.Format, Table: l.Table, Accepted: l.Accepted, Cleanup: &c,
		Migration: &patterns.Migration{Target: l.Accepted, Phases: []*patterns.Phase{{
			Create: []string{}, Delete: []string{}, Backfill: c.Entities, TTL: ttl, Indexes: ixs}}}}, nil
}

// cleanUp runs the lock's pending cleanup on the table (Migrate): the
// table is checked to be the model's and at the accepted design, the
// cleanup's entities are rewritten (resumable from the checkpoint) and
// verified; then the environment's cleanup is recorded
// (patterns.Lock.CleanedUp) and the lock saved.
func cleanUp(ctx context.Context, client MigrateClient, table string, lk *patterns.Lock, o MigrateOptions, say, log func(string)) (*BackfillResult, error) {
	fail := func(res *BackfillResult, err error) (*BackfillResult, error) {
		var be *backfillError
		if errors.As(err, &be) {
			return res, &MigrateError{Phase: CleanupName, Backfill: true, Err: be.err}
		}
		return res, &MigrateError{Phase: CleanupName, Err: err}
	}
	switch {
	case len(lk.Environments) > 0 && o.Environment == "":
		return fail(nil, fmt.Errorf("the lock names environments (%s): say which this table is (--environment)", strings.Join(lk.Environments, ", ")))
	case o.Environment != "" && !slices.Contains(lk.Environments, o.Environment):
		return fail(nil, fmt.Errorf("--environment %s: the lock names %s", o.Environment, strings.Join(lk.Environments, ", ")))
	case slices.Contains(lk.Cleanup.Verified, o.Environment):
		say(fmt.Sprintf("%s: %s is cleaned up already; the lock waits for the other environments", CleanupName, o.Environment))
		return nil, nil
	}
	if err := CheckTableOf(ctx, client, lk, table); err != nil {
		return fail(nil, err)
	}
	cl, err := CleanupLock(lk)
	if err != nil {
		return fail(nil, err)
	}
	// The lock that ended the migration is deployed: the table has its
	// GSIs, and records its deploy.
	if _, err := dynamo.PhaseReady(ctx, client, table, cl, dynamo.PhaseOptions{Apply: o.Apply, Log: log}); err != nil {
		return fail(nil, err)
	}
	if o.Deployed {
		if err := MarkDeployed(ctx, client, lk, table, "keyplan migrate --deployed"); err != nil {
			return fail(nil, err)
		}
	}
	if err := CheckDeployed(ctx, client, lk, table); err != nil {
		return fail(nil, err)
	}
	res, err := migratePhase(ctx, client, table, cl, CleanupName, o, say, log)
	if err == nil {
		_, err = lk.CleanedUp(o.Environment)
	}
	if err == nil && o.Save != nil {
		err = o.Save(lk)
	}
	if err != nil {
		return fail(res, err)
	}
	return res, nil
}
