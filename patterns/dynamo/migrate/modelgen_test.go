package migrate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// A small model language for the migration property test: a model as Go
// values, rendered to YAML, and random edits of it, each aimed at one
// change rule (KP601–KP612).

type pmAttr struct {
	name, decl  string // decl: the YAML after "name: "
	renamedFrom string
}

type pmEntity struct {
	name    string
	id      []string
	within  string
	version string
	attrs   []*pmAttr
}

type pmPattern struct {
	name, decl string
}

type pmModel struct {
	entities []*pmEntity
	patterns []*pmPattern
	// uses counts the edits made, to name what they add.
	uses int
}

func (m *pmModel) clone() *pmModel {
	c := &pmModel{uses: m.uses}
	for _, e := range m.entities {
		ce := *e
		ce.id = slices.Clone(e.id)
		ce.attrs = nil
		for _, a := range e.attrs {
			ca := *a
			ce.attrs = append(ce.attrs, &ca)
		}
		c.entities = append(c.entities, &ce)
	}
	for _, p := range m.patterns {
		cp := *p
		c.patterns = append(c.patterns, &cp)
	}
	return c
}

func (m *pmModel) entity(name string) *pmEntity {
	for _, e := range m.entities {
		if e.name == name {
			return e
		}
	}
	return nil
}

func (e *pmEntity) attr(name string) *pmAttr {
	for _, a := range e.attrs {
		if a.name == name {
			return a
		}
	}
	return nil
}

func (m *pmModel) pattern(name string) *pmPattern {
	for _, p := range m.patterns {
		if p.name == name {
			return p
		}
	}
	return nil
}

// yaml renders the model.
func (m *pmModel) yaml() string {
	var b strings.Builder
	b.WriteString("table: Prop\nentities:\n")
	for _, e := range m.entities {
		fmt.Fprintf(&b, "  %s:\n    id: [%s]\n", e.name, strings.Join(e.id, ", "))
		if e.within != "" {
			fmt.Fprintf(&b, "    within: %s\n", e.within)
		}
		if e.version != "" {
			fmt.Fprintf(&b, "    version: %s\n", e.version)
		}
		b.WriteString("    attributes:\n")
		for _, a := range e.attrs {
			decl := a.decl
			if a.renamedFrom != "" {
				decl = strings.TrimSuffix(decl, "}") + ", renamedFrom: " + a.renamedFrom + "}"
			}
			fmt.Fprintf(&b, "      %s: %s\n", a.name, decl)
		}
	}
	b.WriteString("patterns:\n")
	for _, p := range m.patterns {
		fmt.Fprintf(&b, "  %s: %s\n", p.name, p.decl)
	}
	return b.String()
}

// propBase is the model the property test starts from: accounts and
// their documents (in the account's collection), a status index, and a
// version on documents.
func propBase() *pmModel {
	return &pmModel{
		entities: []*pmEntity{
			{name: "Account", id: []string{"accountId"}, attrs: []*pmAttr{
				{name: "accountId", decl: "{type: string, maxLength: 40}"},
				{name: "region", decl: "{type: string, values: [na, eu, apac], immutable: true}"},
				{name: "plan", decl: "{type: string, values: [free, pro]}"},
				{name: "name", decl: "{type: string, maxLength: 60}"},
				{name: "score", decl: "{type: number, min: 0, max: 999}"},
				{name: "createdAt", decl: "{type: time}"},
			}},
			{name: "Doc", id: []string{"accountId", "docId"}, within: "Account", version: "rev", attrs: []*pmAttr{
				{name: "accountId", decl: "{type: string, maxLength: 40}"},
				{name: "docId", decl: "{type: string, maxLength: 40}"},
				{name: "title", decl: "{type: string, maxLength: 80}"},
				{name: "status", decl: "{type: string, values: [draft, live, gone]}"},
				{name: "size", decl: "{type: number, min: 0, max: 9999}"},
				{name: "note", decl: "{type: string, maxLength: 40, optional: true}"},
				{name: "updatedAt", decl: "{type: time}"},
				{name: "rev", decl: "{type: number, min: 1}"},
			}},
			{name: "Event", id: []string{"seq"}, attrs: []*pmAttr{
				{name: "seq", decl: "{type: number, min: 0, max: 99999}"},
				{name: "kind", decl: "{type: string, values: [a, b, c]}"},
			}},
		},
		patterns: []*pmPattern{
			{name: "GetAccount", decl: "{get: Account}"},
			{name: "GetEvent", decl: "{get: Event}"},
			{name: "GetDoc", decl: "{get: Doc}"},
			{name: "AccountDocs", decl: "{query: Doc, where: [accountId], sort: updatedAt desc}"},
			{name: "DocsByStatus", decl: "{query: Doc, where: [status], sort: updatedAt, returns: [title]}"},
			{name: "DocsBySize", decl: "{query: Doc, where: [accountId], sort: size}"},
		},
	}
}

