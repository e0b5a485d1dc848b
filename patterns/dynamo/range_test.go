package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

const labelsModel = `table: Labels
entities:
  Label:
    id: [owner, label]
    attributes: {owner: {type: string, maxLength: 40}, label: {type: string, maxLength: 40}}
patterns:
  ByOwner: {query: Label, where: [owner], sort: label}
`

// String ranges follow the values' byte order, whatever bytes they hold:
// '$' (the bound byte), '#' (the separator), a space and '%' (escaped)
// included. Each range is checked against a brute-force filter.
func TestStringRangesFollowValueOrder(t *testing.T) {
	m, err := model.Parse("labels.yaml", []byte(labelsModel))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	tbl := fresh(t, d)
	ctx := context.Background()
	labels := []string{"ab", "ab c", "ab#", "ab$", "ab%", "ab&", "abc", "abc$", "abc#x", "abd", "a", "b"}
	for _, l := range labels {
		if err := tbl.Create(ctx, "Label", Values{"owner": "o", "label": l}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(r *Range) []string {
		page, err := tbl.Read(ctx, "ByOwner", Request{Params: Params{"owner": "o"}, Range: r})
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		var out []string
		for _, it := range page.Items {
			out = append(out, it.Values["label"].(string))
		}
		return out
	}
	want := func(keep func(string) bool) []string {
		var out []string
		for _, l := range labels {
			if keep(l) {
				out = append(out, l)
			}
		}
		sort.Strings(out)
		return out
	}
	sort.Strings(labels)
	if got := read(nil); !slices.Equal(got, labels) {
		t.Fatalf("all, in order: %q, want %q", got, labels)
	}
	for _, v := range []string{"ab", "ab$", "abc", "ab#", "a", "abd", "zz", "0"} {
		for _, c := range []struct {
			op   Comparator
			keep func(string) bool
		}{
			{"<=", func(l string) bool { return l <= v }},
			{"<", func(l string) bool { return l < v }},
			{">=", func(l string) bool { return l >= v }},
			{">", func(l string) bool { return l > v }},
			{"=", func(l string) bool { return l == v }},
			{"begins_with", func(l string) bool { return len(l) >= len(v) && l[:len(v)] == v }},
		} {
			r := &Range{Op: c.op, Value: v}
			page, err := tbl.Read(ctx, "ByOwner", Request{Params: Params{"owner": "o"}, Range: r})
			if c.op == "<" && errors.Is(err, ErrBadRange) {
				continue // < on a string that ends the key: refused, says so
			}
			if err != nil {
				t.Fatalf("%s %q: %v", c.op, v, err)
			}
			var got []string
			for _, it := range page.Items {
				got = append(got, it.Values["label"].(string))
			}
			if w := want(c.keep); !slices.Equal(got, w) {
				t.Errorf("%s %q: %q, want %q", c.op, v, got, w)
			}
		}
	}
	if got, w := read(&Range{Op: "between", Value: "ab", Upper: "abc"}), want(func(l string) bool { return l >= "ab" && l <= "abc" }); !slices.Equal(got, w) {
		t.Errorf("between ab and abc: %q, want %q", got, w)
	}
}

// A numeric bound beyond the attribute's declared range makes the range
// empty or whole, never an engine error.
func TestNumberRangesBeyondTheDeclaredBounds(t *testing.T) {
	tbl := fresh(t, design(t, "../../examples/leaderboard.yaml"))
	ctx := context.Background()
	for i, r := range []int{0, 5, 99999} {
		p := with(player, "playerId", fmt.Sprintf("p%d", i))
		p["handle"], p["rating"] = fmt.Sprintf("h%d", i), r
		if err := tbl.Create(ctx, "Player", p); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		r    Range
		want int
	}{
		{Range{Op: "<", Value: 0}, 0},
		{Range{Op: "<", Value: -7}, 0},
		{Range{Op: "<=", Value: -1}, 0},
		{Range{Op: ">=", Value: -5}, 3},
		{Range{Op: ">", Value: -1}, 3},
		{Range{Op: ">", Value: 100000}, 0},
		{Range{Op: "<=", Value: 1000000}, 3},
		{Range{Op: "=", Value: -3}, 0},
		{Range{Op: "between", Value: -10, Upper: 5}, 2},
		{Range{Op: "between", Value: 5, Upper: 1000000}, 2},
		{Range{Op: "between", Value: -10, Upper: 1000000}, 3},
		{Range{Op: "between", Value: -10, Upper: -5}, 0},
	} {
		r := c.r
		page, err := tbl.Read(ctx, "SeasonLeaderboard", Request{Params: Params{"season": "2026-Q2"}, Range: &r})
		if err != nil {
			t.Errorf("%s %v %v: %v", r.Op, r.Value, r.Upper, err)
			continue
		}
		if len(page.Items) != c.want {
			t.Errorf("%s %v %v: %d items; want %d", r.Op, r.Value, r.Upper, len(page.Items), c.want)
		}
		n := 0
		for _, err := range tbl.All(ctx, "SeasonLeaderboard", Request{Params: Params{"season": "2026-Q2"}, Range: &r}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != c.want {
			t.Errorf("All %s %v: %d items, want %d", r.Op, r.Value, n, c.want)
		}
	}
}
