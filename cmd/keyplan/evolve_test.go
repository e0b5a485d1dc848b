package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

// shop copies the example shop into a fresh directory, its GSIs keyed
// synthetic as its own lock has them (a new synthetic shape is a
// backfill: the workflow these tests walk); it returns the model's path
// and a function that edits it in place.
func shop(t *testing.T) (string, func(old, new string)) {
	t.Helper()
	src, err := os.ReadFile("../../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src = append([]byte("indexKeys: synthetic\n"), src...)
	path := filepath.Join(t.TempDir(), "shop.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, func(old, new string) {
		t.Helper()
		b, _ := os.ReadFile(path)
		next := strings.Replace(string(b), old, new, 1)
		if next == string(b) {
			t.Fatalf("the edit %q found nothing to change", old)
		}
		os.WriteFile(path, []byte(next), 0o644)
	}
}

const getProduct = "  GetProduct:         {get: Product, rate: 300}\n"

// diffJSON is what `keyplan diff --format json` promises (DESIGN.md).
type diffJSON struct {
	Safe *bool `json:"safe"`
	From struct {
		Indexes []phaseIndexJSON `json:"indexes"`
	} `json:"from"`
	Changes []struct {
		ID, Severity, Kind, Subject, Message string
	} `json:"changes"`
	Phases []struct {
		Create   []string         `json:"create"`
		Delete   []string         `json:"delete"`
		Backfill []string         `json:"backfill"`
		Indexes  []phaseIndexJSON `json:"indexes"`
	} `json:"phases"`
	First *struct {
		Lock    string           `json:"lock"`
		Indexes []phaseIndexJSON `json:"indexes"`
	} `json:"first"`
}

type phaseIndexJSON struct {
	Name             string   `json:"name"`
	PK               string   `json:"pk"`
	SK               string   `json:"sk"`
	Projection       string   `json:"projection"`
	NonKeyAttributes []string `json:"nonKeyAttributes"`
}

func readDiff(t *testing.T, out string) diffJSON {
	t.Helper()
	var v diffJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("diff JSON: %v\n%s", err, out)
	}
	if v.Safe == nil || v.Changes == nil || v.Phases == nil || v.From.Indexes == nil {
		t.Fatalf("diff JSON lacks safe/changes/phases/from.indexes:\n%s", out)
	}
	return v
}

// The operator's workflow through the CLI: lock, a safe edit, a
// migration, an edit during the migration, a refused edit; exit codes,
// JSON contract, and a lock file never touched by a refusal.
func TestDiffAndLock(t *testing.T) {
	enginepass.Independent(t)
	model, edit := shop(t)
	lockFile := strings.TrimSuffix(model, ".yaml") + ".lock.json"

	// No lock yet: nothing is deployed, nothing migrates (exit 0); the
	// diff says what the first deploy creates, and nothing else.
	code, out, errs := keyplan("diff", model)
	wantFirst := model + ": no lock yet (" + lockFile + "): nothing is deployed, so nothing migrates; the first deploy creates the table below (keyplan lock writes the lock, then cdk deploy)\n\nfirst deploy\n  table Shop (PK/SK) (no TTL)\n       GSI1 (GSI1PK/GSI1SK) "
	if code != 0 || !strings.HasPrefix(out, wantFirst) || strings.Contains(out, "no change") || errs != "" {
		t.Fatalf("diff without a lock: exit %d, want %q...\n%s%s", code, wantFirst, out, errs)
	}
	code, out, _ = keyplan("diff", model, "--format", "json")
	if v := readDiff(t, out); code != 0 || v.First == nil || v.First.Lock != lockFile || len(v.First.Indexes) == 0 || len(v.Changes)+len(v.Phases)+len(v.From.Indexes) != 0 {
		t.Fatalf("diff --format json without a lock: exit %d\n%s", code, out)
	}
	if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "written") {
		t.Fatalf("first lock: exit %d\n%s%s", code, out, errs)
	}
	first, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	// Locking again changes no byte.
	if code, out, _ := keyplan("lock", model); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("second lock: exit %d, %s", code, out)
	}
	if again, _ := os.ReadFile(lockFile); !bytes.Equal(first, again) {
		t.Fatal("locking an unchanged model rewrote different bytes")
	}

	// A pattern the existing shapes serve: safe, exit 0.
	edit(getProduct, getProduct+"  RecentCustomerOrders: {query: Order, where: [customerId], sort: createdAt desc, limit: 5, returns: [status, total]}\n")
	code, out, errs = keyplan("diff", model, "--format", "json")
	v := readDiff(t, out)
	if code != 0 || !*v.Safe || len(v.Phases) != 0 || len(v.Changes) != 1 || v.Changes[0].ID != "KP611" || v.Changes[0].Subject != "pattern RecentCustomerOrders" {
		t.Fatalf("a safe edit: exit %d, %+v\n%s", code, v, errs)
	}
	if code, _, _ := keyplan("lock", model); code != 0 {
		t.Fatal("lock of a safe edit failed")
	}

	// A new GSI: a migration, exit 1, one phase creating it.
	edit(getProduct, getProduct+"  OrdersAt: {query: Order, where: [createdAt]}\n")
	code, out, _ = keyplan("diff", model, "--format", "json")
	v = readDiff(t, out)
	if code != 1 || *v.Safe || len(v.Phases) != 1 || !slices.Equal(v.Phases[0].Create, []string{"GSI3"}) ||
		!slices.Equal(v.Phases[0].Backfill, []string{"Order"}) || len(v.Phases[0].Indexes) != len(v.From.Indexes)+1 {
		t.Fatalf("a new GSI: exit %d\n%s", code, out)
	}
	for _, ix := range v.Phases[0].Indexes {
		if ix.Name == "" || ix.PK == "" || ix.SK == "" || ix.Projection == "" {
			t.Errorf("phase index %+v lacks a field", ix)
		}
	}
	for _, c := range v.Changes {
		if c.ID == "" || !slices.Contains([]string{"error", "warning", "info"}, c.Severity) || c.Kind == "" || c.Subject == "" || c.Message == "" {
			t.Errorf("change %+v lacks a field", c)
		}
	}
	if code, out, _ := keyplan("diff", model, "--format", "markdown"); code != 1 || !strings.Contains(out, "| Phase |") {
		t.Errorf("markdown diff: exit %d\n%s", code, out)
	}
	if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "migration at phase 1 of 1") {
		t.Fatalf("lock starting a migration: exit %d\n%s%s", code, out, errs)
	}
	during, _ := os.ReadFile(lockFile)
	if !bytes.Contains(during, []byte(`"migration"`)) {
		t.Fatal("the lock records no migration")
	}
	// The model as locked: the pending phases, exit 1.
	if code, out, _ := keyplan("diff", model); code != 1 || !strings.Contains(out, "create GSI3") {
		t.Errorf("diff during the migration: exit %d\n%s", code, out)
	}

	// Another change while the migration is pending: refused, lock untouched.
	edit(getProduct, getProduct+"  ProductsByStock: {query: Product, where: [inventory]}\n")
	code, out, _ = keyplan("diff", model, "--format", "json")
	v = readDiff(t, out)
	if code != 1 || len(v.Changes) != 1 || v.Changes[0].ID != "KP609" || v.Changes[0].Severity != "error" {
		t.Errorf("a change during a migration: exit %d\n%s", code, out)
	}
	code, _, errs = keyplan("lock", model)
	if after, _ := os.ReadFile(lockFile); code != 1 || !bytes.Equal(during, after) || !strings.Contains(errs, "untouched") {
		t.Errorf("lock of a change during a migration: exit %d, lock changed %v\n%s", code, !bytes.Equal(during, after), errs)
	}
}

