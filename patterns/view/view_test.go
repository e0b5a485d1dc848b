package view_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/report"
	"github.com/keyplan/keyplan/patterns/view"
)

func plan(t testing.TB, file string) *patterns.Design {
	t.Helper()
	m, err := model.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func sample(t testing.TB, d *patterns.Design, o view.Options) *report.Sample {
	t.Helper()
	s, err := view.Sample(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The reads of the examples return what the examples expect (the
// people who wrote them, not keyplan, say what that is), every item is
// written, and every pattern the examples leave out is read with an
// item's parameters.
func TestSampleOfExamples(t *testing.T) {
	for _, f := range testmodel.Files(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			d := plan(t, f)
			s := sample(t, d, view.Options{})
			m := d.Model()
			for _, it := range s.Items {
				if it.Err != "" {
					t.Errorf("item %s not written: %s", it.Name, it.Err)
				}
			}
			read := map[string]bool{}
			expected := 0
			for _, r := range s.Reads {
				read[r.Pattern] = true
				if r.Err != "" {
					t.Errorf("%s: %s", r.Call(), r.Err)
				}
				if r.Expected != nil || r.ExpectedNumber != nil {
					expected++
					if !r.Matches() {
						t.Errorf("%s returned %v (number %v); the examples expect %v (number %v)", r.Call(), r.Items, r.Number, r.Expected, r.ExpectedNumber)
					}
				}
			}
			if m.Examples != nil && expected != len(m.Examples.Expect) {
				t.Errorf("%d reads of expectations; the examples have %d", expected, len(m.Examples.Expect))
			}
			for _, p := range d.Patterns {
				if p.Served() && !read[p.Name] {
					t.Errorf("pattern %s has no read", p.Name)
				}
			}
		})
	}
}

// Items given in the options replace the examples: no expectation
// applies to them, and each pattern is read with the first item that
// gives its parameters.
func TestSampleOfOtherItems(t *testing.T) {
	d := plan(t, "../../examples/leaderboard.yaml")
	items := []*model.ExampleItem{
		{Name: "a", Entity: "Player", Values: map[string]any{"playerId": "a", "handle": "ay", "region": "eu", "season": "S1", "rating": 5, "createdAt": "2025-01-01T00:00:00Z"}},
		{Name: "ab", Entity: "Player", Values: map[string]any{"playerId": "ab", "handle": "be", "region": "eu", "season": "S1", "rating": 50, "createdAt": "2025-01-01T00:00:00Z"}},
		{Name: "a#b", Entity: "Player", Values: map[string]any{"playerId": "a#b", "handle": "ce", "region": "eu", "season": "S1", "rating": 7, "createdAt": "2025-01-01T00:00:00Z"}},
		{Name: "bad", Entity: "Player", Values: map[string]any{"playerId": "x", "region": "mars"}},
	}
	s := sample(t, d, view.Options{Items: items, Source: "four items"})
	if !strings.HasPrefix(s.Source, "four items") {
		t.Errorf("source %q", s.Source)
	}
	var bad *report.SampleItem
	for _, it := range s.Items {
		if it.Name == "bad" {
			bad = it
		}
	}
	if bad == nil || !strings.Contains(bad.Err, "Player.handle is required") {
		t.Errorf("the refused item: %+v; want it listed with why (no handle)", bad)
	}
	got := map[string][]string{}
	for _, r := range s.Reads {
		if r.Expected != nil {
			t.Errorf("%s has an expectation; other items have none", r.Call())
		}
		got[r.Call()] = r.Items
	}
	want := map[string][]string{
		"GetPlayer(playerId=a)":         {"a"}, // not ab, not a#b: ids that are prefixes of each other
		"PlayerWithMatches(playerId=a)": {"a"},
		"SeasonLeaderboard(season=S1)":  {"ab", "a#b", "a"},
		"PlayerByHandle(handle=ay)":     {"a"},
	}
	for call, items := range want {
		if !slices.Equal(got[call], items) {
			t.Errorf("%s = %v, want %v (all reads: %v)", call, got[call], items, got)
		}
	}
	if _, ok := got["RecentMatches(playerId=a)"]; ok {
		t.Errorf("RecentMatches read with no Match among the items")
	}
}
