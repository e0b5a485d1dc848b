package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// archivedLines reads every object the fake holds: each line once per
// object it is in.
func archivedLines(t *testing.T, fake *fakeS3) []Line {
	t.Helper()
	var out []Line
	for _, body := range fake.objects {
		out = append(out, lines(t, body)...)
	}
	return out
}

// once checks that every record's expiry is archived exactly once across
// the objects, holding the record's old image as it is.
func once(t *testing.T, fake *fakeS3, rs []events.DynamoDBEventRecord) {
	t.Helper()
	seen := map[string]int{}
	for _, l := range archivedLines(t, fake) {
		seen[l.EventID]++
	}
	for _, r := range rs {
		if n := seen[r.EventID]; n != 1 {
			t.Errorf("expiry %s (%s) archived %d times, want once", r.EventID, stream.KeyText(r), n)
		}
		delete(seen, r.EventID)
	}
	for id, n := range seen {
		t.Errorf("%s archived %d times: no expiry of the batch", id, n)
	}
}

// A real batch of expiries whose old images do not decode as the model
// says (a declared attribute stored as NULL or missing, numbers as
// strings or bools, a time in another format, a list for a string) and of
// an item of no entity: the archive reads only the keys, so every one is
// archived, exactly as stored, on the first delivery; the foreign item is
// counted. On main none of the undecodable ones was archived (the record
// failed on every delivery, then went to the failure queue with its
// metadata only, the item already gone).
func TestArchiveReadsOnlyTheKeys(t *testing.T) {
	enginepass.Independent(t)
	ev := streamtest.Batch(t, "testdata/undecodable.json")
	fake, s3c, stop := newFake(0)
	defer stop()
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(streamtest.Design(t, model)), s3c, "Leaderboard", "archive-bucket", log)
	resp, err := h.Handle(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v, %v; want none", resp.BatchItemFailures, err)
	}
	once(t, fake, ev.Records)
	for _, l := range archivedLines(t, fake) {
		var r events.DynamoDBEventRecord
		for _, x := range ev.Records {
			if x.EventID == l.EventID {
				r = x
			}
		}
		got, _ := json.Marshal(l.Item)
		want, _ := json.Marshal(r.Change.OldImage)
		if string(got) != string(want) {
			t.Errorf("%s archived as\n%s\nwant it as stored\n%s", l.EventID, got, want)
		}
		if wantEntity := map[bool]string{true: "", false: "Match"}[strings.HasPrefix(l.Item["PK"].String(), "TEAM#")]; l.Entity != wantEntity {
			t.Errorf("%s archived as entity %q, want %q", l.EventID, l.Entity, wantEntity)
		}
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] != 1 || m[patterns.MetricUndecodable] != 0 || m[patterns.MetricFailed] != 0 {
		t.Errorf("metrics %v (%v): want the foreign item counted, nothing else", m, err)
	}
}

// goodExpiries are n expiries of matches, as the frozen batch's.
func goodExpiries(t *testing.T, d *patterns.Design, n int) []events.DynamoDBEventRecord {
	tbl := dynamo.New(d, nil, "Leaderboard")
	item := streamtest.Items(t, tbl)
	var out []events.DynamoDBEventRecord
	for i := range n {
		it := item("Match", dynamo.Values{"playerId": "p1", "playedAt": fmt.Sprintf("2026-03-%02dT00:00:00Z", i+1), "result": "win",
			"ratingDelta": i, "mapId": "dust", "expiresAt": 1900000000})
		out = append(out, streamtest.Expiry(streamtest.Record(d, "Leaderboard", it, nil)))
	}
	return out
}

