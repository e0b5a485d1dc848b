package dynamo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// blobsModel keeps binaries in S3 ({type: blob, store: s3}).
const blobsModel = `table: Blobs
entities:
  File:
    id: [fileId]
    attributes:
      fileId: {type: string, maxLength: 64}
      name: {type: string, maxLength: 200, optional: true}
      data: {type: blob, maxLength: 10000000, store: s3}
      thumb: {type: binary, maxLength: 1000000, store: s3, optional: true}
writes:
  PutFile: {put: File}
  Rethumb: {update: File, set: [thumb]}
  Rename: {update: File, set: [name]}
patterns:
  GetFile: {get: File}
`

// blobValue is n bytes that are no UTF-8 (0xff, 0xfe and a lone
// continuation byte, repeated), with a zero byte.
func blobValue(n int, seed byte) []byte {
	b := bytes.Repeat([]byte{0xff, 0xfe, 0x80, seed, 0x00}, n/5+1)
	return b[:n]
}

// blobTable is a fresh table of blobsModel on the engine, writing
// through db to store.
func blobTable(t *testing.T, wrap func(Client) Client, store ObjectStore) (*Table, *Table) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "blobs.yaml")
	if err := os.WriteFile(path, []byte(blobsModel), 0o644); err != nil {
		t.Fatal(err)
	}
	base := fresh(t, design(t, path))
	return base, New(base.d, wrap(client), base.Name(), WithObjects(store))
}

// checkBlobItem reads the item of id raw and through the runtime: each
// binary kept in S3 is a B holding its object's key's bytes (the type
// the attribute declares, never an S), and its object reads back want
// (nil: the item holds none).
func checkBlobItem(t *testing.T, tbl *Table, id string, want map[string][]byte) Values {
	t.Helper()
	ctx := context.Background()
	key, err := tbl.Key("File", Values{"fileId": id})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := engine.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || raw.Item == nil {
		t.Fatalf("GetItem %s: %v, %v", id, raw, err)
	}
	it, err := tbl.Get(ctx, "GetFile", Params{"fileId": id})
	if err != nil || it == nil {
		t.Fatalf("GetFile %s: %v, %v", id, it, err)
	}
	for _, attr := range []string{"data", "thumb"} {
		w, ok := want[attr]
		b, isB := raw.Item[attr].(*types.AttributeValueMemberB)
		switch {
		case !ok && raw.Item[attr] != nil:
			t.Errorf("%s.%s: the item holds %T, want none", id, attr, raw.Item[attr])
		case ok && (!isB || !isObjectKey("File", attr, string(b.Value))):
			t.Errorf("%s.%s: the item holds %#v, want a B holding File/%s/<32 hex>", id, attr, raw.Item[attr], attr)
		}
		if !ok {
			continue
		}
		if k, _ := it.Values[attr].([]byte); !isObjectKey("File", attr, string(k)) {
			t.Errorf("%s.%s read as %#v, want the key's bytes", id, attr, it.Values[attr])
		}
		got, err := tbl.Object(ctx, "File", attr, it.Values)
		if err != nil || !bytes.Equal(got, w) {
			t.Errorf("%s.%s reads %d bytes (%v), want %d bytes", id, attr, len(got), err, len(w))
		}
	}
	return it.Values
}

// Binaries kept in S3: bytes that are no UTF-8, above the 400 KB item,
// of items whose ids hold #, % and /, written as objects before the item
// (which holds each key as a B) and read back byte for byte; an empty
// binary refused before anything is stored; a read written back keeps
// its objects; a failed item write that DynamoDB did not refuse names
// the object it leaves (InDoubtError).
func TestBlobObjectsBesideTheItem(t *testing.T) {
	ev := &events{}
	store := &loggedObjects{ev: ev}
	blobScenario(t, store, ev, store.Keys)
}

