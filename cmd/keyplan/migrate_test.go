package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/engine/dynalite"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
	migration "github.com/keyplan/keyplan/patterns/dynamo/migrate"
	"github.com/keyplan/keyplan/patterns/model"
)

// The engine of this package's tests: started on first use, stopped by
// TestMain; engine(t) fails a test marked engine-independent
// (enginepass.Independent).
var (
	engineOnce sync.Once
	engineOn   *dynamotest.Engine
	engineErr  error
	tableSeq   atomic.Int64
)

func engine(t testing.TB) string {
	t.Helper()
	enginepass.Uses(t)
	engineOnce.Do(func() { engineOn, engineErr = dynamotest.New() })
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return engineOn.Endpoint
}

func TestMain(m *testing.M) {
	code := m.Run()
	if engineOn != nil {
		engineOn.Stop()
	}
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// shopMigration is the shop in a directory of its own, locked, then moved
// to ShopV2 with `keyplan lock` (a migration at phase 1), and a table
// deployed at phase 1 holding the example items and n generated ones
// written by the accepted design.
type shopMigration struct {
	model, lockFile, table string
	lock                   *patterns.Lock
	client                 *dynamodb.Client
	items                  int
	examples               []*model.ExampleItem
}

func newShopMigration(t testing.TB, n int) *shopMigration {
	t.Helper()
	src, err := os.ReadFile("../../" + evolvetest.ShopModel)
	if err != nil {
		t.Fatal(err)
	}
	// Keyed synthetic: the migration is the synthetic keys' backfill, on
	// every engine (a native index over the orders' attributes would need
	// none, and DynamoDB Local 1.25.1 has no native keys).
	src = append([]byte("indexKeys: synthetic\n"), src...)
	sm := &shopMigration{model: filepath.Join(t.TempDir(), "shop.yaml")}
	v1, err := model.Parse("shop.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	sm.examples = v1.Examples.Items
	sm.lockFile = patterns.LockPath(sm.model)
	os.WriteFile(sm.model, src, 0o644)
	if code, out, errs := keyplan("lock", sm.model); code != 0 {
		t.Fatalf("lock: %s%s", out, errs)
	}
	os.WriteFile(sm.model, []byte(evolvetest.ShopV2(string(src))), 0o644)
	if code, out, errs := keyplan("lock", sm.model); code != 0 || !strings.Contains(out, "migration at phase 1 of 1") {
		t.Fatalf("lock v2: %s%s", out, errs)
	}
	if sm.lock, err = patterns.LoadLock(sm.lockFile); err != nil {
		t.Fatal(err)
	}
	sm.table = fmt.Sprintf("migrate-%d", tableSeq.Add(1))
	sm.client = localengine.Client(engine(t), 0)
	sm.load(t, sm.table, n)
	return sm
}

// load creates a table at the lock's phase holding the examples and n
// generated items, as the accepted design writes them.
func (sm *shopMigration) load(t testing.TB, table string, n int) {
	t.Helper()
	ctx := context.Background()
	if err := dynamo.CreateLockTable(ctx, sm.client, sm.lock, table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}) })
	v1 := dynamo.New(sm.lock.Accepted, nil, table)
	var all []map[string]types.AttributeValue
	add := func(entity string, v map[string]any) {
		items, err := v1.Items(entity, v)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, items...)
	}
	for _, it := range sm.examples {
		add(it.Entity, it.Values)
	}
	for _, it := range evolvetest.ShopItems(n) {
		add(it.Entity, it.Values)
	}
	if err := dynamo.BatchPut(ctx, sm.client, table, all); err != nil {
		t.Fatal(err)
	}
	sm.items = len(all)
}

