package streamtest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/engine/dynalite"
	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

// Engine is dynamotest's engine for a handler test binary; Table gives
// the name of a fresh table.
type Engine struct{ *dynamotest.Engine }

// StartEngine starts the engine; call Stop when the tests are done.
func StartEngine() (*Engine, error) {
	e, err := dynamotest.New()
	if err != nil {
		return nil, err
	}
	return &Engine{e}, nil
}

// Client is a client of the engine at endpoint (or of a fault proxy in
// front of it), with transactions emulated only where the engine lacks
// them (engine.Transactions: the engine's probe, never one through the
// proxy). attempts sets the SDK's retries (0: its default).
func Client(endpoint string, attempts int) *dynalite.Transactions {
	c := dynamotest.Client(endpoint)
	if attempts > 0 {
		c = dynamodb.New(c.Options(), func(o *dynamodb.Options) { o.RetryMaxAttempts = attempts })
	}
	return engine.Transactions(context.Background(), endpoint, c)
}

// Table creates a fresh table for the design (deleted when t ends) and
// returns its name.
func (e *Engine) Table(t testing.TB, d *patterns.Design) string {
	t.Helper()
	return e.TableName(t, d)
}

// Design plans a model file as its handlers are deployed: with the lock
// beside it when there is one (keyplantest.Open), so the examples' GSIs
// are keyed as their locks record them (synthetic) and every engine holds
// their tables; a model without a lock is planned as it says.
func Design(t testing.TB, path string) *patterns.Design {
	t.Helper()
	d, _ := keyplantest.Open(t, path)
	return d
}

var seq atomic.Int64

// Record is the stream record DynamoDB writes for a change from old to
// new (either nil), with NEW_AND_OLD_IMAGES.
func Record(d *patterns.Design, name string, old, new map[string]types.AttributeValue) events.DynamoDBEventRecord {
	n := seq.Add(1)
	event := patterns.EventModify
	switch {
	case old == nil:
		event = patterns.EventInsert
	case new == nil:
		event = patterns.EventRemove
	}
	img := new
	if img == nil {
		img = old
	}
	return events.DynamoDBEventRecord{
		EventID: fmt.Sprintf("ev%06d", n), EventName: string(event), EventVersion: "1.1", EventSource: "aws:dynamodb", AWSRegion: "us-east-1",
		EventSourceArn: "arn:aws:dynamodb:us-east-1:111122223333:table/" + name + "/stream/2026-01-01T00:00:00.000",
		Change: events.DynamoDBStreamRecord{
			ApproximateCreationDateTime: events.SecondsEpochTime{Time: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)},
			Keys:                        Image(map[string]types.AttributeValue{d.PK: img[d.PK], d.SK: img[d.SK]}),
			OldImage:                    Image(old), NewImage: Image(new),
			SequenceNumber: fmt.Sprintf("%021d", n*100), SizeBytes: 100, StreamViewType: "NEW_AND_OLD_IMAGES",
		},
	}
}

// Expiry marks a REMOVE record as made by the TTL service.
func Expiry(r events.DynamoDBEventRecord) events.DynamoDBEventRecord {
	r.UserIdentity = &events.DynamoDBUserIdentity{Type: patterns.TTLIdentityType, PrincipalID: patterns.TTLPrincipal}
	return r
}

// Image converts SDK attribute values to a stream image.
func Image(item map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if item == nil {
		return nil
	}
	out := map[string]events.DynamoDBAttributeValue{}
	for k, v := range item {
		out[k] = value(v)
	}
	return out
}

