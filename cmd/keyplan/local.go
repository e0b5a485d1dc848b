package main

import (
	"flag"

	"github.com/keyplan/keyplan/internal/cli"
	localengine "github.com/keyplan/keyplan/internal/engine"
)

// local is keyplan local: the in-process engine served to other processes
// until SIGINT or SIGTERM (engine.RunLocal), requests checked by
// signature, the tables in --data committed before each answer.
func local(fs *flag.FlagSet) func(*cli.Call) int {
	var o localengine.LocalOptions
	o.Flags(fs)
	return func(c *cli.Call) int {
		sig, stop := cli.Interruptible()
		defer stop()
		if err := localengine.RunLocal(sig, o, c.Stdout); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		return cli.Clean
	}
}
