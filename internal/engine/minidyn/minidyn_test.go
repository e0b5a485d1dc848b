package minidyn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

// Each test here is one of the fork's fixes (README.md's table), checked
// through the SDK against the served engine.

func start(t *testing.T) *dynamodb.Client {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	// Through sdkhttp: the SDK's own transport, under load, can close a
	// connection under a large response it is reading (net.ErrClosed,
	// aws/aws-sdk-go-v2#2737; the SDK retries it).
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint),
		HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func num(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// table creates t with PK/SK (SK of type skType) and GSI1 on GSI1PK/GSI1SK.
func table(t *testing.T, db *dynamodb.Client, skType types.ScalarAttributeType) {
	t.Helper()
	_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:   aws.String("tbl"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: skType},
			{AttributeName: aws.String("GSI1PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("GSI1SK"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("GSI1"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("GSI1PK"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("GSI1SK"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func put(t *testing.T, db *dynamodb.Client, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func queryGSI1(t *testing.T, db *dynamodb.Client, pk string) []string {
	t.Helper()
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String("tbl"), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("GSI1PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": str(pk)},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, it["PK"].(*types.AttributeValueMemberS).Value)
	}
	return got
}

func TestRemoveTakesTheItemOutOfASparseIndex(t *testing.T) {
	db := start(t)
	table(t, db, types.ScalarAttributeTypeS)
	put(t, db, map[string]types.AttributeValue{"PK": str("a"), "SK": str("x"), "GSI1PK": str("OPEN"), "GSI1SK": str("1"), "st": str("OPEN")})
	_, err := db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String("tbl"), Key: map[string]types.AttributeValue{"PK": str("a"), "SK": str("x")},
		UpdateExpression:          aws.String("SET st = :s REMOVE GSI1PK, #k"),
		ExpressionAttributeNames:  map[string]string{"#k": "GSI1SK"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": str("DONE")},
	})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: map[string]types.AttributeValue{"PK": str("a"), "SK": str("x")}})
	if _, ok := out.Item["GSI1PK"]; ok || len(out.Item) != 3 {
		t.Errorf("item after REMOVE: %v", out.Item)
	}
	if got := queryGSI1(t, db, "OPEN"); len(got) != 0 {
		t.Errorf("GSI1 still holds %v", got)
	}
}

func TestPutMovesTheIndexEntry(t *testing.T) {
	db := start(t)
	table(t, db, types.ScalarAttributeTypeS)
	put(t, db, map[string]types.AttributeValue{"PK": str("a"), "SK": str("x"), "GSI1PK": str("OPEN"), "GSI1SK": str("1")})
	put(t, db, map[string]types.AttributeValue{"PK": str("b"), "SK": str("x"), "GSI1PK": str("OPEN"), "GSI1SK": str("2")})
	put(t, db, map[string]types.AttributeValue{"PK": str("a"), "SK": str("x"), "GSI1PK": str("CLOSED"), "GSI1SK": str("1")})
	if got := queryGSI1(t, db, "OPEN"); strings.Join(got, ",") != "b" {
		t.Errorf("OPEN: %v, want b", got)
	}
	if got := queryGSI1(t, db, "CLOSED"); strings.Join(got, ",") != "a" {
		t.Errorf("CLOSED: %v, want a", got)
	}
	put(t, db, map[string]types.AttributeValue{"PK": str("b"), "SK": str("x")})
	if got := queryGSI1(t, db, "OPEN"); len(got) != 0 {
		t.Errorf("OPEN after b lost its index key: %v", got)
	}
}

func TestUpdateTableBackfillsANewIndex(t *testing.T) {
	db := start(t)
	table(t, db, types.ScalarAttributeTypeS)
	put(t, db, map[string]types.AttributeValue{"PK": str("a"), "SK": str("x"), "G2": str("p")})
	put(t, db, map[string]types.AttributeValue{"PK": str("b"), "SK": str("x")})
	_, err := db.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
		TableName:            aws.String("tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("G2"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("GSI2"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("G2"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("GSI2"),
		KeyConditionExpression: aws.String("G2 = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("p")}})
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("GSI2 after UpdateTable: %v, %v", out, err)
	}
	d, _ := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if len(d.Table.AttributeDefinitions) != 5 {
		t.Errorf("attribute definitions after UpdateTable: %d, want 5", len(d.Table.AttributeDefinitions))
	}
}

func TestParallelScanSplitsTheTable(t *testing.T) {
	db := start(t)
	table(t, db, types.ScalarAttributeTypeS)
	const n = 200
	for i := range n {
		put(t, db, map[string]types.AttributeValue{"PK": str(fmt.Sprint("p", i%50)), "SK": str(fmt.Sprint(i))})
	}
	seen := map[string]int{}
	for seg := range int32(4) {
		var start map[string]types.AttributeValue
		for {
			out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("tbl"),
				Segment: aws.Int32(seg), TotalSegments: aws.Int32(4), Limit: aws.Int32(7), ExclusiveStartKey: start})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				seen[it["SK"].(*types.AttributeValueMemberS).Value]++
			}
			if start = out.LastEvaluatedKey; len(start) == 0 {
				break
			}
		}
	}
	if len(seen) != n {
		t.Fatalf("%d items seen across the segments, want %d", len(seen), n)
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("%s seen %d times", k, c)
		}
	}
	if _, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("tbl"), Segment: aws.Int32(4), TotalSegments: aws.Int32(4)}); err == nil {
		t.Error("Segment 4 of 4: no error")
	}
}

