package migrate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// deployNext are two patterns added to the synthetic e-commerce model:
// each a new synthetic GSI over Order.
const deployNext = "  OrdersByTotal: {query: Order, where: [total]}\n  OrdersAt: {query: Order, where: [createdAt]}\n"

// deployModels are the e-commerce model with synthetic index keys, and
// the same with deployNext (its first lock: no migration).
func deployModels(t *testing.T) (v1 *model.Model, d1, d2 *patterns.Design) {
	t.Helper()
	src, err := os.ReadFile("../../../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := "indexKeys: synthetic\n" + string(src)
	at := strings.Index(base, "  GetProduct:")
	end := at + strings.Index(base[at:], "\n") + 1
	next := base[:end] + deployNext + base[end:]
	plan := func(text string) (*model.Model, *patterns.Design) {
		m, err := model.Parse("shop.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		return m, d
	}
	v1, d1 = plan(base)
	_, d2 = plan(next)
	for _, p := range []string{"OrdersByTotal", "OrdersAt"} {
		if ix := d2.Index(d2.Pattern(p).Index); ix == nil || ix.Native() {
			t.Fatalf("%s is not served by a synthetic GSI", p)
		}
	}
	if len(newGSIs(d1, d2)) == 0 {
		t.Fatal("the patterns added no GSI")
	}
	return v1, d1, d2
}

// deployTable creates a table at d (its GSIs) holding the items of the
// given values as the design w writes them.
func deployTable(t *testing.T, d, w *patterns.Design, items map[string][]dynamo.Values) string {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("t%d-Deploy", tables.Add(1))
	if err := dynamo.CreateTable(ctx, engine, d, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	writer := dynamo.New(w, client, name)
	var all []map[string]types.AttributeValue
	for entity, vs := range items {
		for _, v := range vs {
			its, err := writer.Items(entity, v)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, its...)
		}
	}
	if len(all) > 0 {
		if err := dynamo.BatchPut(ctx, engine, name, all); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

// newGSIs are the GSIs of d2 that d1 lacks, sorted.
func newGSIs(d1, d2 *patterns.Design) []string {
	var out []string
	for _, ix := range d2.Indexes {
		if d1.Index(ix.Name) == nil {
			out = append(out, ix.Name)
		}
	}
	slices.Sort(out)
	return out
}

func gsiNames(t *testing.T, name string) []string {
	t.Helper()
	out, err := engine.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
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

func deployExamples(v1 *model.Model, keep func(entity string) bool) map[string][]dynamo.Values {
	items := map[string][]dynamo.Values{}
	for _, it := range v1.Examples.Items {
		if keep(it.Entity) {
			items[it.Entity] = append(items[it.Entity], it.Values)
		}
	}
	return items
}

// The lead's repro: a table deployed from the synthetic model, the two
// patterns added and locked for the first time (no migration): the new
// GSIs are synthetic, the orders lack their keys, so --apply-indexes
// refuses (naming the GSIs, the entity, the counts and the remedy) and
// creates nothing, rather than saying an index build filled them.
func TestDeployIndexesRefusesSyntheticGSIsTheItemsLack(t *testing.T) {
	ctx := context.Background()
	v1, d1, d2 := deployModels(t)
	items := deployExamples(v1, func(string) bool { return true })
	orders := int64(len(items["Order"]))
	for i, id := range []string{"a", "ab", "a#b", "a%b"} {
		items["Order"] = append(items["Order"], dynamo.Values{"orderId": id, "customerId": "c1", "customerName": "n", "revision": 1, "status": "PAID", "total": 10 + i%2,
			"createdAt": "2026-01-01T00:00:00Z", "shippingAddr": "x"})
		orders++
	}
	if orders == 0 {
		t.Fatal("no orders in the table")
	}
	name := deployTable(t, d1, d1, items)
	before := gsiNames(t, name)
	lock := patterns.NewLock(d2)
	var said []string
	_, err := Migrate(ctx, engine, name, lock, MigrateOptions{Apply: true, Say: func(s string) { said = append(said, s) }})
	var me *MigrateError
	if !errors.As(err, &me) {
		t.Fatalf("Migrate: %v (said %q), want a refusal", err, said)
	}
	msg := err.Error()
	for _, ix := range newGSIs(d1, d2) {
		want := fmt.Sprintf("%s (new): Order item(s): %d lack %sPK, %d lack %sSK", ix, orders, ix, orders, ix)
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q: %s", want, msg)
		}
	}
	// The fresh plan moved a pattern to GSI2, whose keys the orders hold
	// as the table's design gave them.
	if d2.Pattern("OrdersAt").Index == "GSI2" {
		if want := fmt.Sprintf("GSI2 (existing): Order item(s): %d hold another GSI2PK", orders); !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q: %s", want, msg)
		}
	}
	for _, want := range []string{"lock from the design the table holds", "plans the backfill"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "index build") || slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, "index build") }) {
		t.Errorf("a synthetic GSI called an index build: %s %q", msg, said)
	}
	t.Log(msg)
	if after := gsiNames(t, name); !slices.Equal(after, before) {
		t.Errorf("GSIs %v after the refusal, %v before", after, before)
	}
}

