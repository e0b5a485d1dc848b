package report_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/report"
)

// diffText is the text diff of a model over a lock, in every format's
// verdict: text and markdown.
func diffText(t *testing.T, lock *patterns.Lock, to *patterns.Design) (string, *patterns.Diff) {
	t.Helper()
	df := patterns.Compare(lock, to)
	var b bytes.Buffer
	for _, f := range []report.Format{report.Text, report.Markdown} {
		if err := report.WriteDiff(&b, "leaderboard.yaml", df, f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String(), df
}

// The workflow reads in order (issue 23.9): before keyplan lock the diff
// says to run it; once it started the migration, the diff says the
// migration is in progress and at which phase, never to lock again.
func TestDiffAfterLockSaysInProgress(t *testing.T) {
	lock, err := patterns.LoadLock("../../examples/leaderboard.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load("testdata/diff/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	to, err := patterns.PlanLocked(m, lock)
	if err != nil {
		t.Fatal(err)
	}
	before, df := diffText(t, lock, to)
	if !strings.Contains(before, "keyplan lock, then") || df.Migration != nil {
		t.Fatalf("before the lock, the diff does not say to lock:\n%s", before)
	}
	n := len(df.Phases)
	if err := lock.Apply(to, df); err != nil || lock.Migration == nil {
		t.Fatalf("lock: %v", err)
	}
	after, df := diffText(t, lock, to)
	if strings.Contains(after, "keyplan lock, then") || !strings.Contains(after, "in progress, at phase 1 of "+strconv.Itoa(n)) {
		t.Errorf("after the lock, the diff reads:\n%s", after)
	}
	if df.Migration == nil || df.Migration.Phase != 1 || df.Migration.Of != n || df.Safe {
		t.Errorf("after the lock: migration %+v, safe %v", df.Migration, df.Safe)
	}
	lock.Migration.Current++
	if late, _ := diffText(t, lock, to); !strings.Contains(late, "at phase 2 of "+strconv.Itoa(n)) {
		t.Errorf("at the second phase, the diff reads:\n%s", late)
	}
}

// A refused change has no phases: keyplan lock (which prints the diff of
// what it refused) and keyplan diff show the errors, not a rollout.
func TestRefusedChangeHasNoPhases(t *testing.T) {
	lock, err := patterns.LoadLock("../../examples/leaderboard.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/diff/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// A new GSI (a phase of its own) and a removed attribute (refused).
	text := strings.ReplaceAll(strings.ReplaceAll(string(src), "handle:", "nickname:"), "[handle", "[nickname")
	m, err := model.Parse("leaderboard.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	to, err := patterns.PlanLocked(m, lock)
	if err != nil {
		t.Fatal(err)
	}
	out, df := diffText(t, lock, to)
	if len(df.Errors()) == 0 {
		t.Fatalf("the edit is not refused:\n%s", out)
	}
	if len(df.Phases) != 0 || df.Safe || strings.Contains(out, "phases") || strings.Contains(out, "create GSI") {
		t.Errorf("a refused change shows phases (%d):\n%s", len(df.Phases), out)
	}
	if err := lock.Apply(to, df); err == nil {
		t.Error("the lock accepted a refused change")
	}
}

// With no lock, every format says nothing is deployed and lists what the
// first deploy creates: never "no change: the lock is up to date".
func TestDiffWithoutLockSaysFirstDeploy(t *testing.T) {
	m, err := model.Load("../../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	df := patterns.CompareFirst(d, "leaderboard.lock.json")
	if !df.Safe || len(df.Changes)+len(df.Phases)+len(df.From.Indexes) != 0 || len(df.First.Indexes) != len(d.Indexes) {
		t.Fatalf("CompareFirst: %+v", df)
	}
	for _, f := range report.DiffFormats() {
		var b bytes.Buffer
		if err := report.WriteDiff(&b, "leaderboard.yaml", df, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		wants := []string{"no lock yet (leaderboard.lock.json): nothing is deployed", "table " + d.Table + " (" + d.PK + "/" + d.SK + ")", d.Indexes[0].Name}
		if f == report.JSON {
			wants = []string{`"first": {`, `"lock": "leaderboard.lock.json"`, d.Indexes[0].Name}
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", f, want, out)
			}
		}
		if strings.Contains(out, "up to date") {
			t.Errorf("%s: says the lock is up to date:\n%s", f, out)
		}
	}
}

// Once the migration's phases are done, its cleanup is pending until
// keyplan migrate (or the construct's job) runs it: every format says
// what it removes from which entities and how to run it, the JSON carries
// it, and the diff is in progress (not safe: keyplan diff exits 1), never
// "no change".
func TestDiffSaysACleanupIsPending(t *testing.T) {
	lock, err := patterns.LoadLock("../../examples/leaderboard.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load("testdata/diff/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	to, err := patterns.PlanLocked(m, lock)
	if err != nil {
		t.Fatal(err)
	}
	if err := lock.Apply(to, patterns.Compare(lock, to)); err != nil {
		t.Fatal(err)
	}
	for lock.Migration != nil {
		lock.Advance()
	}
	if lock.Cleanup == nil {
		t.Fatal("the migration left no cleanup")
	}
	text, df := diffText(t, lock, to)
	for _, want := range []string{"no change to the design; the last migration's cleanup is pending", "items of " + lock.Cleanup.String(),
		"keyplan migrate leaderboard.yaml --table NAME --deployed", "the construct's cleanup job"} {
		if !strings.Contains(text, want) {
			t.Errorf("the diff lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "no change: the lock is up to date") || !df.InProgress() || df.Cleanup == nil {
		t.Errorf("a pending cleanup reads as done: in progress %v\n%s", df.InProgress(), text)
	}
	var b bytes.Buffer
	if err := report.WriteDiff(&b, "leaderboard.yaml", df, report.JSON); err != nil || !strings.Contains(b.String(), `"cleanup": {`) {
		t.Errorf("the JSON diff lacks the cleanup (%v):\n%s", err, b.String())
	}
	b.Reset()
	if err := report.WriteDiff(&b, "leaderboard.yaml", df, report.HTML); err != nil || !strings.Contains(b.String(), `class="verdict warn"`) || !strings.Contains(b.String(), "cleanup is pending") {
		t.Errorf("the HTML diff does not say the cleanup is pending (%v)", err)
	}
}