// pmEdit is one edit: it changes the model (false: not applicable to
// it) and names the change rule it aims at.
type pmEdit struct {
	rule  string
	apply func(m *pmModel, r *rand.Rand) bool
}

// queryable are attributes a new pattern may read by.
var queryable = map[string][]string{"Account": {"region", "plan", "name", "score", "createdAt"}, "Doc": {"title", "status", "size", "updatedAt"}}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// renames rewrites an attribute name in every pattern's text.
func (m *pmModel) renameIn(old, new string) {
	for _, p := range m.patterns {
		for _, sep := range []string{"[", ", ", "sort: "} {
			for _, end := range []string{"]", ",", " ", "}"} {
				p.decl = strings.ReplaceAll(p.decl, sep+old+end, sep+new+end)
			}
		}
	}
}

var pmEdits = []pmEdit{
	{"KP601", func(m *pmModel, r *rand.Rand) bool { // a new read by an attribute no index serves
		e := pick(r, []string{"Account", "Doc"})
		a := pick(r, queryable[e])
		if m.entity(e).attr(a) == nil {
			return false
		}
		m.uses++
		m.patterns = append(m.patterns, &pmPattern{fmt.Sprintf("By%s%d", strings.ToUpper(a[:1])+a[1:], m.uses), fmt.Sprintf("{query: %s, where: [%s]}", e, a)})
		return true
	}},
	{"KP601", func(m *pmModel, r *rand.Rand) bool { // two new GSIs for one entity
		m.uses++
		m.patterns = append(m.patterns,
			&pmPattern{fmt.Sprintf("DocsByTitle%d", m.uses), "{query: Doc, where: [title]}"},
			&pmPattern{fmt.Sprintf("DocsBySizeAt%d", m.uses), "{query: Doc, where: [size], sort: updatedAt}"})
		return m.entity("Doc").attr("title") != nil && m.entity("Doc").attr("size") != nil
	}},
	{"KP602", func(m *pmModel, r *rand.Rand) bool { // a GSI's only read removed
		i := slices.IndexFunc(m.patterns, func(p *pmPattern) bool { return p.name == "DocsByStatus" })
		if i < 0 {
			return false
		}
		m.patterns = slices.Delete(m.patterns, i, i+1)
		return true
	}},
	{"KP603", func(m *pmModel, r *rand.Rand) bool { // a wider projection
		p := m.pattern("DocsByStatus")
		if p == nil || !strings.Contains(p.decl, "returns: [title]") || m.entity("Doc").attr("note") == nil {
			return false
		}
		p.decl = strings.Replace(p.decl, "returns: [title]", "returns: [title, note]", 1)
		return true
	}},
	{"KP604", func(m *pmModel, r *rand.Rand) bool { // a number in a key widened
		a := m.entity("Doc").attr("size")
		if a == nil || !strings.Contains(a.decl, "max: 9999}") {
			return false
		}
		a.decl = strings.Replace(a.decl, "max: 9999}", "max: 9999999}", 1)
		return true
	}},
	{"KP605", func(m *pmModel, r *rand.Rand) bool { // a key attribute dropped (refused)
		e := m.entity("Doc")
		i := slices.IndexFunc(e.attrs, func(a *pmAttr) bool { return a.name == "status" })
		if i < 0 || m.pattern("DocsByStatus") == nil {
			return false
		}
		e.attrs = slices.Delete(e.attrs, i, i+1)
		m.patterns = slices.DeleteFunc(m.patterns, func(p *pmPattern) bool { return strings.Contains(p.decl, "status") })
		return true
	}},
	{"KP606", func(m *pmModel, r *rand.Rand) bool { // an attribute renamed
		e := m.entity(pick(r, []string{"Account", "Doc"}))
		var cands []*pmAttr
		for _, a := range e.attrs {
			if !slices.Contains(e.id, a.name) && a.name != e.version && a.renamedFrom == "" && a.name != "region" {
				cands = append(cands, a)
			}
		}
		if len(cands) == 0 {
			return false
		}
		a := pick(r, cands)
		old := a.name
		a.name, a.renamedFrom = old+"2", old
		m.renameIn(old, a.name)
		return true
	}},
	{"KP607", func(m *pmModel, r *rand.Rand) bool { // a base key's encoding changed (refused)
		a := m.entity("Event").attr("seq")
		if !strings.Contains(a.decl, "max: 99999}") {
			return false
		}
		a.decl = strings.Replace(a.decl, "max: 99999}", "max: 9999999}", 1)
		return true
	}},
	{"KP608", func(m *pmModel, r *rand.Rand) bool { // a TTL attribute added, or moved
		e := m.entity("Doc")
		if a := e.attr("expiresAt"); a != nil {
			a.name = "purgeAt"
			return true
		}
		if e.attr("purgeAt") != nil {
			return false
		}
		e.attrs = append(e.attrs, &pmAttr{name: "expiresAt", decl: "{type: ttl, optional: true}"})
		return true
	}},
	{"KP610", func(m *pmModel, r *rand.Rand) bool { // a new shape on an existing GSI
		if m.pattern("DocsByStatus") == nil || m.entity("Account").attr("plan") == nil {
			return false
		}
		m.uses++
		m.patterns = append(m.patterns, &pmPattern{fmt.Sprintf("AccountsByPlan%d", m.uses), "{query: Account, where: [plan], sort: createdAt}"})
		return true
	}},
	{"KP611", func(m *pmModel, r *rand.Rand) bool { // a read an existing shape serves
		if m.pattern("AccountDocs") == nil {
			return false
		}
		m.uses++
		m.patterns = append(m.patterns, &pmPattern{fmt.Sprintf("LatestDocs%d", m.uses), "{query: Doc, where: [accountId], sort: updatedAt desc, limit: 5}"})
		return true
	}},
	{"KP612", func(m *pmModel, r *rand.Rand) bool { // a read removed
		for i, p := range m.patterns {
			if strings.HasPrefix(p.name, "LatestDocs") || strings.HasPrefix(p.name, "By") {
				m.patterns = slices.Delete(m.patterns, i, i+1)
				return true
			}
		}
		return false
	}},
}

