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
// cannot be parallel; see Parallel), and Uses fails it. Call it first in
// the test.
func Independent(t *testing.T) {
	t.Helper()
	if !mark(t) {
		return
	}
	t.Setenv(engine.EnvEngine, Poison)
	t.Setenv(engine.EnvEndpoint, "")
}

// Parallel is Independent for a test that runs beside the package's
// other parallel tests (it calls t.Parallel): a long test that starts
// processes, builds modules or starts engines it names. The process's
// environment is the other tests' too, so Parallel cannot poison it:
// it returns the environment for the processes t starts instead
// (os.Environ with $KEYPLAN_ENGINE set to Poison and
// $KEYPLAN_DYNAMODB_ENDPOINT empty), and t must reach engines only
// through those processes, through engines it names, or not at all.
// Uses fails it as it fails a test marked Independent. Call it first in
// the test.
func Parallel(t *testing.T) []string {
	t.Helper()
	if !mark(t) {
		return nil
	}
	t.Parallel()
	return append(os.Environ(), engine.EnvEngine+"="+Poison, engine.EnvEndpoint+"=")
}

// mark skips t on the other engines' passes and otherwise marks it for
// Uses (false: t was skipped).
func mark(t *testing.T) bool {
	t.Helper()
	if strings.Contains(t.Name(), "/") {
		t.Fatalf("enginepass marks a top-level test, not the subtest %s", t.Name())
	}
	if name := os.Getenv(engine.EnvEngine); name != "" && name != engine.Memory {
		t.Skipf("engine-independent: its result cannot depend on $%s (%s); make test runs it on the in-process pass", engine.EnvEngine, name)
		return false
	}
	mu.Lock()
	marked[t.Name()] = true
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		delete(marked, t.Name())
		mu.Unlock()
	})
	return true
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
