package oracle

import (
	"math/rand/v2"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// The reference keeps its own value rules, held to the core's table of
// scalar types: every type in it is one the reference normalizes, agreeing
// with the core on the table's valid and invalid values; the generator
// draws candidates of it that the reference accepts (each distinct from
// the others), and invalid values that it refuses.
func TestEveryScalarTypeHasReferenceRules(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	g := NewGenerator(&model.Model{}, 3)
	for _, s := range model.ScalarTypes() {
		t.Run(string(s.Type), func(t *testing.T) {
			a := &model.Attribute{Name: "v", Type: s.Type}
			for _, v := range s.Valid {
				if _, err := Normalize(a, v); err != nil {
					t.Errorf("Normalize(%#v): %v; the core accepts it (%v)", v, err, a.Check(v))
				}
			}
			for _, v := range s.Invalid {
				if n, err := Normalize(a, v); err == nil {
					t.Errorf("Normalize(%#v) = %#v; the core refuses it: %v", v, n, a.Check(v))
				}
			}
			cs := candidates(a, r, 4)
			if len(cs) < 2 {
				t.Fatalf("%d candidates", len(cs))
			}
			seen := map[string]bool{}
			for _, c := range cs {
				n, err := Normalize(a, c)
				if err != nil {
					t.Errorf("candidate %#v: %v", c, err)
					continue
				}
				if err := a.Check(c); err != nil {
					t.Errorf("candidate %#v: the core refuses it: %v", c, err)
				}
				seen[Text(n)] = true
			}
			if len(seen) < 2 {
				t.Errorf("candidates %v: fewer than two distinct values", cs)
			}
			for range 20 {
				v := g.InvalidValue(nil, a)
				if _, err := Normalize(a, v); err == nil {
					t.Errorf("InvalidValue %#v is accepted", v)
				}
			}
		})
	}
}