// Every expiry lands once, however Lambda redelivers: a batch Lambda
// delivers again from its first failed record takes in the records that
// arrived since, and one whose invocation ended after the object was
// written (a timeout) comes again whole, grown. On main the object was
// keyed by the batch's first and last sequence numbers, so a grown
// redelivery wrote a second object holding the same expiries (one expiry
// ended up in 3 objects, 9 lines for 5 expiries).
func TestArchiveRedeliveredExpiriesLandOnce(t *testing.T) {
	enginepass.Independent(t)
	d := streamtest.Design(t, model)
	ctx := context.Background()
	t.Run("behind a record it cannot read", func(t *testing.T) {
		good := goodExpiries(t, d, 5)
		bad := streamtest.Expiry(streamtest.Record(d, "Leaderboard", nil, nil))
		bad.EventName, bad.Change.Keys = "REMOVE", good[0].Change.Keys // an expiry without its old image
		rs := append([]events.DynamoDBEventRecord{good[0], bad}, good[1:]...)
		fake, s3c, stop := newFake(0)
		defer stop()
		h := newHandler(patterns.NewLock(d), s3c, "Leaderboard", "archive-bucket", quiet)
		if _, err := streamtest.Stream(ctx, h.Handle, rs, 3, 11); err != nil {
			t.Fatal(err)
		}
		once(t, fake, good)
	})
	t.Run("the write failing, then retried grown", func(t *testing.T) {
		good := goodExpiries(t, d, 5)
		insert := streamtest.Record(d, "Leaderboard", nil, map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "PLAYER#p1"}, "SK": &types.AttributeValueMemberS{Value: "PLAYER"}})
		rs := append([]events.DynamoDBEventRecord{insert}, good...)
		fake, s3c, stop := newFake(3) // the SDK's 3 attempts of the first PUT fail
		defer stop()
		h := newHandler(patterns.NewLock(d), s3c, "Leaderboard", "archive-bucket", quiet)
		if n, err := streamtest.Stream(ctx, h.Handle, rs, 3, 11); err != nil || n < 3 {
			t.Fatalf("%d deliveries, %v; want the first batch delivered again", n, err)
		}
		once(t, fake, good)
	})
	t.Run("written, then the whole batch again, grown", func(t *testing.T) {
		good := goodExpiries(t, d, 5)
		fake, s3c, stop := newFake(0)
		defer stop()
		h := newHandler(patterns.NewLock(d), s3c, "Leaderboard", "archive-bucket", quiet)
		for _, batch := range [][]events.DynamoDBEventRecord{good[:3], good} { // the first invocation timed out after its PUT
			if resp, err := h.Handle(ctx, events.DynamoDBEvent{Records: batch}); err != nil || len(resp.BatchItemFailures) > 0 {
				t.Fatalf("%+v %v", resp, err)
			}
		}
		once(t, fake, good)
	})
}

// The archive on the engine's own stream, with items as a real table
// holds them: matches whose declared attributes are stored as NULL, as
// another type or missing, written with the SDK as another application
// would, and an item of no entity whose sort key the archive's filter
// lets through. Each expires (the engine's clock moved past its TTL) and
// is archived once, exactly as stored; nothing fails. DynamoDB Local
// expires nothing: skipped there.
// (A subtest of TestArchiveOnTheEnginesStream: its engine.)
func undecodableOnTheEnginesStream(t *testing.T, e *streamtest.Engine) {
	d := streamtest.Design(t, model)
	live := e.LiveTable(t, d)
	tbl := dynamo.New(d, nil, live.Name)
	ctx := context.Background()
	fake, s3c, stop := newFake(0)
	defer stop()
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(d), s3c, live.Name, "archive-bucket", log)
	mapping := live.Mapping(t, patterns.HandlerArchive, h.Handle)
	mapping.BatchSize = 3
	expires := time.Now().Add(3 * time.Hour).Unix() // past the clock the other subtest left
	item := streamtest.Items(t, tbl)
	m := func(day int) map[string]types.AttributeValue {
		return item("Match", dynamo.Values{"playerId": "p1", "playedAt": fmt.Sprintf("2026-04-%02dT00:00:00Z", day), "result": "win",
			"ratingDelta": 1, "mapId": "dust", "expiresAt": expires})
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	null := &types.AttributeValueMemberNULL{Value: true}
	items := []map[string]types.AttributeValue{m(1), m(2), m(3), m(4), m(5),
		{"PK": s("TEAM#t1"), "SK": s("MATCH#2026-04-06T00:00:00.000Z"), "expiresAt": &types.AttributeValueMemberN{Value: fmt.Sprint(expires)}}}
	items[0]["mapId"], items[0]["result"] = null, null
	items[1]["ratingDelta"] = s("five")
	delete(items[2], "result")
	items[3]["playedAt"] = s("April 4")
	for _, it := range items {
		if _, err := e.Raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(live.Name), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mapping.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	live.Expire(t, time.Now().Add(4*time.Hour), func() bool { return len(scanAll(t, e.Raw, live.Name)) == 0 })
	delivered, err := mapping.Drain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(delivered) != len(items) {
		t.Fatalf("%d expiries delivered, want %d", len(delivered), len(items))
	}
	once(t, fake, delivered)
	archived := map[string]string{}
	for _, l := range archivedLines(t, fake) {
		b, _ := json.Marshal(l.Item)
		archived[l.Item["SK"].String()] = string(b)
	}
	for _, it := range items {
		want, _ := json.Marshal(streamtest.Image(it))
		if got := archived[it["SK"].(*types.AttributeValueMemberS).Value]; got != string(want) {
			t.Errorf("archived\n%s\nwant it as stored\n%s", got, want)
		}
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] != 1 || m[patterns.MetricFailed] != 0 {
		t.Errorf("metrics %v (%v): want the foreign item counted, nothing failed", m, err)
	}
}
