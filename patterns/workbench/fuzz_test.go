package workbench_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/report"
	"github.com/keyplan/keyplan/patterns/workbench"
)

// noteModel is a model whose example note holds v as its body and as an
// enum value (JSON, so that any string can be written).
func noteModel(v string) []byte {
	b, _ := json.Marshal(map[string]any{
		"table": "Notes",
		"entities": map[string]any{"Note": map[string]any{"id": []string{"noteId"}, "attributes": map[string]any{
			"noteId": map[string]any{"type": "string", "maxLength": 40},
			"body":   map[string]any{"type": "string", "maxLength": 4000},
			"kind":   map[string]any{"type": "string", "values": []string{"plain", v}},
		}}},
		"patterns": map[string]any{"GetNote": map[string]any{"get": "Note"}},
	})
	return model.PrintableJSON(b) // the loader (YAML) takes DEL and C1 only as escapes
}

// render fills a key template as keyplan writes keys.
func render(t *testing.T, e *model.Entity, tm model.Template, v map[string]string) string {
	var b strings.Builder
	for _, s := range tm {
		if s.Attr == "" {
			b.WriteString(s.Lit)
			continue
		}
		enc, err := e.Attr(s.Attr).EncodeKey(v[s.Attr])
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(enc)
	}
	return b.String()
}

// FuzzExportRoundTrip: whatever string a model's example holds, the
// Workbench export is JSON, printed through the terminal or not, holding
// that very string; and the import of it is a model that loads, holding
// it again, as the example's value and as the enum's.
func FuzzExportRoundTrip(f *testing.F) {
	for _, v := range []string{"del\x7f", "\u202eevil", "c1\u009b", "{{.}}", `"q" 'q'`, "a#b%c$d", "tab\tnl\n", "\u2028", "é✓", "plain"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) {
			return // a model's text is UTF-8 (JSON cannot hold other bytes)
		}
		m, err := model.Parse("notes.json", noteModel(v))
		if err != nil {
			return // a value the model refuses (empty, not UTF-8, a duplicate enum value)
		}
		e := m.Entity("Note")
		if e.Attr("body").Check(v) != nil || e.Attr("kind").Check(v) != nil {
			return // a value no item can hold (empty)
		}
		d, err := patterns.PlanWith(m, patterns.Options{IndexKeys: model.IndexKeysSynthetic})
		if err != nil {
			t.Fatal(err)
		}
		base := d.Entity("Note").Key(model.BaseIndex)
		attrs := map[string]string{"noteId": "n1", "body": v, "kind": v}
		attrs[d.PK], attrs[d.SK] = render(t, e, base.PK, attrs), render(t, e, base.SK, attrs)
		s := &report.Sample{Items: []*report.SampleItem{{Name: "n1", Entity: "Note", Attrs: attrs}}}
		var raw bytes.Buffer
		if err := workbench.Export(&raw, d, s, workbench.ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		var printed bytes.Buffer
		if _, err := report.Terminal(&printed).Write(raw.Bytes()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(printed.Bytes(), raw.Bytes()) {
			t.Fatalf("the terminal changes the export of %q", v)
		}
		var wb workbench.Model
		if err := json.Unmarshal(printed.Bytes(), &wb); err != nil {
			t.Fatalf("the export of %q is not JSON: %v\n%s", v, err, printed.Bytes())
		}
		var body string
		if err := json.Unmarshal(wb.DataModel[0].TableFacets[0].TableData[0]["body"]["S"], &body); err != nil || body != v {
			t.Fatalf("the export holds %q for %q (%v)", body, v, err)
		}
		im, err := workbench.Import("notes-wb.json", printed.Bytes(), workbench.ImportOptions{})
		if err != nil {
			t.Fatalf("the import of the export of %q: %v", v, err)
		}
		back, err := model.Parse("imported.yaml", im.YAML)
		if err != nil {
			t.Fatalf("the model imported for %q does not load: %v\n%s", v, err, im.YAML)
		}
		be := back.Entity("Note")
		if be == nil || len(back.Examples.Items) != 1 {
			t.Fatalf("the import of %q:\n%s", v, im.YAML)
		}
		got := back.Examples.Items[0].Values
		if got["body"] != v || got["kind"] != v || be.Attr("kind") == nil || !contains(be.Attr("kind").Values, v) {
			t.Fatalf("the import of %q holds body %q, kind %q, enum %v", v, got["body"], got["kind"], be.Attr("kind"))
		}
	})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
