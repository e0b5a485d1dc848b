package report

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// HTML is the format of the design as a picture: one self-contained page
// (WriteHTML, WriteDiffHTML).
const HTML Format = "html"

// Sample is what the HTML view fills its table with: items as keyplan's
// runtime writes them (key attributes included) and reads of the patterns
// over them, each with the items it returned. The page shows what it is
// given and computes nothing: package patterns/view builds a Sample by
// running the runtime on an engine, so the highlighted rows are what a
// read returns, not what the page thinks it should.
type Sample struct {
	// Source says where the items come from, e.g. "the examples of
	// examples/shop.yaml" or "120 items generated with seed 7".
	Source string
	// Engine names what ran the reads, e.g. "keyplan's runtime on the
	// in-process engine".
	Engine string
	Items  []*SampleItem
	Reads  []*SampleRead
}

// SampleItem is one item of the sample.
type SampleItem struct {
	// Name identifies the item on the page and in SampleRead.Items.
	Name   string
	Entity string
	// Attrs are the item's attributes as stored, by name: the base table's
	// and each GSI's key attributes it holds, and the entity's attributes.
	// A GSI key the item does not hold is absent (the index is sparse).
	Attrs map[string]string
	// Err says why the runtime could not write the item ("" when it did).
	Err string
}

// SampleRead is one read of a pattern.
type SampleRead struct {
	Pattern string
	// Params are the read's parameters, in the order the pattern names them.
	Params []Param
	// From says where the parameters come from ("examples.expect at
	// shop.yaml:88:7", "item o1").
	From string
	// Items name what the read returned, in the order returned; an item
	// that is not one of the sample's is named by its entity and key.
	Items []string
	// Expected are the items the examples expect back; nil when they
	// expect nothing for these parameters.
	Expected []string
	// Ordered is true when the order of Items matters (the pattern sorts).
	Ordered bool
	// Err is why the read failed ("" when it did not).
	Err string
	// Number is what a pattern that returns a number (a count, a
	// counter's sum) returned, instead of Items; ExpectedNumber what the
	// examples expect (nil: nothing).
	Number, ExpectedNumber *int64
}

// Param is one parameter of a read.
type Param struct{ Name, Value string }

