package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// The counters handler on the engine's own stream through what a stream
// does besides recording single writes: a transaction's records, a shard
// that closes between two reads (its child taking the writes, the
// mapping's iterators expired meanwhile), and a stream disabled and
// enabled again (the old mapping reads the old stream to its end, a new
// one the new stream).
func TestCountersAcrossTheStreamsLife(t *testing.T) {
	p := filepath.Join(t.TempDir(), "teams.yaml")
	if err := os.WriteFile(p, []byte(expiringTeams), 0o644); err != nil {
		t.Fatal(err)
	}
	d := streamtest.Design(t, p)
	live := engine.LiveTable(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, live.Name)
	item := streamtest.Items(t, tbl)
	ctx := context.Background()
	h := newHandler(patterns.NewLock(d), client, live.Name, quiet)
	mapping := live.Mapping(t, patterns.HandlerCounters, h.Handle)

	if err := tbl.Create(ctx, "Team", dynamo.Values{"teamId": "red"}); err != nil {
		t.Fatal(err)
	}
	members := 0
	join := func(id string) types.TransactWriteItem {
		members++
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(live.Name),
			Item: item("Member", dynamo.Values{"memberId": id, "teamId": "red", "points": "1"})}}
	}
	drain := func(m *streamtest.Mapping, when string, records int) {
		t.Helper()
		got, err := m.Drain(ctx)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if len(got) != records {
			t.Errorf("%s: delivered %d records (%s), want %d", when, len(got), countEvents(got), records)
		}
		it, err := tbl.Get(ctx, "GetTeam", dynamo.Params{"teamId": "red"})
		if err != nil || it == nil {
			t.Fatalf("%s: GetTeam: %v, %v", when, it, err)
		}
		if got, want := text(it.Raw["members"]), fmt.Sprint(members); got != want {
			t.Errorf("%s: red has %s members, want %s", when, got, want)
		}
	}

	// One transaction, three records.
	if _, err := engine.Raw.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		join("m1"), join("m2"), join("m3")}}); err != nil {
		t.Fatal(err)
	}
	drain(mapping, "after a transaction", 3)

	t.Run("a shard closes between two reads", func(t *testing.T) {
		live.Advance(t, 0) // skips where the clock cannot move
		if _, err := engine.Raw.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{join("m4")}}); err != nil {
			t.Fatal(err)
		}
		shards := len(live.Shards(t))
		live.Advance(t, 7*time.Hour) // past a shard's lifetime, and the iterators'
		if _, err := engine.Raw.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{join("m5")}}); err != nil {
			t.Fatal(err)
		}
		if now := live.Shards(t); len(now) <= shards || now[len(now)-1].ParentShardId == nil {
			t.Fatalf("the stream's shards after the clock moved: %+v", now)
		}
		before := mapping.Reiterated
		drain(mapping, "after the shard closed", 2)
		if mapping.Reiterated == before {
			t.Error("the mapping's iterators did not expire")
		}
	})

	t.Run("the stream disabled and enabled again", func(t *testing.T) {
		live.Restream(t)
		if _, err := engine.Raw.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{join("m6")}}); err != nil {
			t.Fatal(err)
		}
		// The old mapping reads its stream to the end: nothing new there.
		got, err := mapping.Drain(ctx)
		if err != nil || len(got) != 0 {
			t.Fatalf("the old stream after re-enabling: %d records, %v", len(got), err)
		}
		drain(live.Mapping(t, patterns.HandlerCounters, h.Handle), "on the new stream", 1)
	})
}
