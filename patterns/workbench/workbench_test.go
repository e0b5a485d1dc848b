package workbench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/view"
	"github.com/keyplan/keyplan/patterns/workbench"
)

func models(t testing.TB) []string {
	files, _ := filepath.Glob("../../examples/*.yaml")
	more, _ := filepath.Glob("../testdata/models/*.yaml")
	files = append(files, more...)
	if len(files) < 4 {
		t.Fatalf("found %d models", len(files))
	}
	return files
}

func plan(t testing.TB, file string, data []byte) *patterns.Design {
	t.Helper()
	m, err := patterns.Parse(file, data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	// Synthetic keys: a Workbench model holds them (TestExportRefusesNativeKeys).
	d, err := patterns.PlanWith(m, patterns.Options{IndexKeys: patterns.IndexKeysSynthetic})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A native index is refused, saying how to export the model: Workbench's
// data model cannot key a GSI on several attributes.
func TestExportRefusesNativeKeys(t *testing.T) {
	m, err := patterns.Load("../../examples/tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	err = workbench.Export(io.Discard, d, nil, workbench.ExportOptions{})
	if err == nil || !strings.Contains(err.Error(), "index GSI1 is keyed natively (tenantId, assigneeId / dueDate, taskId)") || !strings.Contains(err.Error(), "indexKeys: synthetic") {
		t.Errorf("Export of a native design: %v", err)
	}
}

// A design with LSIs is refused, naming them: keyplan writes no LSI into
// a Workbench model.
func TestExportRefusesLocalIndexes(t *testing.T) {
	m, err := patterns.Load("../testdata/models/arena.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	err = workbench.Export(io.Discard, d, nil, workbench.ExportOptions{})
	if err == nil || !strings.Contains(err.Error(), "local secondary indexes (LSI1, LSI2)") {
		t.Errorf("Export of a design with LSIs: %v", err)
	}
}

func export(t *testing.T, file string) (*patterns.Design, []byte) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d := plan(t, file, data)
	if len(d.LocalIndexes) > 0 {
		t.Skip("LSIs: no Workbench data model (TestExportRefusesLocalIndexes)")
	}
	s, err := view.Sample(context.Background(), d, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := workbench.Export(&b, d, s, workbench.ExportOptions{Now: time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	return d, b.Bytes()
}

// sparseAsPlaceholder is a key template with the constants a sparse key
// holds (When) made their attributes' placeholders: explicit keys cannot
// be sparse on a constant, so the import keeps every item's own value.
func sparseAsPlaceholder(k *patterns.EntityKey) string {
	t := k.PK.String()
	for _, c := range k.When {
		t = strings.Replace(t, "#"+c.Value, "#{"+c.Attr+"}", 1)
	}
	return t
}

// roundTrip checks that an exported design imported again has the same
// keys: every entity, every index, the same templates (a key sparse on a
// constant has its attribute's placeholder there instead, said in a note).
func roundTrip(t *testing.T, d *patterns.Design, wb []byte) {
	t.Helper()
	im, err := workbench.Import("export.json", wb, workbench.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back := plan(t, "imported.yaml", im.YAML)
	if !back.Explicit {
		t.Fatalf("the imported model has no hand-made keys")
	}
	for _, e := range d.Entities {
		be := back.Entity(e.Name)
		if be == nil {
			t.Errorf("entity %s is missing from the import", e.Name)
			continue
		}
		if len(be.Keys) != len(e.Keys) {
			t.Errorf("%s has %d keys, the import %d\n%s", e.Name, len(e.Keys), len(be.Keys), im.YAML)
		}
		for _, k := range e.Keys {
			bk := be.Key(k.Index)
			if bk == nil {
				t.Errorf("%s: no key on %s in the import", e.Name, k.Index)
				continue
			}
			wantPK := k.PK.String()
			if len(k.When) > 0 {
				wantPK = sparseAsPlaceholder(k)
				if !strings.Contains(string(im.YAML), "taken as {"+k.When[0].Attr+"}") {
					t.Errorf("%s on %s is sparse on %s; the import does not say it made it a placeholder", e.Name, k.Index, k.When[0].Attr)
				}
			}
			if bk.PK.String() != wantPK || bk.SK.String() != k.SK.String() {
				t.Errorf("%s on %s: imported %s / %s, want %s / %s", e.Name, k.Index, bk.PK, bk.SK, wantPK, k.SK)
			}
		}
	}
}

// Every model exported and imported again has the same keys: once with
// the facets' key aliases (keyplan's templates) and once without them,
// the templates inferred from the items' values alone.
func TestRoundTrip(t *testing.T) {
	for _, f := range models(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			d, wb := export(t, f)
			roundTrip(t, d, wb)
			t.Run("without aliases", func(t *testing.T) {
				var m workbench.Model
				if err := json.Unmarshal(wb, &m); err != nil {
					t.Fatal(err)
				}
				for _, fc := range m.DataModel[0].TableFacets {
					fc.KeyAttributeAlias = workbench.KeyAlias{PartitionKeyAlias: "PK", SortKeyAlias: "SK"}
				}
				stripped, _ := json.Marshal(&m)
				roundTrip(t, d, stripped)
			})
		})
	}
}
