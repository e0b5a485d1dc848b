package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func batchTicket(id string) Values {
	return Values{"ticketId": id, "assigneeId": "ann", "status": "OPEN", "priority": 3, "title": "title of " + id, "openedAt": "2026-03-01T09:00:00Z"}
}

// ids turns ticket ids into GetTickets's ids.
func ticketIDs(tickets ...string) []Params {
	out := make([]Params, len(tickets))
	for i, id := range tickets {
		out[i] = Params{"ticketId": id}
	}
	return out
}

// titles are the entries' titles, "-" where there is none.
func titles(items []*Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = "-"
		if it != nil {
			out[i] = fmt.Sprint(it.Values["title"])
		}
	}
	return out
}

// GetBatch answers each id at its place, in the order given: ids that are
// prefixes of each other (t1, t10), that hold # and %, one given twice,
// one with no item; one request for them all.
func TestGetBatchOrderMissingAndDuplicates(t *testing.T) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	for _, id := range []string{"t1", "t10", "t#1", "t%1"} {
		if err := tbl.Create(ctx, "Ticket", batchTicket(id)); err != nil {
			t.Fatal(err)
		}
	}
	c := &counter{Client: client}
	ctbl := New(tbl.d, c, tbl.Name())
	got, err := ctbl.GetBatch(ctx, "GetTickets", ticketIDs("t10", "t1", "t#1", "t", "t1", "t%1", "t%"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"title of t10", "title of t1", "title of t#1", "-", "title of t1", "title of t%1", "-"}
	if fmt.Sprint(titles(got)) != fmt.Sprint(want) {
		t.Errorf("entries %v, want %v", titles(got), want)
	}
	if c.n != 1 {
		t.Errorf("%d requests for 6 distinct ids, want 1", c.n)
	}
	if got[1] == got[4] {
		t.Error("an id given twice shares one *Item: the caller changing one changes the other")
	}
	if got[1] == nil || got[4] == nil {
		t.FailNow()
	}
	got[1].Values["title"] = "changed"
	if got[4].Values["title"] != "title of t1" {
		t.Error("an id given twice shares its values: the caller changing one changes the other")
	}
	if empty, err := ctbl.GetBatch(ctx, "GetTickets", nil); err != nil || len(empty) != 0 || c.n != 1 {
		t.Errorf("no ids: %v, %v, %d requests", empty, err, c.n)
	}
}

// More distinct ids than a request takes are read in as many requests as
// they need; keys the engine leaves unprocessed are asked again until
// read; an engine that never reads them has them reported, by index.
func TestGetBatchSplitsAndRetriesUnprocessed(t *testing.T) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	var all []string
	for i := range 250 {
		id := fmt.Sprintf("t%d", i)
		all = append(all, id)
		if err := tbl.Create(ctx, "Ticket", batchTicket(id)); err != nil {
			t.Fatal(err)
		}
	}
	c := &counter{Client: client}
	got, err := New(tbl.d, c, tbl.Name()).GetBatch(ctx, "GetTickets", ticketIDs(all...))
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range got {
		if it == nil || it.Values["ticketId"] != all[i] {
			t.Fatalf("entry %d: %v, want %s", i, it, all[i])
		}
	}
	if c.n != 3 {
		t.Errorf("%d requests for 250 ids, want 3 (100 a request)", c.n)
	}
	flaky := &unprocessedKeys{Client: client}
	ftbl := New(tbl.d, flaky, tbl.Name())
	ftbl.batchBackoff = time.Microsecond
	got, err = ftbl.GetBatch(ctx, "GetTickets", ticketIDs(all...))
	if err != nil {
		t.Fatal(err)
	}
	if flaky.left.Load() == 0 {
		t.Fatal("no key was left unprocessed: the test tests nothing")
	}
	for i, it := range got {
		if it == nil || it.Values["ticketId"] != all[i] {
			t.Fatalf("with unprocessed keys, entry %d: %v, want %s", i, it, all[i])
		}
	}
	never := New(tbl.d, neverKeys{client}, tbl.Name())
	never.batchBackoff = time.Microsecond
	got, err = never.GetBatch(ctx, "GetTickets", ticketIDs("t1", "t2", "t1"))
	var bre *BatchReadError
	if !errors.As(err, &bre) || fmt.Sprint(bre.Unread) != "[0 2 1]" || !errors.Is(err, ErrUnprocessed) || len(got) != 3 {
		t.Errorf("an engine that never reads: %v (%+v), want a *BatchReadError of ids 0, 2 and 1", err, bre)
	}
}

// unprocessedKeys leaves half of every request's keys unprocessed, but
// every third request.
type unprocessedKeys struct {
	Client
	calls, left atomic.Int64
}

