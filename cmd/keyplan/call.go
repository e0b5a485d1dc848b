package main

import (
	"fmt"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/lockcmd"
	"github.com/keyplan/keyplan/patterns"
)

// open plans a model file with the lock beside it (patterns.OpenWith),
// printing every problem of an unusable model or lock (the design is nil:
// exit 2).
func open(c *cli.Call, file string, o ...patterns.Options) (*patterns.Design, *patterns.Lock) {
	d, lock, err := patterns.OpenWith(file, append(o, patterns.Options{})[0])
	if err != nil { // a line per problem: the errors are joined
		fmt.Fprintln(c.Stderr, err)
	}
	return d, lock
}

// eachDesign plans each file, every table of it (or the one table names,
// in a model of several), and hands each design to write, with its file's
// name ("FILE (table NAME)" for one of several tables); the exit code
// is the worst over the files: 2 for unusable input, 1 for findings
// (errors; warnings too when strict). A write of one design alone (an
// HTML page) is refused when there would be several.
func eachDesign(c *cli.Call, strict bool, table string, alone bool, write func(file string, d *patterns.Design) error) int {
	worst := cli.Clean
	type design struct {
		file, name string
		t          *patterns.Opened
	}
	var ds []design
	for _, file := range c.Files {
		ts := lockcmd.Open(c, file, patterns.Options{})
		if ts == nil {
			worst = cli.Usage
		}
		if table != "" && ts != nil {
			t, err := lockcmd.Table(c, file, ts, table)
			if err != nil {
				worst = c.Fail(cli.Usage, "%s: --table %v", file, err)
				continue
			}
			ts = []*patterns.Opened{t}
		}
		for _, t := range ts {
			name := file
			if len(ts) > 1 { // which table of the file's several
				name = fmt.Sprintf("%s (table %s)", file, t.Table)
			}
			ds = append(ds, design{file, name, t})
		}
	}
	if alone && len(ds) > 1 {
		return c.Fail(cli.Usage, "%s: one page draws one table, and these are %d: give one model file, and --table NAME for a model of several tables (a page each)", ds[0].file, len(ds))
	}
	for _, d := range ds {
		code := cli.Clean
		if d.t.Design.Fails(strict) {
			code = cli.Findings
		}
		if err := write(d.name, d.t.Design); err != nil {
			code = c.Fail(cli.Usage, "%v", err)
		}
		worst = max(worst, code)
	}
	return worst
}
