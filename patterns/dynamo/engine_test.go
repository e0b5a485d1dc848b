package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// One engine for the package: $KEYPLAN_ENGINE's (in process by default),
// unless KEYPLAN_DYNAMODB_ENDPOINT points at another.
var (
	engine         *dynamodb.Client
	engineEndpoint string
	engineName     = "endpoint" // or the engine TestMain started
	client         Client
	tables         atomic.Int64
	// conn is the engine's connection (what it lacks: conn.Lacks).
	conn *enginepkg.Conn
)

func TestMain(m *testing.M) {
	// dynamotest starts engines for everyone else; it imports this
	// package, so these tests connect as it does, with engine.Connect.
	enginepass.Main(m, func(c *enginepkg.Conn) {
		conn, engineName, engineEndpoint, engine, client = c, c.Name, c.Endpoint, c.Raw, c.DB
	})
}

// The engine the tests run on, with the variables that chose it read
// inside a test, so go test's cache keys this package's result on them
// (TestMain's reads are not seen).
func TestEngine(t *testing.T) {
	t.Logf("engine %s at %s (%s)", engineName, engineEndpoint, enginepkg.Env())
}

// fresh creates the design's table under a new name.
func fresh(t testing.TB, d *patterns.Design) *Table {
	t.Helper()
	name := fmt.Sprintf("t%d-%s", tables.Add(1), d.Table)
	ctx := context.Background()
	if err := CreateTable(ctx, engine, d, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return New(d, client, name)
}

func design(t testing.TB, path string) *patterns.Design {
	t.Helper()
	return load(t, path).d
}

// keyings are the ways the tests key GSIs: synthetic on every engine,
// and as the model says (native where it can be) on an engine that has
// native keys; on one without, that run skips, saying why.
var keyings = []model.IndexKeys{model.IndexKeysSynthetic, model.IndexKeysAuto}

// needsNative skips t when d has a native index of several attributes a
// side and the engine lacks them (enginepass.NeedsNative).
func needsNative(t testing.TB, d *patterns.Design) {
	t.Helper()
	enginepass.NeedsNative(t, conn, d, func(ctx context.Context) (string, error) {
		name := fmt.Sprintf("t%d-%s", tables.Add(1), d.Table)
		return name, CreateTable(ctx, engine, d, name)
	})
}

func names2(items []Item, key string) []string {
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprint(it.Values[key]))
	}
	return out
}