// Matches reports whether the read returned what the examples expect: in
// order when Ordered, as a set otherwise. A read with no expectation
// matches nothing.
func (r *SampleRead) Matches() bool {
	if r.ExpectedNumber != nil {
		return r.Err == "" && r.Number != nil && *r.Number == *r.ExpectedNumber
	}
	if r.Expected == nil || r.Err != "" {
		return false
	}
	if r.Ordered {
		return slices.Equal(r.Items, r.Expected)
	}
	a, b := slices.Clone(r.Items), slices.Clone(r.Expected)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Call renders the read as Pattern(a=1, b=2).
func (r *SampleRead) Call() string {
	ps := make([]string, len(r.Params))
	for i, p := range r.Params {
		ps[i] = p.Name + "=" + p.Value
	}
	return r.Pattern + "(" + strings.Join(ps, ", ") + ")"
}

// esc escapes text for HTML (element content and double-quoted
// attributes), with control characters made visible first.
func esc(s string) string { return html.EscapeString(model.Printable(s)) }

// palette holds the entities' colours (fill, border), readable with dark
// text and distinct from each other; entities beyond it reuse it in order.
var palette = [][2]string{
	{"#dbeafe", "#2563eb"}, {"#dcfce7", "#16a34a"}, {"#fef3c7", "#d97706"}, {"#fce7f3", "#db2777"},
	{"#ede9fe", "#7c3aed"}, {"#ccfbf1", "#0d9488"}, {"#ffe4e6", "#e11d48"}, {"#e0f2fe", "#0284c7"},
	{"#ecfccb", "#65a30d"}, {"#fae8ff", "#c026d3"}, {"#ffedd5", "#ea580c"}, {"#e2e8f0", "#475569"},
}

// keyColumn is one key attribute of the table: the base table's or a GSI's.
type keyColumn struct {
	attr  string
	index string
	sk    bool
	// native: attr is one of a native index's key attributes (the
	// item's own, or its discriminator).
	native bool
}

// page holds what the parts of a page share.
type page struct {
	d       *patterns.Design
	s       *Sample
	cols    []keyColumn
	color   map[string]int // entity -> palette entry
	items   []*SampleItem  // in the base table's order
	rowOf   map[string]int // item name -> row
	readsOf map[string][]int
}

func newPage(d *patterns.Design, s *Sample) *page {
	if s == nil {
		s = &Sample{}
	}
	pg := &page{d: d, s: s, color: map[string]int{}, rowOf: map[string]int{}, readsOf: map[string][]int{}}
	pg.cols = []keyColumn{{d.PK, model.BaseIndex, false, false}, {d.SK, model.BaseIndex, true, false}}
	for _, ix := range d.SecondaryIndexes() {
		if ix.Local() {
			pg.cols = append(pg.cols, keyColumn{ix.SK, ix.Name, true, false}) // its partition key is the table's
			continue
		}
		if !ix.Native() {
			pg.cols = append(pg.cols, keyColumn{ix.PK, ix.Name, false, false}, keyColumn{ix.SK, ix.Name, true, false})
			continue
		}
		for _, a := range ix.PartitionKeys {
			pg.cols = append(pg.cols, keyColumn{a, ix.Name, false, true})
		}
		for _, a := range ix.SortKeys {
			pg.cols = append(pg.cols, keyColumn{a, ix.Name, true, true})
		}
	}
	for i, e := range entitiesInOrder(d) {
		pg.color[e.Name] = i % len(palette)
	}
	// The base table's order: by partition key, then sort key (bytes, as
	// DynamoDB orders strings); items the runtime could not write last.
	pg.items = slices.Clone(s.Items)
	slices.SortStableFunc(pg.items, func(a, b *SampleItem) int {
		if (a.Err == "") != (b.Err == "") {
			if a.Err == "" {
				return -1
			}
			return 1
		}
		return cmp.Or(strings.Compare(a.Attrs[d.PK], b.Attrs[d.PK]), strings.Compare(a.Attrs[d.SK], b.Attrs[d.SK]))
	})
	for i, it := range pg.items {
		if _, dup := pg.rowOf[it.Name]; !dup {
			pg.rowOf[it.Name] = i
		}
	}
	for i, r := range s.Reads {
		pg.readsOf[r.Pattern] = append(pg.readsOf[r.Pattern], i)
	}
	return pg
}

// WriteHTML writes the design as one self-contained HTML page: the table
// as the seeds draw it (a column per key attribute, a row per sample
// item, each entity in its colour), the key layout, every pattern with
// its index and key condition, the indexes with their projections, the
// findings beside what they concern, and the cost estimate. Selecting a
// read of a pattern (a link: click, or Tab and Enter) highlights the
// items it returned, in order: the page holds each read's result as a CSS
// rule on :target, so it needs no script, and without CSS every read
// still lists its items as text. The sample may be nil (no items).
func WriteHTML(w io.Writer, d *patterns.Design, s *Sample) error {
	pg := newPage(d, s)
	b := &strings.Builder{}
	title := "keyplan: " + d.Table
	head(b, title, pg.highlightCSS())
	pg.header(b)
	b.WriteString(`<div class="layout">` + "\n")
	pg.patternsPanel(b)
	b.WriteString(`<main id="main">` + "\n")
	pg.layoutTable(b)
	pg.itemsTable(b)
	pg.entities(b)
	pg.indexes(b)
	pg.findings(b)
	pg.cost(b)
	b.WriteString("</main>\n</div>\n")
	foot(b)
	_, err := io.WriteString(w, b.String())
	return err
}

func head(b *strings.Builder, title, extraCSS string) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	// No request leaves the page: nothing external, and the policy says so.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n")
	fmt.Fprintf(b, "<title>%s</title>\n<style>\n%s", esc(title), pageCSS)
	for i, c := range palette {
		fmt.Fprintf(b, ".e%d{--fill:%s;--edge:%s}\n", i, c[0], c[1])
	}
	b.WriteString(extraCSS)
	b.WriteString("</style>\n</head>\n<body>\n")
	b.WriteString(`<a class="skip" href="#main">Skip to the table</a>` + "\n")
}

func foot(b *strings.Builder) {
	b.WriteString("<footer>Written by keyplan. The page is self-contained: no script, no request.</footer>\n</body>\n</html>\n")
}

// highlightCSS is the selection: for each read, the rows it returned (with
// their rank) and the key columns of the index it read, shown while the
// read's link is the page's :target.
func (pg *page) highlightCSS() string {
	var b strings.Builder
	for i, r := range pg.s.Reads {
		sel := fmt.Sprintf("body:has(#read-%d:target)", i)
		var rows []string
		for _, name := range r.Items {
			if row, ok := pg.rowOf[name]; ok {
				rows = append(rows, fmt.Sprintf("#row-%d", row))
			}
		}
		if len(rows) > 0 {
			fmt.Fprintf(&b, "%s :is(%s){--hit:1;opacity:1;outline:3px solid var(--edge);outline-offset:-3px;background:var(--fill)}\n", sel, strings.Join(rows, ","))
			for rank, name := range r.Items {
				if row, ok := pg.rowOf[name]; ok {
					fmt.Fprintf(&b, "%s #row-%d .rank::after{content:\"%d\"}\n", sel, row, rank+1)
				}
			}
		}
		if pp := pg.d.Pattern(r.Pattern); pp != nil && pp.Served() {
			var cols []string
			for c, col := range pg.cols {
				if col.index == pp.Index {
					cols = append(cols, fmt.Sprintf(".col-%d", c))
				}
			}
			if len(cols) > 0 {
				fmt.Fprintf(&b, "%s :is(%s){background:var(--sel-col)}\n", sel, strings.Join(cols, ","))
			}
		}
		fmt.Fprintf(&b, "%s #cap-%d{display:block}\n", sel, i)
	}
	return b.String()
}

