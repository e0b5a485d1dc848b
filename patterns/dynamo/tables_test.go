package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// A model of two tables (storefront: Orders, Sessions): the runtime of
// each table writes and reads its own entities in its own table, a
// transaction of one table included, and holds nothing of the other's.
func TestTwoTablesOnEngine(t *testing.T) {
	ts, err := patterns.OpenTables("../testdata/tables/storefront.yaml", patterns.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Lock == nil || ts[1].Lock == nil {
		t.Fatalf("%d tables", len(ts))
	}
	for _, o := range ts {
		needsNative(t, o.Design)
	}
	ctx := context.Background()
	orders, sessions := fresh(t, ts[0].Design), fresh(t, ts[1].Design)
	if err := orders.Put(ctx, "Customer", Values{"customerId": "t1", "name": "T1"}); err != nil {
		t.Fatal(err)
	}
	if err := orders.Write(ctx, "PlaceOrder", Params{"customerId": "t1", "orderId": "o1", "status": "OPEN", "placedAt": "2099-01-01T00:00:00Z", "total": 12.5}); err != nil {
		t.Fatal(err)
	}
	if err := orders.Write(ctx, "PlaceOrder", Params{"customerId": "t10", "orderId": "o2", "status": "OPEN", "placedAt": "2099-01-01T00:00:00Z", "total": 1}); err == nil {
		t.Error("PlaceOrder for a customer the Orders table does not hold: written")
	}
	if err := sessions.Write(ctx, "StartSession", Params{"sessionId": "s1", "customerId": "t1", "expiresAt": 4102531200}); err != nil {
		t.Fatal(err)
	}
	if err := sessions.Write(ctx, "AddToCart", Params{"sessionId": "s1", "sku": "a#1", "quantity": 2, "expiresAt": 4102531200}); err != nil {
		t.Fatal(err)
	}
	// Each table's runtime knows only its own patterns and entities.
	if _, err := orders.Get(ctx, "GetSession", Params{"sessionId": "s1"}); err == nil {
		t.Error("the Orders runtime read GetSession")
	}
	if err := sessions.Put(ctx, "Customer", Values{"customerId": "x", "name": "X"}); err == nil {
		t.Error("the Sessions runtime wrote a Customer")
	}
	page, err := orders.Read(ctx, "CustomerOrders", Request{Params: Params{"customerId": "t1"}})
	if err != nil || len(page.Items) != 2 || page.Items[0].Entity != "Order" || page.Items[1].Entity != "Customer" {
		t.Fatalf("CustomerOrders: %v %+v", err, page)
	}
	if it, err := sessions.Get(ctx, "GetSession", Params{"sessionId": "s1"}); err != nil || it == nil || it.Values["customerId"] != "t1" {
		t.Fatalf("GetSession: %v %+v", err, it)
	}
	cart, err := sessions.Read(ctx, "CartItems", Request{Params: Params{"sessionId": "s1"}})
	if err != nil || len(cart.Items) != 1 {
		t.Fatalf("CartItems: %v %+v", err, cart)
	}
	// AND the engine's tables hold each its own items, nothing of the other's
	for tb, want := range map[*Table][]string{orders: {"CUSTOMER#t1", "CUSTOMER#t1"}, sessions: {"SESSION#s1", "SESSION#s1"}} {
		out, err := engine.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tb.Name()), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			pk, _ := it[model.TablePK].(*types.AttributeValueMemberS)
			if pk != nil {
				got = append(got, pk.Value)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s holds %v, want %v", tb.Name(), got, want)
		}
	}
}

