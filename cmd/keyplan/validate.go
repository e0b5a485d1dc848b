package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// validateFlags are keyplan validate's options.
type validateFlags struct {
	endpoint, engine, table string
	keep, existing          bool
	timeout, deadline       time.Duration
}

func validate(fs *flag.FlagSet) func(*call) int {
	var o validateFlags
	fs.StringVar(&o.endpoint, "endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else a local engine, --engine)")
	fs.StringVar(&o.engine, "engine", localengine.Default(), "the local engine to start when there is no --endpoint: "+strings.Join(localengine.Names, " or ")+" (default: $"+localengine.EnvEngine+", else memory, in process)")
	fs.BoolVar(&o.keep, "keep", false, "keep the table afterwards (its name is printed)")
	fs.StringVar(&o.table, "table", "", "the table's name (default: a new keyplan-validate-… name)")
	fs.BoolVar(&o.existing, "existing", false, "the table (--table) exists and holds the example items: do not create it or load anything, only run the expectations")
	fs.DurationVar(&o.timeout, "timeout", localengine.DefaultRequestTimeout, "the longest one request to the engine may take")
	fs.DurationVar(&o.deadline, "deadline", 5*time.Minute, "the longest the whole validation may take")
	return func(c *call) int {
		if msg := o.problem(); msg != "" {
			return c.fail(exitUsage, "%s", msg)
		}
		file := c.file()
		d, lk := c.open(file)
		if d == nil {
			return exitUsage
		}
		if ex := d.Model().Examples; ex == nil || len(ex.Expect) == 0 {
			return c.fail(exitUsage, "%s has no examples.expect: nothing to prove", file)
		}
		c.errors(d, "what they concern is not run, the rest is proved (keyplan check %s)", file)
		conn := o.connect(c)
		if conn == nil {
			return exitUsage
		}
		defer conn.Stop()
		return o.run(c, d, lk, conn)
	}
}

// problem says what is wrong with a combination of flags ("" when none).
func (o *validateFlags) problem() string {
	switch {
	case o.existing && o.table == "":
		return "--existing needs --table NAME (the table that holds the items)"
	case o.existing && o.endpoint == "":
		return "--existing needs the engine that holds the table: --endpoint URL or $" + localengine.EnvEndpoint
	case o.table != "" && !patterns.ValidTableName(o.table):
		return fmt.Sprintf("--table %q: expected %s", o.table, patterns.NameRule)
	case o.existing && o.keep:
		return "--existing never deletes the table; --keep is for tables validate creates"
	case o.timeout <= 0 || o.deadline <= 0:
		return "--timeout and --deadline: expected a positive duration, e.g. 30s"
	}
	if err := localengine.CheckName(o.engine); err != nil {
		return fmt.Sprintf("--engine (or $%s): %v", localengine.EnvEngine, err)
	}
	return ""
}

// connect connects to --endpoint, or starts the local engine (--engine).
func (o *validateFlags) connect(c *call) *localengine.Conn {
	wd, _ := os.Getwd()
	if o.endpoint == "" && localengine.NeedsInstall(o.engine, wd) {
		c.note("%s", localengine.Installing(o.engine))
	}
	conn, err := localengine.Connect(context.Background(), localengine.Options{Endpoint: o.endpoint, Name: o.engine, Dir: wd, Timeout: o.timeout})
	if err != nil {
		c.note("the local engine (%s) did not start: %v", o.engine, err)
		if hint := localengine.Hint(err); hint != "" {
			fmt.Fprintf(c.stderr, "  %s\n", hint)
		}
	}
	return conn
}

// run proves the design on the engine (dynamo.ValidateTable). SIGINT and
// SIGTERM cancel the work: what was created is dropped on the way out,
// and a second signal ends keyplan at once. Exit 1 when anything failed or
// was not run.
func (o *validateFlags) run(c *call, d *patterns.Design, lk *patterns.Lock, conn *localengine.Conn) int {
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-sigCtx.Done(); stop() }()
	ctx, cancel := context.WithTimeout(sigCtx, o.deadline)
	defer cancel()
	if conn.DB.Emulated() {
		fmt.Fprintln(c.stdout, "note: the engine has no TransactWriteItems; keyplan emulates it with conditional writes (all-or-nothing, not isolated)")
	}
	rep, table, err := dynamo.ValidateTable(ctx, conn.Raw, conn.DB, d, dynamo.ValidateOptions{Table: o.table, Existing: o.existing, Keep: o.keep, Lock: lk})
	if sigCtx.Err() != nil {
		defer c.note("interrupted")
	}
	if rep == nil {
		return c.fail(exitUsage, "%s: %v", conn.Endpoint, err)
	}
	if err != nil {
		c.note("%s: %v", conn.Endpoint, err)
	}
	if ex := d.Model().Examples; o.existing && len(ex.Steps) > 0 {
		fmt.Fprintf(c.stdout, "note: %d example write(s) not run: --existing only reads\n", len(ex.Steps))
	}
	_, _ = rep.WriteText(c.stdout, c.file())
	fmt.Fprintln(c.stdout, rep.Summary(c.file(), strings.TrimPrefix(conn.Endpoint, "http://")))
	if o.keep {
		fmt.Fprintf(c.stdout, "kept table %s at %s\n", table, conn.Endpoint)
	}
	if !rep.OK() {
		return exitFindings
	}
	return exitClean
}
