package dynamo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
)

const docsModel = `table: Docs
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 36}
      title: {type: string, maxLength: 200}
      body: {type: string, maxLength: 10000000, store: s3}
      notes: {type: string, maxLength: 1000000, store: s3, optional: true}
writes:
  PutDoc: {put: Doc}
  Retitle: {update: Doc, set: [title]}
patterns:
  GetDoc: {get: Doc}
`

// events is the order of the engine's and the store's writes.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, s)
}

func (e *events) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.log
	e.log = nil
	return out
}

type loggedClient struct {
	Client
	ev *events
}

func (c loggedClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.ev.add("PutItem")
	return c.Client.PutItem(ctx, in, opts...)
}

func (c loggedClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.ev.add("UpdateItem")
	return c.Client.UpdateItem(ctx, in, opts...)
}

func (c loggedClient) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.ev.add("DeleteItem")
	return c.Client.DeleteItem(ctx, in, opts...)
}

type loggedObjects struct {
	MemoryObjects
	ev      *events
	failPut bool
}

func (o *loggedObjects) PutObject(ctx context.Context, key string, body []byte) error {
	o.ev.add("PutObject " + strings.SplitN(key, "/", 3)[1])
	if o.failPut {
		return errors.New("S3 is down")
	}
	return o.MemoryObjects.PutObject(ctx, key, body)
}

func (o *loggedObjects) DeleteObject(ctx context.Context, key string) error {
	o.ev.add("DeleteObject " + strings.SplitN(key, "/", 3)[1])
	return o.MemoryObjects.DeleteObject(ctx, key)
}

// A value kept in S3 is written as an object before the item that holds
// its key, its old object deleted only after the item no longer holds
// it, and read on demand; a refused or failed write leaves no object
// behind and no item without its object. The values are above
// DynamoDB's 400 KB item: only their keys are in the table.
func TestObjectsBesideTheItem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs.yaml")
	if err := os.WriteFile(path, []byte(docsModel), 0o644); err != nil {
		t.Fatal(err)
	}
	base := fresh(t, design(t, path))
	ev := &events{}
	store := &loggedObjects{ev: ev}
	tbl := New(base.d, loggedClient{Client: client, ev: ev}, base.Name(), WithObjects(store))
	ctx := context.Background()
	big := func(c string) string { return strings.Repeat(c, 500*1024) }
	body := func() []byte {
		t.Helper()
		it, err := tbl.Get(ctx, "GetDoc", Params{"docId": "d1"})
		if err != nil || it == nil {
			t.Fatalf("GetDoc: %v, %v", it, err)
		}
		if k, _ := it.Values["body"].(string); !strings.HasPrefix(k, "Doc/body/") || len(k) != len("Doc/body/")+32 {
			t.Fatalf("the item holds %.40q as body, not an object's key", k)
		}
		b, err := tbl.Object(ctx, "Doc", "body", it.Values)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	expect := func(what string, want ...string) {
		t.Helper()
		if got := ev.take(); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}

	if err := tbl.Create(ctx, "Doc", Values{"docId": "d1", "title": "a", "body": big("a")}); err != nil {
		t.Fatal(err)
	}
	expect("Create", "PutObject body", "PutItem")
	if b := body(); string(b) != big("a") {
		t.Fatalf("body read back: %d bytes", len(b))
	}
	first := store.Keys()

	// A Create that finds the item refuses, and its object goes (an
	// engine that sends no old item on a failed condition, dynalite,
	// cannot say that the item exists: only that the condition failed).
	var ce *ConditionError
	lacks := enginepkg.Lacks(engineName, enginepkg.OldItemOnConditionFailure)
	if err := tbl.Create(ctx, "Doc", Values{"docId": "d1", "title": "a", "body": "x"}); !errors.As(err, &ce) || lacks == "" && !errors.Is(err, ErrExists) {
		t.Fatalf("Create of d1 again: %v", err)
	}
	expect("a refused Create", "PutObject body", "PutItem", "DeleteObject body")
	if !slices.Equal(store.Keys(), first) {
		t.Errorf("after a refused Create the bucket holds %v, want %v", store.Keys(), first)
	}

	// A put replacing the body: the new object first, the old after.
	if err := tbl.Write(ctx, "PutDoc", Params{"docId": "d1", "title": "b", "body": big("b"), "notes": "n"}); err != nil {
		t.Fatal(err)
	}
	expect("PutDoc", "PutObject body", "PutObject notes", "PutItem", "DeleteObject body")
	if b := body(); string(b) != big("b") {
		t.Fatalf("body after PutDoc: %.10q", b)
	}
	if n := len(store.Keys()); n != 2 {
		t.Errorf("after PutDoc the bucket holds %d objects, want 2 (body, notes)", n)
	}

	// An update of another attribute leaves the objects alone.
	if err := tbl.Write(ctx, "Retitle", Params{"docId": "d1", "title": "c"}); err != nil {
		t.Fatal(err)
	}
	expect("Retitle", "UpdateItem")
	// An update removing notes deletes its object after.
	if err := tbl.Update(ctx, "Doc", Values{"docId": "d1"}, Changes{Set: Values{"body": "short"}, Remove: []string{"notes"}}); err != nil {
		t.Fatal(err)
	}
	expect("Update", "PutObject body", "UpdateItem", "DeleteObject body", "DeleteObject notes")
	if b := body(); string(b) != "short" || len(store.Keys()) != 1 {
		t.Errorf("after the update: body %q, %d objects", b, len(store.Keys()))
	}

	// S3 failing: nothing is written.
	store.failPut = true
	if err := tbl.Write(ctx, "PutDoc", Params{"docId": "d2", "title": "x", "body": "y"}); err == nil || !strings.Contains(err.Error(), "S3 is down") {
		t.Errorf("PutDoc with S3 down: %v", err)
	}
	store.failPut = false
	expect("PutDoc with S3 down", "PutObject body")
	if it, err := tbl.Get(ctx, "GetDoc", Params{"docId": "d2"}); it != nil || err != nil {
		t.Errorf("d2 written though its body was not: %v, %v", it, err)
	}

	// Delete: the item, then its objects.
	if err := tbl.Delete(ctx, "Doc", Values{"docId": "d1"}); err != nil {
		t.Fatal(err)
	}
	expect("Delete", "DeleteItem", "DeleteObject body")
	if n := len(store.Keys()); n != 0 {
		t.Errorf("after Delete the bucket holds %d objects", n)
	}

	// Written alone, with a store.
	if err := tbl.Transact(ctx, WriteCall{"PutDoc", Params{"docId": "d3", "title": "x", "body": "y"}}, WriteCall{"PutDoc", Params{"docId": "d4", "title": "x", "body": "y"}}); !errors.Is(err, ErrObjectsAlone) {
		t.Errorf("a transaction of two docs: %v", err)
	}
	if err := base.Write(ctx, "PutDoc", Params{"docId": "d3", "title": "x", "body": "y"}); !errors.Is(err, ErrNoObjectStore) {
		t.Errorf("PutDoc without a store: %v", err)
	}
	expect("refused writes")
	if _, err := tbl.Object(ctx, "Doc", "title", Values{"title": "x"}); !errors.Is(err, ErrNotInS3) {
		t.Errorf("Object of title: %v", err)
	}
	if _, err := tbl.Object(ctx, "Doc", "body", Values{"body": "Doc/notes/0123"}); err == nil {
		t.Error("Object of another attribute's key: no error")
	}
}
