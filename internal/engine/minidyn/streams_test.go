package minidyn

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/keyplan/keyplan/internal/engine/minidyn/server"
)

// clock is a clock a test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()

	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()

	c.now = t
}

func streamsClient(s *Server) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
}

// streamTable creates a table with a stream of the view type and returns
// its stream's ARN.
func streamTable(t *testing.T, db *dynamodb.Client, view types.StreamViewType) (string, string) {
	t.Helper()

	name := uniqueName(t)
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{attr("p", types.ScalarAttributeTypeS)},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}})
	mustOK(t, err)

	return name, aws.ToString(out.TableDescription.LatestStreamArn)
}

// readAll reads a stream from its oldest record.
func readAll(t *testing.T, sc *dynamodbstreams.Client, arn string) ([]stypes.Record, *string) {
	t.Helper()

	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	mustOK(t, err)

	it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
		ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	mustOK(t, err)

	var all []stypes.Record

	next := it.ShardIterator

	for range 10 {
		out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next, Limit: aws.Int32(2)})
		mustOK(t, err)

		all = append(all, out.Records...)
		next = out.NextShardIterator

		if len(out.Records) == 0 || next == nil {
			break
		}
	}

	return all, next
}

func TestStreamsRecordEveryChange(t *testing.T) {
	s := serveFor(t, Options{SweepEvery: -1})
	db, sc := clientFor(s, "k"), streamsClient(s)
	table, arn := streamTable(t, db, types.StreamViewTypeNewAndOldImages)

	put := func(item map[string]types.AttributeValue) {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		mustOK(t, err)
	}

	put(values("p", str("a"), "v", num("1")))
	put(values("p", str("a"), "v", num("2")))
	put(values("p", str("a"), "v", num("2"))) // unchanged: no record
	_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key("a")})
	mustOK(t, err)

	// A transaction's writes are recorded; its condition check is not.
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(table), Item: values("p", str("b"))}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key("c"), ConditionExpression: aws.String("attribute_not_exists(p)")}},
	}})
	mustOK(t, err)

	ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
	mustOK(t, err)

	if len(ls.Streams) != 1 || aws.ToString(ls.Streams[0].StreamArn) != arn {
		t.Fatalf("ListStreams: %+v", ls.Streams)
	}

	recs, next := readAll(t, sc, arn)
	if next == nil {
		t.Fatal("an enabled stream's shard has no next iterator")
	}

	want := []stypes.OperationType{stypes.OperationTypeInsert, stypes.OperationTypeModify, stypes.OperationTypeRemove, stypes.OperationTypeInsert}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(want), recs)
	}

	for i, r := range recs {
		if r.EventName != want[i] {
			t.Fatalf("record %d is %s, want %s", i, r.EventName, want[i])
		}

		if r.UserIdentity != nil {
			t.Fatalf("record %d has a user identity: a write by a client", i)
		}
	}

	m := recs[1].Dynamodb
	if streamN(m.OldImage["v"]) != "1" || streamN(m.NewImage["v"]) != "2" {
		t.Fatalf("MODIFY images: old %v new %v", m.OldImage, m.NewImage)
	}

	if recs[2].Dynamodb.NewImage != nil || recs[2].Dynamodb.OldImage == nil {
		t.Fatalf("REMOVE images: %+v", recs[2].Dynamodb)
	}

	if aws.ToString(recs[0].Dynamodb.SequenceNumber) >= aws.ToString(recs[1].Dynamodb.SequenceNumber) {
		t.Fatal("sequence numbers do not increase")
	}

	// LATEST sees only what comes after.
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	mustOK(t, err)

	it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
		ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: stypes.ShardIteratorTypeLatest})
	mustOK(t, err)
	put(values("p", str("z")))

	out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	mustOK(t, err)

	if len(out.Records) != 1 || streamS(out.Records[0].Dynamodb.Keys["p"]) != "z" {
		t.Fatalf("LATEST: %+v", out.Records)
	}
}

func TestTTLExpiryIsAServiceRemove(t *testing.T) {
	s := serveFor(t, Options{SweepEvery: -1})
	c := &clock{now: time.Unix(1_800_000_000, 0)}
	s.SetClock(c.Now)

	db, sc := clientFor(s, "k"), streamsClient(s)
	table, arn := streamTable(t, db, types.StreamViewTypeKeysOnly)

	_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	mustOK(t, err)

	for p, exp := range map[string]types.AttributeValue{
		"soon":    num("1800000100"),
		"later":   num("1800009999"),
		"ancient": num("1000000000"), // more than five years before: never expired
		"text":    str("1800000000"), // not a number: never expired
	} {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str(p), "exp", exp)})
		mustOK(t, err)
	}

	if n := s.ExpireTTL(); n != 0 {
		t.Fatalf("%d items expired before their time", n)
	}

	c.Set(time.Unix(1_800_000_200, 0))

	if n := s.ExpireTTL(); n != 1 {
		t.Fatalf("%d items expired, want 1 (soon)", n)
	}

	for p, want := range map[string]bool{"soon": false, "later": true, "ancient": true, "text": true} {
		if got := getItem(t, db, table, key(p)) != nil; got != want {
			t.Errorf("%s present: %v, want %v", p, got, want)
		}
	}

	recs, _ := readAll(t, sc, arn)
	last := recs[len(recs)-1]

	if last.EventName != stypes.OperationTypeRemove || last.UserIdentity == nil ||
		aws.ToString(last.UserIdentity.Type) != "Service" || aws.ToString(last.UserIdentity.PrincipalId) != "dynamodb.amazonaws.com" {
		t.Fatalf("the TTL record: %+v %+v", last, last.UserIdentity)
	}

	if streamS(last.Dynamodb.Keys["p"]) != "soon" || last.Dynamodb.OldImage != nil {
		t.Fatalf("a KEYS_ONLY TTL record: %+v", last.Dynamodb)
	}
}

