package main

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// Members expire; a team counts its members (down when one expires), sums
// their points (exactly), and counts who ever joined (expiries: keep).
const expiringTeams = `table: Teams
entities:
  Team:
    id: [teamId]
    attributes:
      teamId: {type: string, maxLength: 20}
      members: {type: number, min: 0, optional: true}
      points: {type: number, optional: true}
      joined: {type: number, min: 0, optional: true}
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
      expiresAt: {type: ttl, optional: true}
patterns:
  GetTeam: {get: Team}
  GetMember: {get: Member}
  TeamMembers: {query: Member, where: [teamId]}
`

// tally is what a team's counters must be, from the members the test
// wrote (a reference that reads no keys and no handler state).
type tally struct{ members, joined int64 }

// The counters handler driven by the engine's own change records, read
// through its Streams API and handed over as Lambda's event source
// mapping would (its filters, batches, redelivery): members join, move
// to another team, are deleted by the application, and then expire by
// the TTL (the engine's clock moved past their expiresAt, its sweeper
// deleting them); each team's counts follow, the expiries counted down
// except where the model keeps them; replaying the whole stream (at
// least once delivery) counts nothing twice. On DynamoDB Local, which has
// Streams but no TTL expiry, the expiries are skipped; dynalite has no
// Streams.
func TestCountersOnTheEnginesStream(t *testing.T) {
	p := filepath.Join(t.TempDir(), "teams.yaml")
	if err := os.WriteFile(p, []byte(expiringTeams), 0o644); err != nil {
		t.Fatal(err)
	}
	d := streamtest.Design(t, p)
	live := engine.LiveTable(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, live.Name)
	ctx := context.Background()
	h := newHandler(patterns.NewLock(d), client, live.Name, quiet)
	mapping := live.Mapping(t, patterns.HandlerCounters, h.Handle)

	now := time.Now()
	soon := now.Add(time.Hour).Unix()
	want := map[string]*tally{"red": {}, "blue": {}}
	points := map[string]*big.Rat{"red": new(big.Rat), "blue": new(big.Rat)}
	for team := range want {
		if err := tbl.Create(ctx, "Team", dynamo.Values{"teamId": team}); err != nil {
			t.Fatal(err)
		}
	}
	type member struct {
		id, team, points string
		expires          bool
	}
	members := []member{
		{"m1", "red", "9007199254740993", false}, // 2^53 + 1: a float would lose it
		{"m2", "red", "0.1", true},
		{"m3", "red", "0.2", true},
		{"m4", "blue", "-7", false},
		{"m5", "blue", "12.5", true},
		{"m6", "red", "1", false}, // deleted by the application
	}
	add := func(team, pts string, sign int64) {
		r, _ := new(big.Rat).SetString(pts)
		points[team].Add(points[team], r.Mul(r, big.NewRat(sign, 1)))
		want[team].members += sign
	}
	for _, m := range members {
		v := dynamo.Values{"memberId": m.id, "teamId": m.team, "points": m.points}
		if m.expires {
			v["expiresAt"] = soon
		}
		if err := tbl.Create(ctx, "Member", v); err != nil {
			t.Fatal(err)
		}
		add(m.team, m.points, 1)
		want[m.team].joined++
	}
	// m3 moves to blue: red loses it (joined included: it is no longer
	// red's child), blue gains it.
	if err := tbl.Update(ctx, "Member", dynamo.Values{"memberId": "m3"}, dynamo.Changes{Set: dynamo.Values{"teamId": "blue"}, With: dynamo.Values{"teamId": "red"}}); err != nil {
		t.Fatal(err)
	}
	add("red", "0.2", -1)
	add("blue", "0.2", 1)
	want["red"].joined--
	want["blue"].joined++
	if err := tbl.Delete(ctx, "Member", dynamo.Values{"memberId": "m6"}); err != nil {
		t.Fatal(err)
	}
	add("red", "1", -1)
	want["red"].joined--

	check := func(when string) {
		t.Helper()
		for team, w := range want {
			it, err := tbl.Get(ctx, "GetTeam", dynamo.Params{"teamId": team})
			if err != nil || it == nil {
				t.Fatalf("%s: GetTeam(%s): %v, %v", when, team, it, err)
			}
			got := fmt.Sprintf("members %s, points %s, joined %s", text(it.Raw["members"]), text(it.Raw["points"]), text(it.Raw["joined"]))
			exp := fmt.Sprintf("members %d, points %s, joined %d", w.members, decimal(points[team]), w.joined)
			if got != exp {
				t.Errorf("%s: team %s has %s; want %s", when, team, got, exp)
			}
		}
	}
	delivered, err := mapping.Drain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every member change, and nothing of the handler's own (markers, the
	// teams' counters): the mapping's filters.
	if n := countEvents(delivered); n != "INSERT 6, MODIFY 1, REMOVE 1" {
		t.Errorf("delivered %s, want the members' 6 inserts, 1 move and 1 delete", n)
	}
	check("after the writes")

	t.Run("expiries", func(t *testing.T) {
		live.Expire(t, now.Add(2*time.Hour), func() bool {
			it, err := tbl.Get(ctx, "GetMember", dynamo.Params{"memberId": "m5"})
			return err == nil && it == nil
		})
		for _, m := range []struct{ id, team, points string }{{"m2", "red", "0.1"}, {"m3", "blue", "0.2"}, {"m5", "blue", "12.5"}} {
			add(m.team, m.points, -1) // joined stays: expiries: keep
		}
		expired, err := mapping.Drain(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ttl := 0
		for _, r := range expired {
			if r.EventName == "REMOVE" && r.UserIdentity != nil && r.UserIdentity.Type == patterns.TTLIdentityType && r.UserIdentity.PrincipalID == patterns.TTLPrincipal {
				ttl++
			}
		}
		if ttl != 3 || len(expired) != 3 {
			t.Errorf("delivered %d record(s), %d of them the TTL service's removals; want the 3 expiries", len(expired), ttl)
		}
		check("after the expiries")
	})

	// Lambda delivers at least once: the whole stream again, from its
	// oldest record, changes nothing.
	if _, err := live.Mapping(t, patterns.HandlerCounters, h.Handle).Drain(ctx); err != nil {
		t.Fatal(err)
	}
	check("after replaying the stream")
}

// countEvents says how many records of each event name there are.
func countEvents(rs []events.DynamoDBEventRecord) string {
	n := map[string]int{}
	for _, r := range rs {
		n[r.EventName]++
	}
	var out []string
	for _, e := range []string{"INSERT", "MODIFY", "REMOVE"} {
		out = append(out, fmt.Sprintf("%s %d", e, n[e]))
	}
	return strings.Join(out, ", ")
}