// A change that would strand data is refused by lock, which leaves the
// file as it was.
func TestLockRefusesStrandingData(t *testing.T) {
	enginepass.Independent(t)
	model, edit := shop(t)
	lockFile := strings.TrimSuffix(model, ".yaml") + ".lock.json"
	if code, _, errs := keyplan("lock", model); code != 0 {
		t.Fatal(errs)
	}
	before, _ := os.ReadFile(lockFile)
	edit("      email: {type: string, maxLength: 254}", "      emailAddress: {type: string, maxLength: 254}")
	edit("where: [email]", "where: [emailAddress]")
	b, _ := os.ReadFile(model)
	os.WriteFile(model, []byte(strings.ReplaceAll(strings.ReplaceAll(string(b), ", email: ", ", emailAddress: "), "params: {email: ", "params: {emailAddress: ")), 0o644)
	code, out, _ := keyplan("diff", model)
	if code != 1 || !strings.Contains(out, "KP605") || !strings.Contains(out, "renamedFrom") {
		t.Errorf("diff of a rename without renamedFrom: exit %d\n%s", code, out)
	}
	code, _, errs := keyplan("lock", model)
	after, _ := os.ReadFile(lockFile)
	if code != 1 || !bytes.Equal(before, after) || !strings.Contains(errs, "untouched") {
		t.Errorf("lock of a refused change: exit %d, lock changed %v\n%s", code, !bytes.Equal(before, after), errs)
	}
}

