package dynamo

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// From a design read back from its JSON, without the model file, the
// runtime builds the very items and requests it builds from the model.
func TestRuntimeFromReadBackDesign(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, err := model.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := patterns.Plan(m)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(d)
			back, err := patterns.ReadDesign("plan.json", bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			a, z := New(d, nil, "Tbl"), New(back, nil, "Tbl")
			if m.Examples == nil || len(m.Examples.Items) == 0 {
				t.Fatal("the example has no items to build")
			}
			for _, it := range m.Examples.Items {
				want, err1 := a.Item(it.Entity, it.Values)
				got, err2 := z.Item(it.Entity, it.Values)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(want, got) {
					t.Errorf("item %s: %v / %v\nmodel:     %v\nread back: %v", it.Name, err1, err2, want, got)
				}
			}
			for _, x := range m.Examples.Expect {
				r := Request{Params: Params(x.Params)}
				if d.Pattern(x.Pattern).Operation == patterns.GetItem {
					want, err1 := a.GetItemInput(x.Pattern, r.Params)
					got, err2 := z.GetItemInput(x.Pattern, r.Params)
					if err1 != nil || err2 != nil || !reflect.DeepEqual(want, got) {
						t.Errorf("%s: %v / %v", x.Pattern, err1, err2)
					}
					continue
				}
				want, err1 := a.QueryInputs(x.Pattern, r)
				got, err2 := z.QueryInputs(x.Pattern, r)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(want, got) {
					t.Errorf("%s: %v / %v", x.Pattern, err1, err2)
				}
			}
		})
	}
}
