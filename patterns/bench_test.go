package patterns

import (
	"fmt"
	"strings"
	"testing"
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
	for _, n := range []int{10, 50, 100, 200} {
		src := []byte(generated(n))
		m, err := Parse("generated.yaml", src)
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
		m, err := Parse("generated.yaml", src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Plan(m); err != nil {
			b.Fatal(err)
		}
	}
}
