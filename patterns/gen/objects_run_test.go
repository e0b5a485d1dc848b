package gen

import (
	"bytes"
	"flag"
	"os"
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
	} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("no %s", s)
		}
	}
}

// docsModel keeps a document's body and notes in S3 (store: s3).
const docsModel = testmodel.DocsInS3

// docsTest runs the docs model's code on the engine with an object store
// in memory: a read gives the keys, LoadDocBody and LoadDocNotes the
// values; a read written back keeps its objects (nothing stored again),
// a new value replaces its object, a stale copy is refused, a delete
// leaves no object.
const docsTest = `package docsdb

import (
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
	if err := db.CreateDoc(ctx, &Doc{DocID: "d1", Title: "a", Body: big}); err != nil {
		t.Fatal(err)
	}
	read := func() *Doc {
		t.Helper()
		v, err := db.GetDoc(ctx, "d1")
		if err != nil || v == nil {
			t.Fatalf("GetDoc: %v, %v", v, err)
		}
		if !strings.HasPrefix(v.Body, "Doc/body/") {
			t.Fatalf("Body after a read is %.20q, not its object's key", v.Body)
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
	v.Body, v.Notes = "short", &notes
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
	if n := len(store.Keys()); n != 2 {
		t.Errorf("%d objects, want body's and notes'", n)
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
