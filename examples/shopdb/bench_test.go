package shopdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/examples/shopdb"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// canned answers every read with the same items, so that the benchmarks
// measure keyplan's side of a call (request, decoding), not an engine.
type canned struct {
	dynamo.Client
	items []map[string]types.AttributeValue
}

func (c *canned) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return &dynamodb.GetItemOutput{Item: c.items[0]}, nil
}

func (c *canned) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return &dynamodb.QueryOutput{Items: c.items, Count: int32(len(c.items))}, nil
}

func benchDB(b *testing.B) (*shopdb.DB, *dynamo.Table) {
	d, _ := plan(b)
	rt := dynamo.New(d, nil, "Shop")
	c := &canned{}
	at := time.Date(2026, 6, 3, 9, 0, 0, 0, time.UTC)
	for i := range 25 {
		o := shopdb.Order{OrderID: "A" + string(rune('a'+i)), CustomerID: "c1", CustomerName: "Ada", Status: shopdb.OrderStatusPaid,
			CreatedAt: at.Add(time.Duration(i) * time.Minute), Total: 1600, ShippingAddr: "1 Loop Rd", Revision: 1}
		item, err := rt.Item("Order", o.Values())
		if err != nil {
			b.Fatal(err)
		}
		c.items = append(c.items, item)
	}
	db, err := shopdb.Open(c, "Shop")
	if err != nil {
		b.Fatal(err)
	}
	return db, dynamo.New(d, c, "Shop")
}

// byHand is what an application without generated code writes after a
// runtime read: the values into its own struct.
func byHand(v dynamo.Values) shopdb.Order {
	return shopdb.Order{OrderID: v["orderId"].(string), CustomerID: v["customerId"].(string), CustomerName: v["customerName"].(string),
		Status: shopdb.OrderStatus(v["status"].(string)), CreatedAt: v["createdAt"].(time.Time), Total: v["total"].(int64),
		ShippingAddr: v["shippingAddr"].(string), Revision: v["revision"].(int64)}
}

// orderID and customerID are what both sides read, as an application has it: a value
// known at run time (so both box it into the parameters' map), not a
// constant the compiler could fold into the runtime call's literal.
var orderID, customerID = "Aa", "c1"

// A get: the generated method next to the runtime call it wraps, with the
// values read into a struct by hand.
func BenchmarkGetOrder(b *testing.B) {
	ctx := context.Background()
	db, rt := benchDB(b)
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o, err := db.GetOrder(ctx, orderID)
			if err != nil || o.Total != 1600 {
				b.Fatal(o, err)
			}
		}
	})
	b.Run("runtime", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			it, err := rt.Get(ctx, "GetOrder", dynamo.Params{"orderId": orderID})
			if err != nil {
				b.Fatal(err)
			}
			if o := byHand(it.Values); o.Total != 1600 {
				b.Fatal(o)
			}
		}
	})
}

// A page of 25 orders.
func BenchmarkCustomerOrders(b *testing.B) {
	ctx := context.Background()
	db, rt := benchDB(b)
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := db.CustomerOrders(ctx, customerID, shopdb.Options{})
			if err != nil || len(p.Items) != 25 {
				b.Fatal(err)
			}
		}
	})
	b.Run("runtime", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := rt.Read(ctx, "CustomerOrders", dynamo.Request{Params: dynamo.Params{"customerId": customerID}})
			if err != nil || len(p.Items) != 25 {
				b.Fatal(err)
			}
			orders := make([]shopdb.Order, 0, len(p.Items))
			for _, it := range p.Items {
				orders = append(orders, byHand(it.Values))
			}
			if orders[24].Total != 1600 {
				b.Fatal(orders[24])
			}
		}
	})
}
