package main

import (
	"context"
	"flag"
	"time"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/livetable"
	"github.com/keyplan/keyplan/internal/lockcmd"
	"github.com/keyplan/keyplan/patterns/view"
	"github.com/keyplan/keyplan/patterns/workbench"
)

// NoSQL Workbench data models, out and in (docs/workbench.md); the HTML
// page is plan's and diff's --format html.

// export is keyplan export workbench MODEL: the design and its examples,
// as the runtime writes them, as a Workbench model (JSON on stdout).
func export(*flag.FlagSet) func(*cli.Call) int {
	return func(c *cli.Call) int {
		file := c.File()
		d, _ := open(c, file)
		if d == nil {
			return cli.Usage
		}
		s, err := view.Sample(context.Background(), d, view.Options{})
		if err != nil {
			return c.Fail(cli.Usage, "%s: %v", file, err)
		}
		for _, it := range s.Items {
			if it.Err != "" {
				c.Note("%s: example %s is left out: %s", file, it.Name, it.Err)
			}
		}
		if err := workbench.Export(c.Stdout, d, s, workbench.ExportOptions{Now: time.Now()}); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		if lockcmd.DesignErrors(c, d, "the model exported fails its checks (keyplan check %s)", file) > 0 {
			return cli.Findings
		}
		return cli.Clean
	}
}

// importModel is keyplan import workbench FILE: a Workbench model as a
// keyplan model (YAML on stdout), every guess a comment on top.
func importModel(fs *flag.FlagSet) func(*cli.Call) int {
	table := fs.String("table", "", "the table to import, from a model of several")
	return func(c *cli.Call) int {
		im, err := workbench.ReadFile(c.File(), workbench.ImportOptions{Table: *table})
		if err == nil {
			_, err = c.Stdout.Write(im.YAML)
		}
		return livetable.Said(c, c.File(), im, err)
	}
}

// importTable is keyplan import table NAME: the live table's model and
// its lock as deployed (livetable.Import); it only reads the table.
func importTable(fs *flag.FlagSet) func(*cli.Call) int {
	endpoint, options := livetable.EndpointFlag(fs), livetable.ImportFlags(fs)
	return func(c *cli.Call) int { return livetable.RunImport(c, *endpoint, options(c.File())) }
}
