package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/keyplan/keyplan/internal/engine/minidyn"
)

func main() {
	var o minidyn.Options

	flag.StringVar(&o.Addr, "addr", "127.0.0.1:8000", "the loopback host:port to serve on")
	creds := flag.String("credentials-file", "", "accept only requests signed with the key in this file (an AWS shared credentials file: its [default] aws_access_key_id and aws_secret_access_key; readable by its owner alone)")
	flag.StringVar(&o.DataDir, "data-dir", "", "keep the tables in this directory across restarts")
	flag.Parse()

	if *creds != "" {
		id, secret, err := minidyn.ReadCredentials(*creds)
		if err != nil {
			fmt.Fprintln(os.Stderr, "minidyn:", err)
			os.Exit(2)
		}

		o.AccessKeyID, o.SecretAccessKey = id, secret
	}

	s, err := minidyn.Serve(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "minidyn:", err)
		os.Exit(1)
	}

	fmt.Println(s.Endpoint)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop

	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "minidyn:", err)
		os.Exit(1)
	}
}
