package workbench_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// Every scalar type of the core's table is exported with its DynamoDB
// type (patterns.ScalarType.Dynamo), and its example value in that
// type's JSON form: the text a model file writes it as.
func TestEveryScalarTypeExports(t *testing.T) {
	for _, s := range model.ScalarTypes() {
		t.Run(string(s.Type), func(t *testing.T) {
			a := &model.Attribute{Name: "v", Type: s.Type}
			ex, err := a.Text(s.Valid[0])
			if err != nil {
				t.Fatal(err)
			}
			if s.Type == model.TypeTime || s.Type == model.TypeString || s.Type == model.TypeBinary {
				ex = fmt.Sprint(s.Valid[len(s.Valid)-1]) // RFC 3339, plain text, base64: as a model file writes them
			}
			src := fmt.Sprintf("table: Things\nentities:\n  Thing:\n    id: [tid]\n    attributes:\n      tid: string\n      v: %s\npatterns:\n  GetThing: {get: Thing}\nexamples:\n  items:\n    t1: {Thing: {tid: a, v: %q}}\n", s.Type, ex)
			_, wb := exportDesign(t, plan(t, "m.yaml", []byte(src)))
			var doc struct {
				DataModel []struct {
					NonKeyAttributes []struct{ AttributeName, AttributeType string }
					TableFacets      []struct {
						TableData []map[string]map[string]json.RawMessage
					}
				}
			}
			if err := json.Unmarshal(wb, &doc); err != nil {
				t.Fatal(err)
			}
			typ := ""
			for _, na := range doc.DataModel[0].NonKeyAttributes {
				if na.AttributeName == "v" {
					typ = na.AttributeType
				}
			}
			if typ != s.Dynamo {
				t.Errorf("v is exported as %q, want %q", typ, s.Dynamo)
			}
			items := doc.DataModel[0].TableFacets[0].TableData
			if len(items) != 1 || items[0]["v"][s.Dynamo] == nil {
				t.Fatalf("items %v: no %s value of v", items, s.Dynamo)
			}
			if got := string(items[0]["v"][s.Dynamo]); s.Dynamo != "BOOL" && s.Dynamo != "N" && got != fmt.Sprintf("%q", ex) && s.Type != model.TypeTime {
				t.Errorf("v's value is %s, want %q", got, ex)
			}
		})
	}
}
