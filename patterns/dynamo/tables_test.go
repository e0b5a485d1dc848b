package dynamo

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
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
			pk, _ := it[patterns.TablePK].(*types.AttributeValueMemberS)
			if pk != nil {
				got = append(got, pk.Value)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s holds %v, want %v", tb.Name(), got, want)
		}
	}
}
