package enginepass

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/keyplan/keyplan/internal/engine"
)

// Main is a TestMain for a package whose tests share one engine:
// $KEYPLAN_ENGINE's (in process by default), or the one
// $KEYPLAN_DYNAMODB_ENDPOINT names. It connects, hands the connection to
// connected, runs the tests, prints the engine's log when one failed,
// stops the engine and exits with the tests' code. An engine that cannot
// be had exits 2, saying how to get one.
func Main(m *testing.M, connected func(*engine.Conn)) {
	conn, err := engine.Connect(context.Background(), engine.Options{Endpoint: os.Getenv(engine.EnvEndpoint)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "engine: %v\n%s\n", err, engine.Hint(err))
		os.Exit(2)
	}
	connected(conn)
	code := m.Run()
	if log := conn.Log(); code != 0 && log != "" {
		fmt.Fprintf(os.Stderr, "%s log:\n%s\n", conn.Name, log)
	}
	conn.Stop()
	os.Exit(code)
}
