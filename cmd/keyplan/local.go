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
	fs.IntVar(&o.Port, "port", localengine.DefaultLocalPort, "serve on 127.0.0.1:`PORT` (0: a free one)")
	fs.StringVar(&o.DataDir, "data", "", "keep the tables in `DIR` across restarts, every write committed before it is answered; one server per DIR (default: in memory only)")
	fs.StringVar(&o.CredentialsFile, "credentials-file", "", "accept the key in `FILE`, an AWS credentials file only you can read ([default] aws_access_key_id, aws_secret_access_key; default: $"+localengine.EnvLocalAccessKeyID+" and $"+localengine.EnvLocalSecretAccessKey+", else a key made for the run)")
	fs.StringVar(&o.AccessKeyID, "access-key", "", "accept `KEY` as the key id, with a secret made for the run (warned: argv is no secret; prefer --credentials-file)")
	return func(c *cli.Call) int {
		sig, stop := cli.Interruptible()
		defer stop()
		if err := localengine.RunLocal(sig, o, c.Stdout); err != nil {
			return c.Fail(cli.Usage, "%v", err)
		}
		return cli.Clean
	}
}