func (u *unprocessedKeys) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	br := u.Client.(BatchReader)
	if u.calls.Add(1)%3 == 0 {
		return br.BatchGetItem(ctx, in, opts...)
	}
	send := map[string]types.KeysAndAttributes{}
	left := map[string]types.KeysAndAttributes{}
	for table, ka := range in.RequestItems {
		half := (len(ka.Keys) + 1) / 2
		s, l := ka, ka
		s.Keys, l.Keys = ka.Keys[:half], ka.Keys[half:]
		send[table] = s
		if len(l.Keys) > 0 {
			left[table] = l
			u.left.Add(int64(len(l.Keys)))
		}
	}
	out, err := br.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: send}, opts...)
	if err != nil {
		return nil, err
	}
	out.UnprocessedKeys = left
	return out, nil
}

type neverKeys struct{ Client }

func (neverKeys) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return &dynamodb.BatchGetItemOutput{UnprocessedKeys: in.RequestItems}, nil
}

// capture records the requests it is sent and answers none.
type capture struct {
	Client
	ins []*dynamodb.BatchGetItemInput
}

func (c *capture) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	c.ins = append(c.ins, in)
	return &dynamodb.BatchGetItemOutput{}, nil
}

// The request GetBatch sends is the base-table keys of the distinct ids,
// each key once, with the pattern's projection (its returns, and the keys
// the items are matched back by), eventually consistent: no network.
func TestGetBatchRequest(t *testing.T) {
	d := design(t, ticketsModel)
	c := &capture{}
	tbl := New(d, c, "Desk")
	if _, err := tbl.GetBatch(context.Background(), "GetComments", []Params{{"ticketId": "t1", "commentId": "c1"}, {"ticketId": "t1", "commentId": "c1"}, {"ticketId": "t1", "commentId": "c2"}}); err != nil {
		t.Fatal(err)
	}
	if len(c.ins) != 1 {
		t.Fatalf("%d requests", len(c.ins))
	}
	ka := c.ins[0].RequestItems["Desk"]
	var keys []string
	for _, k := range ka.Keys {
		keys = append(keys, KeyText(d, k))
	}
	if fmt.Sprint(keys) != "[TICKET#t1 COMMENT#c1 TICKET#t1 COMMENT#c2]" || aws.ToBool(ka.ConsistentRead) {
		t.Errorf("keys %v, consistent %v", keys, aws.ToBool(ka.ConsistentRead))
	}
	var names []string
	for _, n := range ka.ExpressionAttributeNames {
		names = append(names, n)
	}
	for _, want := range []string{"PK", "SK", "author", "body"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("projection %s names %v, lacks %s", aws.ToString(ka.ProjectionExpression), names, want)
		}
	}
}

// A batch pattern is GetBatch's alone, and GetBatch reads batch patterns
// alone; a client without BatchGetItem is named.
func TestGetBatchRefusals(t *testing.T) {
	d := design(t, ticketsModel)
	tbl := New(d, &capture{}, "Desk")
	ctx := context.Background()
	if _, err := tbl.Get(ctx, "GetTickets", Params{"ticketId": "t1"}); !errors.Is(err, ErrBatchPattern) {
		t.Errorf("Get of a batch pattern: %v", err)
	}
	if _, err := tbl.GetBatch(ctx, "GetTicket", ticketIDs("t1")); !errors.Is(err, ErrBatchPattern) {
		t.Errorf("GetBatch of a get: %v", err)
	}
	if _, err := tbl.GetBatch(ctx, "GetTickets", []Params{{"ticketId": "t1"}, {"title": "x"}}); err == nil || !strings.Contains(err.Error(), "id 1:") {
		t.Errorf("an id without its attribute: %v, want it named (id 1)", err)
	}
	plain := New(d, noBatch{}, "Desk")
	if _, err := plain.GetBatch(ctx, "GetTickets", ticketIDs("t1")); !errors.Is(err, ErrNoBatchReader) {
		t.Errorf("a client without BatchGetItem: %v", err)
	}
}

type noBatch struct{ Client }

// An expired comment is no comment: its entry is nil, as Get's would be.
func TestGetBatchHidesExpired(t *testing.T) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	clocked := New(tbl.d, client, tbl.Name(), WithClock(func() time.Time { return now }))
	for id, expires := range map[string]int64{"c1": now.Add(-time.Hour).Unix(), "c2": now.Add(time.Hour).Unix()} {
		if err := clocked.Create(ctx, "Comment", Values{"ticketId": "t1", "commentId": id, "author": "bob", "body": "b", "expiresAt": expires}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := clocked.GetBatch(ctx, "GetComments", []Params{{"ticketId": "t1", "commentId": "c1"}, {"ticketId": "t1", "commentId": "c2"}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != nil || got[1] == nil || got[1].Values["author"] != "bob" {
		t.Errorf("entries %v, %v: want none (expired), then c2", got[0], got[1])
	}
}