func (pg *page) header(b *strings.Builder) {
	d := pg.d
	mode := "designed by keyplan"
	if d.Explicit {
		mode = "hand-made layout, checked by keyplan"
	}
	errs, warns := 0, 0
	for _, x := range d.Diagnostics {
		switch x.Severity {
		case patterns.SeverityError:
			errs++
		case patterns.SeverityWarning:
			warns++
		}
	}
	fmt.Fprintf(b, "<header>\n<h1>Table <span class=\"name\">%s</span></h1>\n<p class=\"facts\">", esc(d.Table))
	facts := []string{esc(mode), fmt.Sprintf("keys <code>%s</code> / <code>%s</code>", esc(d.PK), esc(d.SK))}
	if d.TTL != "" {
		facts = append(facts, "TTL <code>"+esc(d.TTL)+"</code>")
	}
	facts = append(facts, esc(gsiLine(d)))
	verdict := `<span class="ok">no findings</span>`
	if errs+warns > 0 {
		verdict = fmt.Sprintf(`<a href="#findings" class="%s">%d error(s), %d warning(s)</a>`, map[bool]string{true: "bad", false: "warn"}[errs > 0], errs, warns)
	}
	facts = append(facts, verdict)
	if c := d.Cost; c != nil {
		facts = append(facts, fmt.Sprintf(`<a href="#cost">$%.2f/month on-demand, $%.2f provisioned</a>`, c.OnDemand, c.Provisioned))
	}
	b.WriteString(strings.Join(facts, ` <span class="sep" aria-hidden="true">·</span> `))
	b.WriteString("</p>\n")
	if src := d.Source; src != "" {
		fmt.Fprintf(b, "<p class=\"src\">from <code>%s</code></p>\n", esc(src))
	}
	b.WriteString(`<nav aria-label="Sections"><a href="#patterns">Patterns</a> <a href="#layout">Key layout</a> <a href="#items">Items</a> <a href="#entities">Entities</a> <a href="#indexes">Indexes</a> <a href="#findings">Findings</a> <a href="#cost">Cost</a></nav>` + "\n")
	pg.tableFindings(b)
	b.WriteString("</header>\n")
}

// tableFindings shows the findings about the table as a whole.
func (pg *page) tableFindings(b *strings.Builder) {
	pg.findingsAbout(b, patterns.SubjectTable, pg.d.Table)
}

// findingsAbout writes the findings about one subject, beside it.
func (pg *page) findingsAbout(b *strings.Builder, kind patterns.SubjectKind, name string) {
	var out []string
	for _, x := range pg.d.Diagnostics {
		if x.Subject.Kind != kind || x.Subject.Name != name {
			continue
		}
		out = append(out, finding(x))
	}
	if len(out) > 0 {
		b.WriteString(`<ul class="findings">` + strings.Join(out, "") + "</ul>\n")
	}
}

func finding(x patterns.Diagnostic) string {
	s := fmt.Sprintf(`<li class="finding %s"><span class="sev">%s</span> <span class="rule">%s</span> %s`, esc(string(x.Severity)), esc(string(x.Severity)), esc(x.ID), esc(x.Message))
	if x.Fix != "" {
		s += ` <span class="fix">Fix: ` + esc(x.Fix) + `</span>`
	}
	if at := x.Pos.In(x.File); at != "" {
		s += ` <span class="at">` + esc(at) + `</span>`
	}
	return s + "</li>"
}

func (pg *page) entityChip(name string) string {
	return fmt.Sprintf(`<span class="chip e%d">%s</span>`, pg.color[name], esc(name))
}

