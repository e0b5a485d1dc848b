package patterns

import (
	"strings"
	"testing"
)

// KP708 refuses what the runtime refuses (dynamo.ErrObjectsAlone): an
// entity keeping values in S3 in a batch, in a transaction with other
// items, or with a unique value's guard items; a write of it alone (a
// transaction of one step included) passes.
func TestObjectsWrittenAlone(t *testing.T) {
	const base = `table: Library
entities:
  Shelf:
    id: [shelfId]
    attributes: {shelfId: {type: string, maxLength: 40}, docs: {type: number, min: 0}}
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 40}
      slug: {type: string, maxLength: 40}
      body: {type: string, maxLength: 10000000, store: s3}
patterns:
  GetDoc: {get: Doc}
  GetShelf: {get: Shelf}
`
	tests := []struct{ name, extra, want string }{
		{"a batch", "writes:\n  ImportDocs: {batch: {put: Doc}}\n", "ImportDocs is a batch of Doc, which keeps Doc.body in S3"},
		{"a transaction", "writes:\n  File:\n    transact:\n      - {put: Doc, if: absent}\n      - {update: Shelf, add: {docs: 1}}\n", "File writes Doc, which keeps Doc.body in S3, in a transaction with other items"},
		{"a unique value", "  DocBySlug: {get: Doc, where: [slug], unique: true}\n", "Doc keeps Doc.body in S3 and has a unique value (DocBySlug)"},
		{"alone", "writes:\n  PutDoc: {put: Doc}\n  OneStep:\n    transact:\n      - {update: Doc, set: [body]}\n  ImportShelves: {batch: {put: Shelf}}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Plan(mustParse(t, base+tt.extra))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range d.Diagnostics {
				if f.ID == "KP708" {
					got = append(got, f.Message)
				}
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("KP708 on writes the runtime runs: %q", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("KP708 %q, want one saying %q", got, tt.want)
			}
		})
	}
}
