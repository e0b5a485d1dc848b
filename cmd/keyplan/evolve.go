package main

import (
	"flag"
	"fmt"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/livetable"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

func diff(fs *flag.FlagSet) func(*cli.Call) int {
	format := report.FormatFlag(fs, report.DiffFormats())
	live, endpoint, table := fs.Bool("live", false, "compare the lock with the deployed table (--table) instead: exit 1 on drift"), livetable.EndpointFlag(fs), fs.String("table", "", "the deployed table's `NAME` (--live)")
	return func(c *cli.Call) int {
		file := c.File()
		d, lock := open(c, file)
		if d == nil {
			return cli.Usage
		} else if *live {
			return livetable.RunDiff(c, *endpoint, *table, lock, d, *format == report.JSON)
		}
		df := patterns.CompareLock(lock, d, patterns.LockPath(file))
		if err := report.WriteDiff(c.Stdout, file, df, *format); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		return cli.FindingsIf(!df.Safe || df.InProgress()) // a change to make, or one in progress
	}
}

func lock(fs *flag.FlagSet) func(*cli.Call) int {
	envs := fs.String("environments", "", "the environments one lock deploys to, in order (staging,prod): each phase of a migration advances once all have verified it")
	return func(c *cli.Call) int {
		file := c.File()
		if err := patterns.RederiveFile(patterns.LockPath(file), c.Stdout); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		d, lk := open(c, file)
		if d == nil {
			return cli.Usage
		}
		path := patterns.LockPath(file)
		first := lk == nil
		if first && designErrors(c, d, "%s not written", path) > 0 {
			return cli.Findings
		} else if first {
			lk = patterns.NewLock(d)
		}
		if err := lk.SetEnvironments(patterns.ListFlag(*envs, lk.Environments)); err != nil {
			return c.Fail(cli.Usage, "--environments: %v", err)
		}
		if first {
			return writeLock(c, lk, path, "written (the design as first deployed)")
		}
		df := patterns.Compare(lk, d)
		if err := lk.Apply(d, df); err != nil {
			_ = report.WriteDiff(c.Stderr, file, df, report.Text)
			if n := len(df.Errors()); n > 0 { // listed above
				return c.Fail(cli.Findings, "%s untouched: refused, %d error(s)", path, n)
			}
			return c.Fail(cli.Findings, "%s untouched: %v", path, err)
		}
		if lk.Migration == nil {
			return writeLock(c, lk, path, lk.UpToDate(file))
		}
		code := writeLock(c, lk, path, fmt.Sprintf("migration at phase %d of %d", lk.Migration.Current+1, len(lk.Migration.Phases)))
		if code == cli.Clean {
			_ = report.WriteDiff(c.Stdout, file, df, report.Text)
		}
		return code
	}
}

// writeLock writes the lock file and says what it now records.
func writeLock(c *cli.Call, lk *patterns.Lock, path, says string) int {
	if err := lk.WriteFile(path); err != nil {
		return c.Fail(cli.Usage, "%v", err)
	}
	fmt.Fprintf(c.Stdout, "%s: %s\n", path, says)
	return cli.Clean
}