func TestNumbersAreExactAndSortByValue(t *testing.T) {
	db := start(t)
	table(t, db, types.ScalarAttributeTypeN)
	for _, sk := range []string{"10", "9", "-1.5", "100", "0.25"} {
		put(t, db, map[string]types.AttributeValue{"PK": str("p"), "SK": num(sk), "n": num("9007199254740992")})
	}
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("tbl"),
		KeyConditionExpression: aws.String("PK = :p AND SK > :z"), ScanIndexForward: aws.Bool(false),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("p"), ":z": num("0")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, it["SK"].(*types.AttributeValueMemberN).Value)
	}
	if strings.Join(got, ",") != "100,10,9,0.25" {
		t.Errorf("SK > 0 backwards: %v, want 100,10,9,0.25", got)
	}
	// 1.0 is the item 1 is: the same key.
	put(t, db, map[string]types.AttributeValue{"PK": str("p"), "SK": num("10.0"), "n": num("1")})
	up, err := db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String("tbl"),
		Key:              map[string]types.AttributeValue{"PK": str("p"), "SK": num("9")},
		UpdateExpression: aws.String("ADD n :one"), ReturnValues: types.ReturnValueUpdatedNew,
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": num("1")}})
	if err != nil {
		t.Fatal(err)
	}
	if v := up.Attributes["n"].(*types.AttributeValueMemberN).Value; v != "9007199254740993" {
		t.Errorf("2^53 ADD 1 = %s", v)
	}
	all, _ := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("tbl")})
	if all.Count != 5 {
		t.Errorf("%d items, want 5 (10.0 replaced 10)", all.Count)
	}
}

func TestLimitCountsWhatTheKeyConditionSelects(t *testing.T) {
	db := start(t)
	table(t, db, types.ScalarAttributeTypeS)
	for i := range 20 {
		put(t, db, map[string]types.AttributeValue{"PK": str(fmt.Sprint("other", i)), "SK": str("x")})
	}
	for i := range 6 {
		put(t, db, map[string]types.AttributeValue{"PK": str("p"), "SK": str(fmt.Sprint(i)), "even": &types.AttributeValueMemberBOOL{Value: i%2 == 0}})
	}
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("tbl"), Limit: aws.Int32(4),
		KeyConditionExpression: aws.String("PK = :p"), FilterExpression: aws.String("even = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("p"), ":t": &types.AttributeValueMemberBOOL{Value: true}},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 2 || out.ScannedCount != 4 || len(out.LastEvaluatedKey) == 0 {
		t.Errorf("Count %d, ScannedCount %d, LastEvaluatedKey %v: want 2, 4, a key", out.Count, out.ScannedCount, out.LastEvaluatedKey)
	}
	if out.ConsumedCapacity == nil || aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) != 0.5 {
		t.Errorf("ConsumedCapacity %+v, want 0.5", out.ConsumedCapacity)
	}
	// The page's last item is deleted: the next page starts after it.
	last := out.LastEvaluatedKey
	if _, err := db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: last}); err != nil {
		t.Fatal(err)
	}
	next, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("tbl"), ExclusiveStartKey: last,
		KeyConditionExpression: aws.String("PK = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("p")}})
	if err != nil || next.Count != 2 {
		t.Errorf("the page after a deleted start key: %d items (%v), want 2", next.Count, err)
	}
}

func TestTablesAreDescribedAndListed(t *testing.T) {
	db := start(t)
	ctx := context.Background()
	table(t, db, types.ScalarAttributeTypeS)
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	tb := d.Table
	if tb.TableStatus != types.TableStatusActive || len(tb.AttributeDefinitions) != 4 || tb.BillingModeSummary == nil ||
		tb.BillingModeSummary.BillingMode != types.BillingModePayPerRequest || tb.StreamSpecification == nil ||
		len(tb.GlobalSecondaryIndexes) != 1 || tb.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive {
		t.Errorf("description: %+v", tb)
	}
	lt, err := db.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || strings.Join(lt.TableNames, ",") != "tbl" {
		t.Errorf("ListTables: %v, %v", lt, err)
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("tbl")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Errorf("DescribeTimeToLive: %v, %v", ttl, err)
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	ttl, _ = db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("tbl")})
	if ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "exp" {
		t.Errorf("TTL after UpdateTimeToLive: %+v", ttl.TimeToLiveDescription)
	}
	del, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")})
	if err != nil || del.TableDescription.TableStatus != types.TableStatusDeleting {
		t.Errorf("DeleteTable: %v, %v", del, err)
	}
}

func TestRefusalsAreDynamoDBErrors(t *testing.T) {
	db := start(t)
	ctx := context.Background()
	table(t, db, types.ScalarAttributeTypeS)
	_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("nope"),
		KeyConditionExpression: aws.String("PK = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("p")}})
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
		t.Errorf("a query on a missing index: %v", err)
	}
	_, err = db.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("tbl")})
	if !errors.As(err, &api) || api.ErrorCode() != "UnknownOperationException" {
		t.Errorf("an operation the engine lacks: %v", err)
	}
}

func TestAPageStopsAtOneMegabyte(t *testing.T) {
	db := start(t)
	table(t, db, types.ScalarAttributeTypeS)
	big := strings.Repeat("x", 100<<10)
	for i := range 25 {
		put(t, db, map[string]types.AttributeValue{"PK": str("p"), "SK": str(fmt.Sprintf("%02d", i)), "body": str(big)})
	}
	pages, items := 0, 0
	var start map[string]types.AttributeValue
	for {
		out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("tbl"), ExclusiveStartKey: start})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		items += len(out.Items)
		if start = out.LastEvaluatedKey; len(start) == 0 {
			break
		}
	}
	if pages != 3 || items != 25 {
		t.Errorf("%d pages, %d items: want 3 pages of at most 1 MB, 25 items", pages, items)
	}
}
