package prove

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

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
// inside a test, so go test's cache keys this package's result on them
// (TestMain's reads are not seen).
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

// planned plans a model, which must have no errors.
func planned(t *testing.T, src string) *patterns.Design {
	t.Helper()
	m, err := model.Parse("found.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return d
}

// keyings are the ways the tests key GSIs: synthetic on every engine,
// and as the model says (native where it can be) on an engine that has
// native keys; on one without, that run skips, saying why.
var keyings = []model.IndexKeys{model.IndexKeysSynthetic, model.IndexKeysAuto}

// keyed plans the model file keyed so, skipping a keying other than
// synthetic that keys no GSI natively: it is then the synthetic run's
// design, and the synthetic run proves it.
func keyed(t *testing.T, path string, keys model.IndexKeys) *patterns.Design {
	t.Helper()
	d := keyplantest.Keyed(t, path, keys)
	if keys != model.IndexKeysSynthetic && !slices.ContainsFunc(d.Indexes, func(ix *patterns.Index) bool { return ix.Native() }) {
		t.Skipf("keyed %s it is the synthetic run's design (no GSI of it is native): proved there", keys)
	}
	return d
}

// needsNative skips t when d has a native index and the engine lacks
// them, once the engine is seen to refuse the table (a skip never hides
// a run the engine could make).
func needsNative(t testing.TB, d *patterns.Design) {
	t.Helper()
	for _, ix := range d.Indexes {
		if !ix.Native() || len(ix.PartitionKeys) <= 1 && len(ix.SortKeys) <= 1 {
			continue // a key of one attribute a side: every engine has it
		}
		why := conn.Lacks(context.Background(), enginepkg.MultiAttributeKeys)
		if why == "" {
			return
		}
		ctx := context.Background()
		name := fmt.Sprintf("t%d-%s", tables.Add(1), d.Table)
		if err := dynamo.CreateTable(ctx, engine, d, name); err == nil {
			engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			t.Fatalf("%s: the engine is said to lack native keys (%s), but it created %s with native index %s", engineName, why, d.Table, ix.Name)
		}
		t.Skipf("%s has native index %s: %s (it refuses the table): native keys are proved on the in-process engine, and this model's synthetic keying by its synthetic run here", d.Table, ix.Name, why)
	}
}
