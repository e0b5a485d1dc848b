package minidyn

import (
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

// The Streams API as AWS's API reference describes it (ListStreams,
// DescribeStream, GetShardIterator, GetRecords), on the engine and on the
// reference.

type streamEngine struct {
	engineUnderTest
	sc *dynamodbstreams.Client
}

// eachStream runs f on every engine under test with its Streams client.
func eachStream(t *testing.T, f func(t *testing.T, e streamEngine)) {
	s := serveFor(t, Options{SweepEvery: -1})
	all := []streamEngine{{engineUnderTest{name: "memory", db: clientFor(s, "k")}, streamsClient(s)}}

	if ep := os.Getenv(EnvReferenceEndpoint); ep != "" {
		creds := credentials.NewStaticCredentialsProvider("k", "k", "")
		all = append(all, streamEngine{
			engineUnderTest{name: "reference", ref: true, db: dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(ep), HTTPClient: sdkhttp.Client(), Credentials: creds})},
			dynamodbstreams.New(dynamodbstreams.Options{Region: "us-east-1", BaseEndpoint: aws.String(ep), HTTPClient: sdkhttp.Client(), Credentials: creds}),
		})
	}

	for _, e := range all {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

// shardsOf lists a stream's shards.
func shardsOf(t *testing.T, sc *dynamodbstreams.Client, arn string) []stypes.Shard {
	t.Helper()

	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	mustOK(t, err)

	return d.StreamDescription.Shards
}

func iterator(t *testing.T, sc *dynamodbstreams.Client, arn, shard string, typ stypes.ShardIteratorType, seq *string) *string {
	t.Helper()

	it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
		ShardIteratorType: typ, SequenceNumber: seq})
	mustOK(t, err)

	return it.ShardIterator
}

// drain reads a shard from it to its end (or to nothing more yet).
func drain(t *testing.T, sc *dynamodbstreams.Client, it *string) ([]stypes.Record, *string) {
	t.Helper()

	var all []stypes.Record

	for range 100 {
		out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
		mustOK(t, err)

		all = append(all, out.Records...)
		it = out.NextShardIterator

		if len(out.Records) == 0 || it == nil {
			break
		}
	}

	return all, it
}

func events(recs []stypes.Record) string {
	var b strings.Builder

	for _, r := range recs {
		b.WriteString(string(r.EventName) + " " + streamS(r.Dynamodb.Keys["p"]) + ";")
	}

	return b.String()
}

func TestStreamIteratorsAndTheirErrors(t *testing.T) {
	eachStream(t, func(t *testing.T, e streamEngine) {
		table, arn := streamTable(t, e.db, types.StreamViewTypeKeysOnly)
		shards := shardsOf(t, e.sc, arn)

		if len(shards) == 0 {
			t.Fatal("an enabled stream has no shard")
		}

		sh := shards[len(shards)-1]
		id, start := aws.ToString(sh.ShardId), aws.ToString(sh.SequenceNumberRange.StartingSequenceNumber)

		if n := len(id); n < 28 || n > 65 {
			t.Fatalf("shard id %q: %d characters, AWS's are 28 to 65", id, n)
		}

		if start == "" || strings.Trim(start, "0123456789") != "" {
			t.Fatalf("StartingSequenceNumber %q is not decimal", start)
		}

		for _, c := range []struct {
			typ stypes.ShardIteratorType
			seq *string
		}{
			{stypes.ShardIteratorTypeAtSequenceNumber, nil},
			{stypes.ShardIteratorTypeAfterSequenceNumber, nil},
			{"NOT_A_TYPE", nil},
		} {
			_, err := e.sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(id),
				ShardIteratorType: c.typ, SequenceNumber: c.seq})
			wantAPIError(t, err, "ValidationException")
		}

		// A well-formed shard id that is not the stream's.
		_, err := e.sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
			ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: stypes.ShardIteratorTypeLatest})
		wantAPIError(t, err, "ResourceNotFoundException")

		for _, limit := range []int32{0, 1001} {
			_, err := e.sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iterator(t, e.sc, arn, id, stypes.ShardIteratorTypeLatest, nil), Limit: aws.Int32(limit)})
			wantAPIError(t, err, "ValidationException")
		}

		latest := iterator(t, e.sc, arn, id, stypes.ShardIteratorTypeLatest, nil)

		for _, p := range []string{"a", "b", "c"} {
			_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str(p))})
			mustOK(t, err)
		}

		recs, next := drain(t, e.sc, latest)
		if events(recs) != "INSERT a;INSERT b;INSERT c;" || next == nil {
			t.Fatalf("LATEST read %q, next %v", events(recs), next)
		}

		// Nothing more: an empty page, still an iterator.
		out, err := e.sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next})
		mustOK(t, err)

		if len(out.Records) != 0 || out.NextShardIterator == nil {
			t.Fatalf("after the last record: %d records, next %v", len(out.Records), out.NextShardIterator)
		}

		second := recs[1].Dynamodb.SequenceNumber
		at, _ := drain(t, e.sc, iterator(t, e.sc, arn, id, stypes.ShardIteratorTypeAtSequenceNumber, second))
		after, _ := drain(t, e.sc, iterator(t, e.sc, arn, id, stypes.ShardIteratorTypeAfterSequenceNumber, second))

		if events(at) != "INSERT b;INSERT c;" || events(after) != "INSERT c;" {
			t.Fatalf("AT_SEQUENCE_NUMBER %q, AFTER_SEQUENCE_NUMBER %q", events(at), events(after))
		}

		one, err := e.sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iterator(t, e.sc, arn, id, stypes.ShardIteratorTypeTrimHorizon, nil), Limit: aws.Int32(1)})
		mustOK(t, err)

		if events(one.Records) != "INSERT a;" || one.NextShardIterator == nil {
			t.Fatalf("TRIM_HORIZON, Limit 1: %q", events(one.Records))
		}
	})
}

