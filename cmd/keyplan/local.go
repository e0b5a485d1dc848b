package main

import (
	"flag"

	"github.com/keyplan/keyplan/internal/cli"
	localengine "github.com/keyplan/keyplan/internal/engine"
)

// local is keyplan local: the in-process engine served to other processes
// until SIGINT or SIGTERM, which stop it, writing the tables to --data
// (engine.RunLocal).
func local(fs *flag.FlagSet) func(*cli.Call) int {
	var o localengine.LocalOptions
	fs.IntVar(&o.Port, "port", localengine.DefaultLocalPort, "serve on 127.0.0.1:`PORT` (0: a free one)")
	fs.StringVar(&o.DataDir, "data", "", "keep the tables in `DIR` across restarts (default: in memory only)")
	fs.StringVar(&o.AccessKeyID, "access-key", "", "accept only `KEY` as the access key id (default: a random one, printed)")
	return func(c *cli.Call) int {
		sig, stop := cli.Interruptible()
		defer stop()
		if err := localengine.RunLocal(sig, o, c.Stdout); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		return cli.Clean
	}
}
