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

// validate is keyplan validate: dynamo.ValidateTable on an engine
// (engine.Connect), its options the flags.
func validate(fs *flag.FlagSet) func(*call) int {
	var eo localengine.Options
	var vo dynamo.ValidateOptions
	engineFlags(fs, &eo)
	fs.BoolVar(&vo.Keep, "keep", false, "keep the table afterwards (its name is printed)")
	fs.StringVar(&vo.Table, "table", "", "the table's name (default: a new keyplan-validate-… name)")
	fs.BoolVar(&vo.Existing, "existing", false, "the table (--table) exists and holds the example items: do not create it or load anything, only run the expectations")
	deadline := fs.Duration("deadline", 5*time.Minute, "the longest the whole validation may take")
	keys := fs.String("index-keys", "", "key the new GSIs auto, native or synthetic for this proof (default: the model's indexKeys; a lock's GSIs stay as deployed)")
	return func(c *call) int {
		switch {
		case vo.Existing && vo.Table == "":
			return c.fail(exitUsage, "--existing needs --table NAME (the table that holds the items)")
		case vo.Existing && eo.Endpoint == "":
			return c.fail(exitUsage, "--existing needs the engine that holds the table: --endpoint URL or $%s", localengine.EnvEndpoint)
		case vo.Table != "" && !patterns.ValidTableName(vo.Table):
			return c.fail(exitUsage, "--table %q: expected %s", vo.Table, patterns.NameRule)
		case vo.Existing && vo.Keep:
			return c.fail(exitUsage, "--existing never deletes the table; --keep is for tables validate creates")
		case *deadline <= 0:
			return c.fail(exitUsage, "--deadline %v: expected a positive duration, e.g. 5m", *deadline)
		}
		if k := patterns.IndexKeys(*keys); k != "" && k != patterns.IndexKeysAuto && k != patterns.IndexKeysNative && k != patterns.IndexKeysSynthetic {
			return c.fail(exitUsage, "--index-keys %q: expected auto, native or synthetic", *keys)
		}
		d, lk := c.openWith(c.file(), patterns.Options{IndexKeys: patterns.IndexKeys(*keys)})
		if d == nil {
			return exitUsage
		}
		if ex := d.Model().Examples; ex == nil || len(ex.Expect) == 0 {
			return c.fail(exitUsage, "%s has no examples.expect: nothing to prove", c.file())
		}
		c.errors(d, "what they concern is not run, the rest is proved (keyplan check %s)", c.file())
		conn := c.connect(eo)
		if conn == nil {
			return exitUsage
		}
		defer conn.Stop()
		if msg := nativeGap(d, lk, conn); msg != "" {
			return c.fail(exitUsage, "%s", msg)
		}
		if *keys != "" {
			fmt.Fprintf(c.stdout, "note: new GSIs keyed %s for this proof (--index-keys); the model's own keying is proved by validate without it\n", *keys)
		}
		vo.Lock = lk
		return prove(c, d, conn, vo, *deadline)
	}
}

// engineFlags declares the flags that choose a DynamoDB engine
// (engine.Options; connect checks them).
func engineFlags(fs *flag.FlagSet, o *localengine.Options) {
	fs.StringVar(&o.Endpoint, "endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else a local engine, --engine)")
	fs.StringVar(&o.Name, "engine", localengine.Default(), "the local engine to start when there is no --endpoint: "+strings.Join(localengine.Names, " or ")+" (default: $"+localengine.EnvEngine+", else memory, in process)")
	fs.DurationVar(&o.Timeout, "timeout", localengine.DefaultRequestTimeout, "the longest one request to the engine may take")
}

// connect connects to an engine (engine.Connect), saying when it installs
// one and how to get one that is missing (nil: exit 2).
func (c *call) connect(o localengine.Options) *localengine.Conn {
	if err := localengine.CheckName(o.Name); err != nil {
		c.note("--engine (or $%s): %v", localengine.EnvEngine, err)
		return nil
	}
	if o.Timeout <= 0 {
		c.note("--timeout %v: expected a positive duration, e.g. 30s", o.Timeout)
		return nil
	}
	o.Dir, _ = os.Getwd()
	if o.Endpoint == "" && localengine.NeedsInstall(o.Name, o.Dir) {
		c.note("%s", localengine.Installing(o.Name))
	}
	conn, err := localengine.Connect(context.Background(), o)
	if err != nil {
		c.note("the local engine (%s) did not start: %v", o.Name, err)
		if hint := localengine.Hint(err); hint != "" {
			fmt.Fprintf(c.stderr, "  %s\n", hint)
		}
	}
	return conn
}

// prove proves the design on the engine (dynamo.ValidateTable). SIGINT and
// SIGTERM cancel the work: what was created is dropped on the way out,
// and a second signal ends keyplan at once. Exit 1 when anything failed or
// was not run.
func prove(c *call, d *patterns.Design, conn *localengine.Conn, vo dynamo.ValidateOptions, deadline time.Duration) int {
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-sigCtx.Done(); stop() }()
	ctx, cancel := context.WithTimeout(sigCtx, deadline)
	defer cancel()
	if conn.DB.Emulated() {
		fmt.Fprintln(c.stdout, "note: the engine has no TransactWriteItems; keyplan emulates it with conditional writes (all-or-nothing, not isolated)")
	}
	rep, table, err := dynamo.ValidateTable(ctx, conn.Raw, conn.DB, d, vo)
	if sigCtx.Err() != nil {
		defer c.note("interrupted")
	}
	if rep == nil {
		return c.fail(exitUsage, "%s: %v", conn.Endpoint, err)
	}
	if err != nil {
		c.note("%s: %v", conn.Endpoint, err)
	}
	if ex := d.Model().Examples; vo.Existing && len(ex.Steps) > 0 {
		fmt.Fprintf(c.stdout, "note: %d example write(s) not run: --existing only reads\n", len(ex.Steps))
	}
	_, _ = rep.WriteText(c.stdout, c.file())
	fmt.Fprintln(c.stdout, rep.Summary(c.file(), strings.TrimPrefix(conn.Endpoint, "http://")))
	if vo.Keep {
		fmt.Fprintf(c.stdout, "kept table %s at %s\n", table, conn.Endpoint)
	}
	if !rep.OK() {
		return exitFindings
	}
	return exitClean
}

// nativeGap says why the engine cannot hold the design ("" when it can):
// it has native GSIs and the engine has no multi-attribute keys
// (DynamoDB Local 1.25.1, dynalite). The design is proved where native
// keys exist (the in-process engine), or its synthetic keying here: new
// GSIs only, a lock's stay as deployed.
func nativeGap(d *patterns.Design, lk *patterns.Lock, conn *localengine.Conn) string {
	var native []string
	deployed := true
	for _, ix := range d.Indexes {
		if ix.Native() {
			native = append(native, ix.Name)
			deployed = deployed && lk != nil && lk.Latest().Index(ix.Name) != nil
		}
	}
	if len(native) == 0 {
		return ""
	}
	why := conn.Lacks(context.Background(), localengine.MultiAttributeKeys)
	if why == "" {
		return ""
	}
	fix := "prove it on an engine that has them (--engine memory, the default), or prove its synthetic keying here with --index-keys synthetic"
	if deployed {
		fix = "the lock records them so (deployed): only an engine with native keys can hold them (--engine memory, the default)"
	}
	return fmt.Sprintf("%s; the design keys %s natively: %s", why, strings.Join(native, ", "), fix)
}
