package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns"
)

// WriteDiffHTML writes what deploying a plan over a lock takes as one
// self-contained page: the verdict, the phases as a timeline (what each
// deploy creates and deletes, what is backfilled, the GSIs after it),
// each change beside the phase it concerns, and the other changes
// after them.
func WriteDiffHTML(w io.Writer, model string, df *patterns.Diff) error {
	b := &strings.Builder{}
	head(b, "keyplan diff: "+model, "")
	fmt.Fprintf(b, "<header>\n<h1>Deploying <span class=\"name\">%s</span></h1>\n", esc(model))
	cls := "warn"
	switch {
	case len(df.Errors()) > 0:
		cls = "bad"
	case df.Safe && !df.InProgress():
		cls = "ok"
	}
	fmt.Fprintf(b, "<p class=\"verdict %s\" role=\"status\">%s</p>\n</header>\n", cls, esc(verdict(model, df)))
	b.WriteString(`<main id="main">` + "\n")
	at := changesByPhase(df)
	b.WriteString(`<section id="phases" aria-labelledby="phases-h">` + "\n<h2 id=\"phases-h\">Phases</h2>\n<ol class=\"timeline\">\n")
	b.WriteString(`<li class="now"><div class="step"><div><h3>Deployed now</h3>`)
	if df.First != nil {
		b.WriteString(`<p class="note">nothing (no lock)</p>`)
	} else {
		indexList(b, df.From.Indexes)
	}
	b.WriteString("</div></div></li>\n")
	if f := df.First; f != nil {
		table, _ := firstText(f)
		fmt.Fprintf(b, `<li id="first"><div class="step"><div><h3>First deploy</h3><ul><li><span class="op-create">create</span> %s</li></ul><p class="note">GSIs:</p>`, esc(table))
		indexList(b, f.Indexes)
		b.WriteString("</div></div></li>\n")
	}
	for i, p := range df.Phases {
		fmt.Fprintf(b, `<li id="phase-%d"><div class="step"><div><h3>Deploy %d of %d</h3><ul>`, i+1, i+1, len(df.Phases))
		for _, ix := range p.Create {
			build := ""
			if p.IndexBuild(ix) {
				build = " (index build: DynamoDB fills it from the items' own attributes)"
			}
			fmt.Fprintf(b, `<li><span class="op-create">create</span> %s%s</li>`, esc(ix), esc(build))
		}
		for _, ix := range p.Delete {
			fmt.Fprintf(b, `<li><span class="op-delete">delete</span> %s</li>`, esc(ix))
		}
		for _, e := range p.Backfill {
			fmt.Fprintf(b, `<li><span class="op-backfill">backfill</span> the items of %s (keyplan migrate)</li>`, esc(e))
		}
		if len(p.Create)+len(p.Delete)+len(p.Backfill) == 0 {
			b.WriteString(`<li>table settings only</li>`)
		}
		ttl := "no TTL"
		if p.TTL != "" {
			ttl = "TTL " + p.TTL
		}
		fmt.Fprintf(b, `<li>%s</li></ul><p class="note">GSIs after it:</p>`, esc(ttl))
		indexList(b, p.Indexes)
		b.WriteString("</div><div>")
		changeList(b, at[i], "Changes this deploy carries")
		b.WriteString("</div></div></li>\n")
	}
	if len(df.Phases) > 0 {
		b.WriteString(`<li class="done"><h3>Done</h3><p>The table holds the new design; keyplan lock records it.</p></li>` + "\n")
	}
	b.WriteString("</ol>\n</section>\n")
	if rest := at[-1]; len(rest) > 0 {
		b.WriteString(`<section id="changes" aria-labelledby="changes-h">` + "\n<h2 id=\"changes-h\">Other changes</h2>\n")
		changeList(b, rest, "")
		b.WriteString("</section>\n")
	}
	b.WriteString("</main>\n")
	foot(b)
	_, err := io.WriteString(w, b.String())
	return err
}

// changesByPhase places each change beside the phase that carries it: a
// GSI's creation or deletion where the GSI is created or deleted, an
// entity's backfill where it is first backfilled; -1 holds the rest.
func changesByPhase(df *patterns.Diff) map[int][]patterns.Change {
	out := map[int][]patterns.Change{}
	for _, c := range df.Changes {
		at := -1
		for i, p := range df.Phases {
			switch c.Subject.Kind {
			case patterns.SubjectIndex:
				if slices.Contains(p.Create, c.Subject.Name) || slices.Contains(p.Delete, c.Subject.Name) {
					at = i
				}
			case patterns.SubjectEntity:
				if slices.Contains(p.Backfill, c.Subject.Name) {
					at = i
				}
			}
			if at >= 0 {
				break
			}
		}
		out[at] = append(out[at], c)
	}
	return out
}

func indexList(b *strings.Builder, ixs []*patterns.PhaseIndex) {
	if len(ixs) == 0 {
		b.WriteString(`<p class="note">no GSI</p>`)
		return
	}
	b.WriteString(`<ul>`)
	for _, ix := range ixs {
		fmt.Fprintf(b, `<li><code>%s</code></li>`, esc(indexText(ix)))
	}
	b.WriteString(`</ul>`)
}

func changeList(b *strings.Builder, cs []patterns.Change, title string) {
	if len(cs) == 0 {
		return
	}
	if title != "" {
		fmt.Fprintf(b, `<p class="note">%s:</p>`, esc(title))
	}
	b.WriteString(`<ul class="findings">`)
	for _, c := range cs {
		fmt.Fprintf(b, `<li class="finding %s"><span class="sev">%s</span> <span class="rule">%s</span> %s: %s</li>`,
			esc(string(c.Severity)), esc(string(c.Severity)), esc(c.ID), esc(c.Subject.String()), esc(c.Message))
	}
	b.WriteString("</ul>")
}
