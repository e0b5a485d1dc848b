package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
	migration "github.com/keyplan/keyplan/patterns/dynamo/migrate"
	"github.com/keyplan/keyplan/patterns/model"
)

// migrate --table pointed at another model's table is refused before it
// writes anything there (no index created, no item touched).
func TestMigrateRefusesAnotherModelsTable(t *testing.T) {
	t.Parallel()
	sm := newShopMigration(t, 20)
	ep := engine(t)
	ctx := context.Background()
	src, err := os.ReadFile("../../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Parse("leaderboard.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	// The leaderboard as deployed: its lock's design (synthetic GSIs,
	// which every engine holds).
	boardLock, err := patterns.LoadLock("../../examples/leaderboard.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	board, err := patterns.PlanLocked(m, boardLock)
	if err != nil {
		t.Fatal(err)
	}
	other := "board-" + sm.table
	tbl := dynamo.New(board, sm.client, other)
	if err := dynamo.CreateTable(ctx, sm.client, board, other); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(other)}) })
	var players []map[string]types.AttributeValue // written as a bulk load (dynalite has no transactions)
	for _, it := range m.Examples.Items {
		if it.Entity == "Player" {
			its, err := tbl.Items(it.Entity, it.Values)
			if err != nil {
				t.Fatal(err)
			}
			players = append(players, its...)
		}
	}
	if err := dynamo.BatchPut(ctx, sm.client, other, players); err != nil {
		t.Fatal(err)
	}
	before := evolvetest.ScanAll(t, sm.client, other)
	code, out, errs := keyplan("migrate", sm.model, "--table", other, "--endpoint", ep, "--apply-indexes")
	if code != 2 || !strings.Contains(errs, "not this model's table") || !strings.Contains(errs, "none of the") {
		t.Fatalf("migrate on the leaderboard's table: exit %d\n%s%s", code, out, errs)
	}
	desc, err := sm.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(other)})
	if err != nil {
		t.Fatal(err)
	}
	if len(desc.Table.GlobalSecondaryIndexes) != len(board.Indexes) {
		t.Errorf("the refused run changed the other table's GSIs: %d, had %d", len(desc.Table.GlobalSecondaryIndexes), len(board.Indexes))
	}
	if after := evolvetest.ScanAll(t, sm.client, other); len(after) != len(before) {
		t.Errorf("the refused run changed the other table: %d items, had %d", len(after), len(before))
	}
	if l, _ := patterns.LoadLock(sm.lockFile); l.Migration == nil || l.Migration.Current != 0 {
		t.Error("the refused run moved the lock")
	}
}

// A checkpoint belongs to its table: a run stopped on one engine's table
// and resumed against another engine's table of the same name is
// refused; a checkpoint edited to mark every segment done advances
// nothing (the verifying scan finds the items still to rewrite, the lock
// stays), and the next run does the work.
func TestMigrateCheckpointIsTheTables(t *testing.T) {
	t.Parallel()
	sm := newShopMigration(t, 600)
	ep := engine(t)
	checkpoint := strings.TrimSuffix(sm.model, ".yaml") + ".migrate." + sm.table + ".json"
	// A run on the first engine, stopped as a kill would leave it: its
	// checkpoint, part-way.
	ctx, cancel := context.WithCancel(context.Background())
	r, err := migration.NewRekeyer(sm.lock, sm.client, sm.table)
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	_, _ = r.Backfill(ctx, sm.client, migration.BackfillOptions{Segments: 2, PageSize: 50, Checkpoint: checkpoint, ProgressEvery: 1,
		Progress: func(p migration.BackfillProgress) {
			if pages++; p.Stats.Scanned > 100 {
				cancel()
			}
		}})
	cancel()
	if _, err := os.Stat(checkpoint); err != nil {
		t.Fatalf("no checkpoint after the stopped run: %v", err)
	}
	// Another engine, a table of the same name with the same items.
	second, err := dynamotest.New()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Stop()
	twin := &shopMigration{model: sm.model, lockFile: sm.lockFile, lock: sm.lock, client: localengine.Client(second.Endpoint, 0), examples: sm.examples}
	twin.load(t, sm.table, 600)
	code, out, errs := keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", second.Endpoint, "--segments", "2", "--page-size", "50")
	if code == 0 || !strings.Contains(errs, "is a checkpoint of another table") {
		t.Fatalf("resumed against another engine's table: exit %d\n%s%s", code, out, errs)
	}
	if l, _ := patterns.LoadLock(sm.lockFile); l.Migration == nil {
		t.Fatal("the refused run advanced the lock")
	}
	// Every segment marked done by hand, on the table it belongs to.
	var cp map[string]any
	b, _ := os.ReadFile(checkpoint)
	json.Unmarshal(b, &cp)
	cp["done"], cp["next"] = []bool{true, true}, []any{nil, nil}
	b, _ = json.Marshal(cp)
	os.WriteFile(checkpoint, b, 0o644)
	code, out, errs = keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep, "--segments", "2", "--page-size", "50")
	if code != 1 || !strings.Contains(errs, "still need the phase's keys") {
		t.Fatalf("a forged checkpoint: exit %d\n%s%s", code, out, errs)
	}
	if l, _ := patterns.LoadLock(sm.lockFile); l.Migration == nil || l.Migration.Current != 0 {
		t.Fatal("a forged checkpoint advanced the lock")
	}
	code, out, errs = keyplan("migrate", sm.model, "--table", sm.table, "--endpoint", ep, "--segments", "2")
	if code != 0 || !strings.Contains(out, "the migration is done") {
		t.Fatalf("the next run: exit %d\n%s%s", code, out, errs)
	}
	exactlyTarget(t, sm.lock.Migration.Target, evolvetest.ScanAll(t, sm.client, sm.table))
}

