package migrate

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// One engine for the package, as patterns/dynamo's tests have theirs:
// $KEYPLAN_ENGINE's (in process by default), unless
// KEYPLAN_DYNAMODB_ENDPOINT points at another.
var (
	engine         *dynamodb.Client
	engineEndpoint string
	engineName     = "endpoint" // or the engine TestMain started
	client         dynamo.Client
	tables         atomic.Int64
	// conn is the engine's connection (what it lacks: conn.Lacks).
	conn *enginepkg.Conn
)

func TestMain(m *testing.M) {
	enginepass.Main(m, func(c *enginepkg.Conn) {
		conn, engineName, engineEndpoint, engine, client = c, c.Name, c.Endpoint, c.Raw, c.DB
	})
}

// The engine the tests run on, with the variables that chose it read
// inside a test, so go test's cache keys this package's result on them.
func TestEngine(t *testing.T) {
	t.Logf("engine %s at %s (%s)", engineName, engineEndpoint, enginepkg.Env())
}

// fresh creates the design's table under a new name.
func fresh(t testing.TB, d *patterns.Design) *dynamo.Table {
	t.Helper()
	name := fmt.Sprintf("t%d-%s", tables.Add(1), d.Table)
	ctx := context.Background()
	if err := dynamo.CreateTable(ctx, engine, d, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return dynamo.New(d, client, name)
}

// design plans a model file with synthetic GSI keys.
func design(t testing.TB, path string) *patterns.Design {
	t.Helper()
	return keyplantest.Keyed(t, path, model.IndexKeysSynthetic)
}

// needsNative skips t when d has a native index of several attributes a
// side and the engine lacks them (enginepass.NeedsNative).
func needsNative(t testing.TB, d *patterns.Design) {
	t.Helper()
	enginepass.NeedsNative(t, conn, d, func(ctx context.Context) (string, error) {
		name := fmt.Sprintf("t%d-%s", tables.Add(1), d.Table)
		return name, dynamo.CreateTable(ctx, engine, d, name)
	})
}

// waitActive waits until the table and its GSIs are ACTIVE.
func waitActive(ctx context.Context, name string) error {
	for {
		t, err := dynamo.DescribeTable(ctx, engine, name)
		if err != nil {
			return err
		}
		active := t.TableStatus == types.TableStatusActive
		for _, g := range t.GlobalSecondaryIndexes {
			active = active && g.IndexStatus == types.IndexStatusActive
		}
		if active {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

const ticketsModel = "../../testdata/models/tickets.yaml"

func ticket(id, assignee, status string, priority int) dynamo.Values {
	return dynamo.Values{"ticketId": id, "assigneeId": assignee, "status": status, "priority": priority,
		"title": "printer on fire", "openedAt": "2026-03-01T09:00:00Z"}
}

// raw reads an item as stored.
func raw(t testing.TB, tbl *dynamo.Table, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	t.Helper()
	out, err := engine.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tbl.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func names2(items []dynamo.Item, key string) []string {
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprint(it.Values[key]))
	}
	return out
}

func with(v dynamo.Values, k string, x any) dynamo.Values {
	c := dynamo.Values{}
	for a, b := range v {
		c[a] = b
	}
	c[k] = x
	return c
}
