package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/keyplan/keyplan/internal/cli"
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
		if designErrors(c, d, "the model exported fails its checks (keyplan check %s)", file) > 0 {
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
		file := c.File()
		im, err := workbench.ReadFile(file, workbench.ImportOptions{Table: *table})
		if err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		if _, err := c.Stdout.Write(im.YAML); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		c.Note("%s: %d guess(es) and %d note(s), in the comments at the top of the model: read them, then keyplan check it", file, im.Guesses(), len(im.Notes)-im.Guesses())
		if err := im.Loads(); err != nil { // the model made must load
			fmt.Fprintln(c.Stderr, err)
			return cli.Findings
		}
		return cli.Clean
	}
}
