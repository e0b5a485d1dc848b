package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

// keyplan migrate --table and diff --live --table on a model of two
// tables (storefront: Orders, Sessions, renamed per run to be unique on
// the shared engine): each command works on the table --table names,
// with that table's lock; a migration of one table neither changes the
// other's lock nor touches its table; drift of one table is that table's
// only; an unknown table, or none, is refused (exit 2) naming the tables.
func TestTablesMigrateAndLiveDiff(t *testing.T) {
	ep := engine(t)
	if why := engineOn.Lacks(dynamotest.OnlineIndexes); why != "" {
		t.Skipf("%s: the phases' GSIs cannot be created on the live tables (proved on the in-process engine and DynamoDB Local)", why)
	}
	n := tableSeq.Add(1)
	orders, sessions := fmt.Sprintf("Orders%d", n), fmt.Sprintf("Sessions%d", n)
	src, err := os.ReadFile("../../patterns/testdata/tables/storefront.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := strings.NewReplacer("  Orders:\n", "  "+orders+":\n", "table: Orders\n", "table: "+orders+"\n",
		"  Sessions:\n", "  "+sessions+":\n", "table: Sessions\n", "table: "+sessions+"\n").Replace(string(src))
	dir := t.TempDir()
	file := filepath.Join(dir, "storefront.yaml")
	if err := os.WriteFile(file, []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := keyplan("lock", file); code != 0 {
		t.Fatalf("lock: %d\n%s%s", code, out, errs)
	}
	ordersLock := filepath.Join(dir, "storefront."+orders+".lock.json")
	sessionsLock := filepath.Join(dir, "storefront."+sessions+".lock.json")
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Each table deployed as its lock says, with items of its entities.
	ctx := context.Background()
	client := localengine.Client(ep, 0)
	ts, err := patterns.OpenTables(file, patterns.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ts {
		if err := dynamo.CreateLockTable(ctx, client, o.Lock, o.Table); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = dynamo.DropTable(context.Background(), client, o.Table) })
		// as the construct deploys it: its stream, and its TTL
		if _, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(o.Table),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
			t.Fatal(err)
		}
		if a := o.Lock.Accepted.TTL; a != "" {
			if _, err := client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(o.Table),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(a), Enabled: aws.Bool(true)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	db := func(i int) *dynamo.Table { return dynamo.New(ts[i].Design, client, ts[i].Table) }
	if err := db(0).Put(ctx, "Customer", dynamo.Values{"customerId": "t1", "name": "T1"}); err != nil {
		t.Fatal(err)
	}
	for _, sku := range []string{"a#1", "a#10", "b%2"} {
		if err := db(1).Put(ctx, "Cart", dynamo.Values{"sessionId": "s1", "sku": sku, "quantity": 1, "expiresAt": 4102531200}); err != nil {
			t.Fatal(err)
		}
	}
	gsis := func(table string) []string {
		t.Helper()
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, g := range out.Table.GlobalSecondaryIndexes {
			names = append(names, aws.ToString(g.IndexName))
		}
		slices.Sort(names)
		return names
	}
	ordersGSIs, sessionsGSIs := gsis(orders), gsis(sessions)
	items := func(table string) string { // the table's items, in key order
		t.Helper()
		out, err := client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, it := range out.Items {
			all = append(all, fmt.Sprint(mustValues(t, it)))
		}
		slices.Sort(all)
		return strings.Join(all, "\n")
	}

	// No table, or one the model does not declare: refused, naming them.
	for _, table := range []string{"Orders", "orders" + fmt.Sprint(n), sessions + "x"} {
		want := fmt.Sprintf("--table %q: the model declares tables %s, %s: name one of them", table, orders, sessions)
		if code, _, errs := keyplan("migrate", file, "--table", table, "--endpoint", ep); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("migrate --table %q: %d %s; want 2 and %q", table, code, errs, want)
		}
		if code, _, errs := keyplan("diff", file, "--live", "--table", table, "--endpoint", ep); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("diff --live --table %q: %d %s; want 2 and %q", table, code, errs, want)
		}
	}
	if code, _, errs := keyplan("migrate", file, "--endpoint", ep); code != 2 || !strings.Contains(errs, "--table NAME is required") {
		t.Errorf("migrate without --table: %d %s", code, errs)
	}
	if code, _, errs := keyplan("diff", file, "--live", "--endpoint", ep); code != 2 || !strings.Contains(errs, `--table "": the model declares tables `+orders+", "+sessions) {
		t.Errorf("diff --live without --table: %d %s", code, errs)
	}
	// Deployed as locked: no drift on either table.
	for _, table := range []string{orders, sessions} {
		if code, out, errs := keyplan("diff", file, "--live", "--table", table, "--endpoint", ep); code != 0 {
			t.Errorf("diff --live --table %s as deployed: %d\n%s%s", table, code, out, errs)
		}
	}

	// A new read of carts by sku: a GSI and a backfill of Cart on the
	// Sessions table; the Orders table's lock and table stay as they are.
	changed := strings.Replace(model, "  CartItems:", "  CartsBySku:        {query: Cart, where: [sku], rate: 1}\n  CartItems:", 1)
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	ordersBefore, sessionsItems, ordersItems := read(ordersLock), items(sessions), items(orders)
	if code, out, errs := keyplan("lock", file); code != 0 || !strings.Contains(out, "migration at phase 1 of 1") {
		t.Fatalf("lock after the change: %d\n%s%s", code, out, errs)
	}
	sessionsMigrating := read(sessionsLock)
	if read(ordersLock) != ordersBefore {
		t.Error("keyplan lock of a change to Sessions rewrote the Orders lock")
	}
	// Migrating Orders: nothing to do there, and nothing done to Sessions.
	if code, out, errs := keyplan("migrate", file, "--table", orders, "--endpoint", ep, "--apply-indexes", "--progress", "0"); code != 0 {
		t.Fatalf("migrate --table %s: %d\n%s%s", orders, code, out, errs)
	}
	if read(sessionsLock) != sessionsMigrating || read(ordersLock) != ordersBefore {
		t.Error("migrate --table Orders changed a lock")
	}
	if got := gsis(sessions); !slices.Equal(got, sessionsGSIs) || items(sessions) != sessionsItems {
		t.Errorf("migrate --table Orders changed the Sessions table: GSIs %v, were %v; items\n%s\nwere\n%s", got, sessionsGSIs, items(sessions), sessionsItems)
	}
	if code, out, errs := keyplan("migrate", file, "--table", sessions, "--endpoint", ep, "--apply-indexes", "--progress", "0"); code != 0 || !strings.Contains(out, "phase 1 of 1: backfilling Cart") || !strings.Contains(out, "3 rewritten") {
		t.Fatalf("migrate --table %s: %d\n%s%s", sessions, code, out, errs)
	}
	if read(ordersLock) != ordersBefore {
		t.Error("migrate --table Sessions rewrote the Orders lock")
	}
	if read(sessionsLock) == sessionsMigrating {
		t.Error("migrate --table Sessions did not advance the Sessions lock")
	}
	if got := gsis(orders); !slices.Equal(got, ordersGSIs) || items(orders) != ordersItems {
		t.Errorf("migrate --table Sessions changed the Orders table: GSIs %v, were %v; items\n%s\nwere\n%s", got, ordersGSIs, items(orders), ordersItems)
	}
	if items(sessions) == sessionsItems {
		t.Error("migrate --table Sessions rewrote no Cart item")
	}
	// The new read serves the backfilled carts.
	ts, err = patterns.OpenTables(file, patterns.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := db(1).Read(ctx, "CartsBySku", dynamo.Request{Params: dynamo.Params{"sku": "a#1"}})
	if err != nil || len(page.Items) != 1 || page.Items[0].Values["sku"] != "a#1" {
		t.Fatalf("CartsBySku(a#1) after the migration: %v %+v", err, page)
	}

	// Drift on the Orders table (an index made by hand) is the Orders
	// table's: exit 1 there, naming it; 0 on Sessions.
	if _, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(orders),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("byHand"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("ByHand"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("byHand"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := keyplan("diff", file, "--live", "--table", orders, "--endpoint", ep); code != 1 || !strings.Contains(out, "ByHand") {
		t.Errorf("diff --live --table %s with a GSI made by hand: %d\n%s%s", orders, code, out, errs)
	}
	if code, out, errs := keyplan("diff", file, "--live", "--table", sessions, "--endpoint", ep); code != 0 {
		t.Errorf("diff --live --table %s after its migration: %d\n%s%s", sessions, code, out, errs)
	}
}

// mustValues is an item's attributes as Go values.
func mustValues(t *testing.T, it map[string]types.AttributeValue) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range it {
		out[k] = fmt.Sprintf("%#v", v)
	}
	return out
}