// randomEdit applies one to three random edits to a copy of m; it
// returns the copy and the rules the edits aim at.
func randomEdit(m *pmModel, r *rand.Rand) (*pmModel, []string) {
	for {
		c := m.clone()
		var rules []string
		for range 1 + r.IntN(3) {
			ed := pick(r, pmEdits)
			if ed.apply(c, r) {
				rules = append(rules, ed.rule)
			}
		}
		if len(rules) > 0 {
			// A pattern an edit added after a rename reads the new name.
			for _, e := range c.entities {
				for _, a := range e.attrs {
					if a.renamedFrom != "" {
						c.renameIn(a.renamedFrom, a.name)
					}
				}
			}
			return c, rules
		}
	}
}

// The edits do what they aim at: over a few seeds every change rule of
// KP601–KP612 shows in some diff (KP609: an edit during a migration),
// and a refused edit leaves the lock as it was.
func TestModelEditsCoverTheChangeRules(t *testing.T) {
	seen := map[string]int{}
	for seed := range 40 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		base := propBase()
		m1, err := model.Parse("v1.yaml", []byte(base.yaml()))
		if err != nil {
			t.Fatalf("%v\n%s", err, base.yaml())
		}
		d1, err := patterns.Plan(m1)
		if err != nil {
			t.Fatal(err)
		}
		lock := patterns.NewLock(d1)
		next, _ := randomEdit(base, r)
		m2, err := model.Parse("v2.yaml", []byte(next.yaml()))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, next.yaml())
		}
		d2, err := patterns.PlanLocked(m2, lock)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		df := patterns.Compare(lock, d2)
		for _, c := range df.Changes {
			seen[c.ID]++
		}
		before, _ := lock.Bytes()
		if err := lock.Apply(d2, df); err != nil {
			if after, _ := lock.Bytes(); string(after) != string(before) {
				t.Errorf("seed %d: a refused edit changed the lock", seed)
			}
			continue
		}
		if lock.Migration == nil {
			continue
		}
		// An edit during the migration is refused.
		again, _ := randomEdit(next, r)
		m3, err := model.Parse("v3.yaml", []byte(again.yaml()))
		if err != nil {
			t.Fatal(err)
		}
		if d3, err := patterns.PlanLocked(m3, lock); err == nil {
			for _, c := range patterns.Compare(lock, d3).Changes {
				seen[c.ID]++
			}
		}
	}
	for i := 601; i <= 612; i++ {
		if id := fmt.Sprintf("KP%d", i); seen[id] == 0 {
			t.Errorf("no edit showed %s (seen %v)", id, seen)
		}
	}
}