// Unusable locks are exit 2, naming the lock file and what is wrong.
func TestUnusableLocks(t *testing.T) {
	enginepass.Independent(t)
	model, _ := shop(t)
	lockFile := strings.TrimSuffix(model, ".yaml") + ".lock.json"
	if code, _, errs := keyplan("lock", model); code != 0 {
		t.Fatal(errs)
	}
	good, _ := os.ReadFile(lockFile)
	other, _ := os.ReadFile("../../examples/leaderboard.lock.json")
	tests := []struct {
		name, content, want string
	}{
		{"truncated", string(good[:len(good)/2]), "not valid JSON"},
		{"a newer format", strings.Replace(string(good), `"format": 2`, `"format": 7`, 1), "lock format 7, written by keyplan (devel); this keyplan ((devel)) reads lock formats 1, 2: upgrade keyplan"},
		{"another table", string(other), "the lock is for table Leaderboard, the model"},
		{"edited by hand", strings.Replace(string(good), `"GSI1PK"`, `"GSI7PK"`, 1), "its digest does not match its content"},
		{"empty", "", "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile(lockFile, []byte(tt.content), 0o644)
			for _, cmd := range []string{"diff", "lock", "plan"} {
				code, _, errs := keyplan(cmd, model)
				if code != 2 || !strings.Contains(errs, tt.want) || !strings.Contains(errs, "shop.lock.json") {
					t.Errorf("%s: exit %d, stderr %q, want 2 and %q naming the file", cmd, code, errs, tt.want)
				}
			}
			if after, _ := os.ReadFile(lockFile); string(after) != tt.content {
				t.Error("an unusable lock was rewritten")
			}
		})
	}
	if code, _, errs := keyplan("diff", model, "--format", "sarif"); code != 2 || !strings.Contains(errs, `--format sarif: expected one of: text, json, markdown, html`) {
		t.Errorf("diff --format sarif: exit %d, %s", code, errs)
	}
}

// The tracker (native GSI keys) locked, then its next pattern: keyplan
// diff exits 0, the one phase an index build with no backfill, and lock
// accepts it without a migration.
func TestNativeNextPatternIsOneDeploy(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../examples/tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "tracker.yaml")
	os.WriteFile(model, src, 0o644)
	if code, out, errs := keyplan("lock", model); code != 0 {
		t.Fatalf("lock: exit %d\n%s%s", code, out, errs)
	}
	next := strings.Replace(string(src), "patterns:\n", "patterns:\n  TasksByPriority: {query: Task, where: [tenantId, priority], sort: createdAt desc}\n", 1)
	os.WriteFile(model, []byte(next), 0o644)
	code, out, errs := keyplan("diff", model, "--format", "json")
	v := readDiff(t, out)
	if code != 0 || !*v.Safe || len(v.Phases) != 1 || len(v.Phases[0].Backfill) != 0 || len(v.Phases[0].Create) != 1 {
		t.Fatalf("diff: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := keyplan("diff", model); code != 0 || !strings.Contains(out, "(index build)") || !strings.Contains(out, "KP615") {
		t.Errorf("diff (text): exit %d\n%s", code, out)
	}
	// It says what it records (issue 41.9), and records it once.
	if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "recorded 3 change(s), one deploy") || !strings.Contains(out, "[KP615] index GSI3") {
		t.Errorf("lock: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "up to date (nothing to record: the file is unchanged)") {
		t.Errorf("lock again: exit %d\n%s%s", code, out, errs)
	}
}

// A change that deletes a GSI in one deploy leaves its keys in the items:
// keyplan lock accepts it and says the cleanup is pending (what it
// removes, how to run it), and keyplan diff says so too and exits 1 (in
// progress) until keyplan migrate has run it. Keyed natively, the GSI
// stored nothing on the items (its keys are their own attributes, one
// entity: no discriminator): nothing to clean up, diff exits 0.
func TestLockAndDiffSayACleanupIsPending(t *testing.T) {
	enginepass.Independent(t)
	for _, keys := range []kpmodel.IndexKeys{kpmodel.IndexKeysSynthetic, kpmodel.IndexKeysAuto} {
		t.Run(string(keys), func(t *testing.T) { testCleanupPending(t, keys) })
	}
}

func testCleanupPending(t *testing.T, keys kpmodel.IndexKeys) {
	v1 := "indexKeys: " + string(keys) + "\n" + testmodel.Orders
	model := filepath.Join(t.TempDir(), "orders.yaml")
	if err := os.WriteFile(model, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := keyplan("lock", model); code != 0 {
		t.Fatalf("first lock: exit %d\n%s%s", code, out, errs)
	}
	v2 := strings.Replace(v1, "  OrdersByStatus: {query: Order, where: [status], sort: placedAt}\n", "", 1)
	if err := os.WriteFile(model, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	if keys != kpmodel.IndexKeysSynthetic {
		if code, out, errs := keyplan("lock", model); code != 0 || strings.Contains(out, "cleanup") {
			t.Fatalf("lock of a deleted native GSI: exit %d\n%s%s", code, out, errs)
		}
		if code, out, _ := keyplan("diff", model); code != 0 || !strings.Contains(out, "no change: the lock is up to date") {
			t.Errorf("diff after a deleted native GSI: exit %d\n%s", code, out)
		}
		return
	}
	const pending = "the last migration's cleanup is pending, which removes what the design before left in the items of Order (GSI2PK, GSI2SK)"
	if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "[KP602] index GSI2") || !strings.Contains(out, "\n"+pending) || !strings.Contains(out, "keyplan migrate "+model+" --table NAME --deployed") {
		t.Fatalf("lock of a deleted GSI: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "up to date (nothing to record: the file is unchanged); "+pending) {
		t.Fatalf("lock again: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := keyplan("diff", model); code != 1 || !strings.Contains(out, "no change to the design; "+pending) {
		t.Errorf("diff with the cleanup pending: exit %d\n%s", code, out)
	}
}
