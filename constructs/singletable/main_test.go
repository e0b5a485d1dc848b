package singletable

import (
	"os"
	"testing"
)

// TestMain ends the jsii runtime the tests started (Close), so no node
// process or temporary directory outlives them.
func TestMain(m *testing.M) {
	code := m.Run()
	Close()
	os.Exit(code)
}
