package stream_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// A handler's cold start reads the lock the construct ships (here the
// example's committed lock, where patterns.LockEnv points): the design
// as planned, nothing re-planned. A missing or unusable lock is an error
// naming the file.
func TestColdStartReadsTheLock(t *testing.T) {
	committed, err := filepath.Abs("../../../examples/leaderboard.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(patterns.LockEnv, committed)
	l, err := stream.Lock()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load("../../../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.PlanLocked(m, l) // as deployed: the lock keeps its GSIs synthetic
	if err != nil {
		t.Fatal(err)
	}
	if !l.Accepts(d) || l.Latest().Pattern("GetPlayer") == nil {
		t.Error("the shipped lock is not the example's design")
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "lock.json")
	os.WriteFile(bad, []byte(`{"format": 1, "table": "Leaderboard"}`), 0o644)
	for path, want := range map[string]string{
		filepath.Join(dir, "absent.json"): "absent.json: no lock there",
		bad:                               "lock.json: no accepted design",
	} {
		t.Setenv(patterns.LockEnv, path)
		if _, err := stream.Lock(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Lock() with %s: %v, want %q", filepath.Base(path), err, want)
		}
	}
	// A relative path is under the task root.
	t.Setenv("LAMBDA_TASK_ROOT", filepath.Dir(committed))
	t.Setenv(patterns.LockEnv, "leaderboard.lock.json")
	if _, err := stream.Lock(); err != nil {
		t.Errorf("a path relative to the task root: %v", err)
	}
}
