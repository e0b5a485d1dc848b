// Command minidyn serves the in-process engine on a loopback address until
// it is interrupted: what scripts/conformance runs the Alternator suite
// against.
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
	addr := flag.String("addr", "127.0.0.1:8000", "the host:port to serve on")
	flag.Parse()
	s, err := minidyn.StartAt(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "minidyn:", err)
		os.Exit(1)
	}
	fmt.Println(s.Endpoint)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	s.Stop()
}
