package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/keyplan/keyplan/internal/minidyn"
)

func main() {
	var o minidyn.Options

	flag.StringVar(&o.Addr, "addr", "127.0.0.1:8000", "the loopback host:port to serve on")
	flag.StringVar(&o.AccessKeyID, "access-key", "", "accept only requests signed with this access key id")
	flag.StringVar(&o.DataDir, "data-dir", "", "keep the tables in this directory across restarts")
	flag.Parse()

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
