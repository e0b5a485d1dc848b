package dynamo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// A migration on the engine: the table as locked, a model change that adds
// a key to an existing GSI and a new GSI; during the phase, writes carry
// both designs' keys and the new read is refused until the backfill is
// done; after it, the new read sees every item in order.
func TestRolloutExpandsThenSwitches(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("../../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan := func(text string, l *patterns.Lock) *patterns.Design {
		m, err := model.Parse("shop.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		// Synthetic keys: the migration is their backfill.
		o := patterns.Options{IndexKeys: model.IndexKeysSynthetic}
		if l != nil {
			o.Lock = l.Latest()
		}
		d, err := patterns.PlanWith(m, o)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d1 := plan(string(src), nil)
	lock := patterns.NewLock(d1)
	// The change: a sorted listing (a new Product key on an existing GSI)
	// and a lookup by name (a new GSI).
	next := strings.Replace(string(src), "  GetProduct:         {get: Product, rate: 300}\n",
		"  GetProduct:         {get: Product, rate: 300}\n  ProductsByPrice: {query: Product, where: [category], sort: price, returns: [price]}\n  ProductsByName: {query: Product, where: [name]}\n", 1)
	d2 := plan(next, lock)
	df := patterns.Compare(lock, d2)
	if err := lock.Apply(d2, df); err != nil || lock.Migration == nil {
		t.Fatalf("Apply: %v (migration %v)", err, lock.Migration)
	}
	// The table at phase 1, holding items the accepted design wrote
	// before the migration. dynalite takes no online index changes, so
	// the table starts at the phase; its new index holds none of the old
	// items either way (their new key attributes are not written yet).
	name := fmt.Sprintf("t%d-%s", tables.Add(1), d1.Table)
	if err := CreateLockTable(ctx, engine, lock, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	v1 := New(d1, client, name)
	products := []Values{
		{"productId": "p1", "name": "Keyboard", "category": "electronics", "price": 4200, "inventory": 10},
		{"productId": "p2", "name": "Mouse", "category": "electronics", "price": 1500, "inventory": 0},
		{"productId": "p3", "name": "Mug", "category": "kitchen", "price": 800, "inventory": 40},
	}
	for _, p := range products {
		if err := v1.Create(ctx, "Product", p); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(LockTableInput(lock, name).GlobalSecondaryIndexes); got != len(d1.Indexes)+1 {
		t.Errorf("the phase's table has %d GSIs, want %d (one created)", got, len(d1.Indexes)+1)
	}
	rt := NewRollout(lock, client, v1.Name())
	if _, err := rt.Read(ctx, "ProductsByPrice", Request{Params: Params{"category": "electronics"}}); !errors.Is(err, ErrNotReady) {
		t.Fatalf("a read before the backfill: %v, want ErrNotReady", err)
	}
	page, err := rt.Read(ctx, "ProductsByCategory", Request{Params: Params{"category": "electronics"}})
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("an existing read during the migration: %v, %v", page, err)
	}
	// A write during the phase carries the keys of both designs.
	p4 := Values{"productId": "p4", "name": "Cable", "category": "electronics", "price": 300, "inventory": 7}
	item, err := rt.Item("Product", p4)
	if err != nil {
		t.Fatal(err)
	}
	for _, ix := range d2.Entity("Product").Keys {
		pk, _ := d2.KeyNames(ix.Index)
		if item[pk] == nil {
			t.Errorf("the new item lacks %s (the target's key on %s)", pk, ix.Index)
		}
	}
	if err := rt.Create(ctx, "Product", p4); err != nil {
		t.Fatal(err)
	}
	// The backfill (keyplan migrate): rewrite the items the phase names.
	for _, p := range products {
		it, err := rt.Item("Product", p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.PutItem(ctx, putInput(v1.Name(), it)); err != nil {
			t.Fatal(err)
		}
	}
	if err := lock.Advance(); err != nil || lock.Migration != nil {
		t.Fatalf("Advance: %v, migration %v", err, lock.Migration)
	}
	done := NewRollout(lock, client, v1.Name())
	page, err = done.Read(ctx, "ProductsByPrice", Request{Params: Params{"category": "electronics"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range page.Items {
		got = append(got, it.Values["productId"].(string))
	}
	if strings.Join(got, ",") != "p4,p2,p1" {
		t.Errorf("ProductsByPrice after the migration: %v, want p4,p2,p1 (by price)", got)
	}
	page, err = done.Read(ctx, "ProductsByName", Request{Params: Params{"name": "Mug"}})
	if err != nil || len(page.Items) != 1 {
		t.Errorf("ProductsByName: %v, %v", page, err)
	}
}

func putInput(table string, item map[string]types.AttributeValue) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}
}

// dynalite has no online index changes (it refuses an on-demand create
// for want of capacity, and applies none given capacity): ApplyIndexes
// says so with the index's name, it never reports a silent success. The
// in-process engine and DynamoDB Local have them: the index is there
// afterwards.
func TestApplyIndexesNoticesAnEngineThatIgnoresIt(t *testing.T) {
	t.Parallel()
	d := design(t, "../../examples/ecommerce.yaml")
	tbl := fresh(t, d)
	want := []*patterns.PhaseIndex{{Name: "GSI9", PK: "GSI9PK", SK: "GSI9SK", Projection: patterns.ProjectAll}}
	err := ApplyIndexes(context.Background(), engine, tbl.Name(), want)
	switch engineName {
	case enginepkg.Dynalite:
		if err == nil || !strings.Contains(err.Error(), "GSI9") {
			t.Fatalf("ApplyIndexes on dynalite: %v", err)
		}
	case enginepkg.Memory, enginepkg.DynamoDBLocal:
		if err != nil {
			t.Fatalf("ApplyIndexes on %s: %v", engineName, err)
		}
		out, err := engine.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(tbl.Name())})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, g := range out.Table.GlobalSecondaryIndexes {
			found = found || aws.ToString(g.IndexName) == "GSI9" && g.IndexStatus == types.IndexStatusActive
		}
		if !found {
			t.Errorf("GSI9 is not an active index after ApplyIndexes: %+v", out.Table.GlobalSecondaryIndexes)
		}
	default:
		t.Skip("an outside engine: its behaviour is its own")
	}
}
