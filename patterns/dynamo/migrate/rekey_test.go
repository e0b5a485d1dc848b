package migrate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/faults"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/prove"
)

// migration is the shop at phase 1 of its move to ShopV2, on a table of
// its own holding the example items and n generated ones, written by the
// accepted design (so none has the new keys).
type migration struct {
	lock   *patterns.Lock
	v1, v2 *patterns.Design
	table  string
	items  int // items written (guards included)
}

func newMigration(t testing.TB, n int) *migration {
	t.Helper()
	m1, _, lock := evolvetest.ShopMigration(t, "../../..")
	mg := &migration{lock: lock, v1: lock.Accepted, v2: lock.Migration.Target}
	mg.table = fmt.Sprintf("t%d-%s", tables.Add(1), mg.v1.Table)
	ctx := context.Background()
	if err := dynamo.CreateLockTable(ctx, engine, mg.lock, mg.table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(mg.table)}) })
	v1 := dynamo.New(mg.v1, nil, mg.table)
	var all []map[string]types.AttributeValue
	load := func(entity string, v map[string]any) {
		items, err := v1.Items(entity, dynamo.Values(v))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, items...)
	}
	for _, it := range m1.Examples.Items {
		load(it.Entity, it.Values)
	}
	for _, it := range evolvetest.ShopItems(n) {
		load(it.Entity, it.Values)
	}
	if err := dynamo.BatchPut(ctx, engine, mg.table, all); err != nil {
		t.Fatal(err)
	}
	mg.items = len(all)
	return mg
}

// checkTarget asserts every item of the table is what the rollout
// runtime writes for its values, on every attribute.
func checkTarget(t testing.TB, l *patterns.Lock, items map[string]map[string]types.AttributeValue) {
	t.Helper()
	rt := dynamo.NewRollout(l, nil, "x")
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
		if !reflect.DeepEqual(slices.Sorted(maps.Keys(it)), slices.Sorted(maps.Keys(want))) {
			if bad++; bad < 5 {
				t.Errorf("%s has %v, want %v", k, slices.Sorted(maps.Keys(it)), slices.Sorted(maps.Keys(want)))
			}
			continue
		}
		for a, x := range want {
			if !dynamo.SameValue(it[a], x) {
				if bad++; bad < 5 {
					t.Errorf("%s.%s = %v, want %v", k, a, it[a], x)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d item(s) differ from the target", bad)
	}
}

// A backfill makes every item carry the phase's keys and nothing else,
// rewrites exactly the items of the phase's entities, is idempotent, and
// leaves a table the new reads serve.
func TestBackfillRewritesThePhase(t *testing.T) {
	t.Parallel()
	mg := newMigration(t, 600)
	ctx := context.Background()
	r, err := NewRekeyer(mg.lock, engine, mg.table)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "backfill.json")
	res, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 3, PageSize: 50, Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	var orders, products int64
	for _, it := range append(evolvetest.ShopItems(600), evolvetest.Item{}) {
		switch it.Entity {
		case "Order":
			orders++
		case "Product":
			products++
		}
	}
	orders, products = orders+3, products+3 // the examples'
	s := res.Stats
	if s.Scanned != int64(mg.items) || s.Rewritten != orders+products || s.Failed != 0 || s.Skipped != int64(mg.items)-orders-products {
		t.Errorf("stats %+v; want %d scanned, %d rewritten, %d skipped", s, mg.items, orders+products, int64(mg.items)-orders-products)
	}
	if _, err := os.Stat(cp); !os.IsNotExist(err) {
		t.Error("the checkpoint is left behind after a complete run")
	}
	checkTarget(t, mg.lock, evolvetest.ScanAll(t, engine, mg.table))
	// Twice: nothing to do.
	again, _ := NewRekeyer(mg.lock, engine, mg.table)
	res, err = again.Backfill(ctx, engine, BackfillOptions{Segments: 2})
	if err != nil || res.Stats.Rewritten != 0 || res.Stats.Unchanged != orders+products {
		t.Errorf("second run: %+v, %v; want nothing rewritten", res.Stats, err)
	}
	// The phase done, the new reads serve every item, in order.
	if err := mg.lock.Advance(); err != nil || mg.lock.Migration != nil {
		t.Fatalf("Advance: %v", err)
	}
	rep := prove.ValidateExisting(ctx, dynamo.New(mg.v2, client, mg.table))
	for _, r := range rep.Results {
		if !r.OK() {
			t.Errorf("after the backfill: %s", r)
		}
	}
	if len(rep.Results) != len(mg.v2.Model().Examples.Expect) || rep.Loaded != 0 {
		t.Errorf("%d results, %d loaded", len(rep.Results), rep.Loaded)
	}
}

// The rekey engine owns only keys and renamed attributes: attributes a
// stream handler maintains (here Order.customerName, a copy) or the
// application writes are never touched, and a concurrent writer's
// updates are never lost: each item ends as the writer last left it,
// with the keys its final values give.
func TestBackfillUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	mg := newMigration(t, 1500)
	ctx := context.Background()
	rt := dynamo.NewRollout(mg.lock, client, mg.table)
	var products []dynamo.Values
	for _, it := range evolvetest.ShopItems(1500) {
		if it.Entity == "Product" {
			products = append(products, dynamo.Values(it.Values))
		}
	}
	// Three writers, each with its own products (so each knows exactly
	// what it last wrote): prices through the rollout runtime (a key
	// attribute: the item moves in GSI2), inventory with a hand-written
	// ADD (an attribute keyplan does not own).
	const writers = 3
	views := make([]map[string]dynamo.Values, writers)
	var (
		stop   atomic.Bool
		writes atomic.Int64
		wg     sync.WaitGroup
	)
	for w := range writers {
		views[w] = map[string]dynamo.Values{}
		for i, p := range products {
			if i%writers == w {
				views[w][p["productId"].(string)] = maps.Clone(p)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 9))
			ids := slices.Sorted(maps.Keys(views[w]))
			for !stop.Load() {
				id := ids[rnd.IntN(len(ids))]
				cur := views[w][id]
				if rnd.IntN(2) == 0 {
					next := maps.Clone(cur)
					next["price"] = rnd.IntN(100000)
					if err := rt.Replace(ctx, "Product", cur, next); err != nil {
						t.Error(err)
						return
					}
					views[w][id] = next
				} else {
					upd, _ := expression.NewBuilder().WithUpdate(expression.Add(expression.Name("inventory"), expression.Value(1))).Build()
					key, _ := rt.Key("Product", cur)
					if _, err := engine.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(mg.table), Key: key,
						UpdateExpression: upd.Update(), ExpressionAttributeNames: upd.Names(), ExpressionAttributeValues: upd.Values()}); err != nil {
						t.Error(err)
						return
					}
					cur["inventory"] = cur["inventory"].(int) + 1
				}
				writes.Add(1)
			}
		}()
	}
	r, err := NewRekeyer(mg.lock, engine, mg.table)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	res, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 4, PageSize: 25})
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if writes.Load() < 100 {
		t.Fatalf("only %d concurrent writes: the test proves nothing", writes.Load())
	}
	t.Logf("%d concurrent writes, %d conflicts re-read, stats %+v", writes.Load(), res.Stats.Conflicts, res.Stats)
	items := evolvetest.ScanAll(t, engine, mg.table)
	checkTarget(t, mg.lock, items)
	lost := 0
	for _, view := range views {
		for id, v := range view {
			key, _ := rt.Key("Product", v)
			it := items[key["PK"].(*types.AttributeValueMemberS).Value+"|"+key["SK"].(*types.AttributeValueMemberS).Value]
			_, got, err := rt.Decode(it)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got["price"]) != fmt.Sprint(v["price"]) || fmt.Sprint(got["inventory"]) != fmt.Sprint(v["inventory"]) {
				if lost++; lost < 5 {
					t.Errorf("%s: price %v inventory %v, the writer's last is %v and %v", id, got["price"], got["inventory"], v["price"], v["inventory"])
				}
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d product(s) lost a concurrent write", lost)
	}
}