// AWS answers a malformed ARN, a sequence number with TRIM_HORIZON or
// LATEST, and a start past the last shard as the Alternator suite shows
// (test_streams.py, written against AWS); DynamoDB Local answers
// otherwise, as that suite notes.
func TestStreamRequestsAWSRefuses(t *testing.T) {
	eachStream(t, func(t *testing.T, e streamEngine) {
		e.awsOnly(t, "it answers a malformed stream ARN with ResourceNotFoundException and takes a SequenceNumber with LATEST")

		_, arn := streamTable(t, e.db, types.StreamViewTypeKeysOnly)
		shards := shardsOf(t, e.sc, arn)
		id := aws.ToString(shards[0].ShardId)

		_, err := e.sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String("not-an-arn-but-long-enough-to-pass-the-length-check")})
		wantAPIError(t, err, "ValidationException")

		// Well-formed, naming a table that does not exist.
		_, err = e.sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(strings.Replace(arn, ":table/", ":table/gone", 1))})
		wantAPIError(t, err, "ResourceNotFoundException")

		for _, typ := range []stypes.ShardIteratorType{stypes.ShardIteratorTypeTrimHorizon, stypes.ShardIteratorTypeLatest} {
			_, err := e.sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(id),
				ShardIteratorType: typ, SequenceNumber: shards[0].SequenceNumberRange.StartingSequenceNumber})
			wantAPIError(t, err, "ValidationException")
		}

		_, err = e.sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("not an iterator at all, but long enough")})
		wantAPIError(t, err, "ValidationException")

		d, err := e.sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: aws.String(id)})
		mustOK(t, err)

		if len(d.StreamDescription.Shards) != 0 || d.StreamDescription.LastEvaluatedShardId != nil {
			t.Fatalf("after the last shard: %+v", d.StreamDescription.Shards)
		}

		_, err = e.sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{ExclusiveStartStreamArn: aws.String("not-an-arn-but-long-enough-to-pass-the-length-check")})
		wantAPIError(t, err, "ValidationException")
	})
}

func TestStreamDisabledAndEnabledAgain(t *testing.T) {
	eachStream(t, func(t *testing.T, e streamEngine) {
		table, arn := streamTable(t, e.db, types.StreamViewTypeNewAndOldImages)

		_, err := e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
		wantAPIError(t, err, "ValidationException", "already has an enabled stream")

		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"))})
		mustOK(t, err)

		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
		mustOK(t, err)

		// Written while disabled: on no stream.
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("b"))})
		mustOK(t, err)

		d, err := e.sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		mustOK(t, err)

		if d.StreamDescription.StreamStatus != stypes.StreamStatusDisabled {
			t.Fatalf("a disabled stream is %s", d.StreamDescription.StreamStatus)
		}

		for _, sh := range d.StreamDescription.Shards {
			if sh.SequenceNumberRange.EndingSequenceNumber == nil {
				t.Fatalf("shard %s of a disabled stream is open", aws.ToString(sh.ShardId))
			}
		}

		var old []stypes.Record

		for _, sh := range d.StreamDescription.Shards {
			recs, next := drain(t, e.sc, iterator(t, e.sc, arn, aws.ToString(sh.ShardId), stypes.ShardIteratorTypeTrimHorizon, nil))
			old = append(old, recs...)

			if next != nil { // at most one more, empty read
				if more, next := drain(t, e.sc, next); len(more) != 0 || next != nil {
					t.Fatalf("a closed shard read to its end still has %d records, next %v", len(more), next)
				}
			}
		}

		if events(old) != "INSERT a;" {
			t.Fatalf("the disabled stream holds %q", events(old))
		}

		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
		wantAPIError(t, err, "ValidationException")

		up, err := e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
		mustOK(t, err)

		arn2 := aws.ToString(up.TableDescription.LatestStreamArn)
		if arn2 == "" || arn2 == arn {
			t.Fatalf("enabled again, the stream is %q (was %q)", arn2, arn)
		}

		ls, err := e.sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
		mustOK(t, err)

		if len(ls.Streams) != 2 {
			t.Fatalf("ListStreams after re-enabling: %+v", ls.Streams)
		}

		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("c"))})
		mustOK(t, err)

		sh := shardsOf(t, e.sc, arn2)
		recs, _ := drain(t, e.sc, iterator(t, e.sc, arn2, aws.ToString(sh[0].ShardId), stypes.ShardIteratorTypeTrimHorizon, nil))

		if events(recs) != "INSERT c;" {
			t.Fatalf("the new stream holds %q", events(recs))
		}
	})
}

