package gen

import (
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
)

// storefrontTables are the storefront model's tables with their locks.
func storefrontTables(t testing.TB) []Table {
	t.Helper()
	ts, err := patterns.OpenTables("../testdata/tables/storefront.yaml", patterns.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []Table
	for _, o := range ts {
		out = append(out, Table{Design: o.Design, Lock: o.Lock})
	}
	return out
}

// One package for a model of two tables: every entity, pattern and
// write of both, each method on its table's runtime, type-checked; a
// name two tables' code would both take is refused.
func TestModelPackage(t *testing.T) {
	enginepass.Independent(t)
	ts := storefrontTables(t)
	src, err := GoTables(ts, Options{Package: "storefrontdb", Source: "storefront.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheck(t, "storefrontdb", src); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, want := range []string{
		"func Open(client dynamo.Client, name func(table string) string, opts ...dynamo.Option) (*DB, error)",
		"TableOrders   = \"Orders\"",
		"func (db *DB) PlaceOrder(ctx context.Context, ",
		"return db.tOrders.Write(ctx, \"PlaceOrder\", p)",
		"return db.tSessions.Write(ctx, \"StartSession\", p)",
		"return readPage(ctx, db.tSessions, \"CartItems\"",
		"func (db *DB) Transact(ctx context.Context, calls ...dynamo.WriteCall) error",
		"case \"AddCustomer\", \"PlaceOrder\", \"ShipOrder\":\n\t\treturn db.tOrders",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the model's package lacks %q", want)
		}
	}
	if strings.Contains(string(src), "db.t.") || strings.Contains(string(src), "db.t,") {
		t.Error("a method on no table (db.t)")
	}
	// a write of one table named like a write of the other: refused
	ts[1].Design.Model().Writes[0].Name, ts[1].Lock = "PlaceOrder", nil
	if _, err := GoTables(ts, Options{Package: "x"}); err == nil || !strings.Contains(err.Error(), "PlaceOrder") {
		t.Errorf("a write of Sessions named like a write of Orders: %v", err)
	}
}

// storefrontTest runs the storefront model's one package (two tables) on
// the engine: Open resolves each table's deployed name, each typed
// method reads and writes its own table (the other holds none of its
// items), and Transact writes both tables in one transaction, all or
// nothing. TestGeneratedCodeBuilds writes it beside the package and runs
// it.
const storefrontTest = `package storefrontdb

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

func TestTheModelsTables(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	names := map[string]string{}
	for _, table := range Tables {
		l, err := Lock(table)
		if err != nil || l == nil {
			t.Fatalf("the %s lock: %v", table, err)
		}
		names[table] = fmt.Sprintf("sf-%s-%d", table, time.Now().UnixNano())
		if err := dynamo.CreateLockTable(ctx, engine.Raw, l, names[table]); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = dynamo.DropTable(context.Background(), engine.Raw, names[table]) })
	}
	if _, err := Open(engine.DB, func(table string) string { return map[string]string{TableOrders: "x-orders"}[table] }); err == nil {
		t.Error("Open with no name for Sessions")
	}
	if _, err := Design("Carts"); err == nil {
		t.Error("Design of an unknown table")
	}
	db, err := Open(engine.DB, func(table string) string { return names[table] })
	if err != nil {
		t.Fatal(err)
	}
	if db.Runtime(TableOrders).Name() != names[TableOrders] || db.Runtime(TableSessions).Name() != names[TableSessions] || db.Runtime("x") != nil {
		t.Fatal("Runtime: the tables' runtimes")
	}
	if err := db.AddCustomer(ctx, AddCustomerParams{CustomerID: "t1", Name: "T1"}); err != nil {
		t.Fatal(err)
	}
	if err := db.PlaceOrder(ctx, PlaceOrderParams{CustomerID: "t1", OrderID: "o1", Status: OrderStatusOpen, PlacedAt: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), Total: 12.5}); err != nil {
		t.Fatal(err)
	}
	if err := db.StartSession(ctx, StartSessionParams{SessionID: "s1", CustomerID: "t1", ExpiresAt: 4102531200}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddToCart(ctx, AddToCartParams{SessionID: "s1", Sku: "a#1", Quantity: 2, ExpiresAt: 4102531200}); err != nil {
		t.Fatal(err)
	}
	if c, err := db.GetCustomer(ctx, "t1"); err != nil || c == nil || c.Name != "T1" {
		t.Errorf("GetCustomer: %+v %v", c, err)
	}
	if page, err := db.CustomerOrders(ctx, "t1", Options{}); err != nil || len(page.Items) != 2 {
		t.Errorf("CustomerOrders: %+v %v", page, err)
	}
	if s, err := db.GetSession(ctx, "s1"); err != nil || s == nil || s.CustomerID != "t1" {
		t.Errorf("GetSession: %+v %v", s, err)
	}
	if page, err := db.CartItems(ctx, "s1", Options{}); err != nil || len(page.Items) != 1 || page.Items[0].Sku != "a#1" {
		t.Errorf("CartItems: %+v %v", page, err)
	}
	count := func(table string) int {
		t.Helper()
		out, err := engine.Raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(names[table]), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Items)
	}
	if count(TableOrders) != 2 || count(TableSessions) != 2 {
		t.Errorf("the tables hold %d and %d items, want 2 and 2", count(TableOrders), count(TableSessions))
	}
	// one transaction over both tables: both or neither
	call := func(write string, p dynamo.Params) dynamo.WriteCall { return dynamo.WriteCall{Write: write, Params: p} }
	if err := db.Transact(ctx, call("AddCustomer", dynamo.Params{"customerId": "t10", "name": "T10"}), call("StartSession", dynamo.Params{"sessionId": "s10", "customerId": "t10", "expiresAt": 4102531200})); err != nil {
		t.Fatal(err)
	}
	if c, _ := db.GetCustomer(ctx, "t10"); c == nil {
		t.Error("Transact: no customer t10")
	}
	if s, _ := db.GetSession(ctx, "s10"); s == nil {
		t.Error("Transact: no session s10")
	}
	err = db.Transact(ctx, call("AddCustomer", dynamo.Params{"customerId": "t2", "name": "T2"}), call("StartSession", dynamo.Params{"sessionId": "s1", "customerId": "t2", "expiresAt": 4102531200}))
	var ce *dynamo.ConditionError
	if !errors.As(err, &ce) || ce.Subject != "StartSession (op 2)" {
		t.Errorf("Transact with a session that exists: %v", err)
	}
	if c, _ := db.GetCustomer(ctx, "t2"); c != nil {
		t.Error("Transact refused, and its customer written")
	}
	if err := db.Transact(ctx, call("Nope", nil)); !errors.Is(err, dynamo.ErrUnknownWrite) {
		t.Errorf("Transact of an unknown write: %v", err)
	}
}
`