// stopAfter cancels a run after n Scan pages: a killed process, as far as
// the table and the checkpoint can tell.
type stopAfter struct {
	BackfillClient
	n      atomic.Int64
	cancel context.CancelFunc
}

func (s *stopAfter) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if s.n.Add(-1) < 0 {
		s.cancel()
		return nil, context.Canceled
	}
	return s.BackfillClient.Scan(ctx, in, opts...)
}

// Stopped in the middle and run again, a backfill resumes from its
// checkpoint and ends with the table an uninterrupted run leaves; through
// a proxy failing 20% of requests (some after the engine applied them) it
// ends the same too.
func TestBackfillResumesAndSurvivesFaults(t *testing.T) {
	t.Parallel()
	const n = 1200
	clean := newMigration(t, n)
	ctx := context.Background()
	r, _ := NewRekeyer(clean.lock, engine, clean.table)
	if _, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 3, PageSize: 40}); err != nil {
		t.Fatal(err)
	}
	want := evolvetest.ScanAll(t, engine, clean.table)

	// Stopped after 7 pages, then resumed.
	resumed := newMigration(t, n)
	cp := filepath.Join(t.TempDir(), "backfill.json")
	stopCtx, cancel := context.WithCancel(ctx)
	sa := &stopAfter{BackfillClient: engine, cancel: cancel}
	sa.n.Store(7)
	r, _ = NewRekeyer(resumed.lock, engine, resumed.table)
	if _, err := r.Backfill(stopCtx, sa, BackfillOptions{Segments: 3, PageSize: 40, Checkpoint: cp}); err == nil {
		t.Fatal("the stopped run reports no error")
	}
	mid := readCheckpoint(t, cp)
	if mid.Stats.Scanned == 0 || slices.Equal(mid.Done, []bool{true, true, true}) {
		t.Fatalf("the checkpoint after 7 pages: %+v", mid)
	}
	r, _ = NewRekeyer(resumed.lock, engine, resumed.table)
	if _, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 2, Checkpoint: cp}); err == nil {
		t.Error("resuming with other segments is accepted")
	}
	res, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 3, PageSize: 40, Checkpoint: cp})
	if err != nil || !res.Resumed {
		t.Fatalf("resume: %v (resumed %v)", err, res.Resumed)
	}
	if res.Stats.Scanned-mid.Stats.Scanned >= int64(resumed.items) {
		t.Errorf("the resumed run scanned %d items again: it started over", res.Stats.Scanned-mid.Stats.Scanned)
	}
	sameTables(t, want, evolvetest.ScanAll(t, engine, resumed.table))

	// Through faults.
	faulty := newMigration(t, n)
	proxy, err := faults.New(engineEndpoint, 0.2, 11, faults.AfterForwarding())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	fc := dynamodb.New(enginepkg.Client(proxy.URL, 0).Options(), faults.FastRetries)
	r, _ = NewRekeyer(faulty.lock, fc, faulty.table)
	if _, err := r.Backfill(ctx, fc, BackfillOptions{Segments: 3, PageSize: 40}); err != nil {
		t.Fatal(err)
	}
	if proxy.Failed() < 100 || proxy.Lost() == 0 {
		t.Errorf("%d failed requests, %d lost responses: the proxy did not bite", proxy.Failed(), proxy.Lost())
	}
	t.Logf("faults: %d failed requests, %d of them applied", proxy.Failed(), proxy.Lost())
	sameTables(t, want, evolvetest.ScanAll(t, engine, faulty.table))
}

