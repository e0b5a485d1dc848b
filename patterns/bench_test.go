package patterns

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// generated builds a model of n entities and 5n patterns: every third
// entity lives within the one before it, and each entity has a get, two
// sorted queries on other attributes, a unique alternate key, and (for
// children) a collection query with its parent.
func generated(n int) string {
	var b strings.Builder
	b.WriteString("table: Generated\nentities:\n")
	for i := range n {
		fmt.Fprintf(&b, "  E%d:\n", i)
		root := i
		if i%3 == 2 {
			root = i - 1
			fmt.Fprintf(&b, "    within: E%d\n    id: [id%d, id%d]\n", i-1, root, i)
		} else {
			fmt.Fprintf(&b, "    id: [id%d]\n", i)
		}
		fmt.Fprintf(&b, "    attributes:\n      id%d: string\n", i)
		if root != i {
			fmt.Fprintf(&b, "      id%d: string\n", root)
		}
		fmt.Fprintf(&b, "      group: {type: string, cardinality: 1000}\n      owner: string\n      email: string\n      score: {type: number, min: -1000, max: 1000}\n      at: time\n")
	}
	b.WriteString("patterns:\n")
	for i := range n {
		fmt.Fprintf(&b, "  Get%d: {get: E%d}\n", i, i)
		fmt.Fprintf(&b, "  ByGroup%d: {query: E%d, where: [group], sort: score desc, returns: [owner]}\n", i, i)
		fmt.Fprintf(&b, "  ByOwner%d: {query: E%d, where: [owner], sort: at}\n", i, i)
		fmt.Fprintf(&b, "  ByEmail%d: {get: E%d, where: [email], unique: true}\n", i, i)
		if i%3 == 2 {
			fmt.Fprintf(&b, "  WithParent%d: {query: [E%d, E%d], where: [id%d]}\n", i, i-1, i, i-1)
		} else {
			fmt.Fprintf(&b, "  Recent%d: {query: E%d, where: [group, owner], sort: at desc}\n", i, i)
		}
	}
	return b.String()
}

func TestGeneratedModelPlans(t *testing.T) {
	d := planText(t, generated(30))
	if len(d.Patterns) != 150 {
		t.Fatalf("%d patterns", len(d.Patterns))
	}
	for _, p := range d.Patterns {
		if !p.Served() || p.Requests != 1 {
			t.Errorf("%s: %s (%s)", p.Name, p.Operation, p.Reason)
		}
	}
	if len(d.Indexes) != d.LowerBound {
		t.Errorf("%d GSIs, bound %d", len(d.Indexes), d.LowerBound)
	}
}

