package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/keyplan/keyplan/internal/cli"
	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/lockcmd"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	migration "github.com/keyplan/keyplan/patterns/dynamo/migrate"
	"github.com/keyplan/keyplan/patterns/model"
)

// migrate is keyplan migrate: migration.Migrate, its options the flags.
func migrate(fs *flag.FlagSet) func(*cli.Call) int {
	var o migration.MigrateOptions
	var endpoint, table string
	fs.StringVar(&endpoint, "endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else AWS with the default credentials and region)")
	cli.String(fs, &table, "table", "the table's physical `NAME`", model.ValidTableName, model.NameRule)
	segments := cli.Int(fs, "segments", 0, 0, 1_000_000, "parallel Scan segments (0: from the table's size, 1 per 25,000 items or 128 MB, at most 64)")
	fs.Float64Var(&o.Backfill.MaxWCU, "max-wcu", 0, "write capacity units per second the backfill may use (default: no limit)")
	fs.Float64Var(&o.Backfill.MaxRCU, "max-rcu", 0, "read capacity units per second the scans (backfill and verification) may use (default: no limit)")
	fs.StringVar(&o.Environment, "environment", "", "the environment the table is, when the lock names several (keyplan lock --environments)")
	pageSize := cli.Int(fs, "page-size", migration.DefaultPageSize, 1, 10_000, "items per Scan page (a checkpoint is written after each)")
	fs.StringVar(&o.Backfill.Checkpoint, "checkpoint", "", "progress file, to resume a stopped run (default: MODEL.migrate.TABLE.json beside the model)")
	fs.BoolVar(&o.Apply, "apply-indexes", false, "create and delete the phase's GSIs (with no migration pending, the lock's) with UpdateTable (local engines; on AWS cdk deploy does it), and go on through every phase")
	fs.BoolVar(&o.Deployed, "deployed", false, "a migration's cleanup: the lock that ended it is deployed (the construct's cleanup job records that itself); recorded in the table")
	fs.BoolVar(&o.Verify, "verify", false, "write nothing: check that every item is as the phase needs (after the construct's backfill job ran), and advance the lock if so")
	fs.DurationVar(&o.Backfill.ProgressEvery, "progress", 10*time.Second, "how often to print progress (0: never)")
	return func(c *cli.Call) int {
		file := c.File()
		if err := migration.CheckMaxWCU(o.Backfill.MaxWCU); err != nil {
			return c.Fail(cli.Usage, "--max-wcu %v", err)
		} else if err := migration.CheckMaxWCU(o.Backfill.MaxRCU); err != nil {
			return c.Fail(cli.Usage, "--max-rcu %v", err)
		}
		o.Backfill.Segments, o.Backfill.PageSize = *segments, int32(*pageSize)
		if o.Backfill.Checkpoint == "" {
			o.Backfill.Checkpoint = strings.TrimSuffix(file, filepath.Ext(file)) + ".migrate." + table + ".json"
		}
		ts := lockcmd.Open(c, file, patterns.Options{})
		if ts == nil {
			return cli.Usage
		}
		t, err := patterns.TableOf(ts, table) // in a model of several tables, the one --table names
		if err != nil {
			return c.Fail(cli.Usage, "--table %v (deploy each table under its name in the model)", err)
		}
		d, lk, lockPath := t.Design, t.Lock, t.LockPath
		if err := lk.MigratingToAt(d, file, lockPath, o.Apply); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		ctx, stop := cli.Interruptible()
		defer stop()
		client, err := localengine.Remote(ctx, endpoint, migration.PatientRetries)
		if err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		o.Say, o.Log = func(s string) { fmt.Fprintln(c.Stdout, s) }, func(s string) { fmt.Fprintln(c.Stderr, s) }
		o.Save = func(lk *patterns.Lock) error { return lk.Record(lockPath, file, o.Environment, c.Stdout) }
		res, err := migration.Migrate(ctx, client, table, lk, o)
		if ctx.Err() != nil {
			return c.Fail(cli.Findings, "interrupted; the progress is in %s: run the same command again to resume", o.Backfill.Checkpoint)
		}
		if err != nil {
			return migrateFailed(c, table, o, res, err)
		}
		fmt.Fprint(c.Stdout, lk.NextStep(file, table, o.Environment, o.Apply))
		return cli.Clean
	}
}

// migrateFailed says where migration.Migrate stopped and what to do: exit 1
// for a backfill that stopped or left items (run it again), 2 for the
// rest (the table is not at the phase, the lock cannot be saved).
func migrateFailed(c *cli.Call, table string, o migration.MigrateOptions, res *migration.BackfillResult, err error) int {
	var me *migration.MigrateError
	errors.As(err, &me)
	switch {
	case errors.Is(err, migration.ErrIncomplete):
		for _, f := range res.Failed {
			fmt.Fprintf(c.Stderr, "  %v\n", f)
		}
		return c.Fail(cli.Findings, "%v; the lock stays at %s", me.Err, me.Phase)
	case me != nil && me.Backfill:
		c.Note("%v", err)
		if !o.Verify {
			fmt.Fprintf(c.Stderr, "the progress is in %s: run the same command again to resume\n", o.Backfill.Checkpoint)
		}
		return cli.Findings
	}
	c.Note("%s, %v", table, err)
	if _, ok := errors.AsType[*dynamo.NotAtPhaseError](err); ok {
		fmt.Fprintln(c.Stderr, "  on a local engine, --apply-indexes applies them")
	}
	return cli.Usage
}
