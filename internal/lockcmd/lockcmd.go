package lockcmd

import (
	"fmt"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

// Open plans every table of a model file with its lock
// (patterns.OpenTables), printing every problem of an unusable model or
// lock (nil: exit 2).
func Open(c *cli.Call, file string, o patterns.Options) []*patterns.Opened {
	ts, err := patterns.OpenTables(file, o)
	if err != nil { // a line per problem: the errors are joined
		fmt.Fprintln(c.Stderr, err)
	}
	return ts
}

// Table is the table of ts that --table names (patterns.TableOf), for
// a command that reads the model's table names (check, plan, gen): a
// name that is not the one table of a model of one table is taken as
// before, the model's table, with a note saying so, since a name there
// is not a choice (the physical name is migrate's --table, not this).
func Table(c *cli.Call, file string, ts []*patterns.Opened, name string) (*patterns.Opened, error) {
	t, err := patterns.TableOf(ts, name)
	if err == nil && name != "" && t.Table != name {
		c.Note("%s: --table %q: the model's one table is %s; planned that (--table picks one of a model's tables:)", file, name, t.Table)
	}
	return t, err
}

// Several says whether ts are the tables of a model that declares
// tables: then each table's output is headed by its name and lock.
func Several(file string, ts []*patterns.Opened) bool {
	return len(ts) != 1 || ts[0].LockPath != patterns.LockPath(file)
}

// Diff is keyplan diff: each table's design compared with its lock,
// printed in format; exit 1 when a table has a change to make or one in
// progress.
func Diff(c *cli.Call, file string, ts []*patterns.Opened, format report.Format) int {
	worst := cli.Clean
	for _, t := range ts {
		df := patterns.CompareLock(t.Lock, t.Design, t.LockPath)
		if Several(file, ts) && format == report.Text {
			fmt.Fprintf(c.Stdout, "table %s (%s):\n", t.Table, t.LockPath)
		}
		if err := report.WriteDiff(c.Stdout, file, df, format); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		worst = max(worst, cli.FindingsIf(!df.Safe || df.InProgress()))
	}
	return worst
}

// Lock is keyplan lock: each table's lock written (first: the design as
// deployed; after: the change accepted, or its migration started), or
// refused untouched. environments is --environments' value.
func Lock(c *cli.Call, file string, ts []*patterns.Opened, environments string) int {
	worst := cli.Clean
	for _, t := range ts {
		worst = max(worst, lock(c, file, t, environments))
	}
	return worst
}

func lock(c *cli.Call, file string, t *patterns.Opened, environments string) int {
	d, lk, path := t.Design, t.Lock, t.LockPath
	first := lk == nil
	if first && DesignErrors(c, d, "%s not written", path) > 0 {
		return cli.Findings
	} else if first {
		lk = patterns.NewLock(d)
	}
	if err := lk.SetEnvironments(patterns.ListFlag(environments, lk.Environments)); err != nil {
		return c.Fail(cli.Usage, "--environments: %v", err)
	}
	if first {
		return write(c, lk, path, "written (the design as first deployed)")
	}
	df := patterns.Compare(lk, d)
	if err := lk.Apply(d, df); err != nil {
		_ = report.WriteDiff(c.Stderr, file, df, report.Text)
		if n := len(df.Errors()); n > 0 { // listed above
			return c.Fail(cli.Findings, "%s untouched: refused, %d error(s)", path, n)
		}
		return c.Fail(cli.Findings, "%s untouched: %v", path, err)
	}
	code := write(c, lk, path, lk.Says(file, df))
	if code == cli.Clean && lk.Migration != nil {
		_ = report.WriteDiff(c.Stdout, file, df, report.Text)
	}
	return code
}

// write writes the lock file, when it records something new, and says
// what it records.
func write(c *cli.Call, lk *patterns.Lock, path, says string) int {
	if lk.Modified() {
		if err := lk.WriteFile(path); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
	}
	fmt.Fprintf(c.Stdout, "%s: %s\n", path, says)
	return cli.Clean
}

// DesignErrors prints a design's errors, then "the design has N
// error(s); " and what the command does about them; it returns N.
func DesignErrors(c *cli.Call, d *patterns.Design, then string, args ...any) int {
	errs := d.Errors()
	for _, x := range errs {
		fmt.Fprintln(c.Stderr, x)
	}
	if len(errs) > 0 {
		c.Note("the design has %d error(s); %s", len(errs), fmt.Sprintf(then, args...))
	}
	return len(errs)
}