func readCheckpoint(t *testing.T, path string) *Checkpoint {
	t.Helper()
	c, err := ReadCheckpoint(path)
	if err != nil || c == nil {
		t.Fatalf("checkpoint: %v, %v", c, err)
	}
	return c
}

// sameTables compares two tables' items by key and value.
func sameTables(t *testing.T, want, got map[string]map[string]types.AttributeValue) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%d items, want %d", len(got), len(want))
	}
	bad := 0
	for k, w := range want {
		g := got[k]
		if len(g) != len(w) {
			if bad++; bad < 5 {
				t.Errorf("%s has %v, want %v", k, slices.Sorted(maps.Keys(g)), slices.Sorted(maps.Keys(w)))
			}
			continue
		}
		for a, x := range w {
			if !dynamo.SameValue(g[a], x) {
				if bad++; bad < 5 {
					t.Errorf("%s.%s is %v, want %v", k, a, g[a], x)
				}
				break
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d item(s) differ from the uninterrupted run's", bad)
	}
}

// A verification before the backfill finds the items still to rewrite:
// not Complete (ErrIncomplete); after the backfill it is. Progress is
// reported while the run goes on, and the segments of a checkpoint are
// those a resumed run takes.
func TestBackfillCompleteAndProgress(t *testing.T) {
	mg := newMigration(t, 300)
	ctx := context.Background()
	verify, err := NewRekeyer(mg.lock, engine, mg.table)
	if err != nil {
		t.Fatal(err)
	}
	verify.DryRun = true
	var reports atomic.Int64
	res, err := verify.Backfill(ctx, engine, BackfillOptions{Segments: 2, PageSize: 10, ProgressEvery: time.Millisecond,
		Progress: func(p BackfillProgress) {
			if p.Elapsed > 0 && p.Stats.Scanned >= p.Before.Scanned {
				reports.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Complete(); !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "still need the phase's keys") {
		t.Errorf("a verification before the backfill: Complete() = %v; want the items still to rewrite", err)
	}
	if reports.Load() == 0 {
		t.Error("no progress reported")
	}
	r, _ := NewRekeyer(mg.lock, engine, mg.table)
	if res, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 2}); err != nil || res.Complete() != nil {
		t.Fatalf("the backfill: %v, Complete() = %v", err, res.Complete())
	}
	again, _ := NewRekeyer(mg.lock, engine, mg.table)
	again.DryRun = true
	if res, err := again.Backfill(ctx, engine, BackfillOptions{Segments: 2}); err != nil || res.Complete() != nil {
		t.Errorf("a verification after the backfill: %v, Complete() = %v", err, res.Complete())
	}
	if (&BackfillResult{Stats: CheckpointStats{Failed: 2}}).Complete() == nil {
		t.Error("failed items: Complete() = nil")
	}
	cp := filepath.Join(t.TempDir(), "cp.json")
	os.WriteFile(cp, []byte(`{"format": 2, "identity": {"stamp": "s"}, "segments": 7, "next": [{},{},{},{},{},{},{}], "done": [false,false,false,false,false,false,false]}`), 0o644)
	if n := SegmentsFor(nil, cp); n != 7 {
		t.Errorf("SegmentsFor a checkpoint of 7 segments = %d", n)
	}
	if n := SegmentsFor(nil, filepath.Join(t.TempDir(), "none.json")); n != DefaultSegments(nil) {
		t.Errorf("SegmentsFor without a checkpoint = %d, want DefaultSegments", n)
	}
}
