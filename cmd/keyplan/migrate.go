package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// migrate is keyplan migrate: dynamo.Migrate, its options the flags.
func migrate(fs *flag.FlagSet) func(*call) int {
	var o dynamo.MigrateOptions
	var endpoint, table string
	pageSize := int(dynamo.DefaultPageSize)
	fs.StringVar(&endpoint, "endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else AWS with the default credentials and region)")
	fs.StringVar(&table, "table", "", "the table's physical name (required)")
	fs.IntVar(&o.Backfill.Segments, "segments", 0, "parallel Scan segments (default: from the table's size, 1 per 25,000 items or 128 MB, at most 64)")
	fs.Float64Var(&o.Backfill.MaxWCU, "max-wcu", 0, "write capacity units per second the backfill may use (default: no limit)")
	fs.IntVar(&pageSize, "page-size", pageSize, "items per Scan page (a checkpoint is written after each)")
	fs.StringVar(&o.Backfill.Checkpoint, "checkpoint", "", "progress file, to resume a stopped run (default: MODEL.migrate.TABLE.json beside the model)")
	fs.BoolVar(&o.Apply, "apply-indexes", false, "create and delete the phase's GSIs with UpdateTable (local engines; on AWS cdk deploy does it), and go on through every phase")
	fs.BoolVar(&o.Verify, "verify", false, "write nothing: check that every item is as the phase needs (after the construct's backfill job ran), and advance the lock if so")
	fs.DurationVar(&o.Backfill.ProgressEvery, "progress", 10*time.Second, "how often to print progress (0: never)")
	return func(c *call) int {
		file := c.file()
		if msg := migrateProblem(table, o.Backfill, pageSize); msg != "" {
			return c.fail(exitUsage, "%s", msg)
		}
		o.Backfill.PageSize = int32(pageSize)
		if o.Backfill.Checkpoint == "" {
			o.Backfill.Checkpoint = strings.TrimSuffix(file, filepath.Ext(file)) + ".migrate." + table + ".json"
		}
		lk := migration(c, file)
		if lk == nil {
			return exitUsage
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		client, err := migrateClient(ctx, endpoint)
		if err != nil {
			return c.fail(exitUsage, "%v", err)
		}
		lockPath := patterns.LockPath(file)
		o.Say, o.Log = func(s string) { fmt.Fprintln(c.stdout, s) }, func(s string) { fmt.Fprintln(c.stderr, s) }
		o.Save = func(lk *patterns.Lock) error {
			if err := lk.WriteFile(lockPath); err != nil || lk.Migration == nil {
				return err
			}
			_, err := fmt.Fprintf(c.stdout, "%s: at %s (%s)\n", lockPath, dynamo.PhaseName(lk), lk.Migration.Phases[lk.Migration.Current])
			return err
		}
		res, err := dynamo.Migrate(ctx, client, table, lk, o)
		if ctx.Err() != nil {
			return c.fail(exitFindings, "interrupted; the progress is in %s: run the same command again to resume", o.Backfill.Checkpoint)
		}
		if err != nil {
			return migrateFailed(c, table, o, res, err)
		}
		switch {
		case lk.Migration == nil:
			fmt.Fprintf(c.stdout, "%s: the migration is done: %s is at the target design (keyplan diff exits 0); commit the lock and deploy once more\n", lockPath, table)
		case !o.Apply:
			fmt.Fprintf(c.stdout, "next: commit the lock, cdk deploy, then keyplan migrate %s --table %s again\n", file, table)
		}
		return exitClean
	}
}

// migrateProblem says what is wrong with keyplan migrate's flags ("" when
// nothing).
func migrateProblem(table string, o dynamo.BackfillOptions, pageSize int) string {
	switch {
	case table == "":
		return "--table NAME is required (the table's physical name)"
	case !patterns.ValidTableName(table):
		return fmt.Sprintf("--table %q: expected %s", table, patterns.NameRule)
	case o.Segments < 0 || o.Segments > 1_000_000:
		return fmt.Sprintf("--segments %d: expected 1 to 1000000", o.Segments)
	case dynamo.CheckMaxWCU(o.MaxWCU) != nil:
		return fmt.Sprintf("--max-wcu %v", dynamo.CheckMaxWCU(o.MaxWCU))
	case pageSize < 1 || pageSize > 10000:
		return fmt.Sprintf("--page-size %d: expected 1 to 10000", pageSize)
	}
	return ""
}

// migrateFailed says where dynamo.Migrate stopped and what to do: exit 1
// for a backfill that stopped or left items (run it again), 2 for the
// rest (the table is not at the phase, the lock cannot be saved).
func migrateFailed(c *call, table string, o dynamo.MigrateOptions, res *dynamo.BackfillResult, err error) int {
	var me *dynamo.MigrateError
	errors.As(err, &me)
	switch {
	case errors.Is(err, dynamo.ErrIncomplete):
		for _, f := range res.Failed {
			fmt.Fprintf(c.stderr, "  %v\n", f)
		}
		return c.fail(exitFindings, "%v; the lock stays at %s", me.Err, me.Phase)
	case me != nil && me.Backfill:
		c.note("%v", err)
		if !o.Verify {
			fmt.Fprintf(c.stderr, "the progress is in %s: run the same command again to resume\n", o.Backfill.Checkpoint)
		}
		return exitFindings
	}
	c.note("%s, %v", table, err)
	if _, ok := errors.AsType[*dynamo.NotAtPhaseError](err); ok {
		fmt.Fprintln(c.stderr, "  on a local engine, --apply-indexes applies them")
	}
	return exitUsage
}

// migration opens the model and its lock, which must be in the middle of
// a migration to the model's design (nil: exit 2).
func migration(c *call, file string) *patterns.Lock {
	d, lk := c.open(file)
	if d == nil {
		return nil
	}
	lockPath := patterns.LockPath(file)
	switch {
	case lk == nil:
		c.note("%s has no lock (%s): nothing is deployed to migrate", file, lockPath)
	case lk.Migration == nil:
		c.note("no migration in progress in %s (keyplan diff %s shows what would start one; keyplan lock %s starts it)", lockPath, file, file)
	case !lk.Accepts(d):
		c.note("%s is not the model the migration in %s leads to: keyplan diff %s shows the difference", file, lockPath, file)
	default:
		return lk
	}
	return nil
}

// migrateClient is a client for a long backfill: an endpoint's (local
// engines), or AWS's with the default credential chain and region.
func migrateClient(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	if endpoint != "" {
		return dynamodb.New(localengine.Client(endpoint, 0).Options(), dynamo.PatientRetries), nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("no AWS region: set AWS_REGION, or --endpoint for a local engine")
	}
	return dynamodb.NewFromConfig(cfg, dynamo.PatientRetries), nil
}
