package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// Members belong to a team by an attribute (not their key), so a member
// can move; the team counts them and sums their points.
const teams = `table: Teams
entities:
  Team:
    id: [teamId]
    attributes:
      teamId: {type: string, maxLength: 20}
      members: {type: number, min: 0, optional: true}
      points: {type: number, optional: true}
      joined: {type: number, min: 0, optional: true}
      expiresAt: {type: ttl, optional: true}
    counters:
      members: {count: Member}
      points: {sum: Member.points}
      joined: {count: Member, expiries: keep}
  Member:
    id: [memberId]
    attributes:
      memberId: {type: string, maxLength: 20}
      teamId: {type: string, maxLength: 20}
      points: {type: number}
patterns:
  GetTeam: {get: Team}
  GetMember: {get: Member}
  TeamMembers: {query: Member, where: [teamId]}
`

func teamsDesign(t *testing.T) *patterns.Design {
	p := filepath.Join(t.TempDir(), "teams.yaml")
	if err := os.WriteFile(p, []byte(teams), 0o644); err != nil {
		t.Fatal(err)
	}
	return streamtest.Design(t, p)
}

func teamCounts(t *testing.T, tbl *dynamo.Table, id string) (string, string) {
	t.Helper()
	it, err := tbl.Get(context.Background(), "GetTeam", dynamo.Params{"teamId": id})
	if err != nil || it == nil {
		t.Fatalf("GetTeam(%s): %v %v", id, it, err)
	}
	return text(it.Raw["members"]), text(it.Raw["points"])
}

func text(v types.AttributeValue) string {
	if n, ok := v.(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return "absent"
}

// A member that moves to another team leaves the old team's counts and
// joins the new one's; sums stay exact past 2^53; a member written before
// its team is retried, not dropped, and counts once the team exists.
func TestCountersEdges(t *testing.T) {
	d := teamsDesign(t)
	name := engine.Table(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, name)
	ctx := context.Background()
	for _, team := range []string{"red", "blue"} {
		if err := tbl.Create(ctx, "Team", dynamo.Values{"teamId": team, "members": 0, "points": 0}); err != nil {
			t.Fatal(err)
		}
	}
	item := streamtest.Items(t, tbl)
	h := newHandler(patterns.NewLock(d), client, name, quiet)
	deliver := func(rs ...events.DynamoDBEventRecord) events.DynamoDBEventResponse {
		t.Helper()
		resp, err := h.Handle(ctx, events.DynamoDBEvent{Records: rs})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	big := item("Member", dynamo.Values{"memberId": "m1", "teamId": "red", "points": "9007199254740992"}) // 2^53
	one := item("Member", dynamo.Values{"memberId": "m2", "teamId": "red", "points": 1})
	deliver(streamtest.Record(d, name, nil, big), streamtest.Record(d, name, nil, one))
	if m, p := teamCounts(t, tbl, "red"); m != "2" || p != "9007199254740993" {
		t.Errorf("red after two members: members %s, points %s; want 2 and 9007199254740993", m, p)
	}
	moved := item("Member", dynamo.Values{"memberId": "m2", "teamId": "blue", "points": "0.5"})
	deliver(streamtest.Record(d, name, one, moved))
	if m, p := teamCounts(t, tbl, "red"); m != "1" || p != "9007199254740992" {
		t.Errorf("red after m2 left: members %s, points %s", m, p)
	}
	if m, p := teamCounts(t, tbl, "blue"); m != "1" || p != "0.5" {
		t.Errorf("blue after m2 joined: members %s, points %s", m, p)
	}
	// A member of a team not created yet: failed (retried), not dropped.
	early := streamtest.Record(d, name, nil, item("Member", dynamo.Values{"memberId": "m3", "teamId": "green", "points": 7}))
	resp := deliver(early)
	if len(resp.BatchItemFailures) != 1 {
		t.Fatalf("a member before its team: failures %+v, want it retried", resp.BatchItemFailures)
	}
	if err := tbl.Create(ctx, "Team", dynamo.Values{"teamId": "green", "members": 0, "points": 0}); err != nil {
		t.Fatal(err)
	}
	if resp := deliver(early); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("the retry once the team exists: %+v", resp.BatchItemFailures)
	}
	if m, p := teamCounts(t, tbl, "green"); m != "1" || p != "7" {
		t.Errorf("green: members %s, points %s", m, p)
	}
	// A record whose keys are no item of the design is skipped and
	// counted, not failed; one whose summed number holds nothing still
	// counts as a member, its points unread (counted); the batch goes on.
	stranger := streamtest.Record(d, name, nil, map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "SOMETHING#else"}, "SK": &types.AttributeValueMemberS{Value: "X"}})
	empty := streamtest.Record(d, name, nil, item("Member", dynamo.Values{"memberId": "m4", "teamId": "green", "points": 1}))
	empty.Change.NewImage["points"] = events.DynamoDBAttributeValue{}
	fine := streamtest.Record(d, name, nil, item("Member", dynamo.Values{"memberId": "m5", "teamId": "green", "points": 2}))
	log, out := streamtest.NewLog()
	h.log = log
	resp = deliver(stranger, empty, fine)
	if len(resp.BatchItemFailures) != 0 {
		t.Errorf("failures %+v, want none", resp.BatchItemFailures)
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] != 1 || m[patterns.MetricUndecodable] != 1 {
		t.Errorf("metrics %v (%v): want the stranger and the empty value counted", m, err)
	}
	if m, p := teamCounts(t, tbl, "green"); m != "3" || p != "9" {
		t.Errorf("green after the batch: members %s, points %s; want 3 (m4 is a member) and 9 (its points unread)", m, p)
	}
}

// An expiry by the table's TTL counts down a counter, unless the counter
// keeps what expired (expiries: keep); a delete counts down both.
func TestCountersKeepExpiries(t *testing.T) {
	d := teamsDesign(t)
	name := engine.Table(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, name)
	ctx := context.Background()
	if err := tbl.Create(ctx, "Team", dynamo.Values{"teamId": "red", "members": 0, "points": 0, "joined": 0}); err != nil {
		t.Fatal(err)
	}
	item := streamtest.Items(t, tbl)
	h := newHandler(patterns.NewLock(d), client, name, quiet)
	a := item("Member", dynamo.Values{"memberId": "a", "teamId": "red", "points": 1})
	b := item("Member", dynamo.Values{"memberId": "b", "teamId": "red", "points": 1})
	for _, rs := range [][]events.DynamoDBEventRecord{
		{streamtest.Record(d, name, nil, a), streamtest.Record(d, name, nil, b)},
		{streamtest.Expiry(streamtest.Record(d, name, a, nil)), streamtest.Record(d, name, b, nil)},
	} {
		if resp, err := h.Handle(ctx, events.DynamoDBEvent{Records: rs}); err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("%v %+v", err, resp)
		}
	}
	it, err := tbl.Get(ctx, "GetTeam", dynamo.Params{"teamId": "red"})
	if err != nil || it == nil {
		t.Fatal(err)
	}
	if m, j := text(it.Raw["members"]), text(it.Raw["joined"]); m != "0" || j != "1" {
		t.Errorf("after one expiry and one delete: members %s (want 0), joined %s (want 1: the expired member stays counted)", m, j)
	}
}
