package streamtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

// Live is a design's table as the singletable construct deploys it for
// its stream handlers (its stream on, NEW_AND_OLD_IMAGES; TTL on the
// design's attribute), on the engine, with its stream read through the
// engine's Streams API (the dynamodbstreams SDK client): the handlers
// are driven by the change records the engine itself writes, TTL
// expiries included.
type Live struct {
	// Name is the table's; ARN its stream's.
	Name, ARN string
	d         *patterns.Design
	raw       *dynamodb.Client
	streams   *dynamodbstreams.Client
	ttl       dynamotest.TTL
}

// LiveTable creates the design's table with its stream and TTL (deleted
// when t ends). On an engine without Streams (dynalite: docs/engines.md)
// it skips t, saying so.
func (e *Engine) LiveTable(t testing.TB, d *patterns.Design) *Live {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("live%d-%s", seq.Add(1), d.Table)
	in := dynamo.CreateTableInput(d, name)
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	out, err := e.Raw.CreateTable(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dynamo.DropTable(context.Background(), e.Raw, name) })
	arn := aws.ToString(out.TableDescription.LatestStreamArn)
	if arn == "" {
		t.Skipf("%s has no DynamoDB Streams (docs/engines.md): the handlers are driven by hand-built records there", e.Name)
	}
	if d.TTL != "" {
		if _, err := e.Raw.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(d.TTL), Enabled: aws.Bool(true)}}); err != nil {
			t.Fatal(err)
		}
	}
	l := &Live{Name: name, ARN: arn, d: d, raw: e.Raw, streams: engine.Streams(e.Endpoint, 0)}
	l.ttl, _ = e.TTL()
	return l
}

// Expire moves the engine's clock to now and waits (at most 10 s) until
// its TTL sweeper has deleted what has expired on it, as DynamoDB's TTL
// process does: each a REMOVE record by the TTL service. It skips t on an
// engine that never expires items (dynalite, DynamoDB Local).
func (l *Live) Expire(t testing.TB, now time.Time, expired func() bool) {
	t.Helper()
	if l.ttl == nil {
		t.Skip("the engine has no TTL expiry (docs/engines.md): only the in-process engine's sweeper deletes expired items")
	}
	l.ttl.SetClock(func() time.Time { return now })
	for wait := time.Now().Add(10 * time.Second); !expired(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatal("the engine's TTL sweeper deleted nothing within 10 s of the clock passing the TTL")
		}
	}
}

// Advance moves the engine's clock ahead of the wall clock by d (it then
// runs on from there): a shard open longer than DynamoDB keeps one open
// closes and a child takes its writes, an iterator older than 15 minutes
// expires. It skips t on an engine whose clock a test cannot move.
func (l *Live) Advance(t testing.TB, d time.Duration) {
	t.Helper()
	if l.ttl == nil {
		t.Skip("the engine's clock cannot be moved (docs/engines.md): only the in-process engine's can")
	}
	l.ttl.SetClock(func() time.Time { return time.Now().Add(d) })
}

// Restream disables the table's stream and enables a new one, as a
// redeploy that turns the stream off and on does: the old stream's
// shards close (a mapping on it reads them to their end and gets nothing
// more), the new stream (ARN) starts empty, and a Mapping made after it
// reads the new one.
func (l *Live) Restream(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	if _, err := l.raw.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(l.Name),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	out, err := l.raw.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(l.Name),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TableDescription.LatestStreamArn)
	if arn == "" || arn == l.ARN {
		t.Fatalf("the stream enabled again is %q (was %q)", arn, l.ARN)
	}
	l.ARN = arn
}

// Shards lists the shards of the table's stream, oldest first.
func (l *Live) Shards(t testing.TB) []stypes.Shard {
	t.Helper()
	d, err := l.streams.DescribeStream(context.Background(), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(l.ARN)})
	if err != nil {
		t.Fatal(err)
	}
	return d.StreamDescription.Shards
}

// Mapping is a handler's event source mapping as the singletable
// construct makes it: from the stream's oldest record (TRIM_HORIZON),
// only the records its filters let through (patterns.Design.StreamFilters,
// as FilterCriteria), BatchSize at a time, a failing batch redelivered
// from its first failed record (ReportBatchItemFailures) at most
// RetryAttempts times.
type Mapping struct {
	BatchSize, RetryAttempts int
	live                     *Live
	// arn is the stream the mapping reads (a mapping is made for one).
	arn     string
	handler Handler
	filters []Filter
	// iters is each shard's next iterator (nil once the shard is closed
	// and read), in the order the shards were found; last the sequence
	// number of each shard's last record read.
	shards []string
	iters  map[string]*string
	last   map[string]string
	// Reiterated counts the iterators that expired (15 minutes after
	// they were handed out) and were replaced, as Lambda replaces them:
	// after the last record read.
	Reiterated int
}

