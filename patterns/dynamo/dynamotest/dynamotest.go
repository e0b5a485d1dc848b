package dynamotest

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/dynalite"
	"github.com/keyplan/keyplan/internal/engine"
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
	// Raw is a plain SDK client of the engine (static test credentials,
	// region us-east-1).
	Raw *dynamodb.Client
	// DB is the client to hand keyplan's runtime: Raw, with
	// TransactWriteItems emulated when the engine lacks it (dynalite).
	DB dynamo.Client
	// Name is the engine started (memory, dynalite or dynamodb-local), or
	// "endpoint".
	Name   string
	srv    *engine.Running
	tables atomic.Int64
}

// Start starts an engine for t and stops it when t ends; it fails t,
// saying how to get an engine, when none can be started.
func Start(t testing.TB) *Engine {
	t.Helper()
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
	e := &Engine{Endpoint: os.Getenv(EnvEndpoint), Name: "endpoint"}
	if e.Endpoint == "" {
		wd, _ := os.Getwd()
		srv, err := engine.Start(engine.Default(), wd)
		if err != nil {
			if hint := engine.Hint(err); hint != "" {
				return nil, fmt.Errorf("dynamotest: %w\n%s", err, hint)
			}
			return nil, fmt.Errorf("dynamotest: $%s: %w", EnvEngine, err)
		}
		e.srv, e.Endpoint, e.Name = srv, srv.Endpoint, srv.Name
	}
	e.Raw = Client(e.Endpoint)
	e.DB = e.Raw
	if !dynalite.SupportsTransactions(context.Background(), e.Raw) {
		e.DB = dynalite.EmulateTransactions(e.Raw)
	}
	return e, nil
}

// Client is an SDK client of the engine at endpoint, with the static
// credentials and region local engines accept.
func Client(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("keyplan", "keyplan", "")})
}

// Stop stops an engine New started (an endpoint's is left running).
func (e *Engine) Stop() {
	if e.srv != nil {
		e.srv.Stop()
	}
}

// Log is what a started engine has written to its stderr (why it died,
// when it did).
func (e *Engine) Log() string {
	if e.srv == nil {
		return ""
	}
	return e.srv.Log()
}

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
