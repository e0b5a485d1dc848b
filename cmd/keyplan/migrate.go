package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// migrateFlags are keyplan migrate's options.
type migrateFlags struct {
	file, endpoint, table, checkpoint, env string
	segments                               int
	maxWCU, maxRCU                         float64
	pageSize                               int
	applyIndexes, verify                   bool
	progress                               time.Duration
}

func migrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var o migrateFlags
	fs.StringVar(&o.endpoint, "endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else AWS with the default credentials and region)")
	fs.StringVar(&o.table, "table", "", "the table's physical name (required)")
	fs.IntVar(&o.segments, "segments", 0, "parallel Scan segments (default: from the table's size, 1 per 25,000 items or 128 MB, at most 64)")
	fs.Float64Var(&o.maxWCU, "max-wcu", 0, "write capacity units per second the backfill may use (default: no limit)")
	fs.Float64Var(&o.maxRCU, "max-rcu", 0, "read capacity units per second the scans (backfill and verification) may use (default: no limit)")
	fs.StringVar(&o.env, "environment", "", "the environment the table is, when the lock names several (keyplan lock --environments)")
	fs.IntVar(&o.pageSize, "page-size", dynamo.DefaultPageSize, "items per Scan page (a checkpoint is written after each)")
	fs.StringVar(&o.checkpoint, "checkpoint", "", "progress file, to resume a stopped run (default: MODEL.migrate.TABLE.json beside the model)")
	fs.BoolVar(&o.applyIndexes, "apply-indexes", false, "create and delete the phase's GSIs with UpdateTable (local engines; on AWS cdk deploy does it), and go on through every phase")
	fs.BoolVar(&o.verify, "verify", false, "write nothing: check that every item is as the phase needs (after the construct's backfill job ran), and advance the lock if so")
	fs.DurationVar(&o.progress, "progress", 10*time.Second, "how often to print progress (0: never)")
	file, code := parse(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	o.file = file
	if msg := o.problem(); msg != "" {
		return fail(stderr, exitUsage, "keyplan migrate: %s", msg)
	}
	if o.checkpoint == "" {
		o.checkpoint = strings.TrimSuffix(file, filepath.Ext(file)) + ".migrate." + o.table + ".json"
	}
	lk, code := o.migration(stderr)
	if lk == nil {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, err := localengine.LongClient(ctx, o.endpoint, dynamo.PatientRetries)
	if err != nil {
		return fail(stderr, exitUsage, "keyplan migrate: %v", err)
	}
	for {
		if code := o.phase(ctx, client, lk, stdout, stderr); code != exitClean {
			return code
		}
		if code, more := o.advance(lk, stdout, stderr); !more {
			return code
		}
	}
}

// problem says what is wrong with the flags ("" when nothing).
func (o *migrateFlags) problem() string {
	switch {
	case o.table == "":
		return "--table NAME is required (the table's physical name)"
	case !patterns.ValidTableName(o.table):
		return fmt.Sprintf("--table %q: expected %s", o.table, patterns.NameRule)
	case o.segments < 0 || o.segments > 1_000_000:
		return fmt.Sprintf("--segments %d: expected 1 to 1000000", o.segments)
	case dynamo.CheckMaxWCU(o.maxWCU) != nil:
		return fmt.Sprintf("--max-wcu %v", dynamo.CheckMaxWCU(o.maxWCU))
	case dynamo.CheckMaxWCU(o.maxRCU) != nil:
		return fmt.Sprintf("--max-rcu %v", dynamo.CheckMaxWCU(o.maxRCU))
	case o.pageSize < 1 || o.pageSize > 10000:
		return fmt.Sprintf("--page-size %d: expected 1 to 10000", o.pageSize)
	}
	return ""
}

// migration opens the model and its lock, which must be in the middle of
// a migration to the model's design.
func (o *migrateFlags) migration(stderr io.Writer) (*patterns.Lock, int) {
	d, lk, code := designAndLock(o.file, stderr)
	if d == nil {
		return nil, code
	}
	lockPath := patterns.LockPath(o.file)
	switch {
	case lk == nil:
		fmt.Fprintf(stderr, "keyplan migrate: %s has no lock (%s): nothing is deployed to migrate\n", o.file, lockPath)
	case lk.Migration == nil:
		fmt.Fprintf(stderr, "keyplan migrate: no migration in progress in %s (keyplan diff %s shows what would start one; keyplan lock %s starts it)\n", lockPath, o.file, o.file)
	case !lk.Accepts(d):
		fmt.Fprintf(stderr, "keyplan migrate: %s is not the model the migration in %s leads to: keyplan diff %s shows the difference\n", o.file, lockPath, o.file)
	default:
		return lk, exitClean
	}
	return nil, exitUsage
}

// phase waits for the table to be at the lock's current phase, then
// backfills it (or verifies it); exit 0 when every item is as it needs.
func (o *migrateFlags) phase(ctx context.Context, c *dynamodb.Client, lk *patterns.Lock, stdout, stderr io.Writer) int {
	name, phase := lk.Migration.PhaseName(), lk.Migration.Phases[lk.Migration.Current]
	if skip, err := dynamo.TurnOf(ctx, c, lk, o.table, o.env); err != nil || skip {
		if err != nil {
			return fail(stderr, exitUsage, "keyplan migrate: %s, %s: %v", o.table, name, err)
		}
		return exitClean // verified there already: advance says what waits
	}
	t, err := dynamo.PhaseReady(ctx, c, o.table, lk, dynamo.PhaseOptions{Apply: o.applyIndexes, Log: func(msg string) { fmt.Fprintln(stderr, msg) }})
	if err != nil {
		fmt.Fprintf(stderr, "keyplan migrate: %s, %s: %v\n", o.table, name, err)
		if _, ok := errors.AsType[*dynamo.NotAtPhaseError](err); ok {
			fmt.Fprintln(stderr, "  on a local engine, --apply-indexes applies them")
		}
		if ctx.Err() != nil {
			return exitFindings
		}
		return exitUsage
	}
	if len(phase.Backfill) == 0 {
		fmt.Fprintf(stdout, "%s: nothing to backfill (%s)\n", name, phase)
		return exitClean
	}
	r, err := dynamo.NewRekeyer(lk, c, o.table)
	if err != nil {
		return fail(stderr, exitUsage, "keyplan migrate: %v", err)
	}
	r.DryRun = o.verify
	opts := dynamo.BackfillOptions{Segments: o.segments, PageSize: int32(o.pageSize), MaxWCU: o.maxWCU, MaxRCU: o.maxRCU, Checkpoint: o.checkpoint,
		Progress: func(p dynamo.BackfillProgress) { fmt.Fprintln(stderr, p.Line(aws.ToInt64(t.ItemCount))) }, ProgressEvery: o.progress}
	if opts.Segments == 0 {
		opts.Segments = dynamo.SegmentsFor(t, o.checkpoint)
	}
	if o.verify {
		opts.Checkpoint = ""
	}
	fmt.Fprintf(stdout, "%s: %s %s (%s) of %s with %d segment(s)%s\n", name, map[bool]string{false: "backfilling", true: "verifying"}[o.verify],
		strings.Join(phase.Backfill, ", "), phase, o.table, opts.Segments, opts.Limits())
	start := time.Now()
	res, err := r.Backfill(ctx, c, opts)
	if res != nil {
		fmt.Fprintln(stdout, name, res.Summary(time.Since(start), o.verify))
	}
	return o.outcome(ctx, name, res, err, stderr)
}

// outcome says how a backfill ended: exit 0 only when it is complete.
func (o *migrateFlags) outcome(ctx context.Context, name string, res *dynamo.BackfillResult, err error, stderr io.Writer) int {
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "keyplan migrate: interrupted; the progress is in %s: run the same command again to resume\n", o.checkpoint)
	case err != nil:
		fmt.Fprintf(stderr, "keyplan migrate: %v\n", err)
		if !o.verify {
			fmt.Fprintf(stderr, "the progress is in %s: run the same command again to resume\n", o.checkpoint)
		}
	case res.Complete() != nil:
		for _, f := range res.Failed {
			fmt.Fprintf(stderr, "  %v\n", f)
		}
		fmt.Fprintf(stderr, "keyplan migrate: %v; the lock stays at %s\n", res.Complete(), name)
	default:
		return exitClean
	}
	return exitFindings
}

