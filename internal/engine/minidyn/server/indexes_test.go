package server

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/engine/minidyn/internal/require"
)

func wantCode(t *testing.T, err error, code string) {
	t.Helper()

	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

func gsiOf(t *testing.T, cli *dynamodb.Client, table, name string) *ddbtypes.GlobalSecondaryIndexDescription {
	t.Helper()

	out, err := cli.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	require.NoError(t, err)

	for i := range out.Table.GlobalSecondaryIndexes {
		if aws.ToString(out.Table.GlobalSecondaryIndexes[i].IndexName) == name {
			return &out.Table.GlobalSecondaryIndexes[i]
		}
	}

	return nil
}

// With an activation delay, a GSI UpdateTable creates is CREATING and
// Backfilling for the delay on the engine's clock, refuses reads, and
// holds off another index change; a deleted one is DELETING as long.
func TestIndexChangesTakeTheActivationDelay(t *testing.T) {
	srv := NewServer()
	now := time.Unix(1_800_000_000, 0)
	srv.SetClock(func() time.Time { return now })
	srv.SetIndexActivationDelay(time.Minute)

	ts := httptest.NewServer(srv)
	defer ts.Close()

	ctx := context.Background()
	cli := newTestDynamoClient(t, ts.URL)
	noRetries := func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

	makeBasicTable(t, cli, "pokemons", "id")
	createServerTestGlobalSecondaryIndex(t, cli, "pokemons", "by-type")

	g := gsiOf(t, cli, "pokemons", "by-type")
	if g.IndexStatus != ddbtypes.IndexStatusCreating || !aws.ToBool(g.Backfilling) {
		t.Fatalf("during the delay: %s, backfilling %v", g.IndexStatus, g.Backfilling)
	}

	_, err := cli.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("pokemons"), IndexName: aws.String("by-type"),
		KeyConditionExpression: aws.String("#t = :t"), ExpressionAttributeNames: map[string]string{"#t": "type"},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":t": &ddbtypes.AttributeValueMemberS{Value: "fire"}}})
	wantCode(t, err, "ValidationException")

	_, err = cli.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("pokemons"), GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{
		{Delete: &ddbtypes.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("by-type")}}}}, noRetries)
	wantCode(t, err, "LimitExceededException")

	now = now.Add(time.Minute)

	if g := gsiOf(t, cli, "pokemons", "by-type"); g.IndexStatus != ddbtypes.IndexStatusActive || g.Backfilling != nil {
		t.Fatalf("after the delay: %s, backfilling %v", g.IndexStatus, g.Backfilling)
	}

	_, err = cli.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("pokemons"), GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{
		{Delete: &ddbtypes.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("by-type")}}}})
	require.NoError(t, err)

	if g := gsiOf(t, cli, "pokemons", "by-type"); g == nil || g.IndexStatus != ddbtypes.IndexStatusDeleting {
		t.Fatalf("while deleting: %+v", g)
	}

	now = now.Add(time.Minute)

	if g := gsiOf(t, cli, "pokemons", "by-type"); g != nil {
		t.Fatalf("after the delay the deleted index is still there: %+v", g)
	}
}

// A table switches to on-demand at most four times in 24 hours.
func TestOnDemandSwitchesAreLimited(t *testing.T) {
	srv := NewServer()
	now := time.Unix(1_800_000_000, 0)
	srv.SetClock(func() time.Time { return now })

	ts := httptest.NewServer(srv)
	defer ts.Close()

	ctx := context.Background()
	cli := newTestDynamoClient(t, ts.URL)
	tp := &ddbtypes.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
	tn := aws.String("pokemons")

	makeBasicTable(t, cli, "pokemons", "id")

	for i := range PayPerRequestSwitches + 1 {
		_, err := cli.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, BillingMode: ddbtypes.BillingModeProvisioned, ProvisionedThroughput: tp})
		require.NoError(t, err)

		_, err = cli.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, BillingMode: ddbtypes.BillingModePayPerRequest}, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
		if i < PayPerRequestSwitches {
			require.NoError(t, err)
		} else {
			wantCode(t, err, "LimitExceededException")
		}

		now = now.Add(time.Hour)
	}

	now = now.Add(PayPerRequestWindow)

	_, err := cli.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, BillingMode: ddbtypes.BillingModePayPerRequest})
	require.NoError(t, err)
}
