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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns/model"
)

const docsModel = testmodel.DocsInS3WithWrites

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

	// The read written back: its keys keep their objects (nothing is
	// stored again, nothing deleted); a key the item no longer holds
	// (a stale read) is refused, storing nothing.
	it, err := tbl.Get(ctx, "GetDoc", Params{"docId": "d1"})
	if err != nil || it == nil {
		t.Fatalf("GetDoc: %v, %v", it, err)
	}
	held := store.Keys()
	if err := tbl.Write(ctx, "PutDoc", Params{"docId": "d1", "title": "b2", "body": it.Values["body"], "notes": it.Values["notes"]}); err != nil {
		t.Fatal(err)
	}
	expect("PutDoc of the read", "PutItem")
	if got := store.Keys(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(held))) {
		t.Errorf("after the read was written back the bucket holds %v, want %v", got, held)
	}
	if err := tbl.Write(ctx, "PutDoc", Params{"docId": "d1", "title": "b3", "body": first[0]}); !errors.As(err, &ce) || lacks == "" && !errors.Is(err, ErrChanged) {
		t.Errorf("PutDoc with body's old key: %v, want ErrChanged", err)
	}
	expect("PutDoc of a stale key", "PutItem")

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

// The request builders a caller sends itself cannot store an object
// first or delete one after: each refuses what would hold a store: s3
// value inline in the item or leave objects no item holds (a put or
// delete of the item, an update setting or removing the value), and
// builds the rest. Item takes an object's key, not a value.
func TestObjectsNotBypassed(t *testing.T) {
	enginepass.Independent(t)
	path := filepath.Join(t.TempDir(), "docs.yaml")
	if err := os.WriteFile(path, []byte(docsModel), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := New(keyplantest.Keyed(t, path, model.IndexKeysSynthetic), nil, "Docs", WithObjects(&MemoryObjects{}))
	refused := func(what string, err error, want string) {
		t.Helper()
		if !errors.Is(err, ErrObjectInline) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want ErrObjectInline naming %q", what, err, want)
		}
	}
	_, err := tbl.WriteInput("PutDoc", Params{"docId": "d1", "title": "t", "body": "inline"})
	refused("WriteInput PutDoc", err, "a put of Doc, which keeps Doc.body, Doc.notes in S3")
	_, err = tbl.WriteInput("DropDoc", Params{"docId": "d1"})
	refused("WriteInput DropDoc", err, "a delete of Doc")
	_, err = tbl.WriteInput("Rebody", Params{"docId": "d1", "body": "inline"})
	refused("WriteInput Rebody", err, "sets or removes Doc.body")
	_, err = tbl.TransactInput(WriteCall{"PutDoc", Params{"docId": "d1", "title": "t", "body": "inline"}})
	refused("TransactInput PutDoc", err, "a put of Doc")
	_, err = tbl.UpdateInput("Doc", Values{"docId": "d1"}, Changes{Set: Values{"body": "inline"}})
	refused("UpdateInput of body", err, "sets or removes Doc.body")
	_, err = tbl.UpdateInput("Doc", Values{"docId": "d1"}, Changes{Remove: []string{"notes"}})
	refused("UpdateInput removing notes", err, "sets or removes Doc.notes")
	for _, v := range []string{"inline", "Doc/body/0123", "Doc/notes/" + strings.Repeat("a", 32), "Doc/body/" + strings.Repeat("A", 32), "Doc/body/" + strings.Repeat("g", 32)} {
		_, err = tbl.Item("Doc", Values{"docId": "d1", "title": "t", "body": v})
		refused("Item with body "+v, err, "Item takes its object's key, Doc/body/<32 hex digits>")
	}

	// What keeps the object path intact is built.
	if _, err := tbl.WriteInput("Retitle", Params{"docId": "d1", "title": "u"}); err != nil {
		t.Errorf("WriteInput Retitle: %v", err)
	}
	if _, err := tbl.UpdateInput("Doc", Values{"docId": "d1"}, Changes{Set: Values{"title": "u"}}); err != nil {
		t.Errorf("UpdateInput of title: %v", err)
	}
	key := "Doc/body/" + strings.Repeat("0a", 16)
	item, err := tbl.Item("Doc", Values{"docId": "d1", "title": "t", "body": key})
	if err != nil {
		t.Fatalf("Item with body's key: %v", err)
	}
	if s, _ := item["body"].(*types.AttributeValueMemberS); s == nil || s.Value != key {
		t.Errorf("Item's body is %v, want the key %s", item["body"], key)
	}
}
