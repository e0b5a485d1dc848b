package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// A real batch of matches whose images do not decode as the model says
// (the result stored as NULL or as a number, the map as NULL, the rating
// delta as a string, the TTL in another format) and of an item of no
// entity: each counter reads only what it counts by (the result, for
// wins; nothing, for matchCount), so every match is counted, a win only
// where the result is "win", and the foreign item is skipped and counted.
// On main every record holding a NULL failed (the whole image was
// decoded), was retried and dropped: the counts stayed wrong.
func TestCountersReadOnlyWhatTheyCount(t *testing.T) {
	ev := streamtest.Batch(t, "testdata/undecodable.json")
	d := streamtest.Design(t, modelFile)
	name := engine.Table(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, name)
	ctx := context.Background()
	if err := tbl.Create(ctx, "Player", player("p1", 0, 0)); err != nil {
		t.Fatal(err)
	}
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(d), client, name, log)
	for delivery := 1; delivery <= 2; delivery++ { // at least once: the second changes nothing
		resp, err := h.Handle(ctx, ev)
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("delivery %d: failures %+v, %v; want none", delivery, resp.BatchItemFailures, err)
		}
		if count, wins := counters(t, tbl, "p1"); count != 5 || wins != 3 {
			t.Errorf("delivery %d: matchCount %d, wins %d; want 5 matches, 3 wins", delivery, count, wins)
		}
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] != 2 || m[patterns.MetricUndecodable] != 0 {
		t.Errorf("metrics %v (%v): want the foreign item counted on each delivery, nothing undecodable", m, err)
	}
}

// The counters on the engine's own stream, with members as a real table
// holds them (written with the SDK): points stored as NULL (a member, no
// points), as a string (a member; its points unread, counted), a member
// without its team (none to count it on: counted), and an item of no
// entity in the members' sort key range. The counts follow what can be
// read, and nothing fails (Drain would say so).
func TestCountersUndecodableOnTheEnginesStream(t *testing.T) {
	p := filepath.Join(t.TempDir(), "teams.yaml")
	if err := os.WriteFile(p, []byte(expiringTeams), 0o644); err != nil {
		t.Fatal(err)
	}
	d := streamtest.Design(t, p)
	live := engine.LiveTable(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, live.Name)
	ctx := context.Background()
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(d), client, live.Name, log)
	mapping := live.Mapping(t, patterns.HandlerCounters, h.Handle)
	if err := tbl.Create(ctx, "Team", dynamo.Values{"teamId": "red"}); err != nil {
		t.Fatal(err)
	}
	item := streamtest.Items(t, tbl)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	null := &types.AttributeValueMemberNULL{Value: true}
	var members []map[string]types.AttributeValue
	for i, pts := range []types.AttributeValue{&types.AttributeValueMemberN{Value: "2.5"}, null, s("lots"), &types.AttributeValueMemberN{Value: "4"}, nil} {
		m := item("Member", dynamo.Values{"memberId": fmt.Sprintf("m%d", i), "teamId": "red", "points": 1})
		if pts == nil {
			delete(m, "points")
		} else {
			m["points"] = pts
		}
		members = append(members, m)
	}
	delete(members[3], "teamId") // no team (a native index key: it cannot be NULL): nothing to count it on
	leadSK := members[0][d.SK].(*types.AttributeValueMemberS).Value
	members = append(members, map[string]types.AttributeValue{d.PK: s("GUEST#g1"), d.SK: s(leadSK), "teamId": s("red")})
	for _, m := range members {
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(live.Name), Item: m}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mapping.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if m, pts := teamCounts(t, tbl, "red"); m != "4" || pts != "2.5" {
		t.Errorf("red: members %s, points %s; want 4 members (m0, m1, m2, m4) and 2.5 points (m0's)", m, pts)
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] != 1 || m[patterns.MetricUndecodable] != 2 || m[patterns.MetricFailed] != 0 {
		t.Errorf("metrics %v (%v): want the guest of no entity, m2's points and m3's team counted, nothing failed", m, err)
	}
}
