package patterns

import (
	"strings"
	"testing"

	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

const objectsModel = `table: Docs
entities:
  Doc:
    id: [docId]
    writes: 4
    attributes:
      docId: {type: string, maxLength: 36}
      title: {type: string, maxLength: 200}
      body: {type: string, maxLength: 10000000, store: s3}
writes:
  PutDoc: {put: Doc, rate: 2}
  Retitle: {update: Doc, set: [title], rate: 3}
  Rewrite: {update: Doc, set: [body], rate: 5}
patterns:
  GetDoc: {get: Doc, rate: 100}
  DocsByTitle: {query: Doc, where: [title], rate: 1}
`

// A value kept in S3 needs no room in the item: a 10 MB body loads,
// KP304 is silent, and the item is costed at the object's key.
func TestObjectsInS3(t *testing.T) {
	d := designOf(t, objectsModel)
	if hasFinding(d, "KP304", "Doc") {
		t.Errorf("KP304 on an item whose body is in S3: %v", d.Diagnostics)
	}
	if !d.model.HasObjects() || len(d.model.Entity("Doc").ObjectAttrs()) != 1 {
		t.Fatalf("objects %v", d.model.Entity("Doc").ObjectAttrs())
	}
	// PutDoc stores the body (2/s), Rewrite sets it (5/s), Retitle not.
	oc := d.Cost.Objects
	if oc == nil || oc.PutsPerSecond != 7 || strings.Join(oc.Attributes, ",") != "Doc.body" {
		t.Fatalf("objects' cost %+v", oc)
	}
	if want := 7 * PriceS3Put * 3600 * HoursPerMonth; oc.Monthly != want {
		t.Errorf("monthly %v, want %v", oc.Monthly, want)
	}
	// The item: its keys and attributes, the body as its key (41 bytes),
	// never the body's 10 MB.
	for _, pc := range d.Cost.Patterns {
		if pc.Name == "GetDoc" && pc.ItemBytes > 1024 {
			t.Errorf("GetDoc's item costed at %d bytes", pc.ItemBytes)
		}
	}
	if n := kpmodel.ObjectKeyBytes("Doc", "body"); n != 3+4+2+32 {
		t.Errorf("key bytes %d", n)
	}
	// Nothing in S3: no objects' cost.
	plain := designOf(t, strings.Replace(objectsModel, "maxLength: 10000000, store: s3", "maxLength: 1000", 1))
	if plain.Cost.Objects != nil {
		t.Errorf("objects' cost without store: s3: %+v", plain.Cost.Objects)
	}
}

// KP304 names the attribute to keep in S3: the largest string the item
// holds.
func TestItemTooLargeSuggestsS3(t *testing.T) {
	m := strings.Replace(objectsModel, "maxLength: 10000000, store: s3", "maxLength: 300000", 1)
	m = strings.Replace(m, "title: {type: string, maxLength: 200}", "title: {type: string, maxLength: 200000}", 1)
	d := designOf(t, m)
	var fix string
	for _, f := range d.Diagnostics {
		if f.ID == "KP304" {
			fix = f.Fix
		}
	}
	if !strings.Contains(fix, "declare store: s3 on Doc.body (up to 300000 bytes)") {
		t.Errorf("KP304's fix %q", fix)
	}
}

// What store: s3 cannot hold is refused at file:line, naming the field.
func TestObjectsBadInput(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"too large without store", "maxLength: 10000000, store: s3", "maxLength: 10000000",
			"model.yaml:9:7: entities.Doc.attributes.body.maxLength: maxLength 10000000 is above DynamoDB's 409600-byte item; declare store: s3"},
		{"an unknown store", "store: s3", "store: gcs", `entities.Doc.attributes.body.store: unknown store "gcs"; expected s3`},
		{"a number", "body: {type: string, maxLength: 10000000, store: s3}", "body: {type: number, store: s3}",
			"entities.Doc.attributes.body.store: store: s3 keeps a string or a binary's value in S3; type is number"},
		{"an enum", "body: {type: string, maxLength: 10000000, store: s3}", "body: {values: [a, b], store: s3}",
			"store: s3 is for large free text; an enum is small"},
		{"in a where", "where: [title]", "where: [body]",
			"body is kept in S3 (store: s3) and the item holds only its key, so it cannot be a where, sort or filter of pattern DocsByTitle"},
		{"an id", "id: [docId]", "id: [body]", "so it cannot be an id attribute"},
		{"beyond S3's PutObject", "maxLength: 10000000", "maxLength: 6000000000", "body.maxLength: expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := strings.Replace(objectsModel, tt.old, tt.new, 1)
			if model == objectsModel {
				t.Fatalf("%q not in the model", tt.old)
			}
			_, err := kpmodel.Parse("model.yaml", []byte(model))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
}

// A binary (type: blob) kept in S3 loads at S3's sizes, is costed at
// its key, and KP304 names store: s3 for the binary that makes an item
// too large, as for a string; never for one a key or a where reads.
func TestBlobInS3(t *testing.T) {
	blob := strings.Replace(objectsModel, "body: {type: string, maxLength: 10000000, store: s3}", "body: {type: blob, maxLength: 10000000, store: s3}", 1)
	d := designOf(t, blob)
	if hasFinding(d, "KP304", "Doc") || d.Cost.Objects == nil || d.Cost.Objects.PutsPerSecond != 7 {
		t.Fatalf("a blob in S3: KP304 %v, objects %+v", hasFinding(d, "KP304", "Doc"), d.Cost.Objects)
	}
	for _, pc := range d.Cost.Patterns {
		if pc.Name == "GetDoc" && pc.ItemBytes > 1024 {
			t.Errorf("GetDoc's item costed at %d bytes", pc.ItemBytes)
		}
	}
	tests := []struct{ name, old, new, fix string }{
		{"the larger blob, not a smaller string", "title: {type: string, maxLength: 200}", "title: {type: string, maxLength: 200}\n      summary: {type: string, maxLength: 150000}", "declare store: s3 on Doc.body (up to 300000 bytes)"},
		// title (a where) is larger, but its value must stay in the item.
		{"not a where's", "title: {type: string, maxLength: 200}", "title: {type: string, maxLength: 350000}", "declare store: s3 on Doc.body (up to 300000 bytes)"},
	}
	m := strings.Replace(blob, "maxLength: 10000000, store: s3", "maxLength: 300000", 1)
	for _, tt := range tests {
		m = strings.Replace(m, tt.old, tt.new, 1)
		var fix string
		for _, f := range designOf(t, m).Diagnostics {
			if f.ID == "KP304" {
				fix = f.Fix
			}
		}
		if !strings.Contains(fix, tt.fix) {
			t.Errorf("%s: KP304's fix %q, want %q", tt.name, fix, tt.fix)
		}
	}
}
