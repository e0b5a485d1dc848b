package report_test

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// plan plans a model file, naming it as seen from patterns/, where the
// golden plans began (so their file fields keep their bytes).
func plan(t testing.TB, path string) *patterns.Design {
	t.Helper()
	return keyplantest.DesignNamed(t, path, filepath.ToSlash(strings.TrimPrefix(path, "../")))
}

// The plans of the examples are golden, as JSON and as markdown; rewrite
// with go test ./patterns/report -update.
func TestGoldenPlans(t *testing.T) {
	for _, f := range testmodel.Files(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			d := plan(t, f)
			for _, format := range []report.Format{report.JSON, report.Markdown} {
				var b bytes.Buffer
				if err := report.Write(&b, d, format); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", "plans", name+map[report.Format]string{report.JSON: ".json", report.Markdown: ".md"}[format])
				if *update {
					if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./patterns/report -update)", err)
				}
				if !bytes.Equal(b.Bytes(), want) {
					t.Errorf("%s differs from the plan; rerun with -update if the change is intended\ngot:\n%s", golden, b.String())
				}
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	if f, err := report.ParseFormat("sarif", report.FindingFormats()); err != nil || f != report.SARIF {
		t.Errorf("ParseFormat(sarif) = %q, %v", f, err)
	}
	_, err := report.ParseFormat("sarif", report.PlanFormats())
	if err == nil || err.Error() != `unknown --format "sarif"; expected one of: text, json, markdown` {
		t.Errorf("ParseFormat(sarif) for plans: %v", err)
	}
}

// The text plan's columns line up whatever the names' lengths: each is as
// wide as its longest name (pattern names past 20 characters, entity
// names past 12, index names past 6 pushed the next column).
func TestTextColumnsAlign(t *testing.T) {
	long := "OrdersOfTheCustomerByCreationTime" // 33 characters
	model := `table: Shop
entities:
  CustomerWithAVeryLongName:
    id: [customerId]
    attributes: {customerId: {type: string, maxLength: 20}, email: {type: string, maxLength: 40}}
  Order:
    id: [orderId]
    attributes: {orderId: {type: string, maxLength: 20}, customerId: {type: string, maxLength: 20}, createdAt: time}
patterns:
  GetCustomer: {get: CustomerWithAVeryLongName}
  ByEmail: {get: CustomerWithAVeryLongName, where: [email], unique: true}
  ` + long + `: {query: Order, where: [customerId], sort: createdAt desc}
`
	d := keyplantest.Parse(t, "shop.yaml", []byte(model))
	var b bytes.Buffer
	if err := report.WriteText(&b, d); err != nil {
		t.Fatal(err)
	}
	section := func(name string) []string {
		_, rest, _ := strings.Cut(b.String(), "\n"+name+"\n")
		body, _, _ := strings.Cut(rest, "\n\n")
		return strings.Split(body, "\n")
	}
	// Each line's second and third columns start where the others' do.
	for _, name := range []string{"keys", "patterns"} {
		lines := section(name)
		if len(lines) < 3 {
			t.Fatalf("%s: %q", name, lines)
		}
		col := func(l string, n int) int { // where the nth field (from 0) starts
			at, in := -1, false
			for i, r := range l {
				if r != ' ' && !in {
					if n--; n < 0 {
						return i
					}
				}
				in = r != ' '
				at = i
			}
			return at
		}
		for _, n := range []int{1, 2} {
			want := col(lines[0], n)
			for _, l := range lines[1:] {
				if got := col(l, n); got != want {
					t.Errorf("%s: column %d starts at %d in %q, at %d in %q", name, n+1, got, l, want, lines[0])
				}
			}
		}
	}
}

// The markdown plan lists, under each index, the attributes a read there
// returns: under INCLUDE the ones it projects and those its keys hold, not
// every attribute of the entity.
func TestMarkdownProjectedAttributes(t *testing.T) {
	d := keyplantest.Design(t, "../../examples/leaderboard.yaml")
	var b bytes.Buffer
	if err := report.WriteMarkdown(&b, d); err != nil {
		t.Fatal(err)
	}
	var include *patterns.Index
	for _, ix := range d.Indexes {
		if ix.Projection == patterns.ProjectInclude {
			include = ix
		}
	}
	if include == nil {
		t.Fatal("the leaderboard has no INCLUDE index")
	}
	_, section, _ := strings.Cut(b.String(), "### "+include.Name+" (") // (native keys; projection INCLUDE ...)
	section, _, _ = strings.Cut(section, "\n## ")
	row := ""
	for _, l := range strings.Split(section, "\n") {
		if strings.HasPrefix(l, "| Player |") {
			row = l
		}
	}
	cells := strings.Split(row, " | ")
	if len(cells) < 4 {
		t.Fatalf("no Player row under %s:\n%s", include.Name, section)
	}
	got := strings.TrimSuffix(cells[3], " |")
	// GSI2 INCLUDE (handle); its key and the base key hold season, rating
	// and playerId.
	if want := "playerId, handle, season, rating"; got != want {
		t.Errorf("%s lists %q for Player; it projects %q", include.Name, got, want)
	}
}

// A model keeping values in S3: plan's Markdown (golden,
// testdata/objects/docs.md; -update) and text show cost.objects as the
// JSON has it: the attributes, the PUTs a second (a put stores both, an
// update of body one, a retitle none: 2×2 + 3 = 7) and their monthly
// price.
func TestObjectCostShown(t *testing.T) {
	enginepass.Independent(t)
	d := plan(t, "testdata/objects/docs.yaml")
	o := d.Cost.Objects
	if o == nil || o.PutsPerSecond != 7 {
		t.Fatalf("cost.objects = %+v, want 7 PUTs/s", o)
	}
	var md, js, text bytes.Buffer
	for f, b := range map[report.Format]*bytes.Buffer{report.Markdown: &md, report.JSON: &js, report.Text: &text} {
		if err := report.Write(b, d, f); err != nil {
			t.Fatal(err)
		}
	}
	const mdGolden = "testdata/objects/docs.md"
	if *update {
		if err := os.WriteFile(mdGolden, md.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(mdGolden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(md.Bytes(), want) {
		t.Errorf("%s differs from the plan; rerun with -update if the change is intended\ngot:\n%s", mdGolden, md.String())
	}
	line := fmt.Sprintf("Doc.body, Doc.notes kept in S3 (store: s3): 7 PUTs/s, $%.2f/month beside the table's", o.Monthly)
	for name, b := range map[string]*bytes.Buffer{"markdown": &md, "text": &text} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("the %s plan does not say %q:\n%s", name, line, b.String())
		}
	}
	if !strings.Contains(js.String(), `"objects": {`) {
		t.Errorf("the JSON plan has no objects")
	}
	// The HTML view says it in the cost section (golden docs.html).
	page := htmlOf(t, d, nil)
	golden(t, filepath.Join("testdata", "objects", "docs.html"), []byte(page))
	cost := page[strings.Index(page, `<section id="cost"`):]
	if !strings.Contains(cost[:strings.Index(cost, "</section>")], `<p id="cost-objects">`+html.EscapeString(line)) {
		t.Errorf("the HTML view's cost section does not say %q", line)
	}
}
