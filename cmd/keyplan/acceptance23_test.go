package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
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
// a process of its own, and so is the engine (keyplan local). Keyed
// synthetic (issue 23's premise), each phase backfills Order; keyed as
// the shop says (auto: native, keyplan local has multi-attribute keys),
// each is an index build with nothing to backfill (KP615), one GSI a
// deploy all the same.
func TestTwoGSIMigrationFromSeparateProcesses(t *testing.T) {
	enginepass.Parallel(t)
	for _, keys := range []kpmodel.IndexKeys{kpmodel.IndexKeysSynthetic, kpmodel.IndexKeysAuto} {
		t.Run(string(keys), func(t *testing.T) { testTwoGSIMigration(t, keys) })
	}
}

func testTwoGSIMigration(t *testing.T, keys kpmodel.IndexKeys) {
	p := separateProcesses(t)
	ep := p.local("--port", "0").endpoint // keyplan local, a process of its own
	run := p.run
	model, src := shopModel(t)
	src = append([]byte("indexKeys: "+string(keys)+"\n"), src...)
	if err := os.WriteFile(model, src, 0o644); err != nil {
		t.Fatal(err)
	}
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
	synthetic := keys == kpmodel.IndexKeysSynthetic
	for i, p := range lk.Migration.Phases {
		if len(p.Create) != 1 || strings.Contains(strings.Join(p.Backfill, ","), "Order") != synthetic {
			t.Fatalf("phase %d: %s; want a new GSI and Order backfilled only when keyed synthetic", i+1, p)
		}
	}
	if out := run(1, "diff", model); !strings.Contains(out, "in progress, at phase 1 of 2") {
		t.Fatalf("diff after the lock: %s", out)
	}
	out := run(0, "migrate", model, "--table", table, "--endpoint", ep, "--apply-indexes")
	want := []string{"phase 1 of 2: backfilling", "phase 2 of 2: backfilling", "the migration is done"}
	if !synthetic {
		want = []string{"phase 1 of 2: nothing to backfill (create GSI3 (index build))", "phase 2 of 2: nothing to backfill (create GSI4 (index build))", "the migration is done"}
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("migrate lacks %q:\n%s", w, out)
		}
	}
	// Keyed synthetic, the phases are done and their cleanup is pending
	// (in progress: exit 1) until the final lock's deploy is recorded and
	// it has run; index builds rewrote no key, so leave nothing to clean.
	if !synthetic {
		if out := run(0, "diff", model); !strings.Contains(out, "no change: the lock is up to date") {
			t.Errorf("diff after the index builds: %s", out)
		}
	} else if out := run(1, "diff", model); !strings.Contains(out, "no change to the design; the last migration's cleanup is pending") {
		t.Errorf("diff after the migration: %s", out)
	}
	out = run(0, "validate", model, "--existing", "--table", table, "--endpoint", ep)
	for _, w := range []string{"ok   OrdersByTotal(total=990): [o2]", "ok   OrdersAt(createdAt=2026-06-01T10:00:00Z): [o1]", ", 0 failed"} {
		if !strings.Contains(out, w) {
			t.Errorf("validate --existing lacks %q:\n%s", w, out)
		}
	}
	if !synthetic {
		return
	}
	if out := run(0, "migrate", model, "--table", table, "--endpoint", ep, "--deployed"); !strings.Contains(out, "cleanup: ") {
		t.Errorf("migrate --deployed, the cleanup: %s", out)
	}
	if out := run(0, "diff", model); !strings.Contains(out, "no change: the lock is up to date") {
		t.Errorf("diff after the cleanup: %s", out)
	}
}
