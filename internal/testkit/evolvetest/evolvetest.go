package evolvetest

import (
	"bytes"
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

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// ShopModel is the model the edits start from, from the repository root.
const ShopModel = "examples/ecommerce.yaml"

// Edit is one change to a model's text.
type Edit struct {
	Name string
	// Apply rewrites the model text (it must change it).
	Apply func(string) string
	// Want are the change rule ids the diff must report (and no error
	// unless the edit is refused).
	Want    []string
	Refused bool
	// Safe: one deploy, no backfill.
	Safe bool
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

func addPattern(line string) func(string) string {
	return replace("  GetProduct:         {get: Product, rate: 300}\n", "  GetProduct:         {get: Product, rate: 300}\n"+line+"\n")
}

// ShopEdits walk the shop through successive changes: each applies to the
// model the previous ones left (a refused edit is undone).
var ShopEdits = []Edit{
	{Name: "pattern inserted first", Apply: replace("patterns:\n", "patterns:\n  OrdersByTotal: {query: Order, where: [total], returns: [customerId]}\n"),
		Want: []string{"KP601", "KP610", "KP611"}},
	{Name: "pattern served by an existing shape", Apply: addPattern("  RecentCustomerOrders: {query: Order, where: [customerId], sort: createdAt desc, limit: 5, returns: [status, total]}"),
		Want: []string{"KP611"}, Safe: true},
	{Name: "new shape on an existing GSI", Apply: addPattern("  ProductsByPrice: {query: Product, where: [category], sort: price, returns: [price]}"),
		Want: []string{"KP610", "KP611"}},
	{Name: "two new GSIs at once", Apply: addPattern("  OrdersAt: {query: Order, where: [createdAt]}\n  CustomerOrdersByTotal: {query: Order, where: [customerId], sort: total}"),
		Want: []string{"KP601", "KP610", "KP611"}},
	{Name: "a wider projection", Apply: replace("OrdersByTotal: {query: Order, where: [total], returns: [customerId]}", "OrdersByTotal: {query: Order, where: [total], returns: [customerId, status]}"),
		Want: []string{"KP601", "KP602", "KP603", "KP610"}},
	{Name: "a widened number", Apply: replace("price: {type: number, min: 0, max: 10000000}\n      inventory", "price: {type: number, min: 0, max: 1000000000}\n      inventory"),
		Want: []string{"KP604", "KP610"}},
	{Name: "a renamed attribute without renamedFrom", Apply: renameCategory("{type: string, maxLength: 64, cardinality: 200}"),
		Refused: true, Want: []string{"KP605"}},
	{Name: "a renamed unique attribute", Apply: renameEmail("{type: string, maxLength: 254, renamedFrom: email}"),
		Refused: true, Want: []string{"KP613"}},
	{Name: "a renamed attribute with renamedFrom", Apply: renameCategory("{type: string, maxLength: 64, cardinality: 200, renamedFrom: category}"),
		Want: []string{"KP606"}},
	// On OrderItem, read on the base table only: a ttl on an entity read
	// through an INCLUDE or KEYS_ONLY GSI grows its projection (reads hide
	// expired items by it), a migration (TestTTLGrowsProjections).
	{Name: "a TTL attribute", Apply: replace("      price: {type: number, min: 0, max: 10000000}\n  Product:", "      price: {type: number, min: 0, max: 10000000}\n      expiresAt: {type: ttl, optional: true}\n  Product:"),
		Want: []string{"KP608"}, Safe: true},
	{Name: "a TTL change", Apply: replace("      expiresAt: {type: ttl, optional: true}\n", "      purgeAt: {type: ttl, optional: true}\n"),
		Want: []string{"KP608"}},
	{Name: "a removed pattern", Apply: replace("  OrdersAt: {query: Order, where: [createdAt]}\n", ""),
		Want: []string{"KP602", "KP612"}, Safe: true},
}

// renameCategory renames Product.category to productCategory everywhere
// (its declaration, the patterns, the examples).
func renameCategory(decl string) func(string) string {
	return func(s string) string {
		s = strings.Replace(s, "      category: {type: string, maxLength: 64, cardinality: 200}", "      productCategory: "+decl, 1)
		s = strings.ReplaceAll(s, "where: [category]", "where: [productCategory]")
		s = strings.ReplaceAll(s, ", category: ", ", productCategory: ")
		return strings.ReplaceAll(s, "params: {category: ", "params: {productCategory: ")
	}
}

// renameEmail renames Customer.email to emailAddress everywhere (its
// declaration, the pattern, the examples).
func renameEmail(decl string) func(string) string {
	return func(s string) string {
		s = strings.Replace(s, "      email: {type: string, maxLength: 254}", "      emailAddress: "+decl, 1)
		s = strings.Replace(s, "where: [email]", "where: [emailAddress]", 1)
		s = strings.ReplaceAll(s, ", email: ", ", emailAddress: ")
		return strings.ReplaceAll(s, "params: {email: ", "params: {emailAddress: ")
	}
}

// RoundTrip writes a lock and reads it back, as the next command would.
func RoundTrip(t testing.TB, l *patterns.Lock) *patterns.Lock {
	t.Helper()
	b, err := l.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	back, err := patterns.ReadLock("shop.lock.json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Bytes()
	if !bytes.Equal(b, again) {
		t.Fatal("the lock's bytes changed on a round trip")
	}
	return back
}

// CheckPhases asserts what CloudFormation and DynamoDB accept from one
// deploy to the next: at most one GSI created or deleted, no GSI changing
// its keys or projection under its name.
func CheckPhases(t testing.TB, from []*patterns.PhaseIndex, phases []*patterns.Phase) {
	t.Helper()
	prev := from
	for i, p := range phases {
		byName := map[string]*patterns.PhaseIndex{}
		for _, ix := range prev {
			byName[ix.Name] = ix
		}
		created, deleted := 0, 0
		for _, ix := range p.Indexes {
			old, ok := byName[ix.Name]
			if !ok {
				created++
				continue
			}
			if old.PK != ix.PK || old.SK != ix.SK || old.Projection != ix.Projection || !slices.Equal(old.NonKeyAttributes, ix.NonKeyAttributes) {
				t.Errorf("phase %d changes %s in place: %+v → %+v", i+1, ix.Name, old, ix)
			}
			delete(byName, ix.Name)
		}
		deleted = len(byName)
		if created+deleted > 1 {
			t.Errorf("phase %d creates %d and deletes %d GSIs", i+1, created, deleted)
		}
		if created != len(p.Create) || deleted != len(p.Delete) {
			t.Errorf("phase %d says create %v delete %v, its indexes create %d delete %d", i+1, p.Create, p.Delete, created, deleted)
		}
		prev = p.Indexes
	}
}

// ShopV2 is the shop with two new GSI shapes (a new GSI for Order, a new
// shape of Product on an existing GSI): one migration phase that creates
// GSI3 and backfills Order and Product. Its examples prove the new reads
// on the example items.
func ShopV2(v1 string) string {
	s := strings.Replace(v1, "  GetProduct:         {get: Product, rate: 300}\n",
		"  GetProduct:         {get: Product, rate: 300}\n"+
			"  ProductsByPrice:    {query: Product, where: [category], sort: price, returns: [price]}\n"+
			"  CustomerOrdersByTotal: {query: Order, where: [customerId], sort: total}\n", 1)
	return strings.Replace(s, "  expect:\n", `  expect:
    - pattern: ProductsByPrice
      params: {category: electronics}
      items: [pr2, pr1]
    - pattern: CustomerOrdersByTotal
      params: {customerId: c1}
      items: [o2, o1]
`, 1)
}

// Item is one generated item: its entity and values.
type Item struct {
	Entity string
	Values map[string]any
}

// ShopItems generates n items for the shop (orders, their line items,
// customers and products in a fixed mix), deterministic for n, in
// customers, categories and ids of their own (gen-…), so the model's
// example expectations still hold beside them.
func ShopItems(n int) []Item {
	out := make([]Item, 0, n)
	for i := 0; len(out) < n; i++ {
		switch i % 10 {
		case 0:
			out = append(out, Item{"Customer", map[string]any{"customerId": fmt.Sprintf("gen-c%d", i), "name": fmt.Sprintf("Customer %d", i),
				"email": fmt.Sprintf("gen-%d@example.com", i), "createdAt": "2025-03-01T00:00:00Z"}})
		case 1, 2:
			out = append(out, Item{"Product", map[string]any{"productId": fmt.Sprintf("gen-p%d", i), "name": fmt.Sprintf("Product %d", i),
				"category": fmt.Sprintf("gen-cat%d", i%97), "price": (i * 37) % 100000, "inventory": i % 500}})
		case 3, 4, 5, 6:
			out = append(out, Item{"Order", map[string]any{"orderId": fmt.Sprintf("gen-o%d", i), "customerId": fmt.Sprintf("gen-c%d", i-i%10),
				"customerName": fmt.Sprintf("Customer %d", i-i%10), "status": []string{"PAID", "DELIVERED", "CANCELLED"}[i%3],
				"createdAt": fmt.Sprintf("2026-%02d-%02dT%02d:00:00Z", 1+i%12, 1+i%28, i%24), "total": (i * 131) % 1000000, "shippingAddr": "1 Gen St"}})
		default:
			out = append(out, Item{"OrderItem", map[string]any{"orderId": fmt.Sprintf("gen-o%d", i-i%10+3), "sku": fmt.Sprintf("sku-%d", i),
				"productName": "Thing", "quantity": 1 + i%5, "price": (i * 17) % 10000}})
		}
	}
	return out
}

// ShopMigration is the shop (its model under root, the repository's
// root) locked as first deployed, then moved to ShopV2 with that lock: a
// migration at phase 1 (create GSI3, backfill Order and Product). Its
// GSIs are keyed synthetic (indexKeys: synthetic): the migration is the
// synthetic keys' backfill. It returns both models and the lock.
func ShopMigration(t testing.TB, root string) (v1, v2 *model.Model, lock *patterns.Lock) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, ShopModel))
	if err != nil {
		t.Fatal(err)
	}
	if v1, err = model.Parse("ecommerce.yaml", src); err != nil {
		t.Fatal(err)
	}
	v1.IndexKeys = model.IndexKeysSynthetic
	d1, err := patterns.Plan(v1)
	if err != nil {
		t.Fatal(err)
	}
	lock = patterns.NewLock(d1)
	if v2, err = model.Parse("ecommerce.yaml", []byte(ShopV2(string(src)))); err != nil {
		t.Fatal(err)
	}
	v2.IndexKeys = model.IndexKeysSynthetic
	d2, err := patterns.PlanLocked(v2, lock)
	if err != nil {
		t.Fatal(err)
	}
	if err := lock.Apply(d2, patterns.Compare(lock, d2)); err != nil || lock.Migration == nil {
		t.Fatalf("starting the migration: %v", err)
	}
	return v1, v2, lock
}

// Scanner is what ScanAll needs of DynamoDB.
type Scanner interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// ScanAll reads a whole table, its items by "PK|SK" (keyplan migrate's
// bookkeeping left out).
func ScanAll(t testing.TB, c Scanner, table string) map[string]map[string]types.AttributeValue {
	t.Helper()
	out := map[string]map[string]types.AttributeValue{}
	var next map[string]types.AttributeValue
	for {
		page, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), ExclusiveStartKey: next})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			pk, _ := it[model.TablePK].(*types.AttributeValueMemberS)
			sk, _ := it[model.TableSK].(*types.AttributeValueMemberS)
			if pk == nil || sk == nil {
				t.Fatalf("an item without a string %s/%s: %v", model.TablePK, model.TableSK, it)
				continue
			}
			if pk.Value == patterns.MigrationTag {
				continue // keyplan migrate's bookkeeping, not an item of the model
			}
			out[pk.Value+"|"+sk.Value] = it
		}
		if next = page.LastEvaluatedKey; len(next) == 0 {
			return out
		}
	}
}
