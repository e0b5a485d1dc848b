package gen

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

func planFile(t *testing.T, path string) *patterns.Design {
	t.Helper()
	m, err := patterns.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every example and test model generates, gofmt'ed, headed, and the same
// twice (compiling and running it is the outside-module test's, in
// cmd/keyplan, and examples/shopdb's).
func TestEveryModelGenerates(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	more, _ := filepath.Glob("../testdata/models/*.yaml")
	for _, f := range append(files, more...) {
		d := planFile(t, f)
		a, err := Go(d, Options{Package: "db", Source: f})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		b, _ := Go(d, Options{Package: "db", Source: f})
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs differ", f)
		}
		if !bytes.HasPrefix(a, []byte(Header+"\n")) {
			t.Errorf("%s: no generated-code header", f)
		}
		for _, p := range d.Model().Patterns {
			if !bytes.Contains(a, []byte("func (db *DB) "+Exported(p.Name)+"(")) {
				t.Errorf("%s: no method for pattern %s", f, p.Name)
			}
		}
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"customerId": "CustomerID", "orderIds": "OrderIDs", "name": "Name", "in-progress": "InProgress", "2fa": "X2fa", "avatarUrl": "AvatarURL", "Id": "Id"} {
		if got := Exported(in); got != want {
			t.Errorf("Exported(%q) = %q, want %q", in, got, want)
		}
	}
}

// Names Go cannot hold apart are refused with what collides.
func TestRefusals(t *testing.T) {
	collide := func(yaml string) error {
		t.Helper()
		m, err := patterns.Parse("m.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Go(d, Options{Package: "db"})
		return err
	}
	for name, c := range map[string]struct{ yaml, want string }{
		"fields": {`table: T
entities:
  Doc:
    id: [docId]
    attributes: {docId: string, doc_id: string}
patterns:
  GetDoc: {get: Doc}
`, "attributes docId and doc_id both become the Go field DocID"},
		"pattern and entity": {`table: T
entities:
  Doc:
    id: [docId]
    attributes: {docId: string}
patterns:
  Doc: {get: Doc}
`, "pattern Doc becomes the Go name Doc, which entity Doc already takes"},
		"reserved": {`table: T
entities:
  Doc:
    id: [docId]
    attributes: {docId: string}
patterns:
  Open: {get: Doc}
`, "pattern Open becomes the Go name Open, which keyplan's generated API already takes"},
	} {
		if err := collide(c.yaml); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	d := planFile(t, "../../examples/ecommerce.yaml")
	for _, pkg := range []string{"", "func", "shop-db", "_"} {
		if _, err := Go(d, Options{Package: pkg}); err == nil || !strings.Contains(err.Error(), "expected a Go package name") {
			t.Errorf("package %q: %v", pkg, err)
		}
	}
}
