package main

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"

	localengine "github.com/keyplan/keyplan/internal/engine"
)

// local serves the in-process engine to other processes until SIGINT or
// SIGTERM (engine.RunLocal), then stops it, writing the tables to --data.
func local(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("local", flag.ContinueOnError)
	var o localengine.LocalOptions
	fs.IntVar(&o.Port, "port", localengine.DefaultLocalPort, "the port on 127.0.0.1 (0: a free one)")
	fs.StringVar(&o.DataDir, "data", "", "keep the tables in this directory across restarts (default: in memory only)")
	fs.StringVar(&o.AccessKeyID, "access-key", "", "the one access key id to accept (default: a random one, printed)")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err == flag.ErrHelp {
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitClean
	} else if err != nil || fs.NArg() > 0 {
		return fail(stderr, exitUsage, "keyplan local: takes flags only (keyplan local --help)")
	}
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := localengine.RunLocal(sig, o, stdout); err != nil {
		return fail(stderr, exitUsage, "keyplan local: %v", err)
	}
	return exitClean
}
