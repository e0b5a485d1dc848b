package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/keyplan/keyplan/internal/cli"
	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/lockcmd"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/prove"
)

// validate is keyplan validate: prove.ValidateTable on an engine
// (engine.Connect), examples and generated data, its options the flags.
func validate(fs *flag.FlagSet) func(*cli.Call) int {
	var eo localengine.Options
	var vo prove.ValidateOptions
	engineFlags(fs, &eo)
	fs.BoolVar(&vo.Keep, "keep", false, "keep the table on the --endpoint engine afterwards (its name is printed)")
	cli.String(fs, &vo.Table, "table", "the table's `NAME` (default: a new keyplan-validate-… name)", model.ValidTableName, model.NameRule)
	fs.BoolVar(&vo.Existing, "existing", false, "the table (--table) exists and holds the example items: do not create it or load anything, only run the expectations")
	var deadline time.Duration
	cli.Duration(fs, &deadline, "deadline", 5*time.Minute, "the longest the whole validation may take")
	cli.String(fs, &vo.IndexKeys, "index-keys", "key the new GSIs `auto`, native or synthetic for this proof (default: the model's indexKeys; a lock's GSIs stay as deployed)", model.ValidIndexKeys, "auto, native or synthetic")
	generate := cli.Int(fs, "generate", 50, 0, 100_000, "prove the design on generated data too (not with --existing): N items of each entity, then N random writes, every read compared after each with a reference evaluator that never looks at keys (0: off)")
	cli.Uint64(fs, &vo.Seed, "seed", uint64(time.Now().UnixNano())%1_000_000_000, "`S`, the generated data's seed, to replay a run (not with --existing; default: from the clock; printed)")
	return func(c *cli.Call) int {
		switch {
		case vo.Existing && vo.Table == "":
			return c.Fail(cli.Usage, "--existing needs --table NAME (the table that holds the items)")
		case (vo.Existing || vo.Keep) && eo.Endpoint == "":
			return c.Fail(cli.Usage, "--existing and --keep need an engine that outlives validate (one it starts stops with it): --endpoint URL or $%s; keyplan local serves one", localengine.EnvEndpoint)
		case cli.Given(fs, "engine") && eo.Endpoint != "": // from $KEYPLAN_DYNAMODB_ENDPOINT (--endpoint: Conflicts)
			return c.Fail(cli.Usage, "--engine %s and an endpoint (%s, from $%s) cannot be given together: --engine names the local engine validate starts when there is no endpoint", eo.Name, eo.Endpoint, localengine.EnvEndpoint)
		}
		ts := lockcmd.Open(c, c.File(), patterns.Options{IndexKeys: model.IndexKeys(vo.IndexKeys)})
		if ts == nil {
			return cli.Usage
		} else if lockcmd.Several(c.File(), ts) && vo.Table != "" {
			return c.Fail(cli.Usage, "--table names one table; the model declares %d: validate proves each on a new table", len(ts))
		}
		for _, t := range ts { // what validate would ignore, before any engine
			if vo.Lock, vo.Generate = t.Lock, *generate; vo.Refusal(t.Design) != nil {
				return c.Fail(cli.Usage, "%v", vo.Refusal(t.Design))
			}
		}
		conn := connect(c, eo)
		if conn == nil {
			return cli.Usage
		}
		defer conn.Stop()
		vo.Lacks = func() string { return conn.Lacks(context.Background(), localengine.MultiAttributeKeys) }
		worst := cli.Clean
		for _, t := range ts {
			vo.Lock = t.Lock
			lockcmd.DesignErrors(c, t.Design, "what they concern is not run, the rest is proved (keyplan check %s)", c.File())
			worst = max(worst, validateOn(c, t.Design, conn, vo, deadline))
		}
		return worst
	}
}

// engineFlags declares the flags that choose an engine (engine.Options).
func engineFlags(fs *flag.FlagSet, o *localengine.Options) {
	fs.StringVar(&o.Endpoint, "endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else a local engine, --engine)")
	fs.StringVar(&o.Name, "engine", localengine.Default(), "the local engine to start when there is no --endpoint: "+strings.Join(localengine.Names, " or ")+" (default: $"+localengine.EnvEngine+", else memory, in process; not with an endpoint, which $"+localengine.EnvEngine+" yields to)")
	cli.Duration(fs, &o.Timeout, "timeout", localengine.DefaultRequestTimeout, "the longest one request to the engine may take")
}

// connect connects to an engine (engine.Connect), saying when it installs
// one and how to get one that is missing (engine.StartError; nil: exit 2).
func connect(c *cli.Call, o localengine.Options) *localengine.Conn {
	if err := localengine.CheckName(o.Name); err != nil {
		c.Note("--engine (or $%s): %v", localengine.EnvEngine, err)
		return nil
	}
	o.Notify = func(s string) { c.Note("%s", s) }
	conn, err := localengine.Connect(context.Background(), o)
	if err != nil {
		c.Note("%v", err)
	}
	return conn
}

// validateOn proves the design on the engine (prove.ValidateTable). SIGINT and
// SIGTERM cancel the work: what was created is dropped on the way out,
// and a second signal ends keyplan at once. Exit 1 when anything failed or
// was not run.
func validateOn(c *cli.Call, d *patterns.Design, conn *localengine.Conn, vo prove.ValidateOptions, deadline time.Duration) int {
	sigCtx, stop := cli.Interruptible()
	defer stop()
	ctx, cancel := context.WithTimeout(sigCtx, deadline)
	defer cancel()
	fmt.Fprint(c.Stdout, conn.Notes())
	rep, table, err := prove.ValidateTable(ctx, conn.Raw, conn.DB, d, vo)
	if sigCtx.Err() != nil {
		defer c.Note("interrupted")
	}
	if rep == nil {
		return c.Fail(cli.Usage, "%s: %v", conn.Endpoint, err)
	}
	if err != nil {
		c.Note("%s: %v", conn.Endpoint, err)
	}
	_, _ = rep.WriteText(c.Stdout, c.File())
	fmt.Fprintln(c.Stdout, rep.Summary(c.File(), strings.TrimPrefix(conn.Endpoint, "http://")))
	if vo.Keep {
		fmt.Fprintf(c.Stdout, "kept table %s at %s\n", table, conn.Endpoint)
	}
	if !rep.OK() {
		return cli.Findings
	}
	return cli.Clean
}
