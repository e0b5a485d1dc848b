package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/faults"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

var engine *streamtest.Engine

func TestMain(m *testing.M) { streamtest.Main(m, &engine) }

func TestEngine(t *testing.T) { streamtest.EngineChoice(t, engine) }

const modelFile = "../../examples/leaderboard.yaml"

var quiet = slog.New(slog.NewJSONHandler(io.Discard, nil))

func match(player, at, result string, delta int) dynamo.Values {
	return dynamo.Values{"playerId": player, "playedAt": at, "result": result, "ratingDelta": delta, "mapId": "dust", "expiresAt": 1900000000}
}

func player(id string, count, wins int) dynamo.Values {
	return dynamo.Values{"playerId": id, "handle": "h-" + id, "region": "eu", "season": "2026-Q2", "rating": 1000,
		"createdAt": "2025-01-01T00:00:00Z", "matchCount": count, "wins": wins}
}

// loadBatch reads testdata/batch.json: a frozen batch of this handler's
// cases (the records of the example model's items).
func loadBatch(t testing.TB) events.DynamoDBEvent {
	return streamtest.Batch(t, "testdata/batch.json")
}

func counters(t *testing.T, tbl *dynamo.Table, id string) (int64, int64) {
	t.Helper()
	it, err := tbl.Get(context.Background(), "GetPlayer", dynamo.Params{"playerId": id})
	if err != nil || it == nil {
		t.Fatalf("GetPlayer(%s): %v %v", id, it, err)
	}
	return it.Values["matchCount"].(int64), it.Values["wins"].(int64)
}

