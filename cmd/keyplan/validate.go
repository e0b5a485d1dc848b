package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/dynalite"
	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	endpoint := fs.String("endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else a local engine, --engine)")
	engineName := fs.String("engine", localengine.Default(), "the local engine to start when there is no --endpoint: "+strings.Join(localengine.Names, " or ")+" (default: $"+localengine.EnvEngine+", else memory, in process)")
	keep := fs.Bool("keep", false, "keep the table afterwards (its name is printed)")
	table := fs.String("table", "", "the table's name (default: a new keyplan-validate-… name)")
	existing := fs.Bool("existing", false, "the table (--table) exists and holds the example items: do not create it or load anything, only run the expectations")
	timeout := fs.Duration("timeout", defaultRequestTimeout, "the longest one request to the engine may take")
	deadline := fs.Duration("deadline", 5*time.Minute, "the longest the whole validation may take")
	file, code := parse(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	switch {
	case *existing && *table == "":
		fmt.Fprintln(stderr, "keyplan validate: --existing needs --table NAME (the table that holds the items)")
		return exitUsage
	case *table != "" && !patterns.ValidTableName(*table):
		fmt.Fprintf(stderr, "keyplan validate: --table %q: expected %s\n", *table, patterns.NameRule)
		return exitUsage
	case *existing && *keep:
		fmt.Fprintln(stderr, "keyplan validate: --existing never deletes the table; --keep is for tables validate creates")
		return exitUsage
	case *timeout <= 0 || *deadline <= 0:
		fmt.Fprintln(stderr, "keyplan validate: --timeout and --deadline: expected a positive duration, e.g. 30s")
		return exitUsage
	}
	if err := localengine.Check(*engineName); err != nil {
		fmt.Fprintf(stderr, "keyplan validate: --engine (or $%s): %v\n", localengine.EnvEngine, err)
		return exitUsage
	}
	d, lk, code := designAndLock(file, stderr)
	if d == nil {
		return code
	}
	if errs := d.Errors(); len(errs) > 0 {
		for _, x := range errs {
			fmt.Fprintln(stderr, x)
		}
		fmt.Fprintf(stderr, "keyplan validate: the design has %d error(s); fix them first (keyplan check %s)\n", len(errs), file)
		return exitFindings
	}
	m := d.Model()
	if m.Examples == nil || len(m.Examples.Expect) == 0 {
		fmt.Fprintf(stderr, "keyplan validate: %s has no examples.expect: nothing to prove\n", file)
		return exitUsage
	}
	if *endpoint == "" {
		if *existing {
			fmt.Fprintln(stderr, "keyplan validate: --existing needs the engine that holds the table: --endpoint URL or $"+localengine.EnvEndpoint)
			return exitUsage
		}
		wd, _ := os.Getwd()
		if localengine.NeedsInstall(*engineName, wd) {
			fmt.Fprintf(stderr, "keyplan validate: %s\n", localengine.Installing(*engineName))
		}
		srv, err := localengine.Start(*engineName, wd)
		if err != nil {
			fmt.Fprintf(stderr, "keyplan validate: the local engine (%s) did not start: %v\n", *engineName, err)
			if hint := localengine.Hint(err); hint != "" {
				fmt.Fprintf(stderr, "  %s\n", hint)
			}
			return exitUsage
		}
		defer srv.Stop()
		*endpoint = srv.Endpoint
	}
	// SIGINT and SIGTERM cancel the work; what was created is cleaned up
	// on the way out (the embedded engine dies with keyplan in any case).
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	signalled, stopped := false, false
	stopSignals := func() { // a second signal then ends keyplan at once
		if !stopped {
			signalled, stopped = sigCtx.Err() != nil, true
			stop()
		}
	}
	ctx, cancel := context.WithTimeout(sigCtx, *deadline)
	defer cancel()
	defer func() {
		if stopSignals(); signalled {
			fmt.Fprintln(stderr, "keyplan validate: interrupted")
		}
	}()
	client := newClient(*endpoint, *timeout)
	name := *table
	if name == "" {
		name = validationTable(d.Table, time.Now())
	}
	if !*existing {
		if *keep {
			defer fmt.Fprintf(stdout, "kept table %s at %s\n", name, *endpoint)
		} else {
			// Registered before the table is created: a table half made
			// (created, then a failure or a signal) goes too.
			defer func() {
				stopSignals()
				if err := dropTable(client, name, *timeout); err != nil {
					fmt.Fprintf(stderr, "keyplan validate: table %s may be left at %s: %v\n", name, *endpoint, err)
				}
			}()
		}
		if err := dynamo.CreateTable(ctx, client, d, name); err != nil {
			fmt.Fprintf(stderr, "keyplan validate: %s: %v\n", *endpoint, err)
			return exitUsage
		}
	}
	var c dynamo.Client = client
	if !dynalite.SupportsTransactions(ctx, client) {
		fmt.Fprintln(stdout, "note: the engine has no TransactWriteItems; keyplan emulates it with conditional writes (all-or-nothing, not isolated)")
		c = dynalite.EmulateTransactions(client)
	}
	// A new table proves the model's design; an existing one is read as
	// it is deployed (during a migration, at the lock's phase).
	tbl := dynamo.New(d, c, name)
	if *existing && lk != nil && lk.Migration != nil {
		tbl = dynamo.NewRollout(lk, c, name)
	}
	var rep *dynamo.Report
	if *existing {
		rep = dynamo.ValidateExisting(ctx, tbl)
	} else {
		rep = dynamo.Validate(ctx, tbl)
	}
	if ex := d.Model().Examples; *existing && ex != nil && len(ex.Steps) > 0 {
		fmt.Fprintf(stdout, "note: %d example write(s) not run: --existing only reads\n", len(ex.Steps))
	}
	for _, err := range rep.LoadErrors {
		fmt.Fprintf(stdout, "FAIL %v\n", err)
	}
	failed := len(rep.LoadErrors)
	show := func(line string, ok bool, at patterns.Pos) {
		if !ok {
			failed++
			line = at.In(file) + ": " + line
		}
		fmt.Fprintln(stdout, line)
	}
	for _, r := range rep.Steps {
		show(r.String(), r.OK(), r.Pos)
	}
	for _, r := range rep.Results {
		show(r.String(), r.OK(), r.Pos)
	}
	steps := ""
	if len(rep.Steps) > 0 {
		steps = fmt.Sprintf("%d write(s), ", len(rep.Steps))
	}
	fmt.Fprintf(stdout, "%s: %d item(s) loaded, %s%d expectation(s), %d failed (%s)\n", file, rep.Loaded, steps, len(rep.Results), failed, strings.TrimPrefix(*endpoint, "http://"))
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

// dropTable deletes a table validate created, waiting while it is still
// being created; a table already gone is fine.
func dropTable(c *dynamodb.Client, name string, timeout time.Duration) error {
	deadline := time.Now().Add(dropCleanupTime)
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		_, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		cancel()
		var nf *types.ResourceNotFoundException
		var inUse *types.ResourceInUseException
		switch {
		case err == nil || errors.As(err, &nf):
			return nil
		case !errors.As(err, &inUse) || time.Now().After(deadline):
			return err
		}
		time.Sleep(wait)
	}
}
