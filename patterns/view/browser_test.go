package view_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyplan/keyplan/internal/testkit/chromium"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
	"github.com/keyplan/keyplan/patterns/view"
)

// EnvArtifacts names a directory to keep the browser test's pages and
// screenshots in (default: the test's temporary directory, removed after).
const EnvArtifacts = "KEYPLAN_ARTIFACTS"

// The HTML view of every model, in a real browser: headless Chromium
// loads each page from a file; the DOM lists every pattern and every
// entity's key templates and loads nothing; selecting each read (focus
// its link, press Enter: the keyboard's way) highlights exactly the rows
// the runtime returned, numbered in the order returned, and, where the
// examples expect items, exactly those; a screenshot of each page with
// a read selected is kept.
func TestBrowser(t *testing.T) {
	bin, err := chromium.Find()
	if err != nil {
		t.Skipf("no browser to test the HTML view in: %v", err)
	}
	dir := os.Getenv(EnvArtifacts)
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := chromium.Start(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.Close(); err != nil {
			t.Logf("closing the browser: %v", err)
		}
	}()
	page, err := b.NewPage(ctx, 1400, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range testmodel.Files(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			d := plan(t, f)
			s := sample(t, d, view.Options{})
			var out bytes.Buffer
			if err := report.WriteHTML(&out, d, s); err != nil {
				t.Fatal(err)
			}
			file, err := filepath.Abs(filepath.Join(dir, name+".html"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()
			if err := page.Navigate(ctx, u); err != nil {
				t.Fatal(err)
			}
			checkStatic(ctx, t, page, d, s)
			shot := -1
			for i, r := range s.Reads {
				checkRead(ctx, t, page, s, i, r)
				if shot < 0 || len(r.Items) > len(s.Reads[shot].Items) {
					shot = i
				}
			}
			if shot >= 0 {
				selectRead(ctx, t, page, shot)
			}
			// Focusing the link scrolled to it; the picture starts at the top.
			eval(ctx, t, page, `window.scrollTo(0, 0); document.activeElement.blur()`, nil)
			png, err := page.Screenshot(ctx)

			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(png, []byte("\x89PNG")) {
				t.Fatalf("the screenshot is not a PNG")
			}
			shotFile := filepath.Join(dir, name+".png")
			if err := os.WriteFile(shotFile, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("page %s, screenshot %s (set $%s to keep them)", file, shotFile, EnvArtifacts)
		})
	}
}

func eval(ctx context.Context, t *testing.T, page *chromium.Page, js string, out any) {
	t.Helper()
	if err := page.Eval(ctx, js, out); err != nil {
		t.Fatal(err)
	}
}

// checkStatic checks what the page shows without any selection.
func checkStatic(ctx context.Context, t *testing.T, page *chromium.Page, d *patterns.Design, s *report.Sample) {
	t.Helper()
	var facts struct {
		Patterns  []string `json:"patterns"`
		Scripts   int      `json:"scripts"`
		Resources int      `json:"resources"`
		Rows      []string `json:"rows"`
		Hits      int      `json:"hits"`
	}
	eval(ctx, t, page, `({
		patterns: [...document.querySelectorAll("li.pattern > h3")].map(e => e.textContent),
		scripts: document.scripts.length,
		resources: performance.getEntriesByType("resource").length,
		rows: [...document.querySelectorAll(".items-grid tbody tr")].map(r => r.dataset.item),
		hits: [...document.querySelectorAll(".items-grid tbody tr")].filter(r => getComputedStyle(r).getPropertyValue("--hit").trim() === "1").length,
	})`, &facts)
	var want []string
	for _, p := range d.Model().Patterns {
		want = append(want, p.Name)
	}
	if !slices.Equal(facts.Patterns, want) {
		t.Errorf("patterns listed: %v, want %v", facts.Patterns, want)
	}
	if facts.Scripts != 0 || facts.Resources != 0 {
		t.Errorf("the page has %d script(s) and loaded %d resource(s); it must need neither", facts.Scripts, facts.Resources)
	}
	var items []string
	for _, it := range s.Items {
		items = append(items, it.Name)
	}
	if a, b := slices.Sorted(slices.Values(facts.Rows)), slices.Sorted(slices.Values(items)); !slices.Equal(a, b) {
		t.Errorf("rows %v, want the sample's items %v", a, b)
	}
	if facts.Hits != 0 {
		t.Errorf("%d row(s) highlighted with no read selected", facts.Hits)
	}
	// Every entity's key on every index: the template in its column; on a
	// native index each key attribute in its own ({attr}, the
	// discriminator's value).
	for _, e := range d.Entities {
		for _, k := range e.Keys {
			type cell struct{ attr, want string }
			pk, sk := d.KeyNames(k.Index)
			cells := []cell{{pk, k.PK.String()}, {sk, k.SK.String()}}
			if ix := d.Index(k.Index); ix != nil && ix.Native() {
				cells = nil
				for _, a := range ix.KeyAttributes() {
					want := "{" + a + "}"
					if a == patterns.IndexEntityName(ix.Name) {
						want = e.Tag
					}
					cells = append(cells, cell{a, want})
				}
			}
			for _, c := range cells {
				var got []string
				sel, _ := json.Marshal(fmt.Sprintf(`.layout-grid tr[data-entity=%q] td[data-index=%q][data-attr=%q]`, e.Name, k.Index, c.attr))
				eval(ctx, t, page, fmt.Sprintf(`[...document.querySelectorAll(%s)].map(c => c.textContent)`, sel), &got)
				if len(got) != 1 || got[0] != c.want {
					t.Errorf("%s on %s: %s cell %q, want %q", e.Name, k.Index, c.attr, got, c.want)
				}
			}
		}
	}
}

// selectRead selects a read as a keyboard user would: focus its link,
// press Enter.
func selectRead(ctx context.Context, t *testing.T, page *chromium.Page, i int) {
	t.Helper()
	eval(ctx, t, page, fmt.Sprintf(`document.querySelector('a.read[data-read="%d"]').focus()`, i), nil)
	if err := page.Press(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	if err := page.WaitFor(ctx, fmt.Sprintf(`location.hash === "#read-%d"`, i)); err != nil {
		t.Fatal(err)
	}
}

// checkRead selects read i and compares the highlighted rows, in the
// order their numbers give, with what the read returned and what the
// examples expect.
func checkRead(ctx context.Context, t *testing.T, page *chromium.Page, s *report.Sample, i int, r *report.SampleRead) {
	t.Helper()
	selectRead(ctx, t, page, i)
	type hit struct {
		Item    string  `json:"item"`
		Hit     bool    `json:"hit"`
		Rank    string  `json:"rank"`
		Outline string  `json:"outline"`
		Opacity float64 `json:"opacity,string"`
	}
	var rows []hit
	eval(ctx, t, page, `[...document.querySelectorAll(".items-grid tbody tr")].map(r => {
		const st = getComputedStyle(r);
		return {item: r.dataset.item, hit: st.getPropertyValue("--hit").trim() === "1",
			rank: getComputedStyle(r.querySelector(".rank"), "::after").content,
			outline: st.outlineStyle + " " + st.outlineWidth, opacity: st.opacity};
	})`, &rows)
	raw, _ := json.Marshal(rows)
	byRank := map[int]string{}
	var hits []string
	for _, row := range rows {
		if !row.Hit {
			if row.Opacity >= 1 {
				t.Errorf("%s: row %s is not dimmed", r.Call(), row.Item)
			}
			if row.Rank != "none" {
				t.Errorf("%s: row %s is not returned but numbered %s", r.Call(), row.Item, row.Rank)
			}
			continue
		}
		hits = append(hits, row.Item)
		if row.Outline != "solid 3px" || row.Opacity != 1 {
			t.Errorf("%s: row %s is highlighted in the DOM but drawn %s, opacity %v", r.Call(), row.Item, row.Outline, row.Opacity)
		}
		var n int
		if _, err := fmt.Sscanf(strings.Trim(row.Rank, `"`), "%d", &n); err != nil {
			t.Errorf("%s: row %s has no number (%s)", r.Call(), row.Item, row.Rank)
			continue
		}
		byRank[n] = row.Item
	}
	var ranked []string
	for n := 1; n <= len(byRank); n++ {
		ranked = append(ranked, byRank[n])
	}
	var returned []string // what the runtime returned that the table shows
	names := map[string]bool{}
	for _, it := range s.Items {
		names[it.Name] = true
	}
	for _, n := range r.Items {
		if names[n] {
			returned = append(returned, n)
		}
	}
	if !slices.Equal(ranked, returned) {
		t.Errorf("%s: highlighted in order %v (rows %s), the runtime returned %v", r.Call(), ranked, raw, returned)
	}
	if r.Expected != nil {
		want, got := slices.Clone(r.Expected), slices.Clone(ranked)
		if !r.Ordered {
			slices.Sort(want)
			slices.Sort(got)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: highlighted %v; the examples expect %v", r.Call(), ranked, r.Expected)
		}
	}
	if len(hits) != len(ranked) {
		t.Errorf("%s: %d rows highlighted, %d numbered", r.Call(), len(hits), len(ranked))
	}
}
