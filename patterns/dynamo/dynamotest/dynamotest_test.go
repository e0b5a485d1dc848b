package dynamotest_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

// shop is the example shop as deployed: planned with its lock, which
// records its GSIs synthetic, so every engine holds its table (these
// tests are about the harness, not native keys).
func shop(t *testing.T) *patterns.Design {
	t.Helper()
	d, _, err := patterns.Open("../../../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A user's test: an engine, a table for the design, the runtime over it;
// the table goes when the test ends, and the engine with it.
func TestStart(t *testing.T) {
	d := shop(t)
	var db *dynamotest.Engine
	var name string
	t.Run("user test", func(t *testing.T) {
		db = dynamotest.Start(t)
		shop := db.Table(t, d)
		name = shop.Name()
		ctx := context.Background()
		if err := shop.Create(ctx, "Customer", dynamo.Values{"customerId": "c1", "name": "Ada", "email": "ada@example.com", "createdAt": "2026-11-22T08:00:00Z"}); err != nil {
			t.Fatal(err)
		}
		it, err := shop.Get(ctx, "CustomerByEmail", dynamo.Params{"email": "ada@example.com"})
		if err != nil || it == nil || it.Values["name"] != "Ada" {
			t.Fatalf("CustomerByEmail: %+v, %v", it, err)
		}
		out, err := db.Raw.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err != nil || !slices.Contains(out.TableNames, name) {
			t.Fatalf("tables %v, %v; want %s among them", out, err, name)
		}
	})
	if db.Endpoint == "" {
		t.Fatal("no endpoint")
	}
	// Stopped by the cleanup: nothing answers at the endpoint any more
	// (unless $KEYPLAN_DYNAMODB_ENDPOINT named it).
	if os.Getenv(dynamotest.EnvEndpoint) != "" {
		return
	}
	once := func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }
	if _, err := dynamotest.Client(db.Endpoint).ListTables(context.Background(), &dynamodb.ListTablesInput{}, once); err == nil {
		t.Fatalf("the engine at %s still answers after the test", db.Endpoint)
	}
}

// New and Stop serve a TestMain: one engine, many tables apart.
func TestNewTablesApart(t *testing.T) {
	db, err := dynamotest.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Stop) // before the tables' cleanups: it runs after them
	d := shop(t)
	a, b := db.Table(t, d), db.Table(t, d)
	if a.Name() == b.Name() {
		t.Fatalf("two tables named %s", a.Name())
	}
}

// What a user's test does with a Scan and the engine's features, in
// names it can spell outside keyplan (issue 35): Lacks takes a
// dynamotest.Feature; the unique email's guard item (~UNIQUE#…) that a
// Scan returns beside the customer is refused by Decode as keyplan's own
// item (ErrReserved, named by ReservedKind), not "item matches no entity"
// of a user's entity.
func TestScanAndFeaturesFromOutside(t *testing.T) {
	db := dynamotest.Start(t)
	shop := db.Table(t, shop(t))
	ctx := context.Background()
	if err := shop.Create(ctx, "Customer", dynamo.Values{"customerId": "c1", "name": "Ada", "email": "ada@example.com", "createdAt": "2026-11-22T08:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	out, err := db.Raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(shop.Name()), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	var entities, guards []string
	for _, item := range out.Items {
		entity, v, err := shop.Decode(item)
		switch {
		case errors.Is(err, dynamo.ErrReserved):
			kind, ok := dynamo.ReservedKind(item, shop.Design().PK)
			if !ok || !errors.Is(err, dynamo.ErrNotKeyplan) || !strings.Contains(err.Error(), "guard") {
				t.Errorf("a reserved item: %q %v, %v", kind, ok, err)
			}
			guards = append(guards, kind)
		case err != nil:
			t.Fatalf("Decode: %v", err)
		default:
			entities = append(entities, entity+" "+v["customerId"].(string))
		}
	}
	if !slices.Equal(entities, []string{"Customer c1"}) || !slices.Equal(guards, []string{patterns.GuardTag}) {
		t.Errorf("decoded %v, guards %v; want the customer and the email's guard", entities, guards)
	}
	var f dynamotest.Feature = dynamotest.OnlineIndexes
	for _, f := range []dynamotest.Feature{f, dynamotest.MultiAttributeKeys, dynamotest.OldItemOnConditionFailure, dynamotest.ListMapEquality} {
		why := db.Lacks(f)
		if db.Name == "memory" && why != "" {
			t.Errorf("the in-process engine lacks %s: %s", f, why)
		}
	}
}