func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{10, 50, 200, 350} { // 350: near MaxPatterns
		src := []byte(generated(n))
		m, err := model.Parse("generated.yaml", src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("entities=%d/patterns=%d", n, len(m.Patterns)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Plan(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLoadAndPlan(b *testing.B) {
	src := []byte(generated(200))
	b.ReportAllocs()
	for b.Loop() {
		m, err := model.Parse("generated.yaml", src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Plan(m); err != nil {
			b.Fatal(err)
		}
	}
}

// Adversarial shapes: what a model the loader accepts can make the
// planner do, each bounded by its step budget.
var adversarial = map[string]func() string{
	// One entity, many patterns that each need a GSI shape: the search
	// over their assignment to GSIs (the old shape selection was cubic).
	"one-entity-1000-gsi-patterns": func() string {
		var b strings.Builder
		b.WriteString("table: T\nentities:\n  E:\n    id: [id]\n    attributes:\n      id: string\n")
		for i := range 40 {
			fmt.Fprintf(&b, "      a%d: string\n", i)
		}
		b.WriteString("patterns:\n")
		n := 0
		for i := range 40 {
			for j := range 40 {
				if i != j && n < 1000 {
					fmt.Fprintf(&b, "  P%d: {query: E, where: [a%d], sort: a%d}\n", n, i, j)
					n++
				}
			}
		}
		return b.String()
	},
	// MaxPatterns patterns (the duplicate-name check was quadratic).
	"max-patterns": func() string {
		var b strings.Builder
		b.WriteString("table: T\nentities:\n  E:\n    id: [id]\n    attributes: {id: string, a: string}\npatterns:\n")
		for i := range model.MaxPatterns {
			fmt.Fprintf(&b, "  P%d: {get: E}\n", i)
		}
		return b.String()
	},
	// A chain of collections: 60 entities in one group, so base
	// placements multiply.
	"chain-of-60-collections": func() string {
		var b strings.Builder
		b.WriteString("table: T\nentities:\n")
		for i := range 60 {
			fmt.Fprintf(&b, "  E%d:\n    id: [id%d]\n    attributes: {id%d: string, k%d: {type: string, immutable: true}, k%d: {type: string, immutable: true}, s: string}\n", i, i, i, i, (i+1)%60)
		}
		b.WriteString("patterns:\n")
		for i := range 60 {
			fmt.Fprintf(&b, "  G%d: {get: E%d}\n  C%d: {query: [E%d, E%d], where: [k%d]}\n  S%d: {query: E%d, where: [s], sort: id%d}\n", i, i, i, i, (i+1)%60, (i+1)%60, i, i, i)
		}
		return b.String()
	},
	// Wide equality sets: seven attributes per where, the most a fit
	// permutes.
	"wide-where": func() string {
		var b strings.Builder
		b.WriteString("table: T\nentities:\n  E:\n    id: [id]\n    attributes:\n      id: string\n")
		for i := range 12 {
			fmt.Fprintf(&b, "      a%d: {type: string, immutable: true}\n", i)
		}
		b.WriteString("patterns:\n")
		for i := range 30 {
			var w []string
			for j := range 7 {
				w = append(w, fmt.Sprintf("a%d", (i+j)%12))
			}
			fmt.Fprintf(&b, "  P%d: {query: E, where: [%s], sort: a%d}\n", i, strings.Join(w, ", "), (i+7)%12)
		}
		return b.String()
	},
}

func BenchmarkPlanAdversarial(b *testing.B) {
	for _, name := range slices.Sorted(maps.Keys(adversarial)) {
		m, err := model.Parse(name+".yaml", []byte(adversarial[name]()))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Plan(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// atLimits builds a model at the loader's limits: entities each of
// MaxAttributes-1 attributes, MaxPatterns patterns spread over them, each
// a query on its own attribute (a GSI shape each: far past 20 GSIs, the
// planner's hardest case), half of them sorted by another.
func atLimits(entities int) string {
	var b strings.Builder
	b.WriteString("table: Limits\nentities:\n")
	attrs := model.MaxAttributes - 1
	for e := range entities {
		fmt.Fprintf(&b, "  T%d:\n    id: [tid]\n    attributes:\n      tid: {type: string, maxLength: 40}\n", e)
		for i := range attrs {
			fmt.Fprintf(&b, "      a%d: {type: string, maxLength: 20}\n", i)
		}
	}
	b.WriteString("patterns:\n")
	per := model.MaxPatterns / entities
	for e := range entities {
		fmt.Fprintf(&b, "  Get%d: {get: T%d}\n", e, e)
		for i := range per - 1 {
			sort := ""
			if (i/attrs)%2 == 0 {
				sort = fmt.Sprintf(", sort: a%d", (i+1+i/attrs)%attrs)
			}
			fmt.Fprintf(&b, "  By%dx%d: {query: T%d, where: [a%d]%s}\n", e, i, e, i%attrs, sort)
		}
	}
	return b.String()
}

// Loading and planning a model at the loader's limits: the bound the CLI
// promises (well under a second and 200 MB; make bench).
func BenchmarkPlanAtLimits(b *testing.B) {
	for _, entities := range []int{1, 20} {
		src := []byte(atLimits(entities))
		b.Run(fmt.Sprintf("entities=%d", entities), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := model.Parse("limits.yaml", src)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Plan(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
