package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Generated code holds every scalar type of the core's table, required
// and optional, in an entity's struct, its id, a sort key and a write's
// parameters, and compiles; each field has its type's Go type.
func TestEveryScalarTypeGenerates(t *testing.T) {
	for _, s := range model.ScalarTypes() {
		t.Run(string(s.Type), func(t *testing.T) {
			id := "k"
			if s.Type == model.TypeTTL || s.Type == model.TypeBool {
				id = "name" // a ttl is no id; a bool would give two items
			}
			vType := s.Type
			if s.Type == model.TypeTTL {
				vType = model.TypeNumber // one ttl an entity
			}
			src := fmt.Sprintf(`table: Things
entities:
  Thing:
    id: [owner, %s]
    attributes:
      owner: {type: string, maxLength: 10}
      name: {type: string, maxLength: 10}
      k: %s
      v: {type: %s, optional: true}
patterns:
  GetThing: {get: Thing}
  ThingsByK: {query: Thing, where: [owner], sort: k}
writes:
  PutThing: {put: Thing}
  SetV: {update: Thing, set: [v]}
`, id, s.Type, vType)
			d := plan(t, src)
			for _, dg := range d.Diagnostics {
				if dg.Severity == patterns.SeverityError {
					t.Fatalf("the model has an error: %v", dg)
				}
			}
			code, err := Go(d, Options{Package: "db"})
			if err != nil {
				t.Fatal(err)
			}
			if err := typeCheck(t, "db", code); err != nil {
				t.Fatalf("%v\n%s", err, code)
			}
			goType := (&model.Attribute{Type: s.Type}).GoType()
			optional := "*" + (&model.Attribute{Type: vType}).GoType()
			if strings.HasPrefix(goType, "[]") {
				optional = goType // a slice is nil when absent
			}
			for _, want := range []string{"K " + goType, "V " + optional} {
				if !strings.Contains(strings.Join(strings.Fields(string(code)), " "), want) {
					t.Errorf("no field %q in the generated struct", want)
				}
			}
		})
	}
}