// One committed lock drives staging, then prod: each phase of an edit
// that gives Order two new GSIs is verified on staging's table, then on
// prod's, and only then does the lock advance; prod cannot go first, and
// the migration ends only once prod has verified the last phase. Both
// tables end at the target, and each records the phases it verified.
// Keyed synthetic, both phases backfill Order; keyed as the shop says
// (auto), both are index builds (KP615), one deploy each (CloudFormation
// creates one GSI per update): phases with no backfill, which each table
// must record as verified all the same.
func TestMigrateStagingThenProd(t *testing.T) {
	t.Parallel()
	for _, keys := range []model.IndexKeys{model.IndexKeysSynthetic, model.IndexKeysAuto} {
		t.Run(string(keys), func(t *testing.T) { testStagingThenProd(t, keys) })
	}
}

func testStagingThenProd(t *testing.T, keys model.IndexKeys) {
	ep := engine(t)
	if why := engineOn.Lacks(localengine.OnlineIndexes); why != "" {
		t.Skipf("%s: keyplan migrate --apply-indexes cannot create the phases' GSIs", why)
	}
	if why := engineOn.Lacks(localengine.MultiAttributeKeys); why != "" && keys != model.IndexKeysSynthetic {
		t.Skipf("%s: the shop keyed natively is proved on the in-process engine", why)
	}
	src, err := os.ReadFile("../../" + evolvetest.ShopModel)
	if err != nil {
		t.Fatal(err)
	}
	src = append([]byte("indexKeys: "+string(keys)+"\n"), src...)
	sm := &shopMigration{model: filepath.Join(t.TempDir(), "shop.yaml")}
	sm.lockFile = patterns.LockPath(sm.model)
	os.WriteFile(sm.model, src, 0o644)
	if code, out, errs := keyplan("lock", sm.model, "--environments", "staging,prod"); code != 0 {
		t.Fatalf("lock: %s%s", out, errs)
	}
	v1, _ := model.Parse("shop.yaml", src)
	sm.examples = v1.Examples.Items
	sm.lock, _ = patterns.LoadLock(sm.lockFile)
	sm.client = localengine.Client(ep, 0)
	n := tableSeq.Add(1)
	staging, prod := fmt.Sprintf("staging-%d", n), fmt.Sprintf("prod-%d", n)
	sm.load(t, staging, 200)
	sm.load(t, prod, 300)
	v2 := strings.Replace(string(src), "  GetProduct:         {get: Product, rate: 300}\n",
		"  GetProduct:         {get: Product, rate: 300}\n  OrdersAt: {query: Order, where: [createdAt]}\n  OrdersByTotal: {query: Order, where: [total]}\n", 1)
	os.WriteFile(sm.model, []byte(v2), 0o644)
	if code, out, errs := keyplan("lock", sm.model); code != 0 || !strings.Contains(out, "migration at phase 1 of") {
		t.Fatalf("lock v2: %s%s", out, errs)
	}
	lock := func() *patterns.Lock {
		l, err := patterns.LoadLock(sm.lockFile)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	phases := len(lock().Migration.Phases)
	builds := 0 // phases with no backfill
	for _, p := range lock().Migration.Phases {
		if len(p.Backfill) == 0 {
			builds++
		}
	}
	if want := map[model.IndexKeys]int{model.IndexKeysSynthetic: 0, model.IndexKeysAuto: 2}[keys]; builds != want {
		t.Fatalf("%d phase(s) of %d with no backfill, want %d: %v", builds, phases, want, lock().Migration.Phases)
	}
	run := func(env, table string) (int, string) {
		code, out, errs := keyplan("migrate", sm.model, "--table", table, "--endpoint", ep, "--environment", env, "--apply-indexes")
		return code, out + errs
	}
	for phase := range phases {
		if code, out := run("prod", prod); code != 2 || !strings.Contains(out, "prod verifies phase") {
			t.Fatalf("phase %d: prod before staging: exit %d\n%s", phase+1, code, out)
		}
		if code, out := run("staging", staging); code != 0 || !strings.Contains(out, "the lock advances once prod has") {
			t.Fatalf("phase %d: staging: exit %d\n%s", phase+1, code, out)
		}
		if l := lock(); l.Migration == nil || l.Migration.Current != phase {
			t.Fatalf("phase %d: staging alone moved the lock", phase+1)
		}
		// Again: nothing to do, staging waits for prod.
		if code, out := run("staging", staging); code != 0 || !strings.Contains(out, "the lock advances once prod has") {
			t.Fatalf("phase %d: staging again: exit %d\n%s", phase+1, code, out)
		}
		code, out := run("prod", prod)
		if code != 0 {
			t.Fatalf("phase %d: prod: exit %d\n%s", phase+1, code, out)
		}
		if phase+1 < phases {
			if l := lock(); l.Migration == nil || l.Migration.Current != phase+1 {
				t.Fatalf("after prod verified phase %d: %+v\n%s", phase+1, l.Migration, out)
			}
		} else if !strings.Contains(out, "the migration is done") {
			t.Fatalf("prod verified the last phase:\n%s", out)
		}
	}
	l := lock()
	if l.Migration != nil {
		t.Fatal("the migration is not over")
	}
	for _, table := range []string{staging, prod} {
		exactlyTarget(t, l.Accepted, evolvetest.ScanAll(t, sm.client, table))
		if code, out, errs := keyplan("validate", sm.model, "--existing", "--table", table, "--endpoint", ep); code != 0 {
			t.Errorf("validate --existing on %s: exit %d\n%s%s", table, code, out, errs)
		}
	}
}

// An environment's verification is witnessed by its own table, not by a
// line in the lock (issue 34): a lock edited to say staging verified a
// phase lets prod advance (prod cannot read staging's table), and then
// staging's next run is refused (exit 2), saying its table records no
// such verification and how to recover; nothing is changed. Put back as
// the lock was, staging verifies, prod verifies again (its table records
// the phase: nothing to rewrite) and the migration ends, witnessed: the
// next run of each goes on. Two tables, a migration of two phases: the
// forgery is found within the migration and after its end.
func TestAForgedVerificationIsRefusedOnTheEnvironmentsNextRun(t *testing.T) {
	t.Parallel()
	ep := engine(t)
	if why := engineOn.Lacks(localengine.OnlineIndexes); why != "" {
		t.Skipf("%s: keyplan migrate --apply-indexes cannot create the phases' GSIs", why)
	}
	src, err := os.ReadFile("../../" + evolvetest.ShopModel)
	if err != nil {
		t.Fatal(err)
	}
	src = append([]byte("indexKeys: synthetic\n"), src...)
	sm := &shopMigration{model: filepath.Join(t.TempDir(), "shop.yaml")}
	sm.lockFile = patterns.LockPath(sm.model)
	os.WriteFile(sm.model, src, 0o644)
	if code, out, errs := keyplan("lock", sm.model, "--environments", "staging,prod"); code != 0 {
		t.Fatalf("lock: %s%s", out, errs)
	}
	v1, _ := model.Parse("shop.yaml", src)
	sm.examples = v1.Examples.Items
	sm.lock, _ = patterns.LoadLock(sm.lockFile)
	sm.client = localengine.Client(ep, 0)
	n := tableSeq.Add(1)
	staging, prod := fmt.Sprintf("staging-%d", n), fmt.Sprintf("prod-%d", n)
	sm.load(t, staging, 100)
	sm.load(t, prod, 150)
	v2 := strings.Replace(string(src), "  GetProduct:         {get: Product, rate: 300}\n",
		"  GetProduct:         {get: Product, rate: 300}\n  OrdersAt: {query: Order, where: [createdAt]}\n  OrdersByTotal: {query: Order, where: [total]}\n", 1)
	os.WriteFile(sm.model, []byte(v2), 0o644)
	if code, out, errs := keyplan("lock", sm.model); code != 0 {
		t.Fatalf("lock v2: %s%s", out, errs)
	}
	lock := func() *patterns.Lock {
		l, err := patterns.LoadLock(sm.lockFile)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if n := len(lock().Migration.Phases); n != 2 {
		t.Fatalf("%d phases, want 2", n)
	}
	run := func(env, table string, more ...string) (int, string) {
		code, out, errs := keyplan(append([]string{"migrate", sm.model, "--table", table, "--endpoint", ep, "--environment", env, "--apply-indexes"}, more...)...)
		return code, out + errs
	}
	// forge writes the lock claiming staging verified the current phase
	// (as a pull request could), and returns the lock as it was.
	forge := func() []byte {
		before, err := os.ReadFile(sm.lockFile)
		if err != nil {
			t.Fatal(err)
		}
		l := lock()
		l.Migration.Verified = []string{"staging"}
		if err := l.WriteFile(sm.lockFile); err != nil {
			t.Fatal(err)
		}
		return before
	}
	refused := func(when string, want ...string) {
		t.Helper()
		before, _ := os.ReadFile(sm.lockFile)
		code, out := run("staging", staging)
		for _, w := range append(want, "does not record", "nothing was changed. To recover: put back the lock") {
			if code != 2 || !strings.Contains(out, w) {
				t.Fatalf("%s: staging's next run: exit %d, want 2 saying %q\n%s", when, code, w, out)
			}
		}
		if after, _ := os.ReadFile(sm.lockFile); string(after) != string(before) {
			t.Errorf("%s: the refused run changed the lock", when)
		}
	}

	// Phase 1, forged: prod verifies and the lock moves to phase 2.
	atPhase1 := forge()
	if code, out := run("prod", prod); code != 0 {
		t.Fatalf("prod on the forged lock: exit %d\n%s", code, out)
	}
	if l := lock(); l.Migration == nil || l.Migration.Current != 1 {
		t.Fatalf("the forged lock did not advance: %+v", l.Migration)
	}
	refused("within the migration", "at phase 2 of 2", "records 0 phase(s) verified")

	// Recovered from phase 1; then phase 2 forged: prod ends the migration.
	os.WriteFile(sm.lockFile, atPhase1, 0o644)
	for _, env := range []struct{ name, table string }{{"staging", staging}, {"prod", prod}} {
		if code, out := run(env.name, env.table); code != 0 {
			t.Fatalf("recovering phase 1, %s: exit %d\n%s", env.name, code, out)
		}
	}
	atPhase2 := forge()
	if code, out := run("prod", prod); code != 0 || !strings.Contains(out, "the migration is done") {
		t.Fatalf("prod on the forged lock's last phase: exit %d\n%s", code, out)
	}
	if l := lock(); l.Migration != nil || l.Ended == nil || l.Ended.Phases != 2 {
		t.Fatalf("the migration did not end, recorded: %+v %+v", l.Migration, l.Ended)
	}
	refused("after the migration ended", "last migration (2 phase(s)) has ended", "records 1 of them verified")

	// Recovered: the migration ends witnessed by both tables.
	os.WriteFile(sm.lockFile, atPhase2, 0o644)
	for _, env := range []struct{ name, table string }{{"staging", staging}, {"prod", prod}} {
		if code, out := run(env.name, env.table); code != 0 {
			t.Fatalf("recovering phase 2, %s: exit %d\n%s", env.name, code, out)
		}
	}
	l := lock()
	if l.Migration != nil || l.Ended == nil {
		t.Fatalf("after the recovery: %+v %+v", l.Migration, l.Ended)
	}
	for _, env := range []struct{ name, table string }{{"staging", staging}, {"prod", prod}} {
		if code, out := run(env.name, env.table, "--deployed"); code != 0 { // the cleanup
			t.Errorf("%s's next run after a witnessed end: exit %d\n%s", env.name, code, out)
		}
		exactlyTarget(t, l.Accepted, evolvetest.ScanAll(t, sm.client, env.table))
	}
}
