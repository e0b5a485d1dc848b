package gen

// arenaTest runs the code generated for the arena model (strong reads on
// two LSIs, an eventual one riding one of them, one on a GSI) on the
// engine through a client that records every Query: each LSI-served
// pattern names its LSI and asks for ConsistentRead exactly when the
// model says consistent: true (a GSI-served one never does); a rescore
// moves the match on LSI2, read back at once; what each read returns is
// what the reference evaluator (patterns/oracle, which never looks at
// keys) says. TestGeneratedCodeBuilds writes it beside the generated
// package and runs it.
const arenaTest = `package arenadb

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// recording is a client that keeps every Query it passes on.
type recording struct {
	dynamo.Client
	mu      sync.Mutex
	queries []*dynamodb.QueryInput
}

func (r *recording) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.mu.Lock()
	r.queries = append(r.queries, in)
	r.mu.Unlock()
	return r.Client.Query(ctx, in, opts...)
}

func TestGeneratedCodeReadsLSIsConsistently(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := Design()
	if err != nil {
		t.Fatal(err)
	}
	m := d.Model()
	rec := &recording{Client: engine.DB}
	db, err := Open(rec, engine.TableName(t, d))
	if err != nil {
		t.Fatal(err)
	}
	ref := oracle.NewState(m)
	write := func(name string, params map[string]any, run func() error) {
		t.Helper()
		if err := run(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := ref.Write(m.Write(name), params); err != nil {
			t.Fatalf("%s: the reference: %v", name, err)
		}
	}
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for _, p := range []string{"p1", "p10"} {
		write("AddPlayer", map[string]any{"playerId": p, "handle": "h#" + p}, func() error { return db.AddPlayer(ctx, AddPlayerParams{PlayerID: p, Handle: "h#" + p}) })
	}
	matches := []RecordMatchParams{
		{PlayerID: "p1", MatchID: "m1", PlayedAt: at, Score: 90, Kills: 3, Mode: MatchModeDuel},
		{PlayerID: "p1", MatchID: "m2", PlayedAt: at.Add(time.Hour), Score: 1000, Kills: 9, Mode: MatchModeSquad},
		{PlayerID: "p1", MatchID: "m#3", PlayedAt: at.Add(2 * time.Hour), Score: 90, Kills: 12, Mode: MatchModeDuel},
		{PlayerID: "p10", MatchID: "m1", PlayedAt: at.Add(3 * time.Hour), Score: 5, Kills: 1, Mode: MatchModeDuel},
	}
	for _, x := range matches {
		write("RecordMatch", map[string]any{"playerId": x.PlayerID, "matchId": x.MatchID, "playedAt": x.PlayedAt, "score": x.Score, "kills": x.Kills, "mode": string(x.Mode)},
			func() error { return db.RecordMatch(ctx, x) })
	}
	// Rescored, m1 leads LSI2 at once: the strong read sees the write.
	write("Rescore", map[string]any{"playerId": "p1", "matchId": "m1", "score": int64(5000)}, func() error {
		return db.Rescore(ctx, RescoreParams{PlayerID: "p1", MatchID: "m1", Score: 5000})
	})
	reads := map[string]func(string) (*Page[Match], error){
		"MatchesByTime":  func(p string) (*Page[Match], error) { return db.MatchesByTime(ctx, p, Options{}) },
		"MatchesByScore": func(p string) (*Page[Match], error) { return db.MatchesByScore(ctx, p, Options{}) },
		"RecentMatches":  func(p string) (*Page[Match], error) { return db.RecentMatches(ctx, p, Options{}) },
		"MatchesByKills": func(p string) (*Page[Match], error) { return db.MatchesByKills(ctx, p, Options{}) },
	}
	for name, read := range reads {
		for _, p := range []string{"p1", "p10"} {
			rec.queries = nil
			page, err := read(p)
			if err != nil {
				t.Fatalf("%s(%s): %v", name, p, err)
			}
			var got []*oracle.Item
			for _, x := range page.Items {
				got = append(got, oracle.FromRuntime(m, "Match", x.Values()))
			}
			ans, err := ref.Read(m.Pattern(name), map[string]any{"playerId": p}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := ans.Check(m, got, true); err != nil {
				t.Errorf("%s(%s): %v", name, p, err)
			}
			pp := d.Pattern(name)
			for _, in := range rec.queries {
				if aws.ToString(in.IndexName) != pp.Index || aws.ToBool(in.ConsistentRead) != pp.Consistent {
					t.Errorf("%s: Query of %s, ConsistentRead %v; the plan: %s, consistent %v", name, aws.ToString(in.IndexName), aws.ToBool(in.ConsistentRead), pp.Index, pp.Consistent)
				}
			}
			if len(rec.queries) == 0 {
				t.Errorf("%s: no Query", name)
			}
		}
	}
	for name, index := range map[string]string{"MatchesByTime": "LSI1", "MatchesByScore": "LSI2", "RecentMatches": "LSI1", "MatchesByKills": "GSI1"} {
		if pp := d.Pattern(name); pp.Index != index || pp.Consistent != (name == "MatchesByTime" || name == "MatchesByScore") {
			t.Errorf("%s on %s, consistent %v", name, pp.Index, pp.Consistent)
		}
	}
}
`
