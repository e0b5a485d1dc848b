package workbench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/view"
	"github.com/keyplan/keyplan/patterns/workbench"
)

func plan(t testing.TB, file string, data []byte) *patterns.Design {
	t.Helper()
	m, err := model.Parse(file, data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	// Synthetic keys: a Workbench model holds them (TestExportRefusesNativeKeys).
	d, err := patterns.PlanWith(m, patterns.Options{IndexKeys: model.IndexKeysSynthetic})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A natively keyed GSI is exported as Workbench can hold it: keyed on the
// items' own attribute when it has one partition and at most one sort
// attribute; else (a multi-attribute key) by a synthetic rendering, GSIxPK
// and GSIxSK holding its canonical template's values, said in the
// description. On main the export refused the default design.
func TestExportNativeKeys(t *testing.T) {
	src := `table: Tasks
entities:
  Task:
    id: [taskId]
    attributes:
      taskId: {type: string, maxLength: 40}
      tenantId: {type: string, maxLength: 40}
      assigneeId: {type: string, maxLength: 40}
      status: {type: string, values: [open, done]}
      dueDate: time
      code: {type: string, maxLength: 12}
patterns:
  GetTask: {get: Task}
  ByAssignee: {query: Task, where: [tenantId, assigneeId], sort: dueDate}
  ByCode: {get: Task, where: [code], unique: true}
examples:
  items:
    t1: {Task: {taskId: t1, tenantId: acme, assigneeId: ann, status: open, dueDate: "2026-01-02T00:00:00Z", code: A-1}}
    t2: {Task: {taskId: t2, tenantId: acme, assigneeId: bob, status: done, dueDate: "2026-01-03T00:00:00Z", code: B-2}}
`
	m, err := model.Parse("tasks.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	var multi, single *patterns.Index
	for _, ix := range d.Indexes {
		switch {
		case ix.Native() && len(ix.PartitionKeys) > 1:
			multi = ix
		case ix.Native():
			single = ix
		}
	}
	if multi == nil || single == nil {
		t.Fatalf("want a multi-attribute and a single-attribute native GSI: %v", d.Indexes)
	}
	s, err := view.Sample(context.Background(), d, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := workbench.Export(&b, d, s, workbench.ExportOptions{}); err != nil {
		t.Fatalf("Export of a natively keyed design: %v", err)
	}
	var wb workbench.Model
	if err := json.Unmarshal(b.Bytes(), &wb); err != nil {
		t.Fatal(err)
	}
	tbl := wb.DataModel[0]
	gsis := map[string]*workbench.GSI{}
	for _, g := range tbl.GlobalSecondaryIndexes {
		gsis[g.IndexName] = g
	}
	mpk, msk := model.IndexKeyNames(multi.Name)
	if g := gsis[multi.Name]; g == nil || g.KeyAttributes.PartitionKey.AttributeName != mpk || g.KeyAttributes.SortKey == nil || g.KeyAttributes.SortKey.AttributeName != msk {
		t.Errorf("%s (%s): %+v, want the synthetic rendering %s/%s", multi.Name, multi.KeyText(), g, mpk, msk)
	}
	if g := gsis[single.Name]; g == nil || g.KeyAttributes.PartitionKey.AttributeName != "code" || g.KeyAttributes.PartitionKey.AttributeType != "S" ||
		g.KeyAttributes.SortKey == nil || g.KeyAttributes.SortKey.AttributeName != "taskId" {
		t.Errorf("%s (%s): %+v, want keyed on code / taskId as it is", single.Name, single.KeyText(), g)
	}
	items := tbl.TableFacets[0].TableData
	if len(items) != 2 {
		t.Fatalf("items %v", items)
	}
	for _, it := range items {
		id := strings.Trim(string(it["taskId"]["S"]), `"`)
		pk, sk := string(it[mpk]["S"]), string(it[msk]["S"])
		parts := []string{}
		for _, a := range multi.PartitionKeys {
			parts = append(parts, strings.Trim(string(it[a]["S"]), `"`))
		}
		day := map[string]string{"t1": "2026-01-02", "t2": "2026-01-03"}[id]
		if pk != `"`+strings.Join(parts, "#")+`"` || !strings.HasPrefix(sk, `"`+day) || !strings.HasSuffix(sk, "#"+id+`"`) {
			t.Errorf("item %s renders %s = %s, %s = %s", id, mpk, pk, msk, sk)
		}
	}
	if desc := wb.ModelMetadata.Description; !strings.Contains(desc, multi.Name+" (keyed natively on "+multi.KeyText()+") is shown by "+mpk+"/"+msk) {
		t.Errorf("the description does not say how %s is shown: %s", multi.Name, desc)
	}
	roundTrip(t, d, b.Bytes())
}

// A design with LSIs is refused, naming them: keyplan writes no LSI into
// a Workbench model.
func TestExportRefusesLocalIndexes(t *testing.T) {
	m, err := model.Load("../testdata/models/arena.yaml")
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
	return exportDesign(t, d)
}

// exportDesign exports a design with its examples' sample.
func exportDesign(t *testing.T, d *patterns.Design) (*patterns.Design, []byte) {
	t.Helper()
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
	for _, e := range d.Model().Entities {
		be := back.Model().Entity(e.Name)
		if be == nil {
			continue // said below
		}
		if !slices.Equal(e.ID, be.ID) {
			t.Errorf("entity %s: id %v comes back as %v", e.Name, e.ID, be.ID)
		}
		for _, a := range e.Attributes {
			ba := be.Attr(a.Name)
			if !a.Scalar() || a.Derived != nil {
				continue
			}
			if ba == nil {
				t.Errorf("%s.%s is missing from the import", e.Name, a.Name)
				continue
			}
			want := fmt.Sprintf("%s values=%v maxLength=%d digits=%d cardinality=%d immutable=%v", a.Type, a.Values, a.MaxLength, a.Digits, a.Cardinality, a.Immutable)
			got := fmt.Sprintf("%s values=%v maxLength=%d digits=%d cardinality=%d immutable=%v", ba.Type, ba.Values, ba.MaxLength, ba.Digits, ba.Cardinality, ba.Immutable)
			if a.Min != nil || a.Max != nil {
				want += fmt.Sprintf(" range=%v..%v", deref(a.Min), deref(a.Max))
				got += fmt.Sprintf(" range=%v..%v", deref(ba.Min), deref(ba.Max))
			}
			if a.Optional && !ba.Optional {
				got += " (not optional)"
			}
			if got != want {
				t.Errorf("%s.%s: %s comes back as %s", e.Name, a.Name, want, got)
			}
		}
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

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Every model exported and imported again has the same keys: once with
// the facets' key aliases (keyplan's templates) and once without them,
// the templates inferred from the items' values alone.
func TestRoundTrip(t *testing.T) {
	for _, f := range testmodel.Files(t) {
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
			t.Run("keyed as planned", func(t *testing.T) { // natively where it can be: rendered
				m, err := model.Load(f)
				if err != nil {
					t.Fatal(err)
				}
				nd, err := patterns.Plan(m)
				if err != nil {
					t.Fatal(err)
				}
				d, wb := exportDesign(t, nd)
				roundTrip(t, d, wb)
			})
		})
	}
}

// An entity whose sort key is a constant that is no word (its tag holds a
// digit), with one example item, keeps its key and its id: the facet's
// alias is the constant, which the item agrees with. On main the import
// made the constant an attribute (id [k0] came back as [k0, skValue]).
func TestRoundTripConstantKey(t *testing.T) {
	src := `table: Things
entities:
  V2Item:
    id: [k0]
    attributes:
      k0: {type: string, maxLength: 20}
      label: {type: string, values: [a, b], optional: true}
patterns:
  GetV2Item: {get: V2Item}
examples:
  items:
    i1: {V2Item: {k0: x1, label: a}}
`
	m, err := model.Parse("things.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, wb := exportDesign(t, plan(t, "things.yaml", []byte(src)))
	if k := d.Entity("V2Item").Key(model.BaseIndex); k.SK.String() != "V2ITEM" {
		t.Fatalf("the sort key is %s, want the constant tag", k.SK)
	}
	roundTrip(t, d, wb)
	_ = m
}

// A file that is not keyplan's export declares no enums, lengths or
// ranges: the import says so (on main its notes spoke of the patterns
// only); keyplan's own export carries them, and says nothing of it.
func TestImportSaysWhatTheFileCannotHold(t *testing.T) {
	const note = "note: attributes: the file declares no enum values, string lengths or number ranges"
	files, _ := filepath.Glob("testdata/aws/*.json")
	for _, f := range files {
		im, err := workbench.ReadFile(f, workbench.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(im.YAML), note) {
			t.Errorf("%s: the import does not say the file declares no enums or lengths", f)
		}
	}
	_, wb := export(t, "../../examples/ecommerce.yaml")
	im, err := workbench.Import("shop.json", wb, workbench.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(im.YAML), note) {
		t.Error("the import of keyplan's own export says it lacks the declarations it carries")
	}
}
