package shopdb_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/keyplan/keyplan/examples/shopdb"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
	"github.com/keyplan/keyplan/patterns/gen"
)

const model = "../ecommerce.yaml"

// plan opens the model with its lock, as keyplan gen go does.
func plan(t testing.TB) (*patterns.Design, *patterns.Lock) {
	t.Helper()
	d, lock, err := patterns.Open(model)
	if err != nil {
		t.Fatal(err)
	}
	return d, lock
}

// The committed code is what keyplan gen go makes of the model today
// (go generate ./examples/shopdb after a model change).
func TestGeneratedIsCurrent(t *testing.T) {
	d, lock := plan(t)
	want, err := gen.Go(d, gen.Options{Package: "shopdb", Source: model, Lock: lock})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("keyplan.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("keyplan.gen.go is stale: run go generate ./examples/shopdb")
	}
}

// Typed writes and reads against the local engine: the transaction and
// its condition, optimistic locking by revision, a key rebuilt by an
// update, pages and the iterator, enums and times round-tripping.
func TestShopOnEngine(t *testing.T) {
	ctx := context.Background()
	e := dynamotest.Start(t)
	d, _ := plan(t)
	name := e.TableName(t, d)
	db, err := shopdb.Open(e.DB, name)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 6, 3, 9, 0, 0, 0, time.UTC)
	ada := shopdb.Customer{CustomerID: "c1", Name: "Ada", Email: "ada@example.com", CreatedAt: at}
	if err := db.Runtime().Create(ctx, "Customer", ada.Values()); err != nil {
		t.Fatal(err)
	}
	mug := shopdb.Product{ProductID: "sku-5", Name: "Mug", Category: "kitchen", Price: 800, Inventory: 3}
	if err := db.Runtime().Create(ctx, "Product", mug.Values()); err != nil {
		t.Fatal(err)
	}
	order := func(id string, qty int64, created time.Time) shopdb.PlaceOrderParams {
		return shopdb.PlaceOrderParams{OrderID: id, CustomerID: "c1", CustomerName: "Ada", Status: shopdb.OrderStatusPaid,
			CreatedAt: created, Total: 800 * qty, ShippingAddr: "1 Loop Rd", Sku: "sku-5", ProductID: "sku-5",
			ProductName: "Mug", Quantity: qty, Price: 800}
	}
	var ce *dynamo.ConditionError
	if err := db.PlaceOrder(ctx, order("X1", 5, at)); !errors.As(err, &ce) {
		t.Fatalf("5 mugs of 3: %v, want a *dynamo.ConditionError", err)
	}
	if err := db.PlaceOrder(ctx, order("X2", 2, at)); err != nil {
		t.Fatal(err)
	}
	if err := db.PlaceOrder(ctx, order("X3", 1, at.Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	if p, err := db.GetProduct(ctx, "sku-5"); err != nil || p == nil || p.Inventory != 0 {
		t.Fatalf("the mug after two orders: %+v, %v", p, err)
	}
	o, err := db.GetOrder(ctx, "X2")
	if err != nil || o == nil {
		t.Fatalf("GetOrder: %v, %v", o, err)
	}
	if o.Status != shopdb.OrderStatusPaid || !o.CreatedAt.Equal(at) || o.Total != 1600 || o.Revision != 1 {
		t.Fatalf("GetOrder = %+v", *o)
	}
	if none, err := db.GetOrder(ctx, "X1"); none != nil || err != nil {
		t.Fatalf("the refused order: %+v, %v", none, err)
	}
	// Optimistic locking: a second edit from the same read fails.
	if err := db.ChangeAddress(ctx, shopdb.ChangeAddressParams{OrderID: "X2", ShippingAddr: "3 Heap Ave", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if err := db.ChangeAddress(ctx, shopdb.ChangeAddressParams{OrderID: "X2", ShippingAddr: "4 Queue Ct", Revision: 1}); !errors.As(err, &ce) {
		t.Fatalf("a stale edit: %v", err)
	}
	// Shipping moves the order between OrdersByStatus's partitions.
	if err := db.ShipOrder(ctx, shopdb.ShipOrderParams{OrderID: "X2", Status: shopdb.OrderStatusShipped, CreatedAt: at, Revision: 2}); err != nil {
		t.Fatal(err)
	}
	paid, err := db.OrdersByStatus(ctx, shopdb.OrderStatusPaid, shopdb.Options{})
	if err != nil || len(paid.Items) != 1 || paid.Items[0].OrderID != "X3" || paid.Next != nil {
		t.Fatalf("paid orders: %+v, %v", paid, err)
	}
	// Newest first, one per page, to the end.
	var ids []string
	for o, err := range db.CustomerOrdersAll(ctx, "c1", shopdb.Options{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.OrderID)
	}
	if len(ids) != 2 || ids[0] != "X3" || ids[1] != "X2" {
		t.Fatalf("CustomerOrdersAll = %v, want [X3 X2]", ids)
	}
	// The order with its line: two entities, one Query.
	var orders, lines int
	for it, err := range db.OrderWithItemsAll(ctx, "X2", shopdb.Options{}) {
		switch {
		case err != nil:
			t.Fatal(err)
		case it.Order != nil && it.Order.ShippingAddr == "3 Heap Ave":
			orders++
		case it.OrderItem != nil && it.OrderItem.Quantity == 2:
			lines++
		default:
			t.Fatalf("item %+v", it)
		}
	}
	if orders != 1 || lines != 1 {
		t.Fatalf("OrderWithItems: %d orders, %d lines", orders, lines)
	}
	if c, err := db.CustomerByEmail(ctx, "ada@example.com"); err != nil || c == nil || c.Name != "Ada" {
		t.Fatalf("CustomerByEmail: %+v, %v", c, err)
	}
}