// One transaction across the two tables of a model (TransactTables):
// both items written or neither, whichever table's condition fails (the
// error names that call and its entity); what DynamoDB refuses (an item
// written twice, the same table under two runtimes included; over 100
// items) is refused before anything is sent.
func TestTransactAcrossTables(t *testing.T) {
	ts, err := patterns.OpenTables("../testdata/tables/storefront.yaml", patterns.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ts {
		needsNative(t, o.Design)
	}
	ctx := context.Background()
	orders, sessions := fresh(t, ts[0].Design), fresh(t, ts[1].Design)
	customer := func(id string) TableCall {
		return TableCall{orders, "AddCustomer", Params{"customerId": id, "name": "N" + id}}
	}
	session := func(id string) TableCall {
		return TableCall{sessions, "StartSession", Params{"sessionId": id, "customerId": "c1", "expiresAt": 4102531200}}
	}
	has := func(tb *Table, pattern, param, id string) bool {
		t.Helper()
		it, err := tb.Get(ctx, pattern, Params{param: id})
		if err != nil {
			t.Fatal(err)
		}
		return it != nil
	}
	in, err := TransactTablesInput(customer("c1"), session("s1"))
	if err != nil || len(in.TransactItems) != 2 || *in.TransactItems[0].Put.TableName != orders.Name() || *in.TransactItems[1].Put.TableName != sessions.Name() {
		t.Fatalf("TransactTablesInput: %v %+v", err, in)
	}
	if err := TransactTables(ctx, customer("c1"), session("s1")); err != nil {
		t.Fatal(err)
	}
	if !has(orders, "GetCustomer", "customerId", "c1") || !has(sessions, "GetSession", "sessionId", "s1") {
		t.Fatal("TransactTables wrote not both items")
	}
	// the first table's condition fails: the second table's item is not written
	err = TransactTables(ctx, customer("c1"), session("s2"))
	var ce *ConditionError
	if !errors.As(err, &ce) || ce.Subject != "AddCustomer (op 1)" || ce.Entity != "Customer" || has(sessions, "GetSession", "sessionId", "s2") {
		t.Errorf("c1 again with s2: %v (%+v); s2 written: %v", err, ce, has(sessions, "GetSession", "sessionId", "s2"))
	}
	// the second table's: the first table's item is not written
	err = TransactTables(ctx, customer("c2"), session("s1"))
	if !errors.As(err, &ce) || ce.Subject != "StartSession (op 2)" || ce.Entity != "Session" || has(orders, "GetCustomer", "customerId", "c2") {
		t.Errorf("c2 with s1 again: %v (%+v); c2 written: %v", err, ce, has(orders, "GetCustomer", "customerId", "c2"))
	}
	// a condition over a check of another table's item: PlaceOrder checks
	// its Customer in the Orders table, beside a Session in the other
	place := TableCall{orders, "PlaceOrder", Params{"customerId": "c1", "orderId": "o1", "status": "OPEN", "placedAt": "2099-01-01T00:00:00Z", "total": 1}}
	if err := TransactTables(ctx, place, session("s3")); err != nil {
		t.Fatal(err)
	}
	// refused before anything is sent
	other := New(ts[1].Design, sessions.client, sessions.Name()) // the same table, another runtime
	for _, tc := range []struct {
		name  string
		calls []TableCall
		want  string
	}{
		{"one item twice", []TableCall{session("s9"), session("s9")}, "StartSession (op 1) and StartSession (op 2) write the same item"},
		{"one item, two runtimes", []TableCall{session("s9"), {other, "StartSession", session("s9").Params}}, "a transaction touches an item once"},
		{"no table", []TableCall{{nil, "StartSession", nil}}, "op 1 (StartSession): no table"},
		{"a write the table lacks", []TableCall{{orders, "StartSession", session("s9").Params}}, "op 1 (StartSession, table " + orders.Name() + "): unknown write"},
		{"an unknown parameter", []TableCall{{orders, "AddCustomer", Params{"customerId": "c9", "name": "x", "sessionId": "s9"}}}, `unknown parameter "sessionId"`},
		{"101 items over two tables", manyCalls(customer, session, 101), "101 items over the tables"},
		{"no call", nil, "no op to run"},
	} {
		if err := TransactTables(ctx, tc.calls...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
	if has(sessions, "GetSession", "sessionId", "s9") || has(orders, "GetCustomer", "customerId", "c9") {
		t.Error("a refused transaction wrote")
	}
	// one key in two tables (two of one design): two items, both written
	second := fresh(t, ts[1].Design)
	if err := TransactTables(ctx, session("s7"), TableCall{second, "StartSession", session("s7").Params}); err != nil {
		t.Errorf("one key in two tables: %v", err)
	} else if !has(sessions, "GetSession", "sessionId", "s7") || !has(second, "GetSession", "sessionId", "s7") {
		t.Error("one key in two tables: not both written")
	}
	// 100 items over two tables: DynamoDB's most, taken
	if err := TransactTables(ctx, manyCalls(customer, session, 100)...); err != nil {
		t.Errorf("100 items over two tables: %v", err)
	}
}

// manyCalls are n calls, alternately of each table, each its own item.
func manyCalls(a, b func(string) TableCall, n int) []TableCall {
	var out []TableCall
	for i := range n {
		if i%2 == 0 {
			out = append(out, a(fmt.Sprintf("m%d", i)))
		} else {
			out = append(out, b(fmt.Sprintf("m%d", i)))
		}
	}
	return out
}
