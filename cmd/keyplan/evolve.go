package main

import (
	"flag"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/livetable"
	"github.com/keyplan/keyplan/internal/lockcmd"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

func diff(fs *flag.FlagSet) func(*cli.Call) int {
	format := report.FormatFlag(fs, report.DiffFormats())
	live, endpoint, table := fs.Bool("live", false, "compare the lock with the deployed table (--table) instead: exit 1 on drift"), livetable.EndpointFlag(fs), fs.String("table", "", "the deployed table's `NAME` (--live)")
	return func(c *cli.Call) int {
		file := c.File()
		ts := lockcmd.Open(c, file, patterns.Options{})
		if ts == nil {
			return cli.Usage
		} else if *live { // a model of several tables: --table names the table's lock too
			t, err := patterns.TableOf(ts, *table)
			if err != nil {
				return c.Fail(cli.Usage, "--table %v (deploy each table under its name in the model)", err)
			}
			return livetable.RunDiff(c, *endpoint, *table, t.Lock, t.Design, *format == report.JSON)
		}
		return lockcmd.Diff(c, file, ts, *format)
	}
}

func lock(fs *flag.FlagSet) func(*cli.Call) int {
	envs := fs.String("environments", "", "the environments one lock deploys to, in order (staging,prod): each phase of a migration advances once all have verified it")
	return func(c *cli.Call) int {
		file := c.File()
		ts := lockcmd.Open(c, file, patterns.Options{})
		if ts == nil {
			return cli.Usage
		}
		return lockcmd.Lock(c, file, ts, *envs)
	}
}