// Mapping is the event source mapping of the design's handler h.
func (l *Live) Mapping(t testing.TB, h patterns.Handler, fn Handler) *Mapping {
	t.Helper()
	m := &Mapping{BatchSize: 100, RetryAttempts: 10, live: l, arn: l.ARN, handler: fn, iters: map[string]*string{}, last: map[string]string{}}
	for _, f := range l.d.StreamFilters(h) {
		raw, err := json.Marshal(f.Pattern())
		if err != nil {
			t.Fatal(err)
		}
		var p Filter
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		m.filters = append(m.filters, p)
	}
	if len(m.filters) == 0 {
		t.Fatalf("the design calls for no %s handler", h)
	}
	return m
}

// Drain delivers the records on the stream past the mapping's position
// that its filters let through, in order, in batches; then those the
// handler's own writes put there, until none is left. It returns the
// records delivered (each once, however often it was redelivered).
func (m *Mapping) Drain(ctx context.Context) ([]events.DynamoDBEventRecord, error) {
	var all []events.DynamoDBEventRecord
	for reads := 0; ; reads++ {
		if reads == maxReads {
			return all, fmt.Errorf("the stream still had records after %d reads: the handler feeds itself", maxReads)
		}
		raw, err := m.read(ctx)
		if err != nil {
			return all, err
		}
		var kept []json.RawMessage
		for _, r := range raw {
			if ok, err := m.pass(r); err != nil {
				return all, err
			} else if ok {
				kept = append(kept, r)
			}
		}
		if len(raw) == 0 {
			return all, nil
		}
		for len(kept) > 0 {
			n := min(len(kept), m.BatchSize)
			ev, err := LambdaEvent(kept[:n])
			if err != nil {
				return all, err
			}
			kept = kept[n:]
			if _, err := Deliver(ctx, m.handler, ev.Records, 1+m.RetryAttempts); err != nil {
				return all, err
			}
			all = append(all, ev.Records...)
		}
	}
}

// maxReads bounds Drain: a handler whose writes keep putting records its
// filters let through on the stream would never end.
const maxReads = 10000

// pass reports whether one of the mapping's filters lets r through.
func (m *Mapping) pass(r json.RawMessage) (bool, error) {
	for _, f := range m.filters {
		if ok, err := f.Match(r); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// read returns the records written since the last read, in Lambda's
// JSON, shard by shard in the order the stream lists them (a parent
// before its children).
func (m *Mapping) read(ctx context.Context) ([]json.RawMessage, error) {
	sc, arn := m.live.streams, m.arn
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		return nil, fmt.Errorf("DescribeStream: %w", err)
	}
	for _, s := range d.StreamDescription.Shards {
		id := aws.ToString(s.ShardId)
		if _, seen := m.iters[id]; seen {
			continue
		}
		it, err := m.iterator(ctx, id)
		if err != nil {
			return nil, err
		}
		m.shards, m.iters[id] = append(m.shards, id), it
	}
	var out []json.RawMessage
	for _, id := range m.shards {
		for m.iters[id] != nil {
			page, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: m.iters[id]})
			var expired *stypes.ExpiredIteratorException
			if errors.As(err, &expired) {
				m.Reiterated++
				if m.iters[id], err = m.iterator(ctx, id); err != nil {
					return nil, err
				}
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("GetRecords %s: %w", id, err)
			}
			m.iters[id] = page.NextShardIterator
			for _, r := range page.Records {
				m.last[id] = aws.ToString(r.Dynamodb.SequenceNumber)
				j, err := LambdaRecord(arn, r)
				if err != nil {
					return nil, err
				}
				out = append(out, j)
			}
			if len(page.Records) == 0 {
				break // an open shard with nothing more yet
			}
		}
	}
	return out, nil
}

// iterator is an iterator into shard id after its last record read (its
// oldest, TRIM_HORIZON, before any).
func (m *Mapping) iterator(ctx context.Context, id string) (*string, error) {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(m.arn), ShardId: aws.String(id),
		ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon}
	if seq, ok := m.last[id]; ok {
		in.ShardIteratorType, in.SequenceNumber = stypes.ShardIteratorTypeAfterSequenceNumber, aws.String(seq)
	}
	it, err := m.live.streams.GetShardIterator(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("GetShardIterator %s: %w", id, err)
	}
	return it.ShardIterator, nil
}
