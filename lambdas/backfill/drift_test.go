package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

// settled waits until the table and its GSIs are ACTIVE (an engine may
// take a moment over a GSI changed by hand).
func settled(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(20 * time.Millisecond) {
		out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		ready := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			ready = ready && g.IndexStatus == types.IndexStatusActive
		}
		if ready {
			return
		}
	}
	t.Fatalf("table %s not ACTIVE after 30 s", name)
}

// gsi is an UpdateTable creating a GSI keyed pk (and sk) of strings.
func gsi(name, table, pk, sk string) *dynamodb.UpdateTableInput {
	keys := []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}}
	defs := []types.AttributeDefinition{{AttributeName: aws.String(pk), AttributeType: types.ScalarAttributeTypeS}}
	if sk != "" {
		keys = append(keys, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(sk), AttributeType: types.ScalarAttributeTypeS})
	}
	return &dynamodb.UpdateTableInput{TableName: aws.String(table), AttributeDefinitions: defs,
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String(name), KeySchema: keys, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}
}

func dropGSI(name, table string) *dynamodb.UpdateTableInput {
	return &dynamodb.UpdateTableInput{TableName: aws.String(table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(name)}}}}
}

// The worker compares its lock with the table before it writes (the
// comparison keyplan diff --live makes): a GSI of the phase deleted or
// re-keyed by hand, or a GSI added by hand on a key attribute the
// backfill writes, makes it refuse, naming the drift, with nothing
// written; a GSI added on an attribute it never writes, and tags, are
// reported and the backfill goes on. On the in-process engine and on
// DynamoDB Local (KEYPLAN_ENGINE=dynamodb-local).
func TestWorkerChecksDriftBeforeWriting(t *testing.T) {
	_, _, lock := evolvetest.ShopMigration(t, "../..")
	ph := lock.Migration.Phases[lock.Migration.Current]
	var filled *patterns.PhaseIndex
	for _, ix := range ph.Indexes {
		if ix.PK != "" && (filled == nil || ix.Name == firstOr(ph.Create, "")) {
			filled = ix
		}
	}
	if filled == nil || len(ph.Backfill) == 0 {
		t.Fatalf("phase %+v: expected a backfill and a GSI keyed PK/SK", ph)
	}
	if why := engine.Lacks(dynamotest.OnlineIndexes); why != "" {
		t.Skipf("%s: the drift is made by creating and deleting GSIs on the live table (proved on the in-process engine and DynamoDB Local)", why)
	}
	c := streamtest.Client(engine.Endpoint, 0).Client
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		drift []*dynamodb.UpdateTableInput
		// stops is the kind of drift that stops the job ("": it goes on).
		stops patterns.DriftKind
	}{
		{"a GSI of the phase deleted by hand", []*dynamodb.UpdateTableInput{dropGSI(filled.Name, "")}, patterns.DriftGSIMissing},
		{"a GSI of the phase re-keyed by hand", []*dynamodb.UpdateTableInput{dropGSI(filled.Name, ""), gsi(filled.Name, "", filled.SK, filled.PK)}, patterns.DriftGSIKeys},
		{"a GSI added by hand on a key the backfill writes", []*dynamodb.UpdateTableInput{gsi("ByHand", "", filled.PK, "")}, patterns.DriftGSIExtra},
		{"a GSI added by hand on an attribute it never writes", []*dynamodb.UpdateTableInput{gsi("ByHand", "", "handNote", "")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lock, name := phase1(t, 10)
			for _, u := range tc.drift {
				u.TableName = aws.String(name)
				if _, err := c.UpdateTable(ctx, u); err != nil {
					t.Fatal(err)
				}
				settled(t, c, name)
			}
			d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatal(err)
			}
			// A tag added by hand (DynamoDB Local has no tagging).
			if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: d.Table.TableArn, Tags: []types.Tag{{Key: aws.String("by"), Value: aws.String("hand")}}}); err != nil && !strings.Contains(err.Error(), "Tagging is not currently supported") {
				t.Fatal(err)
			}
			before := evolvetest.ScanAll(t, c, name)
			var logs bytes.Buffer
			h := &handler{lock: lock, client: c, table: name, log: slog.New(slog.NewJSONHandler(&logs, nil))}
			task, err := h.Handle(ctx, patterns.BackfillTask{Segment: 0, Segments: 1})
			after := evolvetest.ScanAll(t, c, name)
			if tc.stops == "" {
				if err != nil || task.Rewritten == 0 {
					t.Fatalf("harmless drift: %v, %+v", err, task)
				}
				if !strings.Contains(logs.String(), "drift reported") || !strings.Contains(logs.String(), string(patterns.DriftGSIExtra)) {
					t.Errorf("the drift is not reported: %s", logs.String())
				}
				return
			}
			if !errors.Is(err, patterns.ErrBackfillDrift) || !strings.Contains(err.Error(), string(tc.stops)+" index "+nameOf(tc)) ||
				!strings.Contains(err.Error(), "nothing was written") || task.Scanned != 0 {
				t.Errorf("drift %s: %v, %+v; want the job refused, naming it", tc.stops, err, task)
			}
			if !strings.Contains(logs.String(), "refused to write") {
				t.Errorf("the refusal is not logged: %s", logs.String())
			}
			if !reflect.DeepEqual(before, after) {
				t.Errorf("the job wrote on drift: %d items before, %d after, or changed", len(before), len(after))
			}
		})
	}
}

func nameOf(tc struct {
	name  string
	drift []*dynamodb.UpdateTableInput
	stops patterns.DriftKind
}) string {
	if tc.stops == patterns.DriftGSIExtra {
		return "ByHand"
	}
	for _, u := range tc.drift {
		for _, g := range u.GlobalSecondaryIndexUpdates {
			if g.Delete != nil {
				return *g.Delete.IndexName
			}
		}
	}
	return ""
}

func firstOr(s []string, or string) string {
	if len(s) > 0 {
		return s[0]
	}
	return or
}
