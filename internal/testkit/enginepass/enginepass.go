package enginepass

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/keyplan/keyplan/internal/engine"
)

// Poison is $KEYPLAN_ENGINE while a test marked Independent runs on the
// in-process pass: no engine has this name (engine.CheckName refuses it).
const Poison = "none-the-test-is-marked-engine-independent"

var (
	mu     sync.Mutex
	marked = map[string]bool{} // top-level test names
)

// Independent marks t, a top-level test, as one whose result cannot
// depend on the engine the environment names. On a pass on another
// engine than the in-process one it skips t (the in-process pass ran
// it). On the in-process pass it runs t with $KEYPLAN_ENGINE set to
// Poison and $KEYPLAN_DYNAMODB_ENDPOINT empty (t.Setenv: a marked test
// cannot be parallel), and Uses fails it. Call it first in the test.
func Independent(t *testing.T) {
	t.Helper()
	if strings.Contains(t.Name(), "/") {
		t.Fatalf("enginepass.Independent marks a top-level test, not the subtest %s", t.Name())
	}
	if name := os.Getenv(engine.EnvEngine); name != "" && name != engine.Memory {
		t.Skipf("engine-independent: its result cannot depend on $%s (%s); make test runs it on the in-process pass", engine.EnvEngine, name)
	}
	t.Setenv(engine.EnvEngine, Poison)
	t.Setenv(engine.EnvEndpoint, "")
	mu.Lock()
	marked[t.Name()] = true
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		delete(marked, t.Name())
		mu.Unlock()
	})
}

// Uses says t uses the engine the environment names: the helpers that
// hand a test the engine its package shares call it. It fails t (and
// stops it) when t, or the test t is a subtest of, is marked Independent.
func Uses(t testing.TB) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	mu.Lock()
	m := marked[top]
	mu.Unlock()
	if m {
		t.Fatalf("%s is marked engine-independent (enginepass.Independent) but uses the engine $%s names", top, engine.EnvEngine)
	}
}