// exactlyTarget asserts every keyplan item has exactly the attributes
// the target design writes for its values (no more, no fewer keys).
func exactlyTarget(t testing.TB, d *patterns.Design, items map[string]map[string]types.AttributeValue) {
	t.Helper()
	rt := dynamo.New(d, nil, "x")
	bad := 0
	for k, it := range items {
		entity, v, err := rt.Decode(it)
		if err != nil {
			continue // a guard item
		}
		want, err := rt.Item(entity, v)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if fmt.Sprint(want) != fmt.Sprint(it) && !sameItem(want, it) {
			if bad++; bad <= 3 {
				t.Errorf("%s: %v\nwant %v", k, it, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d item(s) are not exactly the target's", bad)
	}
}

func sameItem(a, b map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		if fmt.Sprint(x) != fmt.Sprint(b[k]) {
			return false
		}
	}
	return true
}

// The operator's migrate: the phase's backfill, progress lines, the
// summary, the lock advanced to the target (keyplan diff then exits 0),
// and the new version's examples proven on the table as it is.
func TestMigrate(t *testing.T) {
	t.Parallel()
	sm := newShopMigration(t, 3000)
	ep := engine(t)
	code, out, errs := keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep, "--segments", "3", "--page-size", "100", "--progress", "20ms")
	if code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"phase 1 of 1: backfilling Order, Product (create GSI3; backfill Order, Product) of " + sm.table + " with 3 segment(s)",
		"phase 1 of 1 backfilled in", " rewritten, ", "0 failed", "the migration is done", "then start the construct's cleanup job, or run keyplan migrate", "--deployed"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "items scanned") && !strings.Contains(errs, "items (") {
		t.Errorf("no progress line on stderr:\n%s", errs)
	}
	l, err := patterns.LoadLock(sm.lockFile)
	if err != nil || l.Migration != nil {
		t.Fatalf("the lock after migrate: %v, migration %v", err, l.Migration)
	}
	// Its cleanup is pending: diff says so (the migration is in
	// progress: exit 1), naming what it removes and how to run it.
	if code, out, _ := keyplan("diff", sm.model); code != 1 || !strings.Contains(out, "no change to the design; the last migration's cleanup is pending") || !strings.Contains(out, "--deployed") {
		t.Errorf("diff after the migration, its cleanup pending: exit %d\n%s", code, out)
	}
	exactlyTarget(t, l.Accepted, evolvetest.ScanAll(t, sm.client, sm.table))
	code, out, errs = keyplan("validate", sm.model, "--existing", "--table", sm.table, "--endpoint", ep)
	if code != 0 || !strings.Contains(out, "0 item(s) loaded") || !strings.Contains(out, "ok   ProductsByPrice(category=electronics): [pr2 pr1] in order") {
		t.Errorf("validate --existing: exit %d\n%s%s", code, out, errs)
	}
	// Once that lock is deployed, migrate again cleans up (the lock's
	// cleanup: the backfilled entities), then nothing is left.
	if l.Cleanup == nil {
		t.Error("the migration's end records no cleanup")
	}
	// Until the table records that lock's deploy, the cleanup is refused.
	if code, out, errs := keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep); code != 2 || !strings.Contains(errs, "records no deploy of it") {
		t.Errorf("migrate, the cleanup before the deploy: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep, "--deployed"); code != 0 || !strings.Contains(out, "cleanup: ") {
		t.Errorf("migrate --deployed, the cleanup: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := keyplan("diff", sm.model); code != 0 {
		t.Errorf("diff after the cleanup: exit %d\n%s", code, out)
	}
	if l, err := patterns.LoadLock(sm.lockFile); err != nil || l.Cleanup != nil {
		t.Errorf("the lock after the cleanup: %v, cleanup %+v", err, l.Cleanup)
	}
	// Nothing left to migrate.
	if code, _, errs := keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep); code != 2 || !strings.Contains(errs, "no migration in progress") {
		t.Errorf("migrate with nothing to do: exit %d, %s", code, errs)
	}
}

// migrate refuses what it cannot do, before writing anything.
func TestMigrateRefuses(t *testing.T) {
	t.Parallel()
	sm := newShopMigration(t, 10)
	ep := engine(t)
	// A table of the phase before: no GSI3.
	before := "before-" + sm.table
	v1 := patterns.NewLock(sm.lock.Accepted)
	if err := dynamo.CreateLockTable(context.Background(), sm.client, v1, before); err != nil {
		t.Fatal(err)
	}
	lb, _ := os.ReadFile("../../examples/leaderboard.yaml")
	other := filepath.Join(t.TempDir(), "leaderboard.yaml")
	os.WriteFile(other, lb, 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no table", []string{sm.model, "--endpoint", ep}, "--table NAME is required"},
		{"bad table name", []string{sm.model, "--table", "a b", "--endpoint", ep}, `--table "a b": expected`},
		{"bad segments", []string{sm.model, "--table", sm.table, "--segments", "-1"}, "--segments -1: expected"},
		{"bad rate", []string{sm.model, "--table", sm.table, "--max-wcu", "-5"}, "--max-wcu -5: expected"},
		{"NaN rate", []string{sm.model, "--table", sm.table, "--max-wcu", "NaN"}, "--max-wcu NaN: expected a finite number"},
		{"no lock", []string{other, "--table", sm.table, "--endpoint", ep}, "has no lock"},
		{"no such table", []string{sm.model, "--table", "nope-" + sm.table, "--endpoint", ep}, "no such table"},
		{"the phase is not deployed", []string{sm.model, "--table", before, "--endpoint", ep}, "GSI3 does not exist: deploy the phase first (cdk deploy)"},
	}
	if engineOn.Name == localengine.Dynalite {
		tests = append(tests, struct {
			name string
			args []string
			want string
		}{"an engine without online index changes", []string{sm.model, "--table", before, "--endpoint", ep, "--apply-indexes"}, "creating index GSI3"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := keyplan(append([]string{"migrate"}, tt.args...)...)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q\n%s", code, errs, tt.want, out)
			}
		})
	}
	// The model edited again after the migration started.
	b, _ := os.ReadFile(sm.model)
	os.WriteFile(sm.model, []byte(strings.Replace(string(b), "  GetProduct:         {get: Product, rate: 300}\n", "  GetProduct:         {get: Product, rate: 300}\n  ProductsByStock: {query: Product, where: [inventory]}\n", 1)), 0o644)
	if code, _, errs := keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep); code != 2 || !strings.Contains(errs, "is not the model the migration") {
		t.Errorf("an edited model: exit %d, %s", code, errs)
	}
	// Nothing was written: the lock is still at phase 1.
	if l, _ := patterns.LoadLock(sm.lockFile); l.Migration == nil || l.Migration.Current != 0 {
		t.Error("a refused migrate moved the lock")
	}
}

