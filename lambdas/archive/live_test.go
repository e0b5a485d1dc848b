package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// The archive handler driven by the engine's own change records, read
// through its Streams API and handed over as Lambda's event source
// mapping would (its filters: the TTL service's removals only; batches;
// redelivery): matches are played, one is deleted by the application and
// another changed; nothing reaches the archive. Then the engine's clock
// moves past some matches' TTL and its sweeper deletes them: each is
// archived once, exactly as it was stored (an attribute the model does
// not declare, a number past float64's precision, a string set), under
// the day it expired; the matches that did not expire are not. On
// DynamoDB Local (Streams, no TTL expiry) only the first part runs;
// dynalite has no Streams.
func TestArchiveOnTheEnginesStream(t *testing.T) {
	e, err := streamtest.StartEngine()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	streamtest.EngineChoice(t, e)
	d := streamtest.Design(t, model)
	live := e.LiveTable(t, d)
	client := streamtest.Client(e.Endpoint, 0)
	tbl := dynamo.New(d, client, live.Name)
	ctx := context.Background()
	fake, s3c, stop := newFake(1) // the first PUT is throttled: retried
	defer stop()
	h := newHandler(patterns.NewLock(d), s3c, live.Name, "archive-bucket", quiet)
	mapping := live.Mapping(t, patterns.HandlerArchive, h.Handle)
	mapping.BatchSize = 2

	now := time.Now()
	stored := map[string]map[string]types.AttributeValue{} // the expiring matches, as the engine holds them
	for i := range 7 {
		at := fmt.Sprintf("2026-06-%02dT10:00:00Z", i+1)
		expires := now.Add(time.Hour).Unix()
		if i >= 5 {
			expires = now.Add(30 * 24 * time.Hour).Unix() // still live after the clock moves
		}
		v := dynamo.Values{"playerId": "p1", "playedAt": at, "result": "win", "ratingDelta": i, "mapId": "dust", "expiresAt": expires}
		if err := tbl.Create(ctx, "Match", v); err != nil {
			t.Fatal(err)
		}
		key, err := tbl.Key("Match", v)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 { // what the model does not declare is archived too
			if _, err := e.Raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(live.Name), Key: key,
				UpdateExpression: aws.String("SET legacyScore = :n, notes = :ss"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "9007199254740993.25"},
					":ss": &types.AttributeValueMemberSS{Value: []string{"a", "b#%"}}}}); err != nil {
				t.Fatal(err)
			}
		}
		if i == 4 { // deleted by the application: not an expiry
			if err := tbl.Delete(ctx, "Match", v); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if i < 5 {
			out, err := e.Raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(live.Name), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil || out.Item == nil {
				t.Fatalf("match %d: %v", i, err)
			}
			stored[out.Item["playedAt"].(*types.AttributeValueMemberS).Value] = out.Item
		}
	}
	delivered, err := mapping.Drain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(delivered) != 0 || len(fake.objects) != 0 {
		t.Fatalf("before any expiry: %d record(s) delivered, %d object(s) written; want none", len(delivered), len(fake.objects))
	}

	t.Run("expiries", func(t *testing.T) {
		expiredAt := now.Add(2 * time.Hour)
		live.Expire(t, expiredAt, func() bool { return len(scanAll(t, e.Raw, live.Name)) == 2 }) // the two live matches
		delivered, err := mapping.Drain(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(delivered) != len(stored) {
			t.Errorf("%d record(s) delivered, want the %d expiries", len(delivered), len(stored))
		}
		archived := map[string]string{}
		var keys []string
		for key, body := range fake.objects {
			keys = append(keys, key)
			if day := expiredAt.UTC().Format("2006/01/02"); !strings.HasPrefix(key, "/archive-bucket/Leaderboard/"+day+"/") {
				t.Errorf("object %s: not under the day of the expiry (%s)", key, day)
			}
			for _, l := range lines(t, body) {
				item, _ := json.Marshal(l.Item)
				if _, twice := archived[l.Item["playedAt"].String()]; twice {
					t.Errorf("match %s archived twice", l.Item["playedAt"].String())
				}
				archived[l.Item["playedAt"].String()] = string(item)
				if l.Entity != "Match" || l.ExpiredAt.Unix() != expiredAt.Unix() {
					t.Errorf("line %+v: want entity Match, expired at %v", l, expiredAt.UTC())
				}
			}
		}
		sort.Strings(keys)
		if len(keys) != (len(stored)+1)/2 {
			t.Errorf("objects %v: want one per batch of 2", keys)
		}
		for at, item := range stored {
			want, _ := json.Marshal(streamtest.Image(item))
			if got := archived[at]; got != string(want) {
				t.Errorf("match %s archived as\n%s\nwant it as stored:\n%s", at, got, want)
			}
		}
		if len(archived) != len(stored) {
			t.Errorf("archived %d match(es), want the %d that expired", len(archived), len(stored))
		}
	})
	t.Run("undecodable items", func(t *testing.T) { undecodableOnTheEnginesStream(t, e) })
}

// scanAll is the table's items (one page: a few).
func scanAll(t *testing.T, c *dynamodb.Client, table string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

// lines reads an archive object.
func lines(t *testing.T, body []byte) []Line {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out []Line
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}