// advance records the phase as done in the lock; more is true when
// migrate goes on with the next phase (--apply-indexes).
func (o *migrateFlags) advance(lk *patterns.Lock, stdout, stderr io.Writer) (code int, more bool) {
	lockPath := patterns.LockPath(o.file)
	advanced, err := lk.Verify(o.env)
	if err == nil {
		err = lk.WriteFile(lockPath)
	}
	if err != nil {
		fmt.Fprintf(stderr, "keyplan migrate: %v\n", err)
		return exitUsage, false
	}
	if !advanced {
		fmt.Fprintf(stdout, "%s: %s has verified %s; the lock advances once %s has (commit the lock; there, cdk deploy and keyplan migrate %s --environment %s)\n", lockPath, o.env, lk.Migration.PhaseName(), lk.Next(), o.file, lk.Next())
		return exitClean, false
	}
	if lk.Migration == nil {
		fmt.Fprintf(stdout, "%s: the migration is done: %s is at the target design (keyplan diff exits 0); commit the lock and deploy once more\n", lockPath, o.table)
		return exitClean, false
	}
	fmt.Fprintf(stdout, "%s: at %s (%s)\n", lockPath, lk.Migration.PhaseName(), lk.Migration.Phases[lk.Migration.Current])
	more = o.applyIndexes && lk.Next() == o.env
	if !more {
		fmt.Fprintf(stdout, "next: commit the lock, cdk deploy, then keyplan migrate %s %s\n", o.file, lk.NextRun(o.table))
	}
	return exitClean, more
}
