package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// spoil writes attributes of stored items as a real table may hold them,
// with the SDK (not keyplan's runtime): set to v, or removed when v is
// nil.
func spoil(t *testing.T, client dynamo.Client, table string, key map[string]types.AttributeValue, attrs map[string]types.AttributeValue) {
	t.Helper()
	in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key, ExpressionAttributeNames: map[string]string{}, ExpressionAttributeValues: map[string]types.AttributeValue{}}
	var set, remove []string
	i := 0
	for name, v := range attrs {
		i++
		n := fmt.Sprintf("#a%d", i)
		in.ExpressionAttributeNames[n] = name
		if v == nil {
			remove = append(remove, n)
			continue
		}
		in.ExpressionAttributeValues[fmt.Sprintf(":v%d", i)] = v
		set = append(set, fmt.Sprintf("%s = :v%d", n, i))
	}
	expr := ""
	if len(set) > 0 {
		expr = "SET " + join(set)
	}
	if len(remove) > 0 {
		expr += " REMOVE " + join(remove)
	}
	if len(in.ExpressionAttributeValues) == 0 {
		in.ExpressionAttributeValues = nil
	}
	in.UpdateExpression = aws.String(expr)
	if _, err := client.UpdateItem(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

func join(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

var null = &types.AttributeValueMemberNULL{Value: true}

// orderKey is an order's table key.
func orderKey(t *testing.T, tbl *dynamo.Table, id string) map[string]types.AttributeValue {
	t.Helper()
	k, err := tbl.Key("Order", dynamo.Values{"orderId": id})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// customerNames reads every order's customerName with a Scan (not the
// handler's reads), by its raw value.
func customerNames(t *testing.T, client evolvetest.Scanner, tbl *dynamo.Table, table string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, it := range evolvetest.ScanAll(t, client, table) {
		if entity, v, err := tbl.Identify(it); err == nil && entity == "Order" {
			s, _ := it["customerName"].(*types.AttributeValueMemberS)
			if s == nil {
				out[v["orderId"].(string)] = "?"
				continue
			}
			out[v["orderId"].(string)] = s.Value
		}
	}
	return out
}

// Copies that do not decode as the model says (an order's total stored
// as NULL, as SDKs write a nil pointer, or as a string; its address
// missing; its date in another format) are copies all the same: the
// handler knows a copy by its keys and updates it, on every page; an item
// of no entity in the pattern's range is left alone. A real batch (the
// source's own images holding a NULL and a number where the model says
// string) renames every order. On main the NULL total failed its page:
// the later pages were never updated and each retry started over, until
// the record was dropped (10 orders renamed, 21 kept the old name).
func TestFanoutUpdatesCopiesThatDoNotDecode(t *testing.T) {
	ev := streamtest.Batch(t, "testdata/undecodable.json")
	client := streamtest.Client(engine.Endpoint, 0)
	tbl, name := setup(t, client)
	for i, attrs := range []map[string]types.AttributeValue{
		{"total": null},
		{"total": &types.AttributeValueMemberS{Value: "lots"}, "shippingAddr": nil},
		{"createdAt": &types.AttributeValueMemberS{Value: "June 1st"}},
		{"status": &types.AttributeValueMemberN{Value: "3"}, "revision": null},
	} {
		for _, id := range []string{fmt.Sprintf("A%02d", i), fmt.Sprintf("A%02d", 27-i)} { // on the first page and the last
			spoil(t, client, name, orderKey(t, tbl, id), attrs)
		}
	}
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(tbl.Design()), client, name, log)
	h.page = 7 // several pages
	resp, err := h.Handle(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v, %v; want none", resp.BatchItemFailures, err)
	}
	for id, n := range customerNames(t, client, tbl, name) {
		if want := map[bool]string{true: "Grace Hopper", false: "Ada Lovelace"}[id == "C3"]; n != want {
			t.Errorf("order %s: customerName %q, want %q", id, n, want)
		}
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] != 1 || m[patterns.MetricUndecodable] != 0 || m[patterns.MetricFailed] != 0 {
		t.Errorf("metrics %v (%v): want the vendor's record counted as of no entity, nothing else", m, err)
	}
}

// A change to an item of no entity (another application's, or one an
// earlier model left) whose sort key the fanout's filter lets through has
// nothing to copy: skipped and counted, never failed. On main it failed
// on every delivery, holding the shard.
func TestFanoutSkipsItemsOfNoEntity(t *testing.T) {
	ev := streamtest.Batch(t, "testdata/undecodable.json")
	vendor := ev.Records[1]
	client := streamtest.Client(engine.Endpoint, 0)
	tbl, name := setup(t, client)
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(tbl.Design()), client, name, log)
	rounds, err := streamtest.Deliver(context.Background(), h.Handle, []events.DynamoDBEventRecord{vendor}, 3)
	if err != nil || rounds != 1 {
		t.Fatalf("%d deliveries, %v; want one", rounds, err)
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] != 1 {
		t.Errorf("metrics %v (%v): want the record counted", m, err)
	}
	if lines := out.Lines("record skipped: no entity"); len(lines) != 1 || lines[0]["key"] != `PK="VENDOR#v1" SK="CUSTOMER"` {
		t.Errorf("logged %v, want the record's key", lines)
	}
}

// The fanout on the engine's own stream, with items as a real table holds
// them: orders with a NULL or string total, a missing address, written
// with the SDK; a customer whose own unrelated attribute is NULL; an item
// of no entity, in the customers' sort key range, changed by another
// application. Renaming the customer renames every order, and nothing
// fails (Drain would say so: the mapping redelivers a failing record).
func TestFanoutUndecodableOnTheEnginesStream(t *testing.T) {
	d := streamtest.Design(t, modelFile)
	live := engine.LiveTable(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, live.Name)
	ctx := context.Background()
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(d), client, live.Name, log)
	h.budget, h.page = 12, 5 // continuations too
	mapping := live.Mapping(t, patterns.HandlerFanout, h.Handle)
	if err := tbl.Create(ctx, "Customer", customer("c1", "Ada", "ada@example.com")); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := tbl.Create(ctx, "Order", order(fmt.Sprintf("A%02d", i), "c1", "Ada")); err != nil {
			t.Fatal(err)
		}
	}
	for i, attrs := range []map[string]types.AttributeValue{{"total": null}, {"total": &types.AttributeValueMemberS{Value: "lots"}}, {"shippingAddr": nil}} {
		for _, id := range []string{fmt.Sprintf("A%02d", i), fmt.Sprintf("A%02d", 19-i)} {
			spoil(t, client, live.Name, orderKey(t, tbl, id), attrs)
		}
	}
	ck, err := tbl.Key("Customer", dynamo.Values{"customerId": "c1"})
	if err != nil {
		t.Fatal(err)
	}
	spoil(t, client, live.Name, ck, map[string]types.AttributeValue{"createdAt": null})
	vendor := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "VENDOR#v1"}, "SK": &types.AttributeValueMemberS{Value: "CUSTOMER"},
		"name": &types.AttributeValueMemberS{Value: "Acme"}}
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(live.Name), Item: vendor}); err != nil {
		t.Fatal(err)
	}
	spoil(t, client, live.Name, map[string]types.AttributeValue{"PK": vendor["PK"], "SK": vendor["SK"]}, map[string]types.AttributeValue{"name": &types.AttributeValueMemberS{Value: "Acme Inc"}})
	if err := tbl.Update(ctx, "Customer", dynamo.Values{"customerId": "c1"}, dynamo.Changes{Set: dynamo.Values{"name": "Ada Lovelace"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := mapping.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	names := customerNames(t, client, tbl, live.Name)
	if len(names) != 20 {
		t.Fatalf("%d orders", len(names))
	}
	for id, n := range names {
		if n != "Ada Lovelace" {
			t.Errorf("order %s: customerName %q, want the new name", id, n)
		}
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] < 1 || m[patterns.MetricFailed] != 0 || m[patterns.MetricUndecodable] != 0 {
		t.Errorf("metrics %v (%v): want the vendor's change counted, nothing failed", m, err)
	}
}
