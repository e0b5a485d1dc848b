package report_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/report"
	"github.com/keyplan/keyplan/patterns/view"
)

func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./patterns/report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; rerun with -update if the change is intended", file)
	}
}

func htmlOf(t *testing.T, d *patterns.Design, s *report.Sample) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteHTML(&b, d, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The HTML view of the leaderboard, its sample computed by the runtime
// (package view), is golden; so is the diff page of a changed
// leaderboard against its lock. Rewrite with go test ./patterns/report
// -update.
func TestGoldenHTML(t *testing.T) {
	d := plan(t, "../../examples/leaderboard.yaml")
	s, err := view.Sample(context.Background(), d, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "html", "leaderboard.html"), []byte(htmlOf(t, d, s)))

	lock, err := patterns.LoadLock("../../examples/leaderboard.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load("testdata/diff/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	to, err := patterns.PlanLocked(m, lock)
	if err != nil {
		t.Fatal(err)
	}
	df := patterns.Compare(lock, to)
	if len(df.Phases) < 2 {
		t.Fatalf("the changed leaderboard takes %d phase(s); the golden wants a migration", len(df.Phases))
	}
	var b bytes.Buffer
	if err := report.WriteDiffHTML(&b, "testdata/diff/leaderboard.yaml", df); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for i, p := range df.Phases {
		for _, ix := range append(slices.Clone(p.Create), p.Delete...) {
			if !regexp.MustCompile(`(?s)<li id="phase-` + strconv.Itoa(i+1) + `">.*?` + regexp.QuoteMeta(ix) + `.*?</li>\n`).MatchString(page) {
				t.Errorf("phase %d does not show %s", i+1, ix)
			}
		}
	}
	for _, c := range df.Changes {
		if !strings.Contains(page, c.ID+"</span> "+c.Subject.String()) {
			t.Errorf("change %s %s is not on the page", c.ID, c.Subject)
		}
	}
	golden(t, filepath.Join("testdata", "html", "leaderboard-diff.html"), b.Bytes())
}

var (
	ruleRe = regexp.MustCompile(`body:has\(#read-(\d+):target\) :is\(([^)]*)\)\{--hit:1`)
	rowRe  = regexp.MustCompile(`<tr class="[^"]*" id="(row-\d+)" data-item="([^"]*)"`)
)

// highlighted reads the page's selection rules: for each read, the items
// whose rows it highlights.
func highlighted(t *testing.T, page string) map[string][]string {
	t.Helper()
	item := map[string]string{}
	for _, m := range rowRe.FindAllStringSubmatch(page, -1) {
		item[m[1]] = m[2]
	}
	out := map[string][]string{}
	for _, m := range ruleRe.FindAllStringSubmatch(page, -1) {
		for _, id := range strings.Split(m[2], ",") {
			out[m[1]] = append(out[m[1]], item[strings.TrimPrefix(id, "#")])
		}
	}
	return out
}

// Without a browser: each read's rule highlights exactly the rows of the
// items the read returned, for every model; no rule exists for a read
// that returned nothing.
func TestHTMLHighlightsWhatReadsReturn(t *testing.T) {
	for _, f := range testmodel.Files(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			d := plan(t, f)
			s, err := view.Sample(context.Background(), d, view.Options{})
			if err != nil {
				t.Fatal(err)
			}
			hl := highlighted(t, htmlOf(t, d, s))
			for i, r := range s.Reads {
				got := hl[strconv.Itoa(i)]
				// a batch read's id with no item is no row
				want := slices.DeleteFunc(slices.Clone(r.Items), func(s string) bool { return s == dynamo.NoItem })
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("read %d %s highlights %v; it returned %v", i, r.Call(), got, want)
				}
			}
		})
	}
}

// Values, names and messages are text on the page, never markup: a
// sample and a design full of markup come out escaped, and nothing but
// the page's own style is in it.
func TestHTMLEscapes(t *testing.T) {
	d := plan(t, "../../examples/leaderboard.yaml")
	evil := `</style><script>alert("x")</script><img src=x onerror=alert(1)>&amp;`
	d.Diagnostics = append(d.Diagnostics, patterns.Diagnostic{ID: "KP999", Severity: patterns.SeverityError,
		Subject: patterns.Subject{Kind: patterns.SubjectPattern, Name: "GetPlayer"}, Message: evil, Fix: evil})
	s := &report.Sample{Source: evil, Engine: evil, Items: []*report.SampleItem{
		{Name: evil, Entity: "Player", Attrs: map[string]string{"PK": evil, "SK": "PLAYER", "handle": evil, evil: evil}},
		{Name: "p2", Entity: "Player", Attrs: map[string]string{"PK": "PLAYER#p2", "SK": "PLAYER"}, Err: evil},
	}, Reads: []*report.SampleRead{{Pattern: "GetPlayer", Params: []report.Param{{Name: "playerId", Value: evil}}, From: evil, Items: []string{evil}, Expected: []string{evil}}}}
	page := htmlOf(t, d, s)
	for _, bad := range []string{"<script", "<img", "</style><"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if n := strings.Count(page, "&lt;script&gt;"); n < 8 {
		t.Errorf("the markup appears escaped %d times; want it everywhere it was given", n)
	}
	if hl := highlighted(t, page); len(hl["0"]) != 1 || hl["0"][0] != esc(evil) {
		t.Errorf("the read highlights %q; want the item named with markup", hl["0"])
	}
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// A design with no sample still draws its layout, patterns and indexes,
// and says there are no items.
func TestHTMLWithoutSample(t *testing.T) {
	d := plan(t, "../testdata/models/chat.yaml")
	page := htmlOf(t, d, nil)
	for _, p := range d.Patterns {
		if !strings.Contains(page, `<li class="pattern" id="pattern-`+p.Name+`">`) {
			t.Errorf("pattern %s is not listed", p.Name)
		}
	}
	for _, want := range []string{"No sample items", `id="layout"`, `id="indexes"`, `id="cost"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "#read-") {
		t.Errorf("a page with no reads has selection rules")
	}
}

// FuzzHTML: any model the loader accepts draws a page (no sample), and
// its text never escapes into markup.
func FuzzHTML(f *testing.F) {
	for _, file := range testmodel.Files(f) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := model.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatalf("Plan of a loaded model: %v", err)
		}
		var b bytes.Buffer
		if err := report.WriteHTML(&b, d, nil); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "<script") {
			t.Fatalf("the page holds a script")
		}
	})
}