func (pg *page) patternsPanel(b *strings.Builder) {
	d := pg.d
	b.WriteString(`<aside id="patterns" aria-labelledby="patterns-h">` + "\n")
	b.WriteString(`<h2 id="patterns-h">Access patterns</h2>` + "\n")
	if len(pg.s.Reads) > 0 {
		b.WriteString(`<p class="hint">Select a read to see the items it returns in the table, numbered in the order returned. <a href="#items" class="clear">Clear</a></p>` + "\n")
	}
	b.WriteString(`<ol class="patterns">` + "\n")
	costs := map[string]*patterns.PatternCost{}
	if d.Cost != nil {
		for _, c := range d.Cost.Patterns {
			costs[c.Name] = c
		}
	}
	for _, p := range patternsInOrder(d) {
		fmt.Fprintf(b, `<li class="pattern" id="pattern-%s">`, esc(p.Name))
		fmt.Fprintf(b, `<h3>%s</h3>`, esc(p.Name))
		var ents []string
		for _, e := range p.Entities {
			ents = append(ents, pg.entityChip(e))
		}
		fmt.Fprintf(b, `<p class="reads-of">%s</p>`, strings.Join(ents, " "))
		if !p.Served() {
			fmt.Fprintf(b, `<p class="op scan"><span class="badge bad">not served</span> %s</p>`, esc(p.Reason))
		} else {
			ix := p.Index
			if ix == model.BaseIndex {
				ix = "base table"
			}
			fmt.Fprintf(b, `<p class="op"><span class="badge">%s</span> <span class="badge ix">%s</span>`, esc(string(p.Operation)), esc(ix))
			if p.Requests > 1 {
				fmt.Fprintf(b, ` <span class="badge">%d requests</span>`, p.Requests)
			}
			b.WriteString("</p>")
			fmt.Fprintf(b, `<p class="cond"><code>%s</code>%s</p>`, esc(p.Text), esc(extras(p)))
		}
		if c := costs[p.Name]; c != nil && c.Rate > 0 {
			fmt.Fprintf(b, `<p class="pcost">%g read unit(s) a read × %g/s = %g units/s</p>`, c.ReadUnits, c.Rate, c.UnitsPerSecond)
		}
		pg.findingsAbout(b, patterns.SubjectPattern, p.Name)
		if rs := pg.readsOf[p.Name]; len(rs) > 0 {
			b.WriteString(`<ul class="reads">`)
			for _, i := range rs {
				pg.read(b, i)
			}
			b.WriteString("</ul>")
		} else if p.Served() && len(pg.s.Items) > 0 {
			b.WriteString(`<p class="noread">No read: neither the examples nor a sample item give its parameters.</p>`)
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ol>\n</aside>\n")
}

// read writes one read's link, with its result as text.
func (pg *page) read(b *strings.Builder, i int) {
	r := pg.s.Reads[i]
	var params []string
	for _, p := range r.Params {
		params = append(params, esc(p.Name)+"="+esc(p.Value))
	}
	label := strings.Join(params, ", ")
	if label == "" {
		label = "(no parameters)"
	}
	// The target is a fixed, empty span: selecting a read does not scroll
	// the page away from the table.
	fmt.Fprintf(b, `<li><span class="tgt" id="read-%d"></span><a class="read" href="#read-%d" data-read="%d" data-pattern="%s">%s</a>`, i, i, i, esc(r.Pattern), label)
	switch {
	case r.Err != "":
		fmt.Fprintf(b, ` <span class="bad">failed: %s</span>`, esc(r.Err))
	case r.Number != nil:
		fmt.Fprintf(b, ` <span class="result">→ %d</span>`, *r.Number)
		switch {
		case r.ExpectedNumber == nil:
		case r.Matches():
			b.WriteString(` <span class="ok" title="the examples expect exactly this">✓ as expected</span>`)
		default:
			fmt.Fprintf(b, ` <span class="bad">✗ the examples expect %d</span>`, *r.ExpectedNumber)
		}
	default:
		names := make([]string, len(r.Items))
		for j, n := range r.Items {
			names[j] = esc(n)
		}
		order := ""
		if r.Ordered && len(r.Items) > 1 {
			order = " in order"
		}
		fmt.Fprintf(b, ` <span class="result">→ %d item(s)%s<span class="names">: %s</span></span>`, len(r.Items), order, strings.Join(names, ", "))
		switch {
		case r.Expected == nil:
		case r.Matches():
			b.WriteString(` <span class="ok" title="the examples expect exactly these">✓ as expected</span>`)
		default:
			exp := make([]string, len(r.Expected))
			for j, n := range r.Expected {
				exp[j] = esc(n)
			}
			fmt.Fprintf(b, ` <span class="bad">✗ the examples expect %s</span>`, strings.Join(exp, ", "))
		}
	}
	if r.From != "" {
		fmt.Fprintf(b, ` <span class="from">(%s)</span>`, esc(r.From))
	}
	b.WriteString("</li>")
}

// layoutTable is the key layout as the seeds draw it: an entity a row, a
// key attribute a column, its template in the cell.
func (pg *page) layoutTable(b *strings.Builder) {
	d := pg.d
	b.WriteString(`<section id="layout" aria-labelledby="layout-h">` + "\n<h2 id=\"layout-h\">Key layout</h2>\n")
	b.WriteString(`<div class="scroll"><table class="grid layout-grid">` + "\n")
	pg.columnHeads(b, "Entity", "Sparse on")
	b.WriteString("<tbody>\n")
	for _, e := range entitiesInOrder(d) {
		fmt.Fprintf(b, `<tr class="e%d" data-entity="%s"><th scope="row">%s</th>`, pg.color[e.Name], esc(e.Name), pg.entityChip(e.Name))
		var sparse []string
		for c, col := range pg.cols {
			k := e.Key(col.index)
			if k == nil {
				fmt.Fprintf(b, `<td class="key none col-%d" title="%s is not on %s"><span class="vh">none</span></td>`, c, esc(e.Name), esc(indexLabel(col.index)))
				continue
			}
			t := k.PK
			if col.sk {
				t = k.SK
			}
			cell := template(t)
			if col.native {
				cell = `<var>{` + esc(col.attr) + `}</var>`
				if col.attr == patterns.IndexEntityName(col.index) {
					cell = esc(e.Tag)
				}
			}
			fmt.Fprintf(b, `<td class="key col-%d" data-index="%s" data-attr="%s"><code>%s</code></td>`, c, esc(col.index), esc(col.attr), cell)
			if col.sk && len(k.When) > 0 {
				sparse = append(sparse, esc(col.index)+": only "+esc(consts(k.When)))
			}
		}
		fmt.Fprintf(b, "<td class=\"attrs\">%s</td></tr>\n", strings.Join(sparse, "<br>"))
	}
	b.WriteString("</tbody></table></div>\n</section>\n")
}

func consts(cs []model.Const) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Attr + "=" + c.Value
	}
	return strings.Join(parts, ", ")
}

