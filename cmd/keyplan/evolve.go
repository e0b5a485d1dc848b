package main

import (
	"flag"
	"fmt"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

func diff(fs *flag.FlagSet) func(*call) int {
	format := formatFlag(fs, report.DiffFormats())
	return func(c *call) int {
		file := c.file()
		d, lock := c.open(file)
		if d == nil {
			return exitUsage
		}
		if lock == nil {
			c.note("%s has no lock (%s): nothing is deployed, so every change is safe; keyplan lock writes it", file, patterns.LockPath(file))
			lock = patterns.NewLock(d)
		}
		df := patterns.Compare(lock, d)
		if err := report.WriteDiff(c.stdout, file, df, *format); err != nil {
			return c.fail(exitUsage, "%v", err)
		}
		if !df.Safe {
			return exitFindings
		}
		return exitClean
	}
}

func lock(*flag.FlagSet) func(*call) int {
	return func(c *call) int {
		file := c.file()
		d, lk := c.open(file)
		if d == nil {
			return exitUsage
		}
		path := patterns.LockPath(file)
		if lk == nil {
			if c.errors(d, "%s not written", path) > 0 {
				return exitFindings
			}
			return c.writeLock(patterns.NewLock(d), path, "written (the design as first deployed)")
		}
		df := patterns.Compare(lk, d)
		if err := lk.Apply(d, df); err != nil {
			_ = report.WriteDiff(c.stderr, file, df, report.Text)
			if n := len(df.Errors()); n > 0 { // listed above
				return c.fail(exitFindings, "%s untouched: refused, %d error(s)", path, n)
			}
			return c.fail(exitFindings, "%s untouched: %v", path, err)
		}
		if lk.Migration == nil {
			return c.writeLock(lk, path, "up to date")
		}
		code := c.writeLock(lk, path, fmt.Sprintf("migration at phase %d of %d", lk.Migration.Current+1, len(lk.Migration.Phases)))
		if code == exitClean {
			_ = report.WriteDiff(c.stdout, file, df, report.Text)
		}
		return code
	}
}

// writeLock writes the lock file and says what it now records.
func (c *call) writeLock(lk *patterns.Lock, path, says string) int {
	if err := lk.WriteFile(path); err != nil {
		return c.fail(exitUsage, "%v", err)
	}
	fmt.Fprintf(c.stdout, "%s: %s\n", path, says)
	return exitClean
}