// On an engine with online index changes (the in-process one, DynamoDB),
// --apply-indexes creates the phase's index on a table deployed before
// it, then backfills: the migration completes without a deploy.
func TestMigrateAppliesIndexes(t *testing.T) {
	t.Parallel()
	sm := newShopMigration(t, 40)
	ep := engine(t)
	if engineOn.Name != localengine.Memory && engineOn.Name != localengine.DynamoDBLocal {
		t.Skipf("online index changes: %s has none (TestMigrateRefuses covers it)", engineOn.Name)
	}
	before := "before-" + sm.table
	v1 := patterns.NewLock(sm.lock.Accepted)
	if err := dynamo.CreateLockTable(context.Background(), sm.client, v1, before); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sm.client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(before)})
	})
	code, out, errs := keyplan("migrate", sm.model, "--table", before, "--endpoint", ep, "--apply-indexes")
	if code != 0 || !strings.Contains(errs+out, "applying the phase's indexes (create [GSI3]") || !strings.Contains(out, "the migration is done") {
		t.Fatalf("migrate --apply-indexes: exit %d\n%s%s", code, out, errs)
	}
	desc, err := sm.client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(before)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range desc.Table.GlobalSecondaryIndexes {
		names = append(names, aws.ToString(g.IndexName))
	}
	if !slices.Contains(names, "GSI3") {
		t.Errorf("indexes after --apply-indexes: %v, want GSI3 among them", names)
	}
}

// --verify writes nothing: before a backfill it finds the items still to
// rewrite and leaves the lock; after one (here the library's, as the
// construct's state machine would run it) it advances the lock.
func TestMigrateVerify(t *testing.T) {
	t.Parallel()
	sm := newShopMigration(t, 500)
	ep := engine(t)
	code, out, errs := keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep, "--verify")
	if code != 1 || !strings.Contains(errs, "still need the phase's keys") || !strings.Contains(out, "verified in") {
		t.Fatalf("verify before the backfill: exit %d\n%s%s", code, out, errs)
	}
	r, err := migration.NewRekeyer(sm.lock, sm.client, sm.table)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Backfill(context.Background(), sm.client, migration.BackfillOptions{Segments: 2}); err != nil {
		t.Fatal(err)
	}
	code, out, errs = keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep, "--verify")
	if code != 0 || !strings.Contains(out, "0 still to rewrite") || !strings.Contains(out, "the migration is done") {
		t.Fatalf("verify after the backfill: exit %d\n%s%s", code, out, errs)
	}
}

