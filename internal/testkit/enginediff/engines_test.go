package enginediff

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/engine/ddblocal"
)

// The engines this package's tests share, each started on first use and
// stopped when the tests end.
var (
	enginesMu sync.Mutex
	started   = map[string]*engine.Running{}
	failed    = map[string]error{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if s := benchSummary(); s != "" {
		fmt.Print(s)
	}
	for _, r := range started {
		r.Stop()
	}
	os.Exit(code)
}

// startEngine is the running engine name; a test that cannot have it is
// skipped when what is missing is Java (DynamoDB Local's), failed
// otherwise.
func startEngine(tb testing.TB, name string) *engine.Running {
	tb.Helper()
	tb.Logf("%s", engine.Env())
	enginesMu.Lock()
	defer enginesMu.Unlock()
	if r, ok := started[name]; ok {
		return r
	}
	err, ok := failed[name]
	if !ok {
		wd, _ := os.Getwd()
		var r *engine.Running
		r, err = engine.Start(name, wd)
		if err == nil {
			started[name] = r
			return r
		}
		failed[name] = err
	}
	if errors.Is(err, ddblocal.ErrNoJava) {
		tb.Skipf("the reference engine, DynamoDB Local, needs Java: %v (%s)", err, ddblocal.JavaHint)
	}
	tb.Fatalf("%s: %v\n%s", name, err, engine.Hint(err))
	return nil
}

// pair is a runner of the in-process engine against DynamoDB Local.
func pair(tb testing.TB, known []Known) *Runner {
	if testing.Short() {
		tb.Skip("starts DynamoDB Local (a JVM)")
	}
	ref := startEngine(tb, engine.DynamoDBLocal)
	got := startEngine(tb, engine.Memory)
	return &Runner{
		Ref:    Engine{engine.DynamoDBLocal, &Client{Endpoint: ref.Endpoint}},
		Got:    Engine{engine.Memory, &Client{Endpoint: got.Endpoint, AccessKeyID: got.AccessKeyID, SecretAccessKey: got.SecretAccessKey}},
		Known:  known,
		Prefix: fmt.Sprintf("ed%d_", os.Getpid()),
	}
}
