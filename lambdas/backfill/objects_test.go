package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/motos3"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/migrate"
)

// lockTo starts lock's migration to the model next (a new lock of prev
// when lock is nil).
func lockTo(t *testing.T, lock *patterns.Lock, prev, next string) *patterns.Lock {
	t.Helper()
	plan := func(s string, l *patterns.Lock) *patterns.Design {
		return planned(t, "files.yaml", "indexKeys: synthetic\n"+s, l)
	}
	if lock == nil {
		lock = patterns.NewLock(plan(prev, nil))
	}
	d := plan(next, lock)
	if err := lock.Apply(d, patterns.Compare(lock, d)); err != nil || lock.Migration == nil {
		t.Fatalf("starting the migration: %v", err)
	}
	return lock
}

// workerOnMoto is the worker as main builds it (newHandler), in an
// environment whose SDK configuration reaches the engine's DynamoDB and
// moto's S3 (AWS_ENDPOINT_URL_*), with $KEYPLAN_OBJECTS_BUCKET set.
func workerOnMoto(t *testing.T, srv *motos3.Server, bucket string, lock *patterns.Lock, table string) *handler {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_ACCESS_KEY_ID", "testing")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "testing")
	for _, kv := range engine.Environ() { // the in-process engine takes the run's key only; moto takes any
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, v)
		}
	}
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", engine.Endpoint)
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.Endpoint)
	t.Setenv(patterns.ObjectsBucketEnv, bucket)
	t.Setenv(patterns.BackfillMaxWCUEnv, "")
	cfg, err := stream.Config(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(stream.Env{Lock: lock, Config: cfg, Table: table, Log: quiet}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := h.objects.(dynamo.S3Objects); !ok {
		t.Fatalf("the worker's objects: %T", h.objects)
	}
	return h
}

// The backfill worker, built as its main builds it (the SDK's
// configuration loaded once, the bucket from $KEYPLAN_OBJECTS_BUCKET,
// S3 reached through AWS_ENDPOINT_URL_S3 path-style), moves a string and
// a binary into moto's versioned bucket (make test-s3), invocation after
// invocation: every item then holds a key whose object holds its value
// byte for byte, and the bucket's current objects are exactly those;
// keyplan migrate --verify asks moto for each object (HeadObject). Then
// the worker moves every value back: the items hold their values, and
// the bucket has no current object (their versions stay).
func TestWorkerMovesValuesOnMotoS3(t *testing.T) {
	start := time.Now()
	srv := motos3.Start(t)
	bucket := srv.Bucket(t)
	t.Logf("moto started in %v", time.Since(start))
	ctx := context.Background()
	lock := lockTo(t, nil, testmodel.FilesInline, testmodel.FilesInS3)
	c, name := lockTable(t, lock, "files")
	v1 := dynamo.New(lock.Accepted, nil, name)
	want := map[string][2][]byte{}
	var all []map[string]types.AttributeValue
	for i := range 24 {
		id := fmt.Sprintf("f%d", i)
		text, scan := fmt.Appendf(nil, "text of %s #%%/", id), []byte{byte(i), 0xff, 0, 0xfe}
		if i == 0 {
			text, scan = bytes.Repeat([]byte("t"), 100_000), bytes.Repeat([]byte{0xc3, 0x28}, 50_000) // maxLength; no UTF-8
		}
		want[id] = [2][]byte{text, scan}
		its, err := v1.Items("File", dynamo.Values{"fileId": id, "name": "n", "text": string(text), "scan": scan})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, its...)
	}
	if err := dynamo.BatchPut(ctx, c, name, all); err != nil {
		t.Fatal(err)
	}
	h := workerOnMoto(t, srv, bucket, lock, name)
	h.margin = 150 * time.Millisecond
	check := func(inS3 bool) {
		t.Helper()
		held := map[string]bool{}
		for _, it := range evolvetest.ScanAll(t, c, name) {
			id, ok := it["fileId"].(*types.AttributeValueMemberS)
			if !ok {
				continue
			}
			for i, a := range []string{"text", "scan"} {
				got, _ := dynamo.ObjectBytes(it[a])
				if _, isB := it[a].(*types.AttributeValueMemberB); isB != (a == "scan") {
					t.Errorf("%s.%s is held as %T", id.Value, a, it[a])
				}
				if inS3 {
					key := string(got)
					held[key] = true
					var err error
					if got, err = h.objects.GetObject(ctx, key); err != nil {
						t.Errorf("%s.%s (%.40q): %v", id.Value, a, key, err)
						continue
					}
				}
				if !bytes.Equal(got, want[id.Value][i]) {
					t.Errorf("%s.%s: %d bytes %.20q, want %d bytes", id.Value, a, len(got), got, len(want[id.Value][i]))
				}
			}
		}
		vs := srv.List(t, bucket)
		if len(vs.Current) != len(held) {
			t.Errorf("the items hold %d keys; the bucket has %d current objects", len(held), len(vs.Current))
		}
		for k := range vs.Current {
			if !held[k] {
				t.Errorf("%s is no item's", k)
			}
		}
	}
	start = time.Now()
	tasks := run(t, h, 2, 3*time.Second)
	t.Logf("into S3 in %v", time.Since(start))
	for _, task := range tasks {
		if task.Failed != 0 {
			t.Fatalf("segment %d: %d failed", task.Segment, task.Failed)
		}
	}
	check(true)
	t.Logf("checked in %v", time.Since(start))
	var moved []string
	for k := range srv.List(t, bucket).Current {
		moved = append(moved, k)
	}
	if held, err := dynamo.HasObject(ctx, h.objects, moved[0]); !held || err != nil {
		t.Errorf("HasObject(%s): %v, %v", moved[0], held, err)
	}
	// keyplan migrate --verify, given the same bucket: every key an
	// item holds names an object; the lock advances.
	if _, err := migrate.Migrate(ctx, c, name, lock, migrate.MigrateOptions{Verify: true, Objects: h.objects}); err != nil || lock.Migration != nil {
		t.Fatalf("verify: %v", err)
	}
	if lock.Cleanup != nil {
		if _, err := migrate.Migrate(ctx, c, name, lock, migrate.MigrateOptions{Deployed: true, Objects: h.objects}); err != nil {
			t.Fatal(err)
		}
	}

	t.Logf("verified in %v", time.Since(start))
	lock = lockTo(t, lock, "", testmodel.FilesInline)
	h = workerOnMoto(t, srv, bucket, lock, name)
	h.margin = 150 * time.Millisecond
	run(t, h, 2, 3*time.Second)
	t.Logf("back in %v", time.Since(start))
	check(false)
	if vs := srv.List(t, bucket); len(vs.Deleted) != 48 {
		t.Errorf("%d keys have a delete marker, want the 48 moved back", len(vs.Deleted))
	}
	// HeadObject through S3Objects: a key deleted (its latest version a
	// delete marker) and one never written are no objects.
	for _, k := range []string{moved[0], dynamo.ObjectKey("File", "text")} {
		if held, err := dynamo.HasObject(ctx, h.objects, k); held || err != nil {
			t.Errorf("HasObject(%s) after its delete: %v, %v", k, held, err)
		}
	}
}
