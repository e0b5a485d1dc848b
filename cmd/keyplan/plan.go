package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/lockcmd"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/gen"
	"github.com/keyplan/keyplan/patterns/report"
	"github.com/keyplan/keyplan/patterns/view"
)

func plan(fs *flag.FlagSet) func(*cli.Call) int {
	format := report.FormatFlag(fs, append(report.PlanFormats(), report.HTML))
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	table := fs.String("table", "", "the table of a model of several (tables:) to plan (default: each; --format html draws one)")
	var replicas patterns.Replicas
	fs.Var(&replicas, "replica", "a replica region of a global table, repeatable: `REGION[:table=RCU,GSI=RCU...]` "+
		"(the read capacity it provisions, by default the primary's); the estimate then covers every region")
	return func(c *cli.Call) int {
		return eachDesign(c, *strict, *table, *format == report.HTML, func(file string, d *patterns.Design) error {
			if err := replicas.Apply(d); err != nil {
				return fmt.Errorf("%s: --replica %v", file, err)
			}
			if *format == report.HTML { // drawn with the examples, as the runtime writes and reads them
				return view.WritePage(context.Background(), c.Stdout, d)
			}
			return report.Write(c.Stdout, d, *format)
		})
	}
}

func check(fs *flag.FlagSet) func(*cli.Call) int {
	format := report.FormatFlag(fs, report.FindingFormats())
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	return func(c *cli.Call) int {
		return eachDesign(c, *strict, "", false, func(name string, d *patterns.Design) error {
			if *format == report.Text || *format == "" { // the summary line names the table of several
				return report.WriteFindings(c.Stdout, name, d.Diagnostics, *format)
			}
			return report.WriteFindings(c.Stdout, d.Source, d.Diagnostics, *format)
		})
	}
}

func schema(*flag.FlagSet) func(*cli.Call) int {
	return func(c *cli.Call) int {
		_, _ = c.Stdout.Write(patterns.Schema())
		return cli.Clean
	}
}

// generate is keyplan gen go: typed code from the design.
func generate(fs *flag.FlagSet) func(*cli.Call) int {
	pkg := fs.String("package", "", "the generated package's `NAME`, e.g. shopdb")
	out := fs.String("out", "", "the `DIR` to write "+gen.File+" into (created if missing)")
	table := fs.String("table", "", "the table of a model of several (tables:) to write the package of (default: one package for all its tables)")
	return func(c *cli.Call) int {
		if *out == "" {
			return c.Fail(cli.Usage, "--out DIR: expected a directory")
		}
		if why := gen.PackageProblem(*pkg); why != "" {
			return c.Fail(cli.Usage, "--package %s: %s", cmp.Or(*pkg, "NAME"), why)
		}
		file := c.File()
		ts := lockcmd.Open(c, file, patterns.Options{}) // the code runs the lock's rollout (gen.Options.Lock)
		if ts == nil {
			return cli.Usage
		}
		return lockcmd.Gen(c, file, ts, *table, *pkg, *out)
	}
}
