package enginepass

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/engine"
)

// A marked test on the in-process pass reaches no engine by the
// environment's choice: Connect (what keyplan validate, dynamotest and
// the engine tests start engines with) refuses the poisoned name.
func TestIndependentPoisonsTheEngineChoice(t *testing.T) {
	Independent(t)
	if got := os.Getenv(engine.EnvEngine); got != Poison {
		t.Fatalf("$%s is %q, want %q", engine.EnvEngine, got, Poison)
	}
	conn, err := engine.Connect(context.Background(), engine.Options{})
	if err == nil {
		conn.Stop()
		t.Fatal("Connect started an engine for a test marked engine-independent")
	}
	if !strings.Contains(err.Error(), Poison) {
		t.Errorf("Connect: %v", err)
	}
}

// A test marked Parallel runs beside others, leaves the process's
// environment alone, hands its processes the poisoned one (the last
// assignment of a variable is the one a process sees), and Uses fails it.
func TestParallelPoisonsItsProcesses(t *testing.T) {
	before := os.Getenv(engine.EnvEngine)
	env := Parallel(t)
	if got := os.Getenv(engine.EnvEngine); got != before {
		t.Fatalf("Parallel set $%s to %q in the test process", engine.EnvEngine, got)
	}
	cmd := exec.Command("/bin/sh", "-c", `printf '%s|%s' "$`+engine.EnvEngine+`" "$`+engine.EnvEndpoint+`"`)
	cmd.Env = append([]string{engine.EnvEndpoint + "=http://127.0.0.1:1"}, env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != Poison+"|" {
		t.Fatalf("a process of the marked test sees %q, want %q", out, Poison+"|")
	}
	f := &fatal{TB: t, name: t.Name() + "/sub"}
	Uses(f)
	if f.said == "" {
		t.Error("Uses did not fail a subtest of a test marked Parallel")
	}
}

// fatal records what Fatalf says instead of stopping the test.
type fatal struct {
	testing.TB
	name string
	said string
}

func (f *fatal) Name() string                   { return f.name }
func (f *fatal) Helper()                        {}
func (f *fatal) Fatalf(format string, a ...any) { f.said = fmt.Sprintf(format, a...) }

// Uses fails a marked test and its subtests, and no other.
func TestUsesFailsAMarkedTest(t *testing.T) {
	mu.Lock()
	marked["TestMarked"] = true
	mu.Unlock()
	t.Cleanup(func() { mu.Lock(); delete(marked, "TestMarked"); mu.Unlock() })
	for name, fails := range map[string]bool{"TestMarked": true, "TestMarked/sub": true, "TestMarkedNot": false, "TestOther/TestMarked": false} {
		f := &fatal{TB: t, name: name}
		Uses(f)
		if (f.said != "") != fails {
			t.Errorf("Uses(%s): said %q, want a failure: %v", name, f.said, fails)
		}
	}
}
