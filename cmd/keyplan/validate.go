package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
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
	// generate is how many items of each entity, and random writes after
	// them, the proof by generated data makes (0: none); seed makes it
	// reproducible (seeded says it was given).
	generate int
	seed     uint64
	seeded   bool
}

// defaultGenerate is --generate's default: enough to meet the classic
// mistakes (ids prefixing each other, equal sort values), quick on every
// engine.
const defaultGenerate = 50

func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	var o validateFlags
	fs.StringVar(&o.endpoint, "endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else a local engine, --engine)")
	fs.StringVar(&o.engine, "engine", localengine.Default(), "the local engine to start when there is no --endpoint: "+strings.Join(localengine.Names, " or ")+" (default: $"+localengine.EnvEngine+", else memory, in process)")
	fs.BoolVar(&o.keep, "keep", false, "keep the table afterwards (its name is printed)")
	fs.StringVar(&o.table, "table", "", "the table's name (default: a new keyplan-validate-… name)")
	fs.BoolVar(&o.existing, "existing", false, "the table (--table) exists and holds the example items: do not create it or load anything, only run the expectations")
	fs.DurationVar(&o.timeout, "timeout", localengine.DefaultRequestTimeout, "the longest one request to the engine may take")
	fs.DurationVar(&o.deadline, "deadline", 5*time.Minute, "the longest the whole validation may take")
	fs.IntVar(&o.generate, "generate", defaultGenerate, "prove the design on generated data too: N items of each entity, then N random writes, every read compared after each with a reference evaluator that never looks at keys (0: off)")
	fs.Func("seed", "the generated data's seed, to replay a run (default: from the clock; printed)", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("expected a whole number from 0 to %d", uint64(math.MaxUint64))
		}
		o.seed, o.seeded = n, true
		return nil
	})
	file, code := parse(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if !o.seeded {
		o.seed = uint64(time.Now().UnixNano()) % 1_000_000_000
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
	if ex := d.Model().Examples; (ex == nil || len(ex.Expect) == 0) && (o.generate == 0 || o.existing) {
		return fail(stderr, exitUsage, "keyplan validate: %s has no examples.expect and no generated data (--generate N): nothing to prove", file)
	}
	if o.endpoint == "" && o.existing {
		return fail(stderr, exitUsage, "keyplan validate: --existing needs the engine that holds the table: --endpoint URL or $%s", localengine.EnvEndpoint)
	}
	conn, code := o.connect(stderr)
	if conn == nil {
		return code
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
	case o.timeout <= 0 || o.deadline <= 0:
		return "--timeout and --deadline: expected a positive duration, e.g. 30s"
	case o.generate < 0:
		return fmt.Sprintf("--generate %d: expected a number of items of each entity, or 0 for none", o.generate)
	case o.existing && o.seeded:
		return "--existing only reads; --seed is for the generated data, which is written"
	}
	if err := localengine.CheckName(o.engine); err != nil {
		return fmt.Sprintf("--engine (or $%s): %v", localengine.EnvEngine, err)
	}
	return ""
}

// connect connects to --endpoint, or starts the local engine (--engine).
func (o *validateFlags) connect(stderr io.Writer) (*localengine.Conn, int) {
	wd, _ := os.Getwd()
	if o.endpoint == "" && localengine.NeedsInstall(o.engine, wd) {
		fmt.Fprintf(stderr, "keyplan validate: %s\n", localengine.Installing(o.engine))
	}
	conn, err := localengine.Connect(context.Background(), localengine.Options{Endpoint: o.endpoint, Name: o.engine, Dir: wd, Timeout: o.timeout})
	if err != nil {
		fmt.Fprintf(stderr, "keyplan validate: the local engine (%s) did not start: %v\n", o.engine, err)
		if hint := localengine.Hint(err); hint != "" {
			fmt.Fprintf(stderr, "  %s\n", hint)
		}
		return nil, exitUsage
	}
	return conn, exitClean
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
	examples := d.Model().Examples != nil && len(d.Model().Examples.Expect) > 0
	defer func() {
		interrupted := sigCtx.Err() != nil
		stop()
		switch {
		case !examples: // the generated data's tables are its own
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
	if !o.existing && examples {
		if err := dynamo.CreateTable(ctx, client, d, name); err != nil {
			return fail(stderr, exitUsage, "keyplan validate: %s: %v", endpoint, err)
		}
	}
	c := conn.DB
	if c.Emulated() {
		fmt.Fprintln(stdout, "note: the engine has no TransactWriteItems; keyplan emulates it with conditional writes (all-or-nothing, not isolated)")
	}
	code := exitClean
	if examples {
		code = o.examples(ctx, file, d, lk, conn, name, stdout)
	}
	if o.generate > 0 && !o.existing && ctx.Err() == nil {
		code = max(code, o.proveGenerated(ctx, file, d, conn, name, stdout, stderr))
	}
	return code
}

// examples proves the model's examples: on the new table, or on an
// --existing one (read as deployed, at the lock's phase).
func (o *validateFlags) examples(ctx context.Context, file string, d *patterns.Design, lk *patterns.Lock, conn *localengine.Conn, name string, stdout io.Writer) int {
	c := conn.DB
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
	return printReport(stdout, file, conn.Endpoint, rep)
}

// proveGenerated proves the design on generated data (dynamo.Prove), on
// tables of its own named after the examples' table: a mismatch is shrunk
// on fresh ones, printed with the seed that replays it, and exit 1.
func (o *validateFlags) proveGenerated(ctx context.Context, file string, d *patterns.Design, conn *localengine.Conn, name string, stdout, stderr io.Writer) int {
	fresh := dynamo.Tables(conn.Raw, conn.DB, d, name+"-g")
	tbl, drop, err := fresh(ctx)
	if err != nil {
		return fail(stderr, exitUsage, "keyplan validate: %s: %v", conn.Endpoint, err)
	}
	defer drop()
	p, err := dynamo.Prove(ctx, tbl, dynamo.ProveOptions{Seed: o.seed, Items: o.generate, Steps: o.generate, Fresh: fresh})
	if err != nil {
		return fail(stderr, exitUsage, "keyplan validate: generated data (seed %d): %s: %v", o.seed, conn.Endpoint, err)
	}
	if p.OK() {
		fmt.Fprintf(stdout, "ok   generated data, %s\n", p)
		return exitClean
	}
	fmt.Fprintf(stdout, "FAIL generated data, %s\n", p)
	fmt.Fprintf(stdout, "%s: %s differs from the reference on generated data; replay: keyplan validate %s --generate %d --seed %d\n", file, p.Mismatch.Subject, file, o.generate, o.seed)
	return exitFindings
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
