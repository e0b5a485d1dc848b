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

// eachDesign plans each file, every table of it, and hands each design
// to write; the exit code is the worst over the files: 2 for unusable
// input, 1 for findings (errors; warnings too when strict).
func eachDesign(c *cli.Call, strict bool, write func(file string, d *patterns.Design) error) int {
	worst := cli.Clean
	for _, file := range c.Files {
		ts := lockcmd.Open(c, file, patterns.Options{})
		if ts == nil {
			worst = cli.Usage
		}
		for _, t := range ts {
			code := cli.Clean
			if t.Design.Fails(strict) {
				code = cli.Findings
			}
			if err := write(file, t.Design); err != nil {
				code = c.Fail(cli.Usage, "%v", err)
			}
			worst = max(worst, code)
		}
	}
	return worst
}