// blobScenario runs TestBlobObjectsBesideTheItem's writes on store,
// whose current keys current lists; ev, when store logs to it, is
// checked for the order of object and item writes (nil: not checked).
func blobScenario(t *testing.T, store ObjectStore, ev *events, current func() []string) {
	strict := ev != nil
	if ev == nil {
		ev = &events{}
	}
	fail := &failingPut{}
	_, tbl := blobTable(t, func(c Client) Client { fail.Client = loggedClient{Client: c, ev: ev}; return fail }, store)
	ctx := context.Background()
	expect := func(what string, want ...string) {
		t.Helper()
		if got := ev.take(); strict && !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	big, small := blobValue(500*1024, 1), []byte{0xc3, 0x28}
	ids := []string{"a#b", "50%", "x/y"}
	for i, id := range ids {
		v := Values{"fileId": id, "data": big}
		want := map[string][]byte{"data": big}
		if i > 0 {
			v["thumb"], want["thumb"] = small, small
		}
		if err := tbl.Create(ctx, "File", v); err != nil {
			t.Fatalf("Create %s: %v", id, err)
		}
		checkBlobItem(t, tbl, id, want)
	}
	expect("three Creates", "PutObject data", "PutItem", "PutObject data", "PutObject thumb", "PutItem", "PutObject data", "PutObject thumb", "PutItem")
	if n := len(current()); n != 5 {
		t.Errorf("%d objects, want 5", n)
	}

	// Empty bytes are refused before anything is stored.
	held := slices.Sorted(slices.Values(current()))
	for _, bad := range []Values{{"fileId": "e", "data": []byte{}}, {"fileId": "e", "data": big, "thumb": []byte{}}} {
		if err := tbl.Create(ctx, "File", bad); err == nil || !strings.Contains(err.Error(), "cannot be empty") {
			t.Errorf("Create with an empty binary: %v", err)
		}
	}
	expect("empty binaries")
	if got := slices.Sorted(slices.Values(current())); !slices.Equal(got, held) {
		t.Errorf("after refused writes the bucket holds %v, want %v", got, held)
	}

	// The read written back keeps its objects; a stale key is refused.
	v := checkBlobItem(t, tbl, "50%", map[string][]byte{"data": big, "thumb": small})
	if err := tbl.Write(ctx, "PutFile", Params{"fileId": "50%", "name": "n", "data": v["data"], "thumb": v["thumb"]}); err != nil {
		t.Fatal(err)
	}
	expect("the read written back", "PutItem")
	if err := tbl.Write(ctx, "Rethumb", Params{"fileId": "50%", "thumb": blobValue(300, 2)}); err != nil {
		t.Fatal(err)
	}
	expect("Rethumb", "PutObject thumb", "UpdateItem", "DeleteObject thumb")
	checkBlobItem(t, tbl, "50%", map[string][]byte{"data": big, "thumb": blobValue(300, 2)})
	var ce *ConditionError
	if err := tbl.Write(ctx, "PutFile", Params{"fileId": "50%", "data": v["data"], "thumb": v["thumb"]}); !errors.As(err, &ce) {
		t.Errorf("PutFile with thumb's old key: %v, want a ConditionError", err)
	}
	expect("a stale key", "PutItem")

	// Item takes the key as the read gave it ([]byte) or as text, and
	// the item holds its bytes as a B.
	k := string(v["data"].([]byte))
	for _, key := range []any{v["data"], k} {
		item, err := tbl.Item("File", Values{"fileId": "i", "data": key})
		if b, ok := item["data"].(*types.AttributeValueMemberB); err != nil || !ok || string(b.Value) != k {
			t.Errorf("Item with data's key %T: %#v, %v", key, item["data"], err)
		}
	}
	if _, err := tbl.Item("File", Values{"fileId": "i", "data": small}); !errors.Is(err, ErrObjectInline) {
		t.Errorf("Item with data's value: %v, want ErrObjectInline", err)
	}

	// DynamoDB failing the item write without refusing it: the new
	// object stays, named; the item still holds its old one.
	before := current()
	fail.fail = true
	err := tbl.Write(ctx, "PutFile", Params{"fileId": "a#b", "data": small})
	fail.fail = false
	var doubt *InDoubtError
	if !errors.As(err, &doubt) || len(doubt.Keys) != 1 || !strings.Contains(err.Error(), doubt.Keys[0]) {
		t.Fatalf("PutFile with DynamoDB failing: %v, want an InDoubtError naming the one object", err)
	}
	if slices.Contains(before, doubt.Keys[0]) || !slices.Contains(current(), doubt.Keys[0]) {
		t.Errorf("the object in doubt %s: not a new object kept", doubt.Keys[0])
	}
	ev.take()
	checkBlobItem(t, tbl, "a#b", map[string][]byte{"data": big})

	// Deletes: the item, then its objects; only the one in doubt stays.
	for _, id := range ids {
		if err := tbl.Delete(ctx, "File", Values{"fileId": id}); err != nil {
			t.Fatal(err)
		}
	}
	if got := current(); !slices.Equal(got, doubt.Keys) {
		t.Errorf("after the deletes the bucket holds %v, want only %v", got, doubt.Keys)
	}
}