// template writes a key template with its placeholders marked.
func template(t model.Template) string {
	var b strings.Builder
	for _, s := range t {
		switch {
		case s.Attr != "":
			b.WriteString(`<var>{` + esc(s.Attr) + `}</var>`)
		case s.Shards > 0:
			fmt.Fprintf(&b, `<var>{shard:%d}</var>`, s.Shards)
		default:
			b.WriteString(esc(s.Lit))
		}
	}
	return b.String()
}

func indexLabel(index string) string {
	if index == model.BaseIndex {
		return "the base table"
	}
	return index
}

func (pg *page) columnHeads(b *strings.Builder, first, last string) {
	b.WriteString("<thead><tr>")
	fmt.Fprintf(b, `<th scope="col">%s</th>`, first)
	for c, col := range pg.cols {
		cls := "gsi"
		if col.index == model.BaseIndex {
			cls = "base"
		}
		ix := col.index
		if ix == model.BaseIndex {
			ix = "base"
		}
		fmt.Fprintf(b, `<th scope="col" class="%s col-%d" data-index="%s"><span class="ixname">%s</span>%s</th>`, cls, c, esc(col.index), esc(ix), esc(col.attr))
	}
	fmt.Fprintf(b, "<th scope=\"col\">%s</th></tr></thead>\n", last)
}

