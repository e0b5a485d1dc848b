package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/enginepass"
	"github.com/keyplan/keyplan/patterns"
)

// shopTwoGSIs is the shop given two new GSIs for Order (by total, by
// creation time), with the expectations that prove both on the example
// items: a migration of two phases, Order backfilled in each (issue 23.1:
// the second used to stay empty).
func shopTwoGSIs(v1 string) string {
	s := strings.Replace(v1, "  GetProduct:         {get: Product, rate: 300}\n",
		"  GetProduct:         {get: Product, rate: 300}\n"+
			"  OrdersByTotal:      {query: Order, where: [total]}\n"+
			"  OrdersAt:           {query: Order, where: [createdAt]}\n", 1)
	return strings.Replace(s, "  expect:\n", `  expect:
    - pattern: OrdersByTotal
      params: {total: 990}
      items: [o2]
    - pattern: OrdersAt
      params: {createdAt: "2026-06-01T10:00:00Z"}
      items: [o1]
`, 1)
}

// The acceptance of issue 23 from separate processes: keyplan validate
// --keep leaves the shop's table on a served engine, keyplan lock starts
// the two-GSI migration, keyplan migrate --apply-indexes runs both phases
// (each backfilled and verified), and keyplan validate --existing proves
// every pattern, both new ones included, on that table. Each command is
// a process of its own, and so is the engine (keyplan local).
func TestTwoGSIMigrationFromSeparateProcesses(t *testing.T) {
	enginepass.Independent(t)
	p := separateProcesses(t)
	ep := p.local("--port", "0").endpoint // keyplan local, a process of its own
	run := p.run
	model, src := shopModel(t)
	table := "two-gsis-" + strings.TrimPrefix(filepath.Base(filepath.Dir(filepath.Dir(model))), t.Name()) // unique on the shared engine
	run(0, "lock", model)
	run(0, "validate", model, "--keep", "--endpoint", ep, "--table", table)

	if err := os.WriteFile(model, []byte(shopTwoGSIs(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run(1, "diff", model); !strings.Contains(out, "keyplan lock, then") {
		t.Fatalf("diff before the lock: %s", out)
	}
	if out := run(0, "lock", model); !strings.Contains(out, "migration at phase 1 of 2") {
		t.Fatalf("lock: %s", out)
	}
	lk, err := patterns.LoadLock(patterns.LockPath(model))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range lk.Migration.Phases {
		if len(p.Create) != 1 || !strings.Contains(strings.Join(p.Backfill, ","), "Order") {
			t.Fatalf("phase %d: %s; want a new GSI and Order backfilled", i+1, p)
		}
	}
	if out := run(1, "diff", model); !strings.Contains(out, "in progress, at phase 1 of 2") {
		t.Fatalf("diff after the lock: %s", out)
	}
	out := run(0, "migrate", model, "--table", table, "--endpoint", ep, "--apply-indexes")
	for _, w := range []string{"phase 1 of 2: backfilling", "phase 2 of 2: backfilling", "the migration is done"} {
		if !strings.Contains(out, w) {
			t.Errorf("migrate lacks %q:\n%s", w, out)
		}
	}
	if out := run(0, "diff", model); !strings.Contains(out, "no change") {
		t.Errorf("diff after the migration: %s", out)
	}
	out = run(0, "validate", model, "--existing", "--table", table, "--endpoint", ep)
	for _, w := range []string{"ok   OrdersByTotal(total=990): [o2]", "ok   OrdersAt(createdAt=2026-06-01T10:00:00Z): [o1]", ", 0 failed"} {
		if !strings.Contains(out, w) {
			t.Errorf("validate --existing lacks %q:\n%s", w, out)
		}
	}
}