// Every kind of write is a record, and only a write that changes an item:
// batches (a delete of nothing is none), a condition that fails, an
// update that changes nothing, transactions (a condition check is none,
// a cancelled one writes nothing).
func TestStreamRecordsEveryWriteKind(t *testing.T) {
	eachStream(t, func(t *testing.T, e streamEngine) {
		table, arn := streamTable(t, e.db, types.StreamViewTypeNewAndOldImages)
		id := aws.ToString(shardsOf(t, e.sc, arn)[0].ShardId)
		it := iterator(t, e.sc, arn, id, stypes.ShardIteratorTypeLatest, nil)
		tn := aws.String(table)

		_, err := e.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
			{PutRequest: &types.PutRequest{Item: values("p", str("a"), "v", num("1"))}},
			{DeleteRequest: &types.DeleteRequest{Key: key("nothing")}},
		}}})
		mustOK(t, err)

		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: values("p", str("a")), ConditionExpression: aws.String("attribute_not_exists(p)")})
		wantAPIError(t, err, "ConditionalCheckFailedException")

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tn, Key: key("a"), UpdateExpression: aws.String("SET v = :v"),
			ExpressionAttributeValues: values(":v", num("1"))})
		mustOK(t, err)

		_, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: tn, Key: key("a"), UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: values(":v", num("2"))}},
			{Put: &types.Put{TableName: tn, Item: values("p", str("b"))}},
			{ConditionCheck: &types.ConditionCheck{TableName: tn, Key: key("c"), ConditionExpression: aws.String("attribute_not_exists(p)")}},
		}})
		mustOK(t, err)

		// A cancelled transaction writes nothing.
		_, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: tn, Key: key("a")}},
			{ConditionCheck: &types.ConditionCheck{TableName: tn, Key: key("b"), ConditionExpression: aws.String("attribute_not_exists(p)")}},
		}})
		wantAPIError(t, err, "TransactionCanceledException")

		_, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: tn, Key: key("b")}},
		}})
		mustOK(t, err)

		recs, _ := drain(t, e.sc, it)
		if got, want := events(recs), "INSERT a;MODIFY a;INSERT b;REMOVE b;"; got != want {
			t.Fatalf("records %q, want %q", got, want)
		}

		m := recs[1].Dynamodb
		if streamN(m.OldImage["v"]) != "1" || streamN(m.NewImage["v"]) != "2" {
			t.Fatalf("the transaction's MODIFY: old %v new %v", m.OldImage, m.NewImage)
		}

		for _, r := range recs {
			if r.Dynamodb.ApproximateCreationDateTime == nil || aws.ToInt64(r.Dynamodb.SizeBytes) <= 0 || r.Dynamodb.StreamViewType != stypes.StreamViewTypeNewAndOldImages {
				t.Fatalf("record %s: %+v", r.EventName, r.Dynamodb)
			}
		}
	})
}

// An update that only removes attributes from an item that does not exist
// creates no item and no record, on AWS (the Alternator suite's
// test_streams_noop_update_expr_on_missing_item, run against AWS).
func TestUpdateRemovingFromNoItemWritesNothing(t *testing.T) {
	eachStream(t, func(t *testing.T, e streamEngine) {
		e.awsOnly(t, "it creates the item (with its key only) and an INSERT record")

		table, arn := streamTable(t, e.db, types.StreamViewTypeNewAndOldImages)
		it := iterator(t, e.sc, arn, aws.ToString(shardsOf(t, e.sc, arn)[0].ShardId), stypes.ShardIteratorTypeLatest, nil)

		_, err := e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("ghost"), UpdateExpression: aws.String("REMOVE v")})
		mustOK(t, err)

		if getItem(t, e.db, table, key("ghost")) != nil {
			t.Fatal("a REMOVE from no item created one")
		}

		if recs, _ := drain(t, e.sc, it); len(recs) != 0 {
			t.Fatalf("records %q", events(recs))
		}
	})
}
