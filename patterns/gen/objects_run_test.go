package gen

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The docs model's generated code is testdata/docsdb.gen.go.golden
// (go test ./patterns/gen -run TestObjectAccessorsGolden -update after a
// deliberate change): the struct's fields hold the keys, and each value
// kept in S3 has its typed accessor, LoadDocBody and LoadDocNotes
// (generated code is a contract; docsTest runs it).
func TestObjectAccessorsGolden(t *testing.T) {
	enginepass.Independent(t)
	got, err := Go(plan(t, docsModel), Options{Package: "docsdb", Source: "docs.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/docsdb.gen.go.golden"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the docs model's code differs from %s (go test ./patterns/gen -run TestObjectAccessorsGolden -update after a deliberate change)", golden)
	}
	for _, s := range []string{
		"func (db *DB) LoadDocBody(ctx context.Context, v *Doc) (string, error)",
		"func (db *DB) LoadDocNotes(ctx context.Context, v *Doc) (*string, error)",
		"func (db *DB) LoadDocPage(ctx context.Context, v *Doc) ([]byte, error)",
		"func (db *DB) LoadDocThumb(ctx context.Context, v *Doc) ([]byte, error)",
		"Page  []byte", "Thumb []byte",
	} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("no %s", s)
		}
	}
}

// docsModel keeps a document's body and notes in S3 (store: s3).
// docsModel keeps a document's body and notes (strings), page and
// thumb (binaries) in S3 (store: s3).
var docsModel = strings.Replace(testmodel.DocsInS3, "patterns:", `      page: {type: blob, maxLength: 5000000, store: s3}
      thumb: {type: binary, maxLength: 1000000, store: s3, optional: true}
patterns:`, 1)

// docsTest runs the docs model's code on the engine with an object store
// in memory: a read gives the keys, LoadDocBody and LoadDocNotes the
// values; a read written back keeps its objects (nothing stored again),
// a new value replaces its object, a stale copy is refused, a delete
// leaves no object.
const docsTest = `package docsdb

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

func TestObjectAccessors(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := Design()
	if err != nil {
		t.Fatal(err)
	}
	store := &dynamo.MemoryObjects{}
	db, err := Open(engine.DB, engine.TableName(t, d), dynamo.WithObjects(store))
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a", 500*1024)
	// a page of 500 KB that is no UTF-8; a blob cannot be empty
	page := bytes.Repeat([]byte{0xff, 0x00, 0x80, 0xc3, 0x28}, 100*1024)
	if err := db.CreateDoc(ctx, &Doc{DocID: "d1", Title: "a", Body: big, Page: []byte{}}); err == nil || !strings.Contains(err.Error(), "cannot be empty") {
		t.Fatalf("CreateDoc with an empty page: %v", err)
	}
	if n := len(store.Keys()); n != 0 {
		t.Fatalf("a refused CreateDoc stored %d objects", n)
	}
	if err := db.CreateDoc(ctx, &Doc{DocID: "d1", Title: "a", Body: big, Page: page}); err != nil {
		t.Fatal(err)
	}
	read := func() *Doc {
		t.Helper()
		v, err := db.GetDoc(ctx, "d1")
		if err != nil || v == nil {
			t.Fatalf("GetDoc: %v, %v", v, err)
		}
		if !strings.HasPrefix(v.Body, "Doc/body/") || !bytes.HasPrefix(v.Page, []byte("Doc/page/")) {
			t.Fatalf("Body, Page after a read are %.20q, %.20q, not their objects' keys", v.Body, v.Page)
		}
		return v
	}
	v := read()
	if b, err := db.LoadDocBody(ctx, v); err != nil || b != big {
		t.Fatalf("LoadDocBody: %d bytes, %v", len(b), err)
	}
	if n, err := db.LoadDocNotes(ctx, v); n != nil || err != nil {
		t.Errorf("LoadDocNotes of a doc without notes: %v, %v", n, err)
	}
	if b, err := db.LoadDocPage(ctx, v); err != nil || !bytes.Equal(b, page) {
		t.Fatalf("LoadDocPage: %d bytes, %v", len(b), err)
	}
	if b, err := db.LoadDocThumb(ctx, v); b != nil || err != nil {
		t.Errorf("LoadDocThumb of a doc without a thumb: %v, %v", b, err)
	}
	keys := store.Keys()

	// The read written back with a new title keeps its object.
	stale := *v
	v.Title = "b"
	if err := db.PutDoc(ctx, v); err != nil {
		t.Fatal(err)
	}
	if got := store.Keys(); !slices.Equal(got, keys) {
		t.Errorf("a put of the read stored objects again: %v, want %v", got, keys)
	}
	if v = read(); v.Title != "b" {
		t.Errorf("title %q", v.Title)
	}
	if b, _ := db.LoadDocBody(ctx, v); b != big {
		t.Errorf("body after the put of the read: %d bytes", len(b))
	}

	// New values: new objects, the old one deleted.
	notes := "n1"
	v.Body, v.Notes, v.Thumb = "short", &notes, []byte{0xc3, 0x28}
	if err := db.PutDoc(ctx, v); err != nil {
		t.Fatal(err)
	}
	v = read()
	if b, err := db.LoadDocBody(ctx, v); err != nil || b != "short" {
		t.Errorf("LoadDocBody: %q, %v", b, err)
	}
	if n, err := db.LoadDocNotes(ctx, v); err != nil || n == nil || *n != "n1" {
		t.Errorf("LoadDocNotes: %v, %v", n, err)
	}
	if b, err := db.LoadDocThumb(ctx, v); err != nil || !bytes.Equal(b, []byte{0xc3, 0x28}) {
		t.Errorf("LoadDocThumb: %v, %v", b, err)
	}
	if b, err := db.LoadDocPage(ctx, v); err != nil || !bytes.Equal(b, page) {
		t.Errorf("LoadDocPage after the put: %d bytes, %v", len(b), err)
	}
	if n := len(store.Keys()); n != 4 {
		t.Errorf("%d objects, want body's, notes', page's and thumb's", n)
	}

	// A copy read before holds a key the item no longer holds: refused.
	var ce *dynamo.ConditionError
	if err := db.PutDoc(ctx, &stale); !errors.As(err, &ce) {
		t.Errorf("a put of a stale read: %v, want a *dynamo.ConditionError", err)
	}
	if b, _ := db.LoadDocBody(ctx, read()); b != "short" {
		t.Errorf("the stale put changed the body: %.10q", b)
	}

	if err := db.DeleteDoc(ctx, v); err != nil {
		t.Fatal(err)
	}
	if n := len(store.Keys()); n != 0 {
		t.Errorf("after the delete %d objects", n)
	}
	if _, err := db.LoadDocBody(ctx, v); !errors.Is(err, dynamo.ErrNoObject) {
		t.Errorf("LoadDocBody of a deleted doc: %v, want dynamo.ErrNoObject", err)
	}
}
`