// itemsTable is the table as DynamoDB holds it: a row per item in the
// base table's order, a column per key attribute, the rest in one cell.
func (pg *page) itemsTable(b *strings.Builder) {
	d := pg.d
	b.WriteString(`<section id="items" aria-labelledby="items-h">` + "\n<h2 id=\"items-h\">Items</h2>\n")
	if len(pg.items) == 0 {
		b.WriteString(`<p class="note">No sample items: the model has no examples.items.</p>` + "\n</section>\n")
		return
	}
	var about []string
	if pg.s.Source != "" {
		about = append(about, esc(pg.s.Source))
	}
	if pg.s.Engine != "" {
		about = append(about, "read by "+esc(pg.s.Engine))
	}
	if len(about) > 0 {
		fmt.Fprintf(b, "<p class=\"note\">%d item(s): %s. Hatched cells: the item is not on that index (sparse).</p>\n", len(pg.items), strings.Join(about, "; "))
	}
	for i, r := range pg.s.Reads {
		if r.Number != nil {
			fmt.Fprintf(b, `<p class="caption" id="cap-%d" role="status">Showing <strong>%s</strong>: it returns %d, not items`, i, esc(r.Call()), *r.Number)
		} else {
			fmt.Fprintf(b, `<p class="caption" id="cap-%d" role="status">Showing <strong>%s</strong>: %d item(s)`, i, esc(r.Call()), len(r.Items))
		}
		if r.Ordered && len(r.Items) > 1 {
			b.WriteString(", numbered in the order returned")
		}
		if pp := d.Pattern(r.Pattern); pp != nil && pp.Served() {
			fmt.Fprintf(b, "; read from %s", esc(indexLabel(pp.Index)))
		}
		b.WriteString(".</p>\n")
	}
	b.WriteString(`<div class="scroll"><table class="grid items-grid">` + "\n")
	pg.columnHeads(b, "Item", "Attributes")
	b.WriteString("<tbody>\n")
	prevPK := ""
	for row, it := range pg.items {
		cls := fmt.Sprintf("item e%d", pg.color[it.Entity])
		if row > 0 && it.Attrs[d.PK] != prevPK {
			cls += " newpart"
		}
		prevPK = it.Attrs[d.PK]
		fmt.Fprintf(b, `<tr class="%s" id="row-%d" data-item="%s" data-entity="%s">`, cls, row, esc(it.Name), esc(it.Entity))
		fmt.Fprintf(b, `<th scope="row"><span class="rank" aria-hidden="true"></span>%s <span class="iname">%s</span></th>`, pg.entityChip(it.Entity), esc(it.Name))
		keyAttrs := map[string]bool{}
		for c, col := range pg.cols {
			keyAttrs[col.attr] = true
			v, ok := it.Attrs[col.attr]
			if !ok {
				fmt.Fprintf(b, `<td class="key none col-%d" title="not on %s"><span class="vh">none</span></td>`, c, esc(indexLabel(col.index)))
				continue
			}
			fmt.Fprintf(b, `<td class="key col-%d">%s</td>`, c, esc(v))
		}
		b.WriteString(`<td class="attrs">`)
		if it.Err != "" {
			fmt.Fprintf(b, `<span class="bad">not written: %s</span>`, esc(it.Err))
		}
		var names []string
		for n := range it.Attrs {
			if !keyAttrs[n] {
				names = append(names, n)
			}
		}
		names = pg.attrOrder(it.Entity, names)
		for _, n := range names {
			fmt.Fprintf(b, ` <span class="av"><span class="an">%s</span>=%s</span>`, esc(n), esc(it.Attrs[n]))
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</tbody></table></div>\n</section>\n")
}

// attrOrder orders an item's attribute names as its entity declares them
// (others after, by name).
func (pg *page) attrOrder(entity string, names []string) []string {
	pos := map[string]int{}
	if m := pg.d.Model(); m != nil {
		if e := m.Entity(entity); e != nil {
			for i, a := range e.Attributes {
				pos[a.Name] = i + 1
			}
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		pa, pb := pos[a], pos[b]
		switch {
		case pa > 0 && pb > 0:
			return pa - pb
		case pa > 0:
			return -1
		case pb > 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
}

func (pg *page) entities(b *strings.Builder) {
	d := pg.d
	m := d.Model()
	b.WriteString(`<section id="entities" aria-labelledby="entities-h">` + "\n<h2 id=\"entities-h\">Entities</h2>\n<div class=\"cards\">\n")
	costs := map[string]*patterns.EntityCost{}
	if d.Cost != nil {
		for _, c := range d.Cost.Entities {
			costs[c.Name] = c
		}
	}
	for _, ek := range entitiesInOrder(d) {
		fmt.Fprintf(b, `<div class="card e%d" id="entity-%s"><h3>%s</h3>`, pg.color[ek.Name], esc(ek.Name), pg.entityChip(ek.Name))
		if m != nil {
			if e := m.Entity(ek.Name); e != nil {
				fmt.Fprintf(b, `<p>id <code>%s</code>`, esc(strings.Join(e.ID, ", ")))
				if e.Within != "" {
					fmt.Fprintf(b, `, within %s`, pg.entityChip(e.Within))
				}
				b.WriteString("</p>")
				b.WriteString(`<ul class="attrlist">`)
				for _, a := range e.Attributes {
					fmt.Fprintf(b, `<li><code>%s</code> %s</li>`, esc(a.Name), esc(attrType(a)))
				}
				b.WriteString("</ul>")
			}
		}
		b.WriteString(`<table class="keys"><thead><tr><th scope="col">Index</th><th scope="col">Partition key</th><th scope="col">Sort key</th></tr></thead><tbody>`)
		for _, k := range ek.Keys {
			if ix := d.Index(k.Index); ix != nil && ix.Native() {
				pk, sk := d.KeyCells(ek.Name, k)
				fmt.Fprintf(b, `<tr><th scope="row">%s</th><td>native: <code>%s</code></td><td><code>%s</code></td></tr>`,
					esc(indexLabel(k.Index)), esc(pk), esc(sk))
				continue
			}
			pk, sk := d.KeyNames(k.Index)
			fmt.Fprintf(b, `<tr><th scope="row">%s</th><td>%s = <code>%s</code></td><td>%s = <code>%s</code>%s</td></tr>`,
				esc(indexLabel(k.Index)), esc(pk), template(k.PK), esc(sk), template(k.SK), esc(when(k.When)))
		}
		b.WriteString("</tbody></table>")
		if c := costs[ek.Name]; c != nil {
			fmt.Fprintf(b, `<p class="pcost">%d bytes an item; a write costs %g unit(s) over %d index write(s)`, c.ItemBytes, c.WriteUnits, c.Amplification)
			if c.Rate > 0 {
				fmt.Fprintf(b, `; × %g/s = %g units/s`, c.Rate, c.UnitsPerSecond)
			}
			b.WriteString("</p>")
		}
		pg.findingsAbout(b, patterns.SubjectEntity, ek.Name)
		b.WriteString("</div>\n")
	}
	b.WriteString("</div>\n</section>\n")
}

// attrType is an attribute's declared type in the model's words.
func attrType(a *model.Attribute) string {
	s := string(a.Type)
	var more []string
	if len(a.Values) > 0 {
		more = append(more, "one of "+strings.Join(a.Values, ", "))
	}
	if a.Min != nil && a.Max != nil {
		more = append(more, fmt.Sprintf("%d..%d", *a.Min, *a.Max))
	}
	if a.Digits > 0 {
		more = append(more, fmt.Sprintf("%d digits", a.Digits))
	}
	if a.Cardinality > 0 {
		more = append(more, fmt.Sprintf("%d values", a.Cardinality))
	}
	if a.MaxLength > 0 {
		more = append(more, fmt.Sprintf("≤ %d bytes", a.MaxLength))
	}
	if a.Optional {
		more = append(more, "optional")
	}
	if a.Immutable {
		more = append(more, "immutable")
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, "; ") + ")"
	}
	return s
}

func (pg *page) indexes(b *strings.Builder) {
	d := pg.d
	b.WriteString(`<section id="indexes" aria-labelledby="indexes-h">` + "\n<h2 id=\"indexes-h\">Indexes</h2>\n")
	b.WriteString(`<table class="plain"><thead><tr><th scope="col">Index</th><th scope="col">Keys</th><th scope="col">Projection</th><th scope="col">Entities</th><th scope="col">Patterns</th></tr></thead><tbody>` + "\n")
	names := []string{model.BaseIndex}
	for _, ix := range d.SecondaryIndexes() {
		names = append(names, ix.Name)
	}
	for _, name := range names {
		pk, sk := d.KeyNames(name)
		proj := "every attribute"
		var ents []string
		if ix := d.Index(name); ix != nil {
			proj = ix.ProjectionText()
			for _, e := range ix.Entities {
				ents = append(ents, pg.entityChip(e))
			}
		} else {
			for _, e := range entitiesInOrder(d) {
				ents = append(ents, pg.entityChip(e.Name))
			}
		}
		var pats []string
		for _, p := range patternsInOrder(d) {
			if p.Served() && p.Index == name {
				pats = append(pats, fmt.Sprintf(`<a href="#pattern-%s">%s</a>`, esc(p.Name), esc(p.Name)))
			}
		}
		keys := fmt.Sprintf(`<code>%s</code> / <code>%s</code>`, esc(pk), esc(sk))
		if ix := d.Index(name); ix != nil && ix.Local() {
			keys += ` <span class="why">local secondary index: the table's partition key; strongly consistent reads; in the table's capacity</span>`
		}
		if ix := d.Index(name); ix != nil && ix.Native() {
			keys = `native: <code>` + esc(ix.KeyText()) + `</code>`
			for _, c := range d.Keying {
				if c.Index == name {
					keys += ` <span class="why">` + esc(c.Why) + `</span>`
				}
			}
		}
		fmt.Fprintf(b, `<tr id="index-%s"><th scope="row">%s</th><td>%s</td><td>%s</td><td>%s</td><td>%s`,
			esc(name), esc(indexLabel(name)), keys, esc(proj), strings.Join(ents, " "), strings.Join(pats, ", "))
		if name != model.BaseIndex {
			pg.findingsAbout(b, patterns.SubjectIndex, name)
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</tbody></table>\n</section>\n")
}

// findings lists every finding (those beside their subject too, so the
// list is complete in one place).
func (pg *page) findings(b *strings.Builder) {
	d := pg.d
	b.WriteString(`<section id="findings" aria-labelledby="findings-h">` + "\n<h2 id=\"findings-h\">Findings</h2>\n")
	if len(d.Diagnostics) == 0 {
		b.WriteString("<p class=\"ok\">No findings.</p>\n</section>\n")
		return
	}
	b.WriteString(`<table class="plain"><thead><tr><th scope="col">Id</th><th scope="col">Severity</th><th scope="col">Subject</th><th scope="col">Finding</th></tr></thead><tbody>` + "\n")
	for _, x := range d.Diagnostics {
		subject := esc(x.Subject.String())
		switch x.Subject.Kind {
		case patterns.SubjectPattern:
			subject = fmt.Sprintf(`<a href="#pattern-%s">%s</a>`, esc(x.Subject.Name), subject)
		case patterns.SubjectEntity:
			subject = fmt.Sprintf(`<a href="#entity-%s">%s</a>`, esc(x.Subject.Name), subject)
		case patterns.SubjectIndex:
			subject = fmt.Sprintf(`<a href="#index-%s">%s</a>`, esc(x.Subject.Name), subject)
		}
		msg := esc(x.Message)
		if x.Fix != "" {
			msg += ` <span class="fix">Fix: ` + esc(x.Fix) + `</span>`
		}
		if at := x.Pos.In(x.File); at != "" {
			msg += ` <span class="at">` + esc(at) + `</span>`
		}
		fmt.Fprintf(b, `<tr class="finding %s"><td>%s</td><td class="sev">%s</td><td>%s</td><td>%s</td></tr>`+"\n", esc(string(x.Severity)), esc(x.ID), esc(string(x.Severity)), subject, msg)
	}
	b.WriteString("</tbody></table>\n</section>\n")
}

func (pg *page) cost(b *strings.Builder) {
	d := pg.d
	c := d.Cost
	b.WriteString(`<section id="cost" aria-labelledby="cost-h">` + "\n<h2 id=\"cost-h\">Cost estimate</h2>\n")
	if c == nil {
		b.WriteString("<p>No estimate.</p>\n</section>\n")
		return
	}
	fmt.Fprintf(b, "<p class=\"big\"><strong>$%.2f/month on-demand</strong>, <strong>$%.2f/month provisioned</strong> (at %d%% utilization, each index sized on its own; us-east-1 prices): %.1f read units/s, %.1f write units/s.</p>\n",
		c.OnDemand, c.Provisioned, patterns.TargetUtilizationPercent, c.ReadUnits, c.WriteUnits)
	b.WriteString(`<table class="plain num"><thead><tr><th scope="col">Pattern</th><th scope="col">Index</th><th scope="col">Item bytes</th><th scope="col">Items</th><th scope="col">Read units/read</th><th scope="col">Rate/s</th><th scope="col">Units/s</th></tr></thead><tbody>` + "\n")
	for _, p := range inModelOrder(c.Patterns, patternNames(d), func(p *patterns.PatternCost) string { return p.Name }) {
		fmt.Fprintf(b, "<tr><th scope=\"row\">%s</th><td>%s</td><td>%d</td><td>%d</td><td>%g</td><td>%g</td><td>%g</td></tr>\n", esc(p.Name), esc(p.Index), p.ItemBytes, p.Items, p.ReadUnits, p.Rate, p.UnitsPerSecond)
	}
	b.WriteString("</tbody></table>\n")
	if len(c.Writes) > 0 {
		b.WriteString(`<table class="plain num"><thead><tr><th scope="col">Write</th><th scope="col">Items</th><th scope="col">GSI writes</th><th scope="col">Write units/write</th><th scope="col">Writes/s</th><th scope="col">Units/s</th></tr></thead><tbody>` + "\n")
		for _, w := range c.Writes {
			fmt.Fprintf(b, "<tr><th scope=\"row\">%s</th><td>%d</td><td>%d</td><td>%g</td><td>%g</td><td>%g</td></tr>\n", esc(w.Name), w.Items, w.Indexes, w.WriteUnits, w.Rate, w.UnitsPerSecond)
		}
		b.WriteString("</tbody></table>\n")
	}
	if len(c.Entities) > 0 {
		b.WriteString(`<table class="plain num"><thead><tr><th scope="col">Entity</th><th scope="col">Item bytes</th><th scope="col">Write amplification</th><th scope="col">Write units/write</th><th scope="col">Writes/s</th><th scope="col">Units/s</th></tr></thead><tbody>` + "\n")
		for _, e := range inModelOrder(c.Entities, entityNames(d), func(e *patterns.EntityCost) string { return e.Name }) {
			fmt.Fprintf(b, "<tr><th scope=\"row\">%s</th><td>%d</td><td>%d</td><td>%g</td><td>%g</td><td>%g</td></tr>\n", pg.entityChip(e.Name), e.ItemBytes, e.Amplification, e.WriteUnits, e.Rate, e.UnitsPerSecond)
		}
		b.WriteString("</tbody></table>\n")
	}
	if o := c.Objects; o != nil {
		b.WriteString(`<p id="cost-objects">` + esc(o.Summary()) + ".</p>\n")
	}
	if g := c.AllRegions; g != nil {
		fmt.Fprintf(b, "<p>With %s: %.1f replicated write units/s, <strong>$%.2f/month on-demand</strong>, <strong>$%.2f/month provisioned</strong>, all regions.</p>\n",
			esc(g.Summary()), g.ReplicatedWriteUnits, g.OnDemand, g.Provisioned)
	}
	if len(c.Assumptions) > 0 {
		b.WriteString("<p class=\"note\">Assumed: " + esc(strings.Join(c.Assumptions, "; ")) + ".</p>\n")
	}
	b.WriteString("</section>\n")
}