// A real batch: each change adds what it makes, the malformed record is
// skipped and counted (a retry cannot give it the image it lacks), the
// orphan reported alone, and replaying the batch (at-least-once delivery)
// counts nothing twice.
func TestCountersExactUnderReplay(t *testing.T) {
	ev := loadBatch(t)
	d := streamtest.Design(t, modelFile)
	name := engine.Table(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, name)
	ctx := context.Background()
	if err := tbl.Create(ctx, "Player", player("p1", 5, 2)); err != nil {
		t.Fatal(err)
	}
	h := newHandler(patterns.NewLock(d), client, name, quiet)
	for replay := range 2 {
		resp, err := h.Handle(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		// The match of a player that is not there (yet): retried, then
		// the failure queue; never dropped.
		if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != ev.Records[8].Change.SequenceNumber {
			t.Fatalf("delivery %d: failures %+v, want the orphan", replay+1, resp.BatchItemFailures)
		}
		// The batch's TTL expiry of a match counts nothing down: the
		// example keeps expired matches counted (expiries: keep).
		if count, wins := counters(t, tbl, "p1"); count != 6 || wins != 3 {
			t.Errorf("delivery %d: matchCount %d, wins %d; want 6 and 3", replay+1, count, wins)
		}
	}
	if h.skipped != 4 {
		t.Errorf("the replay skipped %d records by their markers, want 4", h.skipped)
	}
}

// workload is a stream of match changes over five players, made by
// applying random writes to a model of the table.
func workload(t *testing.T, n int) []events.DynamoDBEventRecord {
	d := streamtest.Design(t, modelFile)
	tbl := dynamo.New(d, nil, "Leaderboard")
	r := rand.New(rand.NewPCG(7, 11))
	live := map[string]map[string]types.AttributeValue{} // key -> current item
	var keys []string
	var out []events.DynamoDBEventRecord
	results := []string{"win", "loss", "draw"}
	for len(out) < n {
		switch op := r.IntN(10); {
		case op < 5 || len(keys) == 0: // insert
			p := fmt.Sprintf("p%d", r.IntN(5))
			at := fmt.Sprintf("2026-06-%02dT%02d:%02d:00Z", 1+r.IntN(28), r.IntN(24), r.IntN(60))
			it, _ := tbl.Item("Match", match(p, at, results[r.IntN(3)], r.IntN(40)-20))
			k := p + at
			if _, dup := live[k]; dup {
				continue
			}
			live[k], keys = it, append(keys, k)
			out = append(out, streamtest.Record(d, "Leaderboard", nil, it))
		case op < 8: // change the result
			k := keys[r.IntN(len(keys))]
			old := live[k]
			next := maps.Clone(old)
			next["result"] = &types.AttributeValueMemberS{Value: results[r.IntN(3)]}
			live[k] = next
			out = append(out, streamtest.Record(d, "Leaderboard", old, next))
		default: // delete, by a user or by TTL
			i := r.IntN(len(keys))
			k := keys[i]
			rec := streamtest.Record(d, "Leaderboard", live[k], nil)
			if r.IntN(2) == 0 {
				rec = streamtest.Expiry(rec)
			}
			out = append(out, rec)
			delete(live, k)
			keys = append(keys[:i], keys[i+1:]...)
		}
	}
	return out
}

// Behind a proxy that fails a fifth of the requests, with the SDK's retries
// off so failures reach the handler, the handler reports what failed,
// Lambda redelivers from there, and the table ends exactly as without
// faults: no lost and no doubled count.
func TestCountersUnderFaults(t *testing.T) {
	d := streamtest.Design(t, modelFile)
	records := workload(t, 80)
	ctx := context.Background()
	run := func(endpoint string, attempts int) (*dynamo.Table, int) {
		name := engine.Table(t, d)
		client := streamtest.Client(endpoint, attempts)
		setup := dynamo.New(d, streamtest.Client(engine.Endpoint, 0), name)
		for i := range 5 {
			if err := setup.Create(ctx, "Player", player(fmt.Sprintf("p%d", i), 0, 0)); err != nil {
				t.Fatal(err)
			}
		}
		h := newHandler(patterns.NewLock(d), client, name, quiet)
		var rounds int
		for start := 0; start < len(records); start += 10 { // batches of ten
			n, err := streamtest.Deliver(ctx, h.Handle, records[start:min(start+10, len(records))], 100)
			if err != nil {
				t.Fatal(err)
			}
			rounds += n
		}
		return setup, rounds
	}
	clean, cleanRounds := run(engine.Endpoint, 0)
	proxy, err := faults.New(engine.Endpoint, 0.2, 42)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	faulty, faultyRounds := run(proxy.URL, 1)
	if proxy.Failed() == 0 || faultyRounds <= cleanRounds {
		t.Fatalf("no fault reached the handler: %d failed requests, %d vs %d deliveries", proxy.Failed(), faultyRounds, cleanRounds)
	}
	for i := range 5 {
		id := fmt.Sprintf("p%d", i)
		c1, w1 := counters(t, clean, id)
		c2, w2 := counters(t, faulty, id)
		if c1 != c2 || w1 != w2 {
			t.Errorf("%s: %d matches, %d wins without faults; %d and %d with", id, c1, w1, c2, w2)
		}
	}
	t.Logf("%d requests failed; %d deliveries with faults, %d without", proxy.Failed(), faultyRounds, cleanRounds)
}

func fixtureFor(b testing.TB) events.DynamoDBEvent { return loadBatch(b) }

func designFor(b testing.TB) *patterns.Design { return streamtest.Design(b, modelFile) }

// The hand-written stream event: three posts inserted, the author renamed
// (not a child: nothing), one post expired by TTL and one deleted by the
// application: the author's postCount ends at 1.
func TestStreamEvent(t *testing.T) {
	ev := streamtest.Event(t)
	d := streamtest.Design(t, streamtest.BlogModel)
	name := engine.Table(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, name)
	ctx := context.Background()
	if err := tbl.Create(ctx, "Author", dynamo.Values{"authorId": "a1", "name": "Ada Lovelace", "postCount": 0}); err != nil {
		t.Fatal(err)
	}
	resp, err := newHandler(patterns.NewLock(d), client, name, quiet).Handle(ctx, ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v, %v", resp.BatchItemFailures, err)
	}
	it, err := tbl.Get(ctx, "GetAuthor", dynamo.Params{"authorId": "a1"})
	if err != nil || it == nil || it.Values["postCount"] != int64(1) {
		t.Fatalf("author after the event: %+v, %v; want postCount 1", it, err)
	}
}
