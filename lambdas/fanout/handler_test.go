package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/dynalite"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the runtime's items")

var engine *streamtest.Engine

func TestMain(m *testing.M) { streamtest.Main(m, &engine) }

const model = "../../examples/ecommerce.yaml"

var quiet = slog.New(slog.NewJSONHandler(io.Discard, nil))

func customer(id, name, email string) dynamo.Values {
	return dynamo.Values{"customerId": id, "name": name, "email": email, "createdAt": "2025-01-01T00:00:00Z"}
}

func order(id, customerID, name string) dynamo.Values {
	return dynamo.Values{"orderId": id, "customerId": customerID, "customerName": name, "status": "PENDING",
		"createdAt": "2026-06-01T10:00:00Z", "total": 100, "shippingAddr": "1 Loop Rd"}
}

func fixture(t testing.TB) events.DynamoDBEvent {
	d := streamtest.Design(t, model)
	tbl := dynamo.New(d, nil, "Shop")
	item := streamtest.Items(t, tbl)
	c1, c1renamed := item("Customer", customer("c1", "Ada", "ada@example.com")), item("Customer", customer("c1", "Ada Lovelace", "ada@example.com"))
	c2, c2moved := item("Customer", customer("c2", "Grace", "grace@example.com")), item("Customer", customer("c2", "Grace", "grace@navy.mil"))
	o9 := item("Order", order("Z9", "c2", "Grace"))
	bad := streamtest.Record(d, "Shop", c2, c2moved)
	bad.EventName = "UPSERT"
	return events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		streamtest.Record(d, "Shop", c1, c1renamed), // the name changes: every order of c1 follows
		streamtest.Record(d, "Shop", c2, c2moved),   // only the email: no fan-out
		streamtest.Record(d, "Shop", nil, o9),       // a new order: not a source
		bad,                                         // an unknown event: fails alone
	}}
}

func loadBatch(t testing.TB) events.DynamoDBEvent {
	return streamtest.Batch(t, "testdata/batch.json", *update, fixture)
}

// setup writes the customers and their orders.
func setup(t *testing.T, client dynamo.Client) (*dynamo.Table, string) {
	d := streamtest.Design(t, model)
	name := engine.Table(t, d)
	tbl := dynamo.New(d, client, name)
	ctx := context.Background()
	for _, c := range []dynamo.Values{customer("c1", "Ada", "ada@example.com"), customer("c2", "Grace", "grace@example.com")} {
		if err := tbl.Create(ctx, "Customer", c); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 { // more than one page of CustomerOrders (limit 25): the handler reads page by page
		if err := tbl.Put(ctx, "Order", order(fmt.Sprintf("A%02d", i), "c1", "Ada")); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.Put(ctx, "Order", order("C3", "c2", "Grace")); err != nil {
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
	h := newHandler(tbl.Design(), client, name, quiet)
	resp, err := h.Handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != ev.Records[3].Change.SequenceNumber {
		t.Fatalf("failures %+v, want only the malformed record", resp.BatchItemFailures)
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
	h := newHandler(tbl.Design(), &stale{base, ghost}, name, quiet)
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
	ev := loadBatch(t)
	good := ev.Records[:3]
	faults, err := streamtest.NewFaults(engine.Endpoint, 0.2, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer faults.Close()
	tbl, name := setup(t, streamtest.Client(engine.Endpoint, 0))
	h := newHandler(tbl.Design(), streamtest.Client(faults.URL, 2), name, quiet)
	rounds, err := streamtest.Deliver(context.Background(), h.Handle, good, 100)
	if err != nil {
		t.Fatal(err)
	}
	for id, n := range names(t, tbl) {
		if want := map[bool]string{true: "Grace", false: "Ada Lovelace"}[id == "C3"]; n != want {
			t.Errorf("order %s: %q, want %q", id, n, want)
		}
	}
	if faults.Failed() == 0 {
		t.Error("no fault was injected")
	}
	t.Logf("%d failed requests, %d deliveries", faults.Failed(), rounds)
}

func fixtureFor(b testing.TB) events.DynamoDBEvent { return loadBatch(b) }

func designFor(b testing.TB) *patterns.Design { return streamtest.Design(b, model) }
