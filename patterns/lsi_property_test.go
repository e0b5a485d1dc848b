package patterns

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// The planner's promise with LSIs: random models whose queries are now and
// then strongly consistent, against random hand layouts that put some keys
// on LSIs (local: true). For every layout the checks accept, the bound
// holds for its secondary indexes (LSIs and GSIs together); none without
// KP403 beats the designed plan in the objective's order (fewer LSIs, or
// as many and fewer GSIs); the designed plan serves every strong read it
// can from the table or an LSI, and is never below its bound.

// genStrong makes about half of a model's single-entity queries strongly
// consistent.
func genStrong(g *genModel, r *rand.Rand) {
	for _, p := range g.pats {
		if len(p.ents) == 1 && strings.HasPrefix(p.text, "{query:") && r.IntN(2) == 0 {
			p.text = strings.TrimSuffix(p.text, "}") + ", consistent: true}"
		}
	}
}

// genLocalLayout is genLayout with about a third of the single-entity
// patterns whose where gives the entity's base partition key moved to an
// LSI (LSI1 or LSI2): the rest of the equality attributes, the sort and
// the id as its sort key.
func genLocalLayout(g *genModel, r *rand.Rand) map[string]map[string][2]string {
	keys := genLayout(g, r)
	for _, p := range g.pats {
		if len(p.ents) != 1 || r.IntN(3) != 0 {
			continue
		}
		e := g.entity(p.ents[0])
		base := keys[e.name][model.BaseIndex][0]
		t, err := model.ParseTemplate(base)
		if err != nil || !subset(t.Attrs(), p.eq) {
			continue
		}
		rest := minus(p.eq, t.Attrs())
		r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		sk := append(rest, p.sort...)
		sk = append(sk, minus(e.id, append(slices.Clone(p.eq), p.sort...))...)
		ix := fmt.Sprintf("LSI%d", 1+r.IntN(2))
		if _, taken := keys[e.name][ix]; !taken {
			keys[e.name][ix] = [2]string{"", tmpl(e.name+p.name, sk)}
		}
	}
	return keys
}

// checkLocalProperty is checkProperty for models with strong reads and
// layouts with LSIs.
func checkLocalProperty(t *testing.T, seed uint64, layouts int, st *propertyStats) {
	r := rand.New(rand.NewPCG(seed, seed^0x51ed27))
	g := genModelFrom(r)
	genStrong(g, r)
	src := g.yaml(nil)
	m, err := model.Parse("gen.yaml", []byte(src))
	if err != nil {
		return
	}
	d, err := Plan(m)
	if err != nil {
		t.Fatalf("seed %d: Plan: %v\n%s", seed, err, src)
	}
	dl, dg := len(d.LocalIndexes), len(d.Indexes)
	if dl+dg < d.LowerBound || d.Bounds.Any > d.Bounds.Cool || dl > model.MaxLSIs {
		t.Fatalf("seed %d: %d LSIs and %d GSIs, bounds %+v\n%s", seed, dl, dg, d.Bounds, src)
	}
	for _, x := range d.Diagnostics {
		if x.ID == "KP106" || x.ID == "KP403" {
			t.Fatalf("seed %d: the designed plan has %s\n%s", seed, x, src)
		}
	}
	// A strong read on a GSI only where no LSI of its base partition
	// would serve it.
	for _, pp := range d.Patterns {
		if c := d.LocalChoice(pp.Name); pp.Consistent && c != nil && c.Key != nil {
			t.Fatalf("seed %d: %s: %s\n%s", seed, pp.Name, c.Why, src)
		}
	}
	st.models++
	if dl > 0 {
		st.designedLocal++
	}
	for range layouts {
		hsrc := g.yaml(genLocalLayout(g, r))
		hm, err := model.Parse("hand.yaml", []byte(hsrc))
		if err != nil {
			continue
		}
		hd, err := Plan(hm)
		if err != nil || len(hd.Errors()) > 0 {
			continue
		}
		st.accepted++
		hl, hg := len(hd.LocalIndexes), len(hd.Indexes)
		if hl+hg < d.Bounds.Any {
			t.Fatalf("seed %d: an accepted hand layout has %d LSIs and %d GSIs, below the bound %d\n%s", seed, hl, hg, d.Bounds.Any, hsrc)
		}
		if slices.ContainsFunc(hd.Diagnostics, func(x Diagnostic) bool { return x.ID == "KP403" }) {
			continue
		}
		st.cool++
		if hl > 0 {
			st.tight++ // here: accepted layouts with an LSI
		}
		if hl < dl || hl == dl && hg < dg {
			t.Fatalf("seed %d: an accepted hand layout has %d LSIs and %d GSIs, the designed plan %d and %d\nhand:\n%s\nmodel:\n%s", seed, hl, hg, dl, dg, hsrc, src)
		}
	}
}

func TestDesignedNeverBeatenWithLocalIndexes(t *testing.T) {
	models, layouts := 100, 20
	if testing.Short() {
		models = 40
	}
	var st propertyStats
	for seed := range uint64(models) {
		checkLocalProperty(t, seed, layouts, &st)
	}
	t.Logf("%d models (%d designed with LSIs); %d accepted hand layouts, %d without KP403, %d of those with an LSI", st.models, st.designedLocal, st.accepted, st.cool, st.tight)
	if st.tight == 0 || st.designedLocal == 0 {
		t.Errorf("no designed plan or no accepted hand layout without KP403 has an LSI: the generator needs work")
	}
}

// FuzzLocalBound drives the same property from fuzzed seeds.
func FuzzLocalBound(f *testing.F) {
	for _, s := range []uint64{0, 3, 9, 77} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkLocalProperty(t, seed, 10, &propertyStats{})
	})
}