// The legitimate cases: a new synthetic GSI serving entities with no
// items yet, or whose items carry its keys already (written by the
// design that has it), is created and reported as synthetic, never as
// an index build; and the new patterns then return the orders.
func TestDeployIndexesCreatesSyntheticGSIsTheItemsCarry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v1, d1, d2 := deployModels(t)
	if why := enginepkg.Lacks(engineName, enginepkg.OnlineIndexes); why != "" {
		t.Skipf("%s: the new GSIs cannot be created on the live table (proved on the in-process engine and DynamoDB Local)", why)
	}
	for _, tc := range []struct {
		name   string
		orders bool
	}{{"no orders yet", false}, {"orders carry the keys", true}} {
		t.Run(tc.name, func(t *testing.T) {
			items := deployExamples(v1, func(e string) bool { return tc.orders || (e != "Order" && e != "OrderItem") })
			name := deployTable(t, d1, d2, items)
			lock := patterns.NewLock(d2)
			var said []string
			if _, err := Migrate(ctx, engine, name, lock, MigrateOptions{Apply: true, Say: func(s string) { said = append(said, s) }}); err != nil {
				t.Fatalf("Migrate: %v", err)
			}
			text := strings.Join(said, "\n")
			ixs := newGSIs(d1, d2)
			var created []string
			for _, ix := range ixs {
				created = append(created, ix+" (its keys verified on the items)")
			}
			n := len(items["Order"]) + len(items["Customer"]) + len(items["Product"])
			for _, want := range []string{fmt.Sprintf("created %v", created), fmt.Sprintf("verified first that the %d item(s) of Customer, Order, Product carry", n)} {
				if !strings.Contains(text, want) {
					t.Errorf("said %q, want %q", text, want)
				}
			}
			if strings.Contains(text, "index build") {
				t.Errorf("said %q: a synthetic GSI called an index build", text)
			}
			for _, ix := range ixs {
				if !slices.Contains(gsiNames(t, name), ix) {
					t.Errorf("%s not created", ix)
				}
			}
			rt := dynamo.New(d2, client, name)
			order := dynamo.Values{"orderId": "new", "customerId": "c9", "customerName": "n", "status": "PAID", "total": 77, "createdAt": "2026-02-02T00:00:00Z", "shippingAddr": "y"}
			if tc.orders {
				order = items["Order"][0]
			} else if err := rt.Create(ctx, "Order", order); err != nil {
				t.Fatal(err)
			}
			for p, a := range map[string]string{"OrdersByTotal": "total", "OrdersAt": "createdAt", "OrdersByStatus": "status"} {
				got := 0
				for it, err := range rt.All(ctx, p, dynamo.Request{Params: dynamo.Params{a: order[a]}}) {
					if err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(it.Values["orderId"]) == fmt.Sprint(order["orderId"]) {
						got++
					}
				}
				if got != 1 {
					t.Errorf("%s returned order %v %d times", p, order["orderId"], got)
				}
			}
		})
	}
}

// A new native GSI over the items' own attributes is an index build: the
// engine fills it, --apply-indexes creates it with no scan and says so;
// the new pattern returns the tasks written before.
func TestDeployIndexesNativeIndexBuild(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("../../../examples/tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan := func(text string) (*model.Model, *patterns.Design) {
		m, err := model.Parse("tracker.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		return m, d
	}
	v1, d1 := plan(string(src))
	needsNative(t, d1)
	v2, err := model.Parse("tracker.yaml", []byte(strings.Replace(string(src), "patterns:\n", "patterns:\n"+trackerNext, 1)))
	if err != nil {
		t.Fatal(err)
	}
	d2, err := patterns.PlanLocked(v2, patterns.NewLock(d1))
	if err != nil {
		t.Fatal(err)
	}
	ix := d2.Index(d2.Pattern("TasksByPriority").Index)
	if ix == nil || !ix.Native() || len(ix.StoredKeys()) > 0 || d1.Index(ix.Name) != nil {
		t.Fatalf("TasksByPriority is not served by a new native GSI with no discriminator")
	}
	items := deployExamples(v1, func(string) bool { return true })
	task := dynamo.Values{"tenantId": "a#b", "taskId": "t1", "title": "t", "status": "open", "priority": 5, "createdAt": "2026-07-01T10:00:00Z"}
	items["Task"] = append(items["Task"], task)
	name := deployTable(t, d1, d1, items)
	var said []string
	if _, err := Migrate(ctx, engine, name, patterns.NewLock(d2), MigrateOptions{Apply: true, Say: func(s string) { said = append(said, s) }}); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	text := strings.Join(said, "\n")
	if want := fmt.Sprintf("created [%s (index build: the engine fills it from the items' own attributes)]", ix.Name); !strings.Contains(text, want) || strings.Contains(text, "verified") {
		t.Errorf("said %q, want %q and no verification", text, want)
	}
	got := 0
	for it, err := range dynamo.New(d2, client, name).All(ctx, "TasksByPriority", dynamo.Request{Params: dynamo.Params{"tenantId": "a#b", "priority": 5}}) {
		if err != nil {
			t.Fatal(err)
		}
		if it.Values["taskId"] == "t1" {
			got++
		}
	}
	if got != 1 {
		t.Errorf("TasksByPriority returned the task %d times", got)
	}
}
