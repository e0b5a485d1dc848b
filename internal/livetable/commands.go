package livetable

import (
	"cmp"
	"flag"
	"fmt"
	"os"

	"github.com/keyplan/keyplan/internal/cli"
	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/adopt"
	"github.com/keyplan/keyplan/patterns/dynamo/migrate"
	"github.com/keyplan/keyplan/patterns/model"
)

// EndpointFlag declares --endpoint: a DynamoDB endpoint URL, by default
// $KEYPLAN_DYNAMODB_ENDPOINT, else AWS with the SDK's default
// credentials and region.
func EndpointFlag(fs *flag.FlagSet) *string {
	return fs.String("endpoint", os.Getenv(localengine.EnvEndpoint), "DynamoDB endpoint URL (default: $"+localengine.EnvEndpoint+", else AWS with the default credentials and region)")
}

// ImportFlags declares keyplan import table's flags.
func ImportFlags(fs *flag.FlagSet) func(table string) ImportOptions {
	var o ImportOptions
	fs.StringVar(&o.Out, "out", "", "the model `FILE` to write (its lock beside it); neither may exist")
	items := cli.Int(fs, "items", migrate.DefaultSampleItems, 1, migrate.MaxSampleItems, "the most items the sample reads")
	fs.Float64Var(&o.Sample.MaxRCU, "max-rcu", migrate.DefaultSampleRCU, "read capacity units per second the sample may use")
	return func(table string) ImportOptions {
		o.Table, o.Sample.Items = table, *items
		return o
	}
}

// RunImport is keyplan import table NAME: Import on the endpoint's
// table, then what it inferred (Said).
func RunImport(c *cli.Call, endpoint string, o ImportOptions) int {
	if o.Sample.MaxRCU <= 0 {
		return c.Fail(cli.Usage, "--max-rcu %v: expected a positive number of read units a second", o.Sample.MaxRCU)
	}
	ctx, stop := cli.Interruptible()
	defer stop()
	client, err := localengine.Remote(ctx, endpoint, migrate.PatientRetries)
	var im *Imported
	if err == nil {
		im, err = Import(ctx, client, o)
	}
	if err != nil {
		return c.Fail(cli.Usage, "%v", err)
	}
	fmt.Fprintf(c.Stdout, "wrote %s from table %s (%d items read, %.1f read units); %s\n", o.Out, im.Live.Name, len(im.Sample.Items), im.Sample.ReadUnits,
		cmp.Or(im.Lock, "no lock: the model does not plan; fix it, then keyplan lock"))
	return Said(c, "table "+o.Table, im.Imported, im.LockErr)
}

// Said says what an import inferred (each note on stderr, as in the
// model's comments) and whether the model made loads: exit 1 when not
// (or err, what else is wrong with it), 2 when nothing was made.
func Said(c *cli.Call, from string, im *adopt.Imported, err error) int {
	if im == nil {
		return c.Fail(cli.Usage, "%v", err)
	}
	for _, n := range im.Notes {
		fmt.Fprintf(c.Stderr, "  %s\n", model.Printable(n.String()))
	}
	c.Note("%s: %d guess(es) and %d note(s), in the comments at the top of the model: read them, then keyplan check it", from, im.Guesses(), len(im.Notes)-im.Guesses())
	if err == nil {
		err = im.Loads() // the model made must load
	}
	if err != nil {
		fmt.Fprintln(c.Stderr, err)
		return cli.Findings
	}
	return cli.Clean
}

// RunDiff is keyplan diff --live: Diff on the endpoint's table (exit 1
// on drift).
func RunDiff(c *cli.Call, endpoint, table string, lk *patterns.Lock, d *patterns.Design, asJSON bool) int {
	if table == "" {
		return c.Fail(cli.Usage, "--live needs --table NAME (the table the lock is deployed to)")
	}
	ctx, stop := cli.Interruptible()
	defer stop()
	client, err := localengine.Remote(ctx, endpoint, migrate.PatientRetries)
	drift := false
	if err == nil {
		drift, err = Diff(ctx, client, table, lk, d, c.Stdout, asJSON)
	}
	if err != nil {
		return c.Fail(cli.Usage, "%v", err)
	}
	return cli.FindingsIf(drift)
}
