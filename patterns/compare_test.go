package patterns_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// withoutPattern is a model without one read pattern and its expectations.
func withoutPattern(t *testing.T, src, name string) *model.Model {
	t.Helper()
	var out []string
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		switch {
		case strings.Contains(lines[i], "pattern: "+name):
			i += 2 // its params and items
		case strings.Contains(lines[i], name):
		default:
			out = append(out, lines[i])
		}
	}
	m, err := model.Parse("shop.yaml", []byte(strings.Join(out, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A pattern removed takes its entity's key off a GSI that stays (others
// use it): the entity's items still hold the key attributes, so they are
// backfilled to leave the index; the change is not a one-step deploy.
func TestDroppedKeyIsBackfilledAway(t *testing.T) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := model.Parse("shop.yaml", src)
	d, _ := patterns.Plan(m)
	lock := patterns.NewLock(d)
	d2, err := patterns.PlanLocked(withoutPattern(t, string(src), "ProductsByCategory"), lock)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Index("GSI1") == nil || d2.Entity("Product").Key("GSI1") != nil {
		t.Fatalf("the scenario: GSI1 stays, Product leaves it; got %v", d2.Entity("Product").Keys)
	}
	df := patterns.Compare(lock, d2)
	if df.Safe || len(df.Phases) != 1 || !slices.Equal(df.Phases[0].Backfill, []string{"Product"}) {
		t.Errorf("Compare: safe %v, phases %v; want one phase backfilling Product", df.Safe, df.Phases)
	}
}
