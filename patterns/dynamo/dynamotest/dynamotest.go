package dynamotest

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// EnvEndpoint names an engine to use instead of starting one; EnvEngine
// picks the engine to start: memory (in process, the default), dynalite
// or dynamodb-local.
const (
	EnvEndpoint = engine.EnvEndpoint
	EnvEngine   = engine.EnvEngine
)

// Engine is a running engine and clients of it.
type Engine struct {
	// Endpoint is its URL, e.g. http://127.0.0.1:40123.
	Endpoint string
	// Raw is a plain SDK client of the engine (Client).
	Raw *dynamodb.Client
	// DB is the client to hand keyplan's runtime: Raw, with
	// TransactWriteItems emulated when the engine lacks it (dynalite).
	DB dynamo.Client
	// Name is the engine started (memory, dynalite or dynamodb-local), or
	// "endpoint".
	Name   string
	conn   *engine.Conn
	tables atomic.Int64
}

// Start starts an engine for t and stops it when t ends; it fails t,
// saying how to get an engine, when none can be started, and when t is
// marked engine-independent (enginepass.Independent).
func Start(t testing.TB) *Engine {
	t.Helper()
	enginepass.Uses(t)
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e
}

// New starts an engine ($KEYPLAN_ENGINE's, in process by default) or
// connects to $KEYPLAN_DYNAMODB_ENDPOINT's; the caller stops it with Stop.
func New() (*Engine, error) {
	c, err := engine.Connect(context.Background(), engine.Options{Endpoint: os.Getenv(EnvEndpoint)})
	if err != nil {
		return nil, fmt.Errorf("dynamotest: $%s: %w", EnvEngine, err)
	}
	return &Engine{Endpoint: c.Endpoint, Raw: c.Raw, DB: c.DB, Name: c.Name, conn: c}, nil
}

// Client is an SDK client of the engine at endpoint (engine.Client: the
// run's access key for an engine this process started, which accepts no
// other; else the environment's credentials, or placeholders; each
// request bounded in time and size).
func Client(endpoint string) *dynamodb.Client { return engine.Client(endpoint, 0) }

// Environ is what a child process (a keyplan command a test runs) needs
// in its environment to use the engine: its endpoint and, for the
// in-process engine, the run's access key (it accepts no other).
func (e *Engine) Environ() []string { return e.conn.Environ() }

// TTL is the in-process engine's TTL process, for tests of expiry: its
// clock (which its sweeper, every second, and its stream records read) and
// a sweep at once. Other engines never expire items (docs/engines.md):
// ok is false.
type TTL interface {
	SetClock(now func() time.Time)
	ExpireTTL() int
}

// TTL returns the engine's TTL process, if it has one a test can drive.
func (e *Engine) TTL() (TTL, bool) { return e.conn.TTL() }

// Stop stops an engine New started (an endpoint's is left running).
func (e *Engine) Stop() { e.conn.Stop() }

// Feature is a capability a local engine may lack (Lacks). It is the
// engine package's own type under a name code outside keyplan can use
// (that package is internal): Lacks took it before it had one here.
type Feature = engine.Feature

// The features an engine may lack.
const (
	// MultiAttributeKeys: GSIs keyed on several attributes a side
	// (native keys; DynamoDB Local 1.25.1 lacks them).
	MultiAttributeKeys = engine.MultiAttributeKeys
	// OldItemOnConditionFailure: a refused write returns the item it
	// found (ReturnValuesOnConditionCheckFailure; dynalite lacks it).
	OldItemOnConditionFailure = engine.OldItemOnConditionFailure
	// ListMapEquality: a condition's = and <> compare lists and maps.
	ListMapEquality = engine.ListMapEquality
	// OnlineIndexes: a GSI created on a table that holds items.
	OnlineIndexes = engine.OnlineIndexes
)

// Lacks says why the engine lacks f ("" when it has it: engine.Conn.Lacks,
// probing an endpoint): a test skips with it.
func (e *Engine) Lacks(f Feature) string { return e.conn.Lacks(context.Background(), f) }

// Log is what a started engine has written to its stderr (why it died,
// when it did).
func (e *Engine) Log() string { return e.conn.Log() }

// Table creates the design's table (its GSIs and the lock table) under a
// name of its own and returns the runtime over it; t's cleanup deletes
// it.
func (e *Engine) Table(t testing.TB, d *patterns.Design) *dynamo.Table {
	t.Helper()
	name := e.TableName(t, d)
	return dynamo.New(d, e.DB, name)
}

// TableName is Table for code that builds its own runtime: it creates the
// table and returns its name.
func (e *Engine) TableName(t testing.TB, d *patterns.Design) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%s", e.tables.Add(1), d.Table)
	ctx := context.Background()
	if err := dynamo.CreateTable(ctx, e.Raw, d, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.Raw.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}
