package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/view"
	"github.com/keyplan/keyplan/patterns/workbench"
)

// NoSQL Workbench data models, out and in (docs/workbench.md); the HTML
// page is plan's and diff's --format html.

// export is keyplan export workbench MODEL: the design and its examples,
// as the runtime writes them, as a Workbench model (JSON on stdout).
func export(*flag.FlagSet) func(*call) int {
	return func(c *call) int {
		file := c.file()
		d, _ := c.open(file)
		if d == nil {
			return exitUsage
		}
		ctx, cancel := context.WithTimeout(context.Background(), sampleTimeout)
		defer cancel()
		s, err := view.Sample(ctx, d, view.Options{})
		if err != nil {
			return c.fail(exitUsage, "%s: %v", file, err)
		}
		for _, it := range s.Items {
			if it.Err != "" {
				c.note("%s: example %s is left out: %s", file, it.Name, it.Err)
			}
		}
		if err := workbench.Export(c.stdout, d, s, workbench.ExportOptions{Now: time.Now()}); err != nil {
			return c.fail(exitUsage, "%v", err)
		}
		if c.errors(d, "the model exported fails its checks (keyplan check %s)", file) > 0 {
			return exitFindings
		}
		return exitClean
	}
}

// importModel is keyplan import workbench FILE: a Workbench model as a
// keyplan model (YAML on stdout), every guess a comment on top.
func importModel(fs *flag.FlagSet) func(*call) int {
	table := fs.String("table", "", "the table to import, from a model of several")
	return func(c *call) int {
		file := c.file()
		im, err := workbench.ReadFile(file, workbench.ImportOptions{Table: *table})
		if err != nil {
			return c.fail(exitUsage, "%v", err)
		}
		if _, err := c.stdout.Write(im.YAML); err != nil {
			return c.fail(exitUsage, "%v", err)
		}
		c.note("%s: %d guess(es) and %d note(s), in the comments at the top of the model: read them, then keyplan check it", file, im.Guesses(), len(im.Notes)-im.Guesses())
		// The model made must load; when it does not (names the file gives
		// that clash in keyplan), say why: the user fixes the model printed.
		if _, err := patterns.Parse("imported.yaml", im.YAML); err != nil {
			fmt.Fprintln(c.stderr, err)
			return exitFindings
		}
		return exitClean
	}
}