func TestADisabledStreamEnds(t *testing.T) {
	s := serveFor(t, Options{SweepEvery: -1})
	db, sc := clientFor(s, "k"), streamsClient(s)
	table, arn := streamTable(t, db, types.StreamViewTypeNewImage)

	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"))})
	mustOK(t, err)

	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	mustOK(t, err)

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("b"))})
	mustOK(t, err)

	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	mustOK(t, err)

	if d.StreamDescription.StreamStatus != stypes.StreamStatusDisabled || d.StreamDescription.Shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Fatalf("a disabled stream: %+v", d.StreamDescription)
	}

	recs, next := readAll(t, sc, arn)
	if len(recs) != 1 || next != nil {
		t.Fatalf("a closed shard: %d records, next %v", len(recs), next)
	}

	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn + "x")})
	wantAPIError(t, err, "ResourceNotFoundException")
}

func streamN(v stypes.AttributeValue) string {
	if n, ok := v.(*stypes.AttributeValueMemberN); ok {
		return n.Value
	}

	return ""
}

func streamS(v stypes.AttributeValue) string {
	if s, ok := v.(*stypes.AttributeValueMemberS); ok {
		return s.Value
	}

	return ""
}

// A shard takes writes for ShardLifetime on the engine's clock, then
// closes (EndingSequenceNumber) and its child (ParentShardId) takes them;
// a reader of the closed shard reaches its end (no NextShardIterator)
// and finds the child with ShardFilter CHILD_SHARDS.
func TestShardsRollOver(t *testing.T) {
	s := serveFor(t, Options{SweepEvery: -1})
	c := &clock{now: time.Unix(1_800_000_000, 0)}
	s.SetClock(c.Now)

	db, sc := clientFor(s, "k"), streamsClient(s)
	table, arn := streamTable(t, db, types.StreamViewTypeKeysOnly)
	put := func(p string) {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str(p))})
		mustOK(t, err)
	}

	put("a")

	first := shardsOf(t, sc, arn)[0]

	c.Set(c.Now().Add(server.ShardLifetime + time.Minute))
	put("b")

	it := iterator(t, sc, arn, aws.ToString(first.ShardId), stypes.ShardIteratorTypeTrimHorizon, nil)

	shards := shardsOf(t, sc, arn)
	if len(shards) != 2 || shards[0].SequenceNumberRange.EndingSequenceNumber == nil || aws.ToString(shards[1].ParentShardId) != aws.ToString(first.ShardId) ||
		shards[1].SequenceNumberRange.EndingSequenceNumber != nil {
		t.Fatalf("after the shard's lifetime: %+v", shards)
	}

	if aws.ToString(shards[0].ShardId) >= aws.ToString(shards[1].ShardId) {
		t.Fatal("shard ids are not in their creation order")
	}

	recs, next := drain(t, sc, it)
	if events(recs) != "INSERT a;" || next != nil {
		t.Fatalf("the closed shard: %q, next %v", events(recs), next)
	}

	children, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ShardFilter: &stypes.ShardFilter{Type: stypes.ShardFilterTypeChildShards, ShardId: first.ShardId}})
	mustOK(t, err)

	if len(children.StreamDescription.Shards) != 1 || aws.ToString(children.StreamDescription.Shards[0].ShardId) != aws.ToString(shards[1].ShardId) {
		t.Fatalf("CHILD_SHARDS of the first: %+v", children.StreamDescription.Shards)
	}

	recs, _ = drain(t, sc, iterator(t, sc, arn, aws.ToString(shards[1].ShardId), stypes.ShardIteratorTypeTrimHorizon, nil))
	if events(recs) != "INSERT b;" {
		t.Fatalf("the child shard: %q", events(recs))
	}

	// A page of shards: Limit 1, then from where it stopped.
	page, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), Limit: aws.Int32(1)})
	mustOK(t, err)

	if len(page.StreamDescription.Shards) != 1 || aws.ToString(page.StreamDescription.LastEvaluatedShardId) != aws.ToString(first.ShardId) {
		t.Fatalf("Limit 1: %+v, last %v", page.StreamDescription.Shards, page.StreamDescription.LastEvaluatedShardId)
	}

	for _, f := range []*stypes.ShardFilter{{ShardId: first.ShardId}, {Type: stypes.ShardFilterTypeChildShards}, {Type: "PARENT", ShardId: first.ShardId}, {Type: stypes.ShardFilterTypeChildShards, ShardId: aws.String("short")}} {
		_, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ShardFilter: f})
		wantAPIError(t, err, "ValidationException")
	}
}