func value(v types.AttributeValue) events.DynamoDBAttributeValue {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(x.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(x.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(x.Value)
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(x.Value)
	case *types.AttributeValueMemberL:
		var l []events.DynamoDBAttributeValue
		for _, e := range x.Value {
			l = append(l, value(e))
		}
		return events.NewListAttribute(l)
	case *types.AttributeValueMemberM:
		m := map[string]events.DynamoDBAttributeValue{}
		for k, e := range x.Value {
			m[k] = value(e)
		}
		return events.NewMapAttribute(m)
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(x.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(x.Value)
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(x.Value)
	}
	return events.NewNullAttribute()
}

// Handler is a stream handler's entry point.
type Handler = stream.Func

// Deliver runs a batch the way Lambda does with ReportBatchItemFailures:
// while records fail, it redelivers the batch from the lowest failed
// sequence number on, at most rounds times. It returns the rounds taken.
func Deliver(ctx context.Context, h Handler, records []events.DynamoDBEventRecord, rounds int) (int, error) {
	for round := 1; round <= rounds; round++ {
		resp, err := h(ctx, events.DynamoDBEvent{Records: records})
		if err != nil {
			return round, err
		}
		if len(resp.BatchItemFailures) == 0 {
			return round, nil
		}
		var failed []string
		for _, f := range resp.BatchItemFailures {
			failed = append(failed, f.ItemIdentifier)
		}
		sort.Strings(failed)
		from := len(records)
		for i, r := range records {
			if r.Change.SequenceNumber == failed[0] {
				from = i
				break
			}
		}
		if from == len(records) {
			return round, fmt.Errorf("failure %q names no record of the batch", failed[0])
		}
		records = records[from:]
	}
	return rounds, fmt.Errorf("records still failing after %d deliveries", rounds)
}

// Main is a handler test binary's TestMain body with an engine: it
// starts the engine into *e, runs the tests, stops it, and exits. The
// package has a test calling EngineChoice too.
func Main(m *testing.M, e **Engine) {
	flag.Parse()
	var err error
	if *e, err = StartEngine(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	if log := (*e).Log(); code != 0 && log != "" {
		fmt.Fprintf(os.Stderr, "engine log:\n%s\n", log)
	}
	(*e).Stop()
	os.Exit(code)
}

// EngineChoice logs the engine the tests run on, reading the variables
// that chose it inside a test, so that go test's cache keys the package's
// result on them (engine.Env).
func EngineChoice(t *testing.T, e *Engine) {
	t.Logf("engine %s at %s (%s)", e.Name, e.Endpoint, engine.Env())
}

// Batch reads a stream event from path, checking that it round-trips
// through events.DynamoDBEvent unchanged (nothing in it is lost).
func Batch(t testing.TB, path string) events.DynamoDBEvent {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	back, _ := json.MarshalIndent(ev, "", "  ")
	if !bytes.Equal(bytes.TrimSpace(back), bytes.TrimSpace(raw)) {
		t.Fatalf("%s does not round-trip through events.DynamoDBEvent", path)
	}
	return ev
}

// The hand-written stream event every handler is run on, in Lambda's wire
// format (as AWS's captured sample in aws-lambda-go's events/testdata),
// and the model it was written against: from a handler's directory.
const (
	EventFile = "../internal/stream/testdata/stream-event.json"
	BlogModel = "../internal/stream/testdata/blog.yaml"
)

// Event reads EventFile.
func Event(t testing.TB) events.DynamoDBEvent {
	t.Helper()
	raw, err := os.ReadFile(EventFile)
	if err != nil {
		t.Fatal(err)
	}
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 6 || ev.Records[4].UserIdentity == nil || ev.Records[3].Change.OldImage == nil {
		t.Fatalf("%s did not decode whole: %+v", EventFile, ev.Records)
	}
	return ev
}

// Items returns a function building an entity's item from values with the
// runtime (what DynamoDB would stream for them), failing the test on error.
func Items(t testing.TB, tbl *dynamo.Table) func(entity string, v dynamo.Values) map[string]types.AttributeValue {
	return func(entity string, v dynamo.Values) map[string]types.AttributeValue {
		t.Helper()
		it, err := tbl.Item(entity, v)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
}

// BenchColdStart measures what a handler does before its first event:
// stream.Init (the lock read and checked, the SDK configuration) and
// build (the handler and its clients), with the lock at lockFile.
func BenchColdStart(b *testing.B, h patterns.Handler, lockFile string, build func(stream.Env) stream.Func) {
	b.Setenv(patterns.LockEnv, lockFile)
	b.Setenv("AWS_REGION", "us-east-1")
	b.ReportAllocs()
	for b.Loop() {
		e, err := stream.Init(h)
		if err != nil {
			b.Fatal(err)
		}
		if build(e) == nil {
			b.Fatal("no handler")
		}
	}
}

// Stream delivers records the way Lambda reads a shard into a handler
// with ReportBatchItemFailures: batches of at most size records; a batch
// with failures is delivered again from its lowest failed sequence
// number, with the records after it up to size again (a retried batch
// takes in what arrived since, so it grows past the first delivery's
// end), at most rounds times, after which Lambda gives up on the batch
// and goes on past it. It returns the deliveries made.
func Stream(ctx context.Context, h Handler, records []events.DynamoDBEventRecord, size, rounds int) (int, error) {
	deliveries := 0
	for start := 0; start < len(records); {
		batch := records[start:min(len(records), start+size)]
		for round := 1; ; round++ {
			deliveries++
			resp, err := h(ctx, events.DynamoDBEvent{Records: batch})
			if err != nil {
				return deliveries, err
			}
			if len(resp.BatchItemFailures) == 0 {
				start += len(batch)
				break
			}
			var failed []string
			for _, f := range resp.BatchItemFailures {
				failed = append(failed, f.ItemIdentifier)
			}
			sort.Strings(failed)
			from := -1
			for i, r := range records {
				if r.Change.SequenceNumber == failed[0] {
					from = i
				}
			}
			if from < start {
				return deliveries, fmt.Errorf("failure %q names no record of the batch", failed[0])
			}
			if round == rounds {
				start += len(batch) // given up: the batch goes to the failure queue
				break
			}
			start = from
			batch = records[start:min(len(records), start+size)]
		}
	}
	return deliveries, nil
}
