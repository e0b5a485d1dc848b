package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// Issue 40's acceptance through the CLI: arena.yaml's two LSIs locked, a
// third strong order added to the model is refused by keyplan diff as a
// table replacement naming the alternatives (exit 1), keyplan lock does
// not write it, and the eventually consistent edit is a safe new GSI.
func TestDiffRefusesANewLocalIndex(t *testing.T) {
	enginepass.Independent(t)
	src, err := os.ReadFile("../../patterns/testdata/models/arena.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := write(t, "arena.yaml", string(src))
	lockFile := strings.TrimSuffix(model, ".yaml") + ".lock.json"
	if code, out, errs := keyplan("lock", model); code != 0 {
		t.Fatalf("lock: exit %d\n%s%s", code, out, errs)
	}
	locked, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(locked, []byte(`"kind": "local"`)) {
		t.Fatalf("the lock holds no LSI:\n%s", locked)
	}
	third := strings.Replace(string(src), "  RecentMatches:", "  TopScoresByMode: {query: Match, where: [playerId, mode], sort: score desc, consistent: true}\n  RecentMatches:", 1)
	if err := os.WriteFile(model, []byte(third), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := keyplan("diff", model)
	if code != 1 {
		t.Fatalf("diff of a third strong order: exit %d, want 1\n%s%s", code, out, errs)
	}
	var refused string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "error [KP623] pattern TopScoresByMode:") {
			refused = line
		}
	}
	for _, want := range []string{"PLAYER#{playerId} / MATCH#{mode}#{score}#{matchId}", "a new LSI replaces the table: refused", "drop consistent: true", "create a new table with the LSI", "copy the items"} {
		if !strings.Contains(refused, want) {
			t.Errorf("diff's KP623 line %q says nothing of %q:\n%s", refused, want, out)
		}
	}
	code, out, _ = keyplan("diff", model, "--format", "json")
	if code != 1 || !strings.Contains(out, `"id": "KP623"`) || !strings.Contains(out, `"safe": false`) {
		t.Errorf("diff --format json: exit %d\n%s", code, out)
	}
	code, out, errs = keyplan("lock", model)
	if now, _ := os.ReadFile(lockFile); code == 0 || !bytes.Equal(now, locked) {
		t.Errorf("lock of the refused plan: exit %d, lock changed %v\n%s%s", code, !bytes.Equal(now, locked), out, errs)
	}
	// Read eventually consistent, it is a new GSI: a safe change.
	eventual := strings.Replace(third, "sort: score desc, consistent: true}\n  RecentMatches:", "sort: score desc}\n  RecentMatches:", 1)
	if err := os.WriteFile(model, []byte(eventual), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := keyplan("diff", model); strings.Contains(out, "KP623") || strings.Contains(out, "KP102") || code == 2 {
		t.Errorf("the eventually consistent edit: exit %d\n%s%s", code, out, errs)
	}
}
