package minidyn

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// UpdateTable's index changes as AWS's UpdateTable and
// GlobalSecondaryIndexDescription describe them.

func createIndex(name, hash string) types.GlobalSecondaryIndexUpdate {
	return types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String(name),
		KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
}

// noRetries: the SDK retries a LimitExceededException (a throttle) with
// back-off; a test wants the first answer.
func noRetries(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

func indexNamed(d *types.TableDescription, name string) *types.GlobalSecondaryIndexDescription {
	for i := range d.GlobalSecondaryIndexes {
		if aws.ToString(d.GlobalSecondaryIndexes[i].IndexName) == name {
			return &d.GlobalSecondaryIndexes[i]
		}
	}

	return nil
}

func TestUpdateTableIndexChanges(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeS})
		tn := aws.String(table)

		for _, item := range []map[string]types.AttributeValue{
			values("p", str("ok"), "c", str("1"), "x", str("hello")),
			values("p", str("empty"), "c", str("1"), "x", str("")),
			values("p", str("long"), "c", str("1"), "x", str(strings.Repeat("a", 2049))),
			values("p", str("number"), "c", str("1"), "x", num("7")),
		} {
			_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: item})
			mustOK(t, err)
		}

		xs := []types.AttributeDefinition{attr("x", types.ScalarAttributeTypeS)}

		// Two changes at once, an entry with two actions, a key attribute
		// the request does not define.
		_, err := e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, AttributeDefinitions: xs,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createIndex("one", "x"), createIndex("two", "x")}}, noRetries)
		wantAPIError(t, err, "LimitExceededException")

		// An entry is one action: AWS refuses two in one entry as invalid
		// (the Alternator suite's test_gsi_updatetable_errors, run against
		// AWS); DynamoDB Local counts them as two index changes.
		both := createIndex("one", "x")
		both.Delete = &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("two")}
		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, AttributeDefinitions: xs, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{both}}, noRetries)

		if e.ref {
			wantAPIError(t, err, "LimitExceededException")
		} else {
			wantAPIError(t, err, "ValidationException", "exactly one")
		}

		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createIndex("one", "x")}})
		wantAPIError(t, err, "ValidationException")

		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
			{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("nothing")}}}})
		wantAPIError(t, err, "ResourceNotFoundException")

		up, err := e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, AttributeDefinitions: xs,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createIndex("byx", "x")}})
		mustOK(t, err)

		if g := indexNamed(up.TableDescription, "byx"); g == nil || g.IndexStatus != types.IndexStatusCreating {
			t.Fatalf("UpdateTable's answer: %+v", g)
		}

		d := waitForIndexes(t, e.db, table)
		if g := indexNamed(d, "byx"); g == nil || g.IndexStatus != types.IndexStatusActive || g.Backfilling != nil {
			t.Fatalf("the index once built: %+v", g)
		}

		// The backfill leaves out what cannot be the index's key (AWS's
		// GlobalSecondaryIndexDescription: "Not all items will qualify";
		// the Alternator suite's test_gsi_backfill_empty_string and
		// test_gsi_backfill_oversized_key, run against AWS). DynamoDB Local
		// indexes the empty and the oversized value.
		s, err := e.db.Scan(ctx, &dynamodb.ScanInput{TableName: tn, IndexName: aws.String("byx")})
		mustOK(t, err)

		if want := map[bool]int{false: 1, true: 3}[e.ref]; len(s.Items) != want {
			t.Fatalf("the backfilled index holds %d items, want %d: %v", len(s.Items), want, s.Items)
		}

		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, AttributeDefinitions: []types.AttributeDefinition{attr("x", types.ScalarAttributeTypeN)},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createIndex("byxn", "x")}})
		wantAPIError(t, err, "ValidationException")

		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, AttributeDefinitions: xs,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createIndex("byx", "x")}})
		wantAPIError(t, err, "ValidationException")

		up, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
			{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byx")}}}})
		mustOK(t, err)

		if g := indexNamed(up.TableDescription, "byx"); g == nil || g.IndexStatus != types.IndexStatusDeleting {
			t.Fatalf("UpdateTable's answer to a delete: %+v", g)
		}
	})
}

// waitForIndexes describes the table until every GSI is ACTIVE (DynamoDB
// Local builds an index in the background, on a thread of its own: how
// many DescribeTables that takes depends on the machine's load, so the
// wait is bounded by time, polling every 20 ms, not by a count).
func waitForIndexes(t *testing.T, db *dynamodb.Client, table string) *types.TableDescription {
	t.Helper()

	deadline := time.Now().Add(time.Minute)
	for {
		d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		mustOK(t, err)

		if len(building(d.Table)) == 0 {
			return d.Table
		}

		if time.Now().After(deadline) {
			break
		}

		time.Sleep(20 * time.Millisecond)
	}

	t.Fatal("the indexes are not ACTIVE a minute after they were asked for")

	return nil
}

func building(d *types.TableDescription) []string {
	var out []string

	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != types.IndexStatusActive {
			out = append(out, aws.ToString(g.IndexName))
		}
	}

	return out
}

// Switching to provisioned capacity needs the table's throughput and
// every GSI's; on-demand takes none.
func TestUpdateTableBillingSwitches(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{attrs: []types.AttributeDefinition{attr("g", types.ScalarAttributeTypeS)},
			gsis: []types.GlobalSecondaryIndex{gsi("byg", "g", types.ProjectionTypeKeysOnly)}})
		tn := aws.String(table)
		tp := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}

		_, err := e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, BillingMode: types.BillingModeProvisioned})
		wantAPIError(t, err, "ValidationException")

		e.awsOnly(t, "it takes throughput for an on-demand table and switches to PROVISIONED without the GSIs' throughput")

		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, ProvisionedThroughput: tp})
		wantAPIError(t, err, "ValidationException", "PAY_PER_REQUEST")

		_, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: tp})
		wantAPIError(t, err, "ValidationException", "byg")

		up, err := e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: tp,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("byg"), ProvisionedThroughput: tp}}}})
		mustOK(t, err)

		if up.TableDescription.BillingModeSummary.BillingMode != types.BillingModeProvisioned || aws.ToInt64(up.TableDescription.ProvisionedThroughput.ReadCapacityUnits) != 5 {
			t.Fatalf("after switching to PROVISIONED: %+v %+v", up.TableDescription.BillingModeSummary, up.TableDescription.ProvisionedThroughput)
		}

		up, err = e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, BillingMode: types.BillingModePayPerRequest})
		mustOK(t, err)

		if up.TableDescription.BillingModeSummary.BillingMode != types.BillingModePayPerRequest || up.TableDescription.BillingModeSummary.LastUpdateToPayPerRequestDateTime == nil {
			t.Fatalf("after switching back: %+v", up.TableDescription.BillingModeSummary)
		}
	})
}