// Killed (SIGKILL) in the middle, migrate resumes from its checkpoint
// when run again, and the table ends as an uninterrupted run leaves it.
func TestMigrateResumesAfterSIGKILL(t *testing.T) {
	t.Parallel()
	bin := buildKeyplan(t)
	const n = 4000
	sm := newShopMigration(t, n)
	ep := engine(t)
	// The twin: same items, migrated without a stop (its own lock copy).
	twinDir := t.TempDir()
	twinModel := filepath.Join(twinDir, "shop.yaml")
	b, _ := os.ReadFile(sm.model)
	os.WriteFile(twinModel, b, 0o644)
	lb, _ := os.ReadFile(sm.lockFile)
	os.WriteFile(patterns.LockPath(twinModel), lb, 0o644)
	twin := "twin-" + sm.table
	sm.load(t, twin, n)
	if code, out, errs := keyplan("migrate", twinModel, "--table", twin, "--endpoint", ep, "--segments", "2"); code != 0 {
		t.Fatalf("the uninterrupted run: %s%s", out, errs)
	}

	checkpoint := strings.TrimSuffix(sm.model, ".yaml") + ".migrate." + sm.table + ".json"
	args := []string{"migrate", sm.model, "--table", sm.table, "--endpoint", ep, "--segments", "2", "--page-size", "50", "--max-wcu", "400"}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20"), engineOn.Environ()...) // the engine's key
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	var scanned int64
	for time.Now().Before(deadline) {
		if cp, _ := migration.ReadCheckpoint(checkpoint); cp != nil && cp.Stats.Rewritten > 300 {
			scanned = cp.Stats.Scanned
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if scanned == 0 {
		cmd.Process.Kill()
		t.Fatalf("no progress in the checkpoint\n%s%s", stdout.String(), stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if l, _ := patterns.LoadLock(sm.lockFile); l.Migration == nil {
		t.Fatal("the killed run advanced the lock")
	}
	code, out, errs := keyplan(append(args[:len(args)-2], "--max-wcu", "0")...)
	if code != 0 || !strings.Contains(out, "resumed") {
		t.Fatalf("the resumed run: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(checkpoint); !os.IsNotExist(err) {
		t.Error("the checkpoint is left after the resumed run")
	}
	t.Logf("killed after %d items scanned; %s", scanned, strings.TrimSpace(out))
	got, want := evolvetest.ScanAll(t, sm.client, sm.table), evolvetest.ScanAll(t, sm.client, twin)
	if len(got) != len(want) {
		t.Fatalf("%d items, the uninterrupted run's table has %d", len(got), len(want))
	}
	diff := 0
	for k, w := range want {
		if !sameItem(w, got[k]) {
			if diff++; diff <= 3 {
				t.Errorf("%s: %v\nuninterrupted: %v", k, got[k], w)
			}
		}
	}
	if diff > 0 {
		t.Errorf("%d item(s) differ from the uninterrupted run's", diff)
	}
}

// The acceptance run at scale (make test-scale: KEYPLAN_SCALE=100000):
// the shop with that many items migrated by keyplan migrate; afterwards
// validate --existing of the new version passes, every item has exactly
// the target keys, and the lock is at the target.
func TestMigrateAtScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KEYPLAN_SCALE"))
	if n == 0 {
		t.Skip("KEYPLAN_SCALE=N runs it with N items (make test-scale: 100000)")
	}
	start := time.Now()
	sm := newShopMigration(t, n)
	t.Logf("%d items loaded in %v", sm.items, time.Since(start).Round(time.Millisecond))
	ep := engine(t)
	start = time.Now()
	code, out, errs := keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep, "--progress", "10s")
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("migrate: %v\n%s%s", took.Round(time.Millisecond), out, errs)
	l, err := patterns.LoadLock(sm.lockFile)
	if err != nil || l.Migration != nil {
		t.Fatalf("the lock after migrate: %v", err)
	}
	code, out, errs = keyplan("validate", sm.model, "--existing", "--table", sm.table, "--endpoint", ep)
	if code != 0 {
		t.Errorf("validate --existing: exit %d\n%s%s", code, out, errs)
	}
	items := evolvetest.ScanAll(t, sm.client, sm.table)
	if len(items) != sm.items {
		t.Errorf("%d items after the migration, %d before", len(items), sm.items)
	}
	exactlyTarget(t, l.Accepted, items)
}

// migrate waits while the table (or a GSI) is still being built, then
// goes on.
func TestMigrateWaitsForTheTable(t *testing.T) {
	enginepass.Independent(t)
	wd, _ := os.Getwd()
	slow, err := dynalite.StartSlow(wd, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Stop()
	src, _ := os.ReadFile("../../" + evolvetest.ShopModel)
	src = append([]byte("indexKeys: synthetic\n"), src...) // dynalite has no native keys
	model := filepath.Join(t.TempDir(), "shop.yaml")
	os.WriteFile(model, src, 0o644)
	keyplan("lock", model)
	os.WriteFile(model, []byte(evolvetest.ShopV2(string(src))), 0o644)
	keyplan("lock", model)
	lock, err := patterns.LoadLock(patterns.LockPath(model))
	if err != nil {
		t.Fatal(err)
	}
	c := localengine.Client(slow.Endpoint, 0)
	if _, err := c.CreateTable(context.Background(), dynamo.LockTableInput(lock, "slow")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := keyplan("migrate", model, "--table", "slow", "--endpoint", slow.Endpoint)
	if code != 0 || !strings.Contains(errs, "waiting for slow") || !strings.Contains(out, "the migration is done") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}