// An iterator can be used for IteratorLifetime after it was handed out;
// each GetRecords hands out a fresh one.
func TestShardIteratorsExpire(t *testing.T) {
	s := serveFor(t, Options{SweepEvery: -1})
	c := &clock{now: time.Unix(1_800_000_000, 0)}
	s.SetClock(c.Now)

	db, sc := clientFor(s, "k"), streamsClient(s)
	_, arn := streamTable(t, db, types.StreamViewTypeKeysOnly)
	id := aws.ToString(shardsOf(t, sc, arn)[0].ShardId)

	it := iterator(t, sc, arn, id, stypes.ShardIteratorTypeLatest, nil)
	c.Set(c.Now().Add(server.IteratorLifetime - time.Second))

	out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	mustOK(t, err)

	c.Set(c.Now().Add(2 * time.Second))

	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	wantAPIError(t, err, "ExpiredIteratorException")

	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: out.NextShardIterator})
	mustOK(t, err)
}

// A record is kept StreamRetention: past it, TRIM_HORIZON starts after
// it, an iterator at it or a sequence number before the trim point is
// TrimmedDataAccessException; a disabled stream goes StreamRetention
// after it was disabled.
func TestStreamRecordsAreKeptADay(t *testing.T) {
	s := serveFor(t, Options{SweepEvery: -1})
	c := &clock{now: time.Unix(1_800_000_000, 0)}
	s.SetClock(c.Now)

	db, sc := clientFor(s, "k"), streamsClient(s)
	table, arn := streamTable(t, db, types.StreamViewTypeKeysOnly)
	put := func(p string) {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str(p))})
		mustOK(t, err)
	}

	put("old")

	id := aws.ToString(shardsOf(t, sc, arn)[0].ShardId)
	horizon := iterator(t, sc, arn, id, stypes.ShardIteratorTypeTrimHorizon, nil)
	recs, _ := drain(t, sc, horizon)
	oldSeq := recs[0].Dynamodb.SequenceNumber

	c.Set(c.Now().Add(server.StreamRetention - time.Hour))
	put("new")
	c.Set(c.Now().Add(2 * time.Hour)) // "old" is 25 hours old, "new" one

	_, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(id),
		ShardIteratorType: stypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: oldSeq})
	wantAPIError(t, err, "TrimmedDataAccessException")

	var kept []stypes.Record

	for _, sh := range shardsOf(t, sc, arn) {
		r, _ := drain(t, sc, iterator(t, sc, arn, aws.ToString(sh.ShardId), stypes.ShardIteratorTypeTrimHorizon, nil))
		kept = append(kept, r...)
	}

	if events(kept) != "INSERT new;" {
		t.Fatalf("a day later the stream holds %q", events(kept))
	}

	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	mustOK(t, err)

	c.Set(c.Now().Add(server.StreamRetention - time.Minute))

	if ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)}); err != nil || len(ls.Streams) != 1 {
		t.Fatalf("a disabled stream within a day: %v %v", ls, err)
	}

	c.Set(c.Now().Add(2 * time.Minute))

	if ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)}); err != nil || len(ls.Streams) != 0 {
		t.Fatalf("a disabled stream a day later: %v %v", ls, err)
	}

	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	wantAPIError(t, err, "ResourceNotFoundException")
}

// The stream's ARN, the TTL setting and when it last changed survive a
// restart on the data directory (the records do not).
func TestStreamAndTTLStateOutliveARestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")

	s, err := Serve(Options{DataDir: dir, SweepEvery: -1})
	mustOK(t, err)

	db := clientFor(s, "k")
	table, arn := streamTable(t, db, types.StreamViewTypeNewImage)

	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	mustOK(t, err)
	mustOK(t, s.Close())

	s2 := serveFor(t, Options{DataDir: dir, SweepEvery: -1})
	db2, sc2 := clientFor(s2, "k"), streamsClient(s2)

	d, err := db2.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	mustOK(t, err)

	if aws.ToString(d.Table.LatestStreamArn) != arn || d.Table.StreamSpecification == nil || d.Table.StreamSpecification.StreamViewType != types.StreamViewTypeNewImage {
		t.Fatalf("after a restart the table's stream is %v %+v (was %s)", aws.ToString(d.Table.LatestStreamArn), d.Table.StreamSpecification, arn)
	}

	if shards := shardsOf(t, sc2, arn); len(shards) != 1 {
		t.Fatalf("the stream after a restart: %+v", shards)
	}

	// The change an hour ago still counts: a second one is refused.
	_, err = db2.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(false)}})
	wantAPIError(t, err, "ValidationException", "multiple times")
}
