package main

import (
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// Issue 41.9: an attribute added and enum values added change no key or
// index, but the lock records them (the runtime, the handlers and
// generated code read the model from it). keyplan diff names them and
// does not say the lock is up to date; keyplan lock says it records
// them, one change a line, and writes them; only then is the lock up to
// date.
func TestDiffAndLockNameWhatTheyRecord(t *testing.T) {
	enginepass.Independent(t)
	model := write(t, "orders.yaml", `table: Orders
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: string
      status: {type: string, values: [open, paid]}
patterns:
  GetOrder: {get: Order, where: [orderId]}
`)
	if code, out, errs := keyplan("lock", model); code != 0 {
		t.Fatalf("lock: exit %d\n%s%s", code, out, errs)
	}
	src, _ := os.ReadFile(model)
	edited := strings.Replace(string(src), "values: [open, paid]}\n", "values: [open, paid, shipped, void]}\n      note: {type: string, optional: true}\n", 1)
	if edited == string(src) {
		t.Fatal("the edit changed nothing")
	}
	os.WriteFile(model, []byte(edited), 0o644)
	lockPath := strings.TrimSuffix(model, ".yaml") + ".lock.json"
	before, _ := os.ReadFile(lockPath)

	named := []string{"[KP621] entity Order", "values: shipped, void added", "attribute note added (string)"}
	code, out, errs := keyplan("diff", model)
	if code != 0 || strings.Contains(out, "up to date") || !strings.Contains(out, "no change to the table: keyplan lock records the changes below") {
		t.Errorf("diff: exit %d\n%s%s", code, out, errs)
	}
	for _, s := range named {
		if !strings.Contains(out, s) {
			t.Errorf("diff does not name %q:\n%s", s, out)
		}
	}
	if code, out, errs := keyplan("diff", model, "--format", "json"); code != 0 || strings.Join(diffIDs(t, out), ",") != "KP621" {
		t.Errorf("diff --format json: exit %d, changes %v\n%s", code, diffIDs(t, out), errs)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(before) {
		t.Error("diff wrote the lock")
	}

	code, out, errs = keyplan("lock", model)
	if code != 0 || strings.Contains(out, "up to date") || !strings.Contains(out, "recorded 1 change(s), none to the table:") {
		t.Errorf("lock: exit %d\n%s%s", code, out, errs)
	}
	for _, s := range named {
		if !strings.Contains(out, s) {
			t.Errorf("lock does not say it records %q:\n%s", s, out)
		}
	}
	after, _ := os.ReadFile(lockPath)
	for _, s := range []string{`"shipped"`, `"void"`, `"note"`} {
		if !strings.Contains(string(after), s) {
			t.Errorf("the lock does not record %s:\n%s", s, after)
		}
	}

	if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "up to date (nothing to record: the file is unchanged)") {
		t.Errorf("lock again: exit %d\n%s%s", code, out, errs)
	}
	if again, _ := os.ReadFile(lockPath); string(again) != string(after) {
		t.Error("lock with nothing to record rewrote the lock")
	}
	if code, out, errs := keyplan("diff", model); code != 0 || !strings.Contains(out, "no change: the lock is up to date") {
		t.Errorf("diff after lock: exit %d\n%s%s", code, out, errs)
	}
}
