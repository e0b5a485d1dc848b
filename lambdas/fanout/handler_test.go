package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine/dynalite"
	"github.com/keyplan/keyplan/internal/testkit/faults"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

var engine *streamtest.Engine

func TestMain(m *testing.M) { streamtest.Main(m, &engine) }

func TestEngine(t *testing.T) { streamtest.EngineChoice(t, engine) }

const modelFile = "../../examples/ecommerce.yaml"

var quiet = slog.New(slog.NewJSONHandler(io.Discard, nil))

func customer(id, name, email string) dynamo.Values {
	return dynamo.Values{"customerId": id, "name": name, "email": email, "createdAt": "2025-01-01T00:00:00Z"}
}

func order(id, customerID, name string) dynamo.Values {
	return dynamo.Values{"orderId": id, "customerId": customerID, "customerName": name, "status": "PENDING",
		"createdAt": "2026-06-01T10:00:00Z", "total": 100, "shippingAddr": "1 Loop Rd"}
}

// loadBatch reads testdata/batch.json: a frozen batch of this handler's
// cases (the records of the example model's items).
func loadBatch(t testing.TB) events.DynamoDBEvent {
	return streamtest.Batch(t, "testdata/batch.json")
}

// setup writes the customers and their orders.
func setup(t *testing.T, client dynamo.Client) (*dynamo.Table, string) {
	d := streamtest.Design(t, modelFile)
	name := engine.Table(t, d)
	tbl := dynamo.New(d, client, name)
	ctx := context.Background()
	for _, c := range []dynamo.Values{customer("c1", "Ada", "ada@example.com"), customer("c2", "Grace", "grace@example.com")} {
		if err := tbl.Create(ctx, "Customer", c); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 { // more than one page of CustomerOrders (limit 25): the handler reads page by page
		if err := tbl.Create(ctx, "Order", order(fmt.Sprintf("A%02d", i), "c1", "Ada")); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.Create(ctx, "Order", order("C3", "c2", "Grace")); err != nil {
		t.Fatal(err)
	}
	return tbl, name
}

func names(t *testing.T, tbl *dynamo.Table) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range []string{"c1", "c2"} {
		for it, err := range tbl.All(context.Background(), "CustomerOrders", dynamo.Request{Params: dynamo.Params{"customerId": c}}) {
			if err != nil {
				t.Fatal(err)
			}
			o, _ := tbl.Get(context.Background(), "GetOrder", dynamo.Params{"orderId": it.Values["orderId"]})
			out[o.Values["orderId"].(string)] = fmt.Sprint(o.Values["customerName"])
		}
	}
	return out
}

func TestCopiesFollowTheSource(t *testing.T) {
	ev := loadBatch(t)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl, name := setup(t, client)
	h := newHandler(patterns.NewLock(tbl.Design()), client, name, quiet)
	resp, err := h.Handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v, want none (the malformed record is skipped and counted)", resp.BatchItemFailures)
	}
	got := names(t, tbl)
	for id, n := range got {
		want := "Ada Lovelace"
		if id == "C3" {
			want = "Grace"
		}
		if n != want {
			t.Errorf("order %s: customerName %q, want %q", id, n, want)
		}
	}
	if len(got) != 31 || h.updated != 30 {
		t.Errorf("%d orders, %d updated; want 31 and 30", len(got), h.updated)
	}
}

// stale returns, with every CustomerOrders page, an order that has been
// deleted since: the update must not bring it back.
type stale struct {
	*dynalite.Transactions
	ghost map[string]types.AttributeValue
}

func (s *stale) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := s.Transactions.Query(ctx, in, opts...)
	if err == nil {
		out.Items = append(out.Items, s.ghost)
	}
	return out, err
}

func TestDeletedCopyNotRecreated(t *testing.T) {
	ev := loadBatch(t)
	base := streamtest.Client(engine.Endpoint, 0)
	tbl, name := setup(t, base)
	ghost, _ := tbl.Item("Order", order("GONE", "c1", "Ada"))
	h := newHandler(patterns.NewLock(tbl.Design()), &stale{base, ghost}, name, quiet)
	if _, err := h.Handle(context.Background(), events.DynamoDBEvent{Records: ev.Records[:1]}); err != nil {
		t.Fatal(err)
	}
	if it, _ := tbl.Get(context.Background(), "GetOrder", dynamo.Params{"orderId": "GONE"}); it != nil {
		t.Errorf("the deleted order was re-created: %v", it.Values)
	}
}

// Behind a proxy failing a fifth of the requests, the SDK's retries and
// the redelivery of reported failures bring every copy to the same end as
// without faults. (A record fans out to some 30 requests: without the
// SDK's retries almost none would get through in one delivery; with two
// attempts a request, some deliveries fail and are redelivered.)
func TestCopiesUnderFaults(t *testing.T) {
	t.Parallel()
	ev := loadBatch(t)
	good := ev.Records[:3]
	proxy, err := faults.New(engine.Endpoint, 0.2, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	tbl, name := setup(t, streamtest.Client(engine.Endpoint, 0))
	h := newHandler(patterns.NewLock(tbl.Design()), streamtest.Client(proxy.URL, 2), name, quiet)
	rounds, err := streamtest.Deliver(context.Background(), h.Handle, good, 100)
	if err != nil {
		t.Fatal(err)
	}
	for id, n := range names(t, tbl) {
		if want := map[bool]string{true: "Grace", false: "Ada Lovelace"}[id == "C3"]; n != want {
			t.Errorf("order %s: %q, want %q", id, n, want)
		}
	}
	if proxy.Failed() == 0 {
		t.Error("no fault was injected")
	}
	t.Logf("%d failed requests, %d deliveries", proxy.Failed(), rounds)
}

func fixtureFor(b testing.TB) events.DynamoDBEvent { return loadBatch(b) }

func designFor(b testing.TB) *patterns.Design { return streamtest.Design(b, modelFile) }

// The hand-written stream event: the author's rename reaches the copy on
// the post still in the table; the inserts and removals change no copy.
func TestStreamEvent(t *testing.T) {
	ev := streamtest.Event(t)
	d := streamtest.Design(t, streamtest.BlogModel)
	name := engine.Table(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, name)
	ctx := context.Background()
	for _, it := range []struct {
		entity string
		v      dynamo.Values
	}{
		{"Author", dynamo.Values{"authorId": "a1", "name": "Ada Lovelace", "postCount": 1}},
		{"Post", dynamo.Values{"authorId": "a1", "postId": "p2", "authorName": "Ada", "title": "Note G"}},
	} {
		if err := tbl.Create(ctx, it.entity, it.v); err != nil {
			t.Fatal(err)
		}
	}
	h := newHandler(patterns.NewLock(d), client, name, quiet)
	resp, err := h.Handle(ctx, ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v, %v", resp.BatchItemFailures, err)
	}
	var got []string
	for it, err := range tbl.All(ctx, "AuthorPosts", dynamo.Request{Params: dynamo.Params{"authorId": "a1"}}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it.Values["postId"].(string)+"="+it.Values["authorName"].(string))
	}
	if strings.Join(got, ",") != "p2=Ada Lovelace" || h.updated != 1 {
		t.Errorf("posts %v after %d updates; want p2=Ada Lovelace after 1", got, h.updated)
	}
}