func TestLeaderboardRanksNumerically(t *testing.T) {
	tbl := fresh(t, design(t, "../../examples/leaderboard.yaml"))
	ctx := context.Background()
	for i, r := range []int{1842, 9, 1000, 990} {
		p := with(player, "playerId", fmt.Sprintf("p%d", i))
		p["handle"], p["rating"] = fmt.Sprintf("h%d", i), r
		if err := tbl.Create(ctx, "Player", p); err != nil {
			t.Fatal(err)
		}
	}
	page, err := tbl.Read(ctx, "SeasonLeaderboard", Request{Params: Params{"season": "2026-Q2"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names2(page.Items, "rating"); !slices.Equal(got, []string{"1842", "1000", "990", "9"}) {
		t.Errorf("ranking %v", got)
	}
	page, _ = tbl.Read(ctx, "SeasonLeaderboard", Request{Params: Params{"season": "2026-Q2"}, Range: &Range{Op: "between", Value: 9, Upper: 990}})
	if got := names2(page.Items, "rating"); !slices.Equal(got, []string{"990", "9"}) {
		t.Errorf("between 9 and 990: %v", got)
	}
	page, _ = tbl.Read(ctx, "SeasonLeaderboard", Request{Params: Params{"season": "2026-Q2"}, Range: &Range{Op: "<", Value: 1000}})
	if got := names2(page.Items, "rating"); !slices.Equal(got, []string{"990", "9"}) {
		t.Errorf("< 1000: %v", got)
	}
	page, _ = tbl.Read(ctx, "SeasonLeaderboard", Request{Params: Params{"season": "2026-Q2"}, Range: &Range{Op: ">", Value: 990}})
	if got := names2(page.Items, "rating"); !slices.Equal(got, []string{"1842", "1000"}) {
		t.Errorf("> 990: %v", got)
	}
}

// A changed status moves an order out of the sparse pending index.
func TestSparseIndexFollowsStatus(t *testing.T) {
	tbl := fresh(t, design(t, "../../examples/merchant-orders.yaml"))
	ctx := context.Background()
	order := Values{"orderId": "o1", "userId": "u1", "merchantId": "m1", "status": "PENDING", "createdAt": "2026-04-21T10:15:00Z", "total": 100}
	if err := tbl.Put(ctx, "Order", order); err != nil {
		t.Fatal(err)
	}
	pending := func() int {
		page, err := tbl.Read(ctx, "PendingOrdersForMerchant", Request{Params: Params{"merchantId": "m1"}})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Items)
	}
	if n := pending(); n != 1 {
		t.Fatalf("%d pending", n)
	}
	shipped := with(order, "status", "ACCEPTED")
	if err := tbl.Replace(ctx, "Order", order, shipped); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n != 0 {
		t.Errorf("%d pending after the status changed", n)
	}
	if it, _ := tbl.Get(ctx, "GetOrder", Params{"orderId": "o1"}); it == nil || it.Values["status"] != "ACCEPTED" {
		t.Errorf("GetOrder: %+v", it)
	}
}

// Unique alternate keys: the guard refuses a taken value, moves with a
// change, and goes with the item.
func TestUniqueGuards(t *testing.T) {
	tbl := fresh(t, design(t, "../../examples/leaderboard.yaml"))
	ctx := context.Background()
	p1, p2 := with(player, "handle", "nighthawk"), with(with(player, "playerId", "p2"), "handle", "owl")
	for _, p := range []Values{p1, p2} {
		if err := tbl.Create(ctx, "Player", p); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.Create(ctx, "Player", p1); !errors.Is(err, ErrExists) {
		t.Errorf("creating p1 twice: %v", err)
	}
	clash := with(with(player, "playerId", "p3"), "handle", "owl")
	if err := tbl.Create(ctx, "Player", clash); !errors.Is(err, ErrNotUnique) || !strings.Contains(err.Error(), "PlayerByHandle HANDLE#owl free (unique): it is taken by Player p2") {
		t.Errorf("a taken handle: %v", err)
	}
	if it, _ := tbl.Get(ctx, "GetPlayer", Params{"playerId": "p3"}); it != nil {
		t.Errorf("the refused player was written: %v", it.Values)
	}
	// p1 takes "owl": refused; p1 renames to "hawk": the old handle frees up.
	if err := tbl.Replace(ctx, "Player", p1, with(p1, "handle", "owl")); !errors.Is(err, ErrNotUnique) {
		t.Errorf("renaming onto a taken handle: %v", err)
	}
	if it, _ := tbl.Get(ctx, "PlayerByHandle", Params{"handle": "nighthawk"}); it == nil {
		t.Error("a refused rename changed the item")
	}
	if err := tbl.Replace(ctx, "Player", p1, with(p1, "handle", "hawk")); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Replace(ctx, "Player", p1, with(p1, "rating", 5)); !errors.Is(err, ErrChanged) {
		t.Errorf("replacing with a stale old item: %v", err)
	}
	if err := tbl.Create(ctx, "Player", clash2(p1)); err != nil {
		t.Errorf("nighthawk should be free again: %v", err)
	}
	if it, _ := tbl.Get(ctx, "PlayerByHandle", Params{"handle": "hawk"}); it == nil || it.Values["playerId"] != "p1" {
		t.Errorf("PlayerByHandle(hawk) = %+v", it)
	}
	// Delete removes the guard: owl can be taken again.
	if err := tbl.Delete(ctx, "Player", p2); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Create(ctx, "Player", clash); err != nil {
		t.Errorf("owl after its owner was deleted: %v", err)
	}
	if err := tbl.Delete(ctx, "Player", p2); !errors.Is(err, ErrChanged) {
		t.Errorf("deleting twice: %v", err)
	}
	if err := tbl.Put(ctx, "Player", p1); err == nil {
		t.Error("Put of an entity with unique keys should be refused")
	}
}

func clash2(p Values) Values {
	return with(with(p, "playerId", "p9"), "handle", "nighthawk")
}

// Pages: All reads every page in order; ExclusiveStartKey continues.
func TestPagination(t *testing.T) {
	tbl := fresh(t, design(t, "../../examples/leaderboard.yaml"))
	ctx := context.Background()
	for i := range 7 {
		m := Values{"playerId": "p1", "playedAt": fmt.Sprintf("2026-06-23T1%d:00:00Z", i), "result": "win", "ratingDelta": i, "mapId": "m", "expiresAt": 1900000000}
		if err := tbl.Put(ctx, "Match", m); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for it, err := range tbl.All(ctx, "RecentMatches", Request{Params: Params{"playerId": "p1"}, Limit: 3}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(it.Values["ratingDelta"]))
	}
	if strings.Join(got, ",") != "6,5,4,3,2,1,0" {
		t.Errorf("All: %v", got)
	}
	page, _ := tbl.Read(ctx, "RecentMatches", Request{Params: Params{"playerId": "p1"}, Limit: 3})
	next, _ := tbl.Read(ctx, "RecentMatches", Request{Params: Params{"playerId": "p1"}, Limit: 3, StartKey: page.LastEvaluatedKey})
	if a, b := names2(page.Items, "ratingDelta"), names2(next.Items, "ratingDelta"); strings.Join(a, ",") != "6,5,4" || strings.Join(b, ",") != "3,2,1" {
		t.Errorf("pages %v then %v", a, b)
	}
}

const shardedModel = testmodel.ShardedOrders

// A sharded pattern: one Query per shard, merged in sort order, limit
// honoured; All merges every page of every shard.
func TestShardedScatterGather(t *testing.T) {
	m, err := model.Parse("sharded.yaml", []byte(shardedModel))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := patterns.Plan(m)
	tbl := fresh(t, d)
	ctx := context.Background()
	var want []string
	for i := range 20 {
		at := fmt.Sprintf("2026-01-01T00:%02d:00Z", i)
		if err := tbl.Put(ctx, "Order", Values{"orderId": fmt.Sprintf("o%02d", i), "status": "PENDING", "createdAt": at}); err != nil {
			t.Fatal(err)
		}
		want = append([]string{fmt.Sprintf("o%02d", i)}, want...)
	}
	ins, _ := tbl.QueryInputs("Pending", Request{Params: Params{"status": "PENDING"}})
	shards := map[string]bool{}
	for _, in := range ins {
		for _, v := range in.ExpressionAttributeValues {
			shards[fmt.Sprint(v)] = true
		}
	}
	if len(ins) != 4 || len(shards) != 4 {
		t.Fatalf("%d inputs over %d partitions", len(ins), len(shards))
	}
	page, err := tbl.Read(ctx, "Pending", Request{Params: Params{"status": "PENDING"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names2(page.Items, "orderId"); page.Requests != 4 || !slices.Equal(got, want[:5]) {
		t.Errorf("%d requests, newest five %v, want %v", page.Requests, got, want[:5])
	}
	var all []string
	for it, err := range tbl.All(ctx, "Pending", Request{Params: Params{"status": "PENDING"}, Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, fmt.Sprint(it.Values["orderId"]))
	}
	if !slices.Equal(all, want) {
		t.Errorf("All %v", all)
	}
}
