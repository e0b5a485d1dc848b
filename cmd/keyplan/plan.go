package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/gen"
	"github.com/keyplan/keyplan/patterns/report"
	"github.com/keyplan/keyplan/patterns/view"
)

func plan(fs *flag.FlagSet) func(*call) int {
	format := formatFlag(fs, append(report.PlanFormats(), report.HTML))
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	var replicas []string
	fs.Func("replica", "a replica region of a global table, repeatable: `REGION[:table=RCU,GSI=RCU...]` "+
		"(the read capacity it provisions, by default the primary's); the estimate then covers every region", func(spec string) error {
		if _, err := patterns.ParseReplicas(append(replicas, spec), nil); err != nil {
			return err
		}
		replicas = append(replicas, spec)
		return nil
	})
	return func(c *call) int {
		return c.eachDesign(*strict, func(file string, d *patterns.Design) error {
			if len(replicas) > 0 && d.Cost != nil {
				reads, err := patterns.ParseReplicas(replicas, d.Cost)
				if err != nil {
					return fmt.Errorf("%s: --replica %v", file, err)
				}
				d.Cost.AllRegions = d.Cost.Global(reads)
			}
			if *format == report.HTML { // drawn with the examples, as the runtime writes and reads them
				ctx, cancel := context.WithTimeout(context.Background(), sampleTimeout)
				defer cancel()
				return view.WritePage(ctx, c.stdout, d)
			}
			return report.Write(c.stdout, d, *format)
		})
	}
}

// sampleTimeout bounds writing a design's examples into the in-process
// engine and reading them back, for the HTML page and the export.
const sampleTimeout = time.Minute

func check(fs *flag.FlagSet) func(*call) int {
	format := formatFlag(fs, report.FindingFormats())
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	return func(c *call) int {
		return c.eachDesign(*strict, func(_ string, d *patterns.Design) error {
			return report.WriteFindings(c.stdout, d.Source, d.Diagnostics, *format)
		})
	}
}

func schema(*flag.FlagSet) func(*call) int {
	return func(c *call) int {
		_, _ = c.stdout.Write(patterns.Schema())
		return exitClean
	}
}

// generate is keyplan gen go: typed code from the design.
func generate(fs *flag.FlagSet) func(*call) int {
	pkg := fs.String("package", "", "the generated package's name (required), e.g. shopdb")
	out := fs.String("out", "", "the directory to write "+gen.File+" into (required; created if missing)")
	return func(c *call) int {
		if *pkg == "" || *out == "" {
			return c.fail(exitUsage, "--package and --out are required")
		}
		if err := gen.CheckPackage(*pkg); err != nil {
			return c.fail(exitUsage, "--package %v", err)
		}
		file := c.file()
		d, _ := c.open(file)
		if d == nil {
			return exitUsage
		}
		if c.errors(d, "no code is generated from a design that fails its checks (keyplan check %s)", file) > 0 {
			return exitFindings
		}
		path, size, err := gen.WriteDir(*out, d, gen.Options{Package: *pkg, Source: filepath.ToSlash(file)})
		if err != nil {
			return c.fail(exitUsage, "%s: %v", file, err)
		}
		fmt.Fprintf(c.stdout, "wrote %s (package %s, %d bytes)\n", path, *pkg, size)
		return exitClean
	}
}
