package main

import (
	"fmt"

	"github.com/keyplan/keyplan/internal/cli"
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

// eachDesign plans each file and hands the design to write; the exit code
// is the worst over the files: 2 for unusable input, 1 for findings
// (errors; warnings too when strict).
func eachDesign(c *cli.Call, strict bool, write func(file string, d *patterns.Design) error) int {
	worst := cli.Clean
	for _, file := range c.Files {
		code := cli.Usage
		if d, _ := open(c, file); d != nil {
			if code = cli.Clean; d.Fails(strict) {
				code = cli.Findings
			}
			if err := write(file, d); err != nil {
				code = c.Fail(cli.Usage, "%v", err)
			}
		}
		worst = max(worst, code)
	}
	return worst
}

// errors prints a design's errors, then "the design has N error(s); "
// and what the command does about them; it returns N.
func designErrors(c *cli.Call, d *patterns.Design, then string, args ...any) int {
	errs := d.Errors()
	for _, x := range errs {
		fmt.Fprintln(c.Stderr, x)
	}
	if len(errs) > 0 {
		c.Note("the design has %d error(s); %s", len(errs), fmt.Sprintf(then, args...))
	}
	return len(errs)
}
