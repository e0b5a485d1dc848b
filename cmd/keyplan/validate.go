package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
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

func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	var o validateFlags
	fs.StringVar(&o.endpoint, "endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else a local engine, --engine)")
	fs.StringVar(&o.engine, "engine", localengine.Default(), "the local engine to start when there is no --endpoint: "+strings.Join(localengine.Names, " or ")+" (default: $"+localengine.EnvEngine+", else memory, in process)")
	fs.BoolVar(&o.keep, "keep", false, "keep the table on the --endpoint engine afterwards (its name is printed)")
	fs.StringVar(&o.table, "table", "", "the table's name (default: a new keyplan-validate-… name)")
	fs.BoolVar(&o.existing, "existing", false, "the table (--table) exists and holds the example items: do not create it or load anything, only run the expectations")
	fs.DurationVar(&o.timeout, "timeout", localengine.DefaultRequestTimeout, "the longest one request to the engine may take")
	fs.DurationVar(&o.deadline, "deadline", 5*time.Minute, "the longest the whole validation may take")
	file, code := parse(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if msg := o.problem(); msg != "" {
		return fail(stderr, exitUsage, "keyplan validate: %s", msg)
	}
	d, lk, code := designAndLock(file, stderr)
	if d == nil {
		return code
	}
	if errs := d.Errors(); len(errs) > 0 {
		for _, x := range errs {
			fmt.Fprintln(stderr, x)
		}
		return fail(stderr, exitFindings, "keyplan validate: the design has %d error(s); fix them first (keyplan check %s)", len(errs), file)
	}
	if ex := d.Model().Examples; ex == nil || len(ex.Expect) == 0 {
		return fail(stderr, exitUsage, "keyplan validate: %s has no examples.expect: nothing to prove", file)
	}
	notify := func(s string) { fmt.Fprintf(stderr, "keyplan validate: %s\n", s) }
	conn, err := localengine.Connect(context.Background(), localengine.Options{Endpoint: o.endpoint, Name: o.engine, Timeout: o.timeout, Notify: notify})
	if err != nil {
		return fail(stderr, exitUsage, "keyplan validate: %v", err)
	}
	defer conn.Stop()
	return o.run(file, d, lk, conn, stdout, stderr)
}

// problem says what is wrong with a combination of flags ("" when none).
func (o *validateFlags) problem() string {
	switch {
	case o.existing && o.table == "":
		return "--existing needs --table NAME (the table that holds the items)"
	case o.table != "" && !patterns.ValidTableName(o.table):
		return fmt.Sprintf("--table %q: expected %s", o.table, patterns.NameRule)
	case o.existing && o.keep:
		return "--existing never deletes the table; --keep is for tables validate creates"
	case o.endpoint == "" && (o.existing || o.keep):
		return "--existing and --keep need an engine that outlives validate (one it starts stops with it): --endpoint URL or $" + localengine.EnvEndpoint + "; keyplan local serves one"
	case o.timeout <= 0 || o.deadline <= 0:
		return "--timeout and --deadline: expected a positive duration, e.g. 30s"
	}
	if err := localengine.CheckName(o.engine); err != nil {
		return fmt.Sprintf("--engine (or $%s): %v", localengine.EnvEngine, err)
	}
	return ""
}

// run proves the design on the engine: on a table it creates (and drops,
// unless --keep), or on an --existing one. SIGINT and SIGTERM cancel the
// work; what was created is cleaned up on the way out, and a second
// signal then ends keyplan at once.
func (o *validateFlags) run(file string, d *patterns.Design, lk *patterns.Lock, conn *localengine.Conn, stdout, stderr io.Writer) int {
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(sigCtx, o.deadline)
	defer cancel()
	client, endpoint := conn.Raw, conn.Endpoint
	name := o.table
	if name == "" {
		name = validationTable(d.Table, time.Now())
	}
	defer func() {
		interrupted := sigCtx.Err() != nil
		stop()
		switch {
		case o.keep:
			fmt.Fprintf(stdout, "kept table %s at %s\n", name, endpoint)
		case !o.existing: // a table half made (created, then a failure or a signal) goes too
			drop, cancel := context.WithTimeout(context.Background(), dropCleanupTime)
			defer cancel()
			if err := dynamo.DropTable(drop, client, name); err != nil {
				fmt.Fprintf(stderr, "keyplan validate: table %s may be left at %s: %v\n", name, endpoint, err)
			}
		}
		if interrupted {
			fmt.Fprintln(stderr, "keyplan validate: interrupted")
		}
	}()
	if !o.existing {
		if err := dynamo.CreateTable(ctx, client, d, name); err != nil {
			return fail(stderr, exitUsage, "keyplan validate: %s: %v", endpoint, err)
		}
	}
	c := conn.DB
	fmt.Fprint(stdout, conn.Notes())
	var rep *dynamo.Report
	switch {
	case !o.existing: // a new table proves the model's design
		rep = dynamo.Validate(ctx, dynamo.New(d, c, name))
	case lk != nil && lk.Migration != nil: // an existing one is read as deployed, at the lock's phase
		rep = dynamo.ValidateExisting(ctx, dynamo.NewRollout(lk, c, name))
	default:
		rep = dynamo.ValidateExisting(ctx, dynamo.New(d, c, name))
	}
	if ex := d.Model().Examples; o.existing && len(ex.Steps) > 0 {
		fmt.Fprintf(stdout, "note: %d example write(s) not run: --existing only reads\n", len(ex.Steps))
	}
	return printReport(stdout, file, endpoint, rep)
}

// printReport prints what validate proved, a failure with its place in
// the model, and the summary; exit 1 when anything failed.
func printReport(w io.Writer, file, endpoint string, rep *dynamo.Report) int {
	failed, _ := rep.WriteText(w, file)
	steps := ""
	if len(rep.Steps) > 0 {
		steps = fmt.Sprintf("%d write(s), ", len(rep.Steps))
	}
	fmt.Fprintf(w, "%s: %d item(s) loaded, %s%d expectation(s), %d failed (%s)\n", file, rep.Loaded, steps, len(rep.Results), failed, strings.TrimPrefix(endpoint, "http://"))
	if !rep.OK() {
		return exitFindings
	}
	return exitClean
}

// validationTable names the table validate creates: short and unique
// whatever the model's table is called (a valid name may be 255
// characters, too long to prefix).
func validationTable(model string, now time.Time) string {
	if len(model) > 32 {
		model = model[:32]
	}
	return "kpv-" + model + "-" + strconv.FormatInt(now.UnixNano(), 36)
}

// dropCleanupTime bounds deleting validate's table: a table still being
// created cannot be deleted, so deleting waits for it.
const dropCleanupTime = 2 * time.Minute
