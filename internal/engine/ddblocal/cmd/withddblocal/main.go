package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/keyplan/keyplan/internal/engine/ddblocal"
)

func main() {
	env := flag.String("env", "", "the environment variable that gets the engine's endpoint (required)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: withddblocal -env NAME COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *env == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(run(*env, flag.Args()))
}

func run(env string, args []string) int {
	srv, err := ddblocal.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "withddblocal: DynamoDB Local did not start: %v\n", err)
		if errors.Is(err, ddblocal.ErrNoJava) {
			fmt.Fprintln(os.Stderr, "  "+ddblocal.JavaHint)
		}
		return 2
	}
	defer srv.Stop()
	// A signal reaches the command (same process group) and ends it; this
	// process waits for that, then stops the engine.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	fmt.Fprintf(os.Stderr, "withddblocal: %s=%s\n", env, srv.Endpoint)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env+"="+srv.Endpoint)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if exit.ExitCode() < 0 { // killed by a signal
			fmt.Fprintf(os.Stderr, "withddblocal: %s: %v\n", args[0], err)
			return 1
		}
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintf(os.Stderr, "withddblocal: %v\n", err)
		return 2
	}
	return 0
}
