package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/motos3"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// docsInline keeps the body in the item; the next model (store: s3) in S3.
const docsInline = testmodel.DocsInlineSynthetic

// docsMigration locks docsInline, loads n docs written inline, then locks
// the model with store: s3 on body (a migration at phase 1): the model,
// the table, the engine's endpoint and client, and the bodies by id.
func docsMigration(t *testing.T, n int) (model, table, ep string, c *dynamodb.Client, bodies map[string]string) {
	t.Helper()
	model = filepath.Join(t.TempDir(), "docs.yaml")
	os.WriteFile(model, []byte(docsInline), 0o644)
	if code, out, errs := keyplan("lock", model); code != 0 {
		t.Fatalf("lock: %s%s", out, errs)
	}
	lock, err := patterns.LoadLock(patterns.LockPath(model))
	if err != nil {
		t.Fatal(err)
	}
	ep = engine(t)
	c = localengine.Client(ep, 0)
	table = fmt.Sprintf("migrate-%d", tableSeq.Add(1))
	ctx := context.Background()
	if err := dynamo.CreateLockTable(ctx, c, lock, table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}) })
	v1 := dynamo.New(lock.Accepted, nil, table)
	var all []map[string]types.AttributeValue
	bodies = map[string]string{}
	for i := range n {
		id := fmt.Sprintf("d%d", i)
		bodies[id] = fmt.Sprintf("body of %s #%%{}", id) + strings.Repeat("z", i*500)
		items, err := v1.Items("Doc", dynamo.Values{"docId": id, "title": "t", "body": bodies[id]})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, items...)
	}
	if err := dynamo.BatchPut(ctx, c, table, all); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(model, []byte(strings.Replace(docsInline, "maxLength: 100000}", "maxLength: 100000, store: s3}", 1)), 0o644)
	if code, out, errs := keyplan("diff", model); code != 1 || !strings.Contains(out, "store (not set) → s3 (the migration's backfill moves each value") {
		t.Errorf("diff: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "migration at phase 1 of 1") {
		t.Fatalf("lock with store: s3: %s%s", out, errs)
	}
	return model, table, ep, c, bodies
}

// keyplan migrate of a migration that moves values into S3 needs the
// bucket: without $KEYPLAN_OBJECTS_BUCKET it stops before writing,
// naming the variable, and the items keep their values.
func TestMigrateNeedsTheObjectsBucket(t *testing.T) {
	t.Setenv(patterns.ObjectsBucketEnv, "")
	model, table, ep, c, bodies := docsMigration(t, 3)
	code, out, errs := keyplan("migrate", model, "--table", table, "--endpoint", ep)
	if code == 0 || !strings.Contains(out+errs, "$"+patterns.ObjectsBucketEnv) {
		t.Errorf("migrate without the bucket: exit %d\n%s%s", code, out, errs)
	}
	for _, it := range evolvetest.ScanAll(t, c, table) {
		id, body := it["docId"].(*types.AttributeValueMemberS), it["body"].(*types.AttributeValueMemberS)
		if body.Value != bodies[id.Value] {
			t.Errorf("%s's body is now %.20q", id.Value, body.Value)
		}
	}
}

// keyplan migrate moves the values into moto's S3 (make test-s3): every
// item holds an object's key, every object is an item's, each reads
// back its value.
func TestMigrateMovesValuesOnMotoS3(t *testing.T) {
	srv := motos3.Start(t)
	bucket := srv.Bucket(t)
	model, table, ep, c, bodies := docsMigration(t, 40)
	t.Setenv(patterns.ObjectsBucketEnv, bucket)
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.Endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", "testing")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "testing")
	t.Setenv("AWS_REGION", "us-east-1")
	code, out, errs := keyplan("migrate", model, "--table", table, "--endpoint", ep, "--page-size", "7", "--segments", "2")
	if code != 0 || !strings.Contains(out, "the migration is done") {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errs)
	}
	store := dynamo.S3Objects{Client: srv.Client, Bucket: bucket}
	held := map[string]bool{}
	for _, it := range evolvetest.ScanAll(t, c, table) {
		id, key := it["docId"].(*types.AttributeValueMemberS), it["body"].(*types.AttributeValueMemberS)
		if id == nil || key == nil {
			continue
		}
		held[key.Value] = true
		b, err := store.GetObject(context.Background(), key.Value)
		if err != nil || string(b) != bodies[id.Value] {
			t.Errorf("%s holds %.30q: %.20q, %v", id.Value, key.Value, b, err)
		}
	}
	vs := srv.List(t, bucket)
	if len(held) != len(bodies) || len(vs.Current) != len(held) {
		t.Errorf("%d items hold %d keys; the bucket has %d objects", len(bodies), len(held), len(vs.Current))
	}
	for k := range vs.Current {
		if !held[k] {
			t.Errorf("%s is no item's", k)
		}
	}
}
