package dynamo

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/keyplan/keyplan/internal/testkit/motos3"
)

// failingS3 fails PutObject of keys with a prefix (the attribute S3
// refuses).
type failingS3 struct {
	S3API
	failPrefix string
}

func (f *failingS3) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if f.failPrefix != "" && strings.HasPrefix(aws.ToString(in.Key), f.failPrefix) {
		return nil, errors.New("S3 refuses " + f.failPrefix)
	}
	return f.S3API.PutObject(ctx, in, opts...)
}

// failingPut fails PutItem as DynamoDB does when it refuses a request
// (not a condition: the item may or may not be written, as after a
// timeout).
type failingPut struct {
	Client
	fail bool
}

func (c *failingPut) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if c.fail {
		return nil, errors.New("the connection was reset")
	}
	return c.Client.PutItem(ctx, in, opts...)
}

// The runtime's object path against moto's S3 (an implementation of the
// S3 API keyplan did not write), in a versioned bucket as the
// construct's: after every write, read, overwrite and delete the bucket's
// current objects are exactly the keys the table's items hold, each
// reading back its value; what a failed write can leave is an object no
// item holds (named), never an item holding the key of an object not
// there. make test-s3 runs it.
func TestObjectsOnMotoS3(t *testing.T) {
	srv := motos3.Start(t)
	bucket := srv.Bucket(t)
	path := filepath.Join(t.TempDir(), "docs.yaml")
	if err := os.WriteFile(path, []byte(docsModel), 0o644); err != nil {
		t.Fatal(err)
	}
	base := fresh(t, design(t, path))
	s3c := &failingS3{S3API: srv.Client}
	db := &failingPut{Client: client}
	store := S3Objects{Client: s3c, Bucket: bucket}
	tbl := New(base.d, db, base.Name(), WithObjects(store))
	ctx := context.Background()
	big := func(c string) string { return strings.Repeat(c, 500*1024) }
	values := map[string]string{} // docId.attr: the value written

	// held scans the table: the keys its items hold, each read back
	// through the runtime and compared with what was written.
	held := func() map[string]bool {
		t.Helper()
		out, err := engine.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(base.Name()), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		for _, raw := range out.Items {
			entity, v, err := tbl.Decode(raw)
			if err != nil || entity != "Doc" {
				t.Fatalf("decoding %v: %s, %v", raw, entity, err)
			}
			for _, attr := range []string{"body", "notes"} {
				k, ok := v[attr].(string)
				if !ok {
					if _, want := values[v["docId"].(string)+"."+attr]; want {
						t.Errorf("%s holds no %s", v["docId"], attr)
					}
					continue
				}
				keys[k] = true
				b, err := tbl.Object(ctx, "Doc", attr, v)
				if err != nil {
					t.Errorf("%s.%s (%s): %v", v["docId"], attr, k, err)
				} else if want := values[v["docId"].(string)+"."+attr]; string(b) != want {
					t.Errorf("%s.%s reads %d bytes %.10q, want %d bytes %.10q", v["docId"], attr, len(b), b, len(want), want)
				}
			}
		}
		return keys
	}
	// check compares the bucket's current objects with the keys held,
	// plus the orphans expected.
	orphans := map[string]bool{}
	check := func(what string) motos3.Versions {
		t.Helper()
		keys := held()
		maps.Copy(keys, orphans)
		vs := srv.List(t, bucket)
		if !maps.Equal(vs.Current, keys) {
			t.Errorf("%s: the bucket's current objects are %v, want the keys the items hold %v", what, slices.Sorted(maps.Keys(vs.Current)), slices.Sorted(maps.Keys(keys)))
		}
		return vs
	}

	if err := tbl.Create(ctx, "Doc", Values{"docId": "d1", "title": "a", "body": big("a")}); err != nil {
		t.Fatal(err)
	}
	values["d1.body"] = big("a")
	vs := check("Create")
	if len(vs.Current) != 1 {
		t.Fatalf("after Create: %d objects", len(vs.Current))
	}

	// A refused Create: its object is written, then deleted (a delete
	// marker over its one version).
	if err := tbl.Create(ctx, "Doc", Values{"docId": "d1", "title": "a", "body": "again"}); err == nil {
		t.Fatal("Create of d1 again: no error")
	}
	vs = check("a refused Create")
	if len(vs.Versions) != 2 || len(vs.Deleted) != 1 {
		t.Errorf("after a refused Create: versions %v, delete markers %v; want two keys, one deleted", vs.Versions, vs.Deleted)
	}

	// Overwrite: the new objects, the item, then the old object deleted.
	if err := tbl.Write(ctx, "PutDoc", Params{"docId": "d1", "title": "b", "body": big("b"), "notes": "n1"}); err != nil {
		t.Fatal(err)
	}
	values["d1.body"], values["d1.notes"] = big("b"), "n1"
	if vs = check("PutDoc over d1"); len(vs.Current) != 2 {
		t.Errorf("after PutDoc: %d current objects, want 2", len(vs.Current))
	}
	if err := tbl.Update(ctx, "Doc", Values{"docId": "d1"}, Changes{Set: Values{"body": "short"}, Remove: []string{"notes"}}); err != nil {
		t.Fatal(err)
	}
	values["d1.body"] = "short"
	delete(values, "d1.notes")
	if vs = check("Update of body, notes removed"); len(vs.Current) != 1 {
		t.Errorf("after the update: %d current objects, want 1", len(vs.Current))
	}
	if err := tbl.Write(ctx, "Retitle", Params{"docId": "d1", "title": "c"}); err != nil {
		t.Fatal(err)
	}
	check("Retitle")

	// S3 refusing the second object: the first is deleted again, the
	// item untouched.
	s3c.failPrefix = "Doc/notes/"
	if err := tbl.Write(ctx, "PutDoc", Params{"docId": "d1", "title": "x", "body": big("x"), "notes": "n2"}); err == nil || !strings.Contains(err.Error(), "S3 refuses") {
		t.Errorf("PutDoc with notes refused by S3: %v", err)
	}
	s3c.failPrefix = ""
	check("PutDoc with S3 refusing notes")

	// DynamoDB failing the item write (not a condition: the item may be
	// written or not): the new object stays, an orphan; the item still
	// holds its old object's key, and that object is there.
	before := srv.List(t, bucket).Current
	db.fail = true
	if err := tbl.Write(ctx, "PutDoc", Params{"docId": "d1", "title": "y", "body": big("y")}); err == nil {
		t.Error("PutDoc with DynamoDB failing: no error")
	}
	db.fail = false
	for k := range srv.List(t, bucket).Current {
		if !before[k] {
			orphans[k] = true
		}
	}
	if len(orphans) != 1 {
		t.Errorf("after a failed item write %d new objects, want the one orphan", len(orphans))
	}
	check("PutDoc with DynamoDB failing")

	// A second item, then both deleted: nothing current is left, every
	// key kept its versions under a delete marker.
	if err := tbl.Write(ctx, "PutDoc", Params{"docId": "d2", "title": "t", "body": big("z"), "notes": "n3"}); err != nil {
		t.Fatal(err)
	}
	values["d2.body"], values["d2.notes"] = big("z"), "n3"
	check("PutDoc d2")
	d2, err := tbl.Get(ctx, "GetDoc", Params{"docId": "d2"})
	if err != nil || d2 == nil {
		t.Fatalf("GetDoc d2: %v, %v", d2, err)
	}
	for _, id := range []string{"d1", "d2"} {
		if err := tbl.Delete(ctx, "Doc", Values{"docId": id}); err != nil {
			t.Fatal(err)
		}
	}
	vs = check("both deleted")
	for k := range vs.Versions {
		if vs.Deleted[k] == 0 && !orphans[k] {
			t.Errorf("%s has no delete marker", k)
		}
	}
	// The deleted item's object is gone: reading it names the key.
	if _, err := tbl.Object(ctx, "Doc", "body", d2.Values); !errors.Is(err, ErrNoObject) {
		t.Errorf("Object of a deleted body: %v, want ErrNoObject", err)
	}

	// Binaries kept in S3 ({type: blob, store: s3}) on moto's bucket:
	// TestBlobObjectsBesideTheItem's writes (500 KB that is no UTF-8,
	// ids with #, % and /, empty binaries refused, the read written
	// back, the in-doubt object named), the bucket's current objects
	// checked after each step and read back byte for byte.
	blobs := srv.Bucket(t)
	blobScenario(t, S3Objects{Client: srv.Client, Bucket: blobs}, nil, func() []string {
		return slices.Sorted(maps.Keys(srv.List(t, blobs).Current))
	})
}
