package gen

// ticketsTest runs the batch reads generated for the tickets model
// (GetTickets: ids []string; GetComments: ids []CommentKey, two
// attributes returned) on the engine against the reference evaluator
// (oracle.State.ReadBatch): one entry per id in the ids' order, nil for
// an id with no item (prefixes of ids, # and % in them), an id given
// twice answered twice, more ids than one request takes, and an expired
// comment answered as none. TestGeneratedCodeBuilds writes it beside the
// generated package and runs it.
const ticketsTest = `package ticketsdb

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
	"github.com/keyplan/keyplan/patterns/oracle"
)

func TestBatchReadsOnTheEngine(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := Design()
	if err != nil {
		t.Fatal(err)
	}
	m := d.Model()
	now := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	db, err := Open(engine.DB, engine.TableName(t, d), dynamo.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	ref := oracle.NewState(m)
	ref.SetNow(now)
	rt := db.Runtime()
	put := func(entity string, v dynamo.Values) {
		t.Helper()
		if err := rt.Create(ctx, entity, v); err != nil {
			t.Fatal(err)
		}
		if err := ref.Create(entity, map[string]any(v)); err != nil {
			t.Fatal(err)
		}
	}
	var tickets []string
	for i := range 130 {
		id := fmt.Sprintf("t%d", i)
		if i%10 == 0 {
			id = fmt.Sprintf("t#%d%%", i)
		}
		tickets = append(tickets, id)
		put("Ticket", dynamo.Values{"ticketId": id, "assigneeId": "ann", "status": "OPEN", "priority": int64(i % 10), "title": "title " + id, "openedAt": "2099-03-01T09:00:00Z", "revision": int64(1)})
	}
	put("Comment", dynamo.Values{"ticketId": "t1", "commentId": "c1", "author": "bob", "body": "on it"})
	put("Comment", dynamo.Values{"ticketId": "t1", "commentId": "c2", "author": "ann", "body": "old", "expiresAt": now.Add(-time.Hour).Unix()})

	ids := append([]string{"t1", "t", "t10", "t1", "t#0", "t#0%"}, tickets...)
	got, err := db.GetTickets(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	var refIDs []map[string]any
	for _, id := range ids {
		refIDs = append(refIDs, map[string]any{"ticketId": id})
	}
	want, err := ref.ReadBatch(m.Pattern("GetTickets"), refIDs)
	if err != nil {
		t.Fatal(err)
	}
	if err := want.Check(m, items(m, "Ticket", got)); err != nil {
		t.Errorf("GetTickets: %v", err)
	}
	if len(got) != len(ids) || got[1] != nil || got[0] == nil || got[3] == nil || got[0].Title != "title t1" || got[3].Title != "title t1" {
		t.Errorf("GetTickets: %d entries for %d ids; t1 %v, t %v, t1 again %v", len(got), len(ids), got[0], got[1], got[3])
	}

	keys := []CommentKey{{TicketID: "t1", CommentID: "c1"}, {TicketID: "t1", CommentID: "c2"}, {TicketID: "t10", CommentID: "c1"}, {TicketID: "t1", CommentID: "c"}}
	comments, err := db.GetComments(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	var refKeys []map[string]any
	for _, k := range keys {
		refKeys = append(refKeys, map[string]any{"ticketId": k.TicketID, "commentId": k.CommentID})
	}
	wantC, err := ref.ReadBatch(m.Pattern("GetComments"), refKeys)
	if err != nil {
		t.Fatal(err)
	}
	if err := wantC.Check(m, items(m, "Comment", comments)); err != nil {
		t.Errorf("GetComments: %v", err)
	}
	if comments[0] == nil || comments[0].Author != "bob" || comments[1] != nil {
		t.Errorf("GetComments: c1 %v (by bob), c2 %v (expired: none)", comments[0], comments[1])
	}
}

// items are the generated structs as the reference's items (nil stays
// nil).
func items[T any, PT interface {
	*T
	Values() dynamo.Values
}](m *patterns.Model, entity string, got []PT) []*oracle.Item {
	out := make([]*oracle.Item, len(got))
	for i, v := range got {
		if v != nil {
			out[i] = oracle.FromRuntime(m, entity, v.Values())
		}
	}
	return out
}
`
