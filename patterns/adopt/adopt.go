package adopt

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// ErrInvalid is matched by every error about an unusable source (a
// Workbench file, a table).
var ErrInvalid = errors.New("invalid import source")

// Error names the source and the field of an unusable one.
type Error struct {
	File  string
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.File + ": " + e.Msg
	}
	return e.File + ": " + e.Field + ": " + e.Msg
}

// Is makes *Error match ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Note is something the import could not carry over as it was, or
// inferred: the output says it as a comment.
type Note struct {
	// Subject is what it is about: "entity Subscription", "attribute TTL".
	Subject string
	Text    string
	// Guess is true when the import inferred something the source does
	// not say (a key template from sample values, an entity from key
	// shapes).
	Guess bool
	// Question is true when the source cannot say it at all (what the
	// entities of an empty table are): the user answers it in the model.
	Question bool
}

func (n Note) String() string {
	kind := "note"
	switch {
	case n.Question:
		kind = "question"
	case n.Guess:
		kind = "guess"
	}
	return kind + ": " + n.Subject + ": " + n.Text
}

// Imported is a model made from a source.
type Imported struct {
	// YAML is the keyplan model file, its notes as comments at the top.
	YAML  []byte
	Notes []Note
}

// Guesses counts the notes that are guesses (Note.Guess).
func (im *Imported) Guesses() int {
	n := 0
	for _, x := range im.Notes {
		if x.Guess || x.Question {
			n++
		}
	}
	return n
}

// Loads says why the model made does not load (nil when it does): names
// the source gives that clash in keyplan, say. The user fixes the model
// printed.
func (im *Imported) Loads() error {
	_, err := model.Parse("imported.yaml", im.YAML)
	return err
}

// Table is what the inference reads: a table's keys and GSIs, the types
// its source declares, its items (in facets where the source names its
// entities), and the declarations keyplan's own export carried.
type Table struct {
	Name string
	// PK and SK are the base key's attributes (SK "" for none).
	PK, SK  string
	Indexes []Index
	// Types are the attributes' declared DynamoDB types (S, N, BOOL, M,
	// ...), where the source declares them.
	Types  map[string]string
	Facets []Facet
	// Items are the items outside facets.
	Items []patterns.LiveItem
	// Declarations are what keyplan's export carried, by entity (nil for
	// another source).
	Declarations map[string]*EntityDecl
	// Source names the source in errors (a file, a table), Field the
	// table in it ("DataModel[Shop]"; "" for the source itself) and
	// ItemsField its items ("TableData"); Origin says where the model is
	// imported from in its first comment ("shop.json (NoSQL Workbench
	// table Shop)"), Noun what the source is in the notes ("the file").
	Source, Field, ItemsField, Origin, Noun string
	// Notes are the source's own, said before the inference's.
	Notes []Note
	// TTL is the table's TTL attribute ("" for none) when TTLKnown: the
	// source says it (DescribeTimeToLive). Otherwise a number named like
	// one (ttl, expiresAt) is taken for it, a guess.
	TTL      string
	TTLKnown bool
	// Expect asks for examples.expect from the items (the reference
	// evaluator's answers to the inferred reads), for keyplan validate
	// --existing; Complete says the items are the whole table (else only
	// the gets are expected).
	Expect, Complete bool
}

// Index is a GSI of the table.
type Index struct {
	Name             string
	PK, SK           string
	Projection       patterns.Projection
	NonKeyAttributes []string
}

// Facet is one kind of item the source names: its key aliases (what the
// base keys mean for it), its attributes and its items.
type Facet struct {
	Name       string
	Alias      Alias
	Attributes []string
	Items      []patterns.LiveItem
}

// Alias names a facet's base keys (Workbench's KeyAttributeAlias): a
// keyplan template every item agrees with, or names of the parts.
type Alias struct {
	PartitionKeyAlias string
	SortKeyAlias      string
}

// Infer makes a keyplan model of a table: an entity per facet (or, with
// no facets, per shape of key the items have), hand-made keys whose
// templates are inferred from the items' key values (a facet's key
// aliases win where they are templates the items agree with), the items
// as examples.items, and patterns inferred from the keys (a get by each
// entity's id, a query per GSI key and per item collection), every guess
// said in a note.
func Infer(t *Table) (*Imported, error) {
	im := &importer{t: t, notes: slices.Clone(t.Notes)}
	return im.run()
}

type importer struct {
	t     *Table
	notes []Note
	ents  []*entity
	// indexes are the base table's and each GSI's key attributes, under
	// keyplan's index names.
	indexes []index
}

type index struct {
	name   string // keyplan's index name ("table" for the base table)
	pk, sk string // the source's key attribute names
	// projection and nonKey are a GSI's projection in the source.
	projection patterns.Projection
	nonKey     []string
}

type entity struct {
	name    string
	alias   Alias
	samples []map[string]sampleValue
	attrs   []*attr
	keys    map[string][2]string // index -> pk, sk templates
	id      []string
	// made lists attributes made from key parts (no item attribute held them).
	made map[string]bool
	// when holds, per GSI, the constants its sparse key is written on.
	when map[string][]model.Const
}

type sampleValue struct {
	typ  string // S, N, BOOL, or another DynamoDB type (kept out)
	text string
}

type attr struct {
	name string // keyplan's name
	from string // the attribute as the items hold it
	typ  model.AttrType
	min  *int64
	max  *int64
	// decl is what keyplan's export declared (nil: a file keyplan did not
	// write, or an attribute it did not declare).
	decl *AttrDecl
}

func (im *importer) note(subject string, guess bool, format string, args ...any) {
	im.notes = append(im.notes, Note{Subject: subject, Text: fmt.Sprintf(format, args...), Guess: guess})
}

func (im *importer) run() (*Imported, error) {
	t := im.t
	im.indexes = []index{{name: model.BaseIndex, pk: t.PK, sk: t.SK}}
	if t.PK != model.TablePK || t.SK != model.TableSK {
		im.note("table "+t.Name, false, "its keys %s/%s become keyplan's %s/%s (same values, keyplan's names)", t.PK, orNone(t.SK), model.TablePK, model.TableSK)
	}
	for _, g := range t.Indexes {
		name := g.Name
		if !model.ValidTableName(name) {
			name = sanitizeIndex(name)
			im.note("index "+g.Name, false, "renamed %s: an index name is 3-255 of [a-zA-Z0-9_.-]", name)
		}
		im.indexes = append(im.indexes, index{name, g.PK, g.SK, g.Projection, g.NonKeyAttributes})
		pkName, skName := model.IndexKeyNames(name)
		if g.PK != pkName || g.SK != skName {
			im.note("index "+name, false, "its keys %s/%s become keyplan's %s/%s, holding the same values (keyplan names a GSI's key attributes after the GSI)", g.PK, orNone(g.SK), pkName, skName)
		}
		if g.Projection != "" && g.Projection != patterns.ProjectAll {
			im.note("index "+name, true, "it projects %s: keyplan derives a GSI's projection from what the patterns on it return, so the reads inferred on it return what it projects; a read that needs more needs a new index (keyplan diff says so)", (&patterns.Index{Projection: g.Projection, NonKeyAttributes: g.NonKeyAttributes}).ProjectionText())
		}
	}
	im.entities()
	held := 0 // the values' bytes: the model holds each at least once
	for _, e := range im.ents {
		for _, s := range e.samples {
			for _, v := range s {
				held += len(v.text)
			}
		}
	}
	if held > model.MaxModelBytes {
		return nil, im.tooBig()
	}
	if len(im.ents) == 0 && t.Expect {
		return im.raw()
	}
	if len(im.ents) == 0 {
		return nil, &Error{File: t.Source, Field: t.Field, Msg: "has no facets and no items (" + t.ItemsField + "): nothing says what its entities are"}
	}
	for _, e := range im.ents {
		im.attributes(e)
		im.declareAttrs(e)
		im.inferKeys(e)
		im.declareID(e)
		// A range given to a number to match a key stays only on numbers
		// a key holds.
		keyed := map[string]bool{}
		for _, k := range e.keys {
			for _, t := range k {
				for _, a := range keyAttrs(t) {
					keyed[a] = true
				}
			}
		}
		for _, a := range e.attrs {
			if !keyed[a.name] && a.decl == nil {
				a.min, a.max = nil, nil
			}
		}
	}
	return im.emit()
}

// tooBig is the error of a file whose model would be larger than the
// loader takes.
func (im *importer) tooBig() error {
	return &Error{File: im.t.Source, Field: im.t.Field, Msg: fmt.Sprintf(
		"the model it makes is larger than the %d MB keyplan loads: import a model with fewer or smaller items", model.MaxModelBytes>>20)}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// entities makes an entity per facet (with its items), and groups items
// outside facets by the shape of their keys.
func (im *importer) entities() {
	t := im.t
	used := map[string]bool{}
	for _, f := range t.Facets {
		e := &entity{name: im.entityName(f.Name, used), alias: f.Alias}
		for _, it := range f.Items {
			e.samples = append(e.samples, sample(it))
		}
		for _, a := range f.Attributes {
			e.attrs = append(e.attrs, &attr{from: a})
		}
		im.ents = append(im.ents, e)
	}
	if len(t.Items) == 0 {
		return
	}
	groups := map[string]*entity{}
	var order []string
	for _, it := range t.Items {
		s := sample(it)
		sig := im.shape(s)
		e := groups[sig]
		if e == nil {
			e = &entity{}
			groups[sig] = e
			order = append(order, sig)
		}
		e.samples = append(e.samples, s)
	}
	for _, sig := range order {
		e := groups[sig]
		e.name = im.entityName(im.groupName(e), used)
		im.note("entity "+e.name, true, "%s has no facets: %d item(s) whose keys have the shape %s are taken as one entity, named from their keys", im.t.Noun, len(e.samples), sig)
		im.ents = append(im.ents, e)
	}
}

// sample reads an item's scalar values.
// sample copies an item's values (the inference adds to them).
func sample(it patterns.LiveItem) map[string]sampleValue {
	s := make(map[string]sampleValue, len(it))
	for name, v := range it {
		s[name] = sampleValue{typ: v.Type, text: v.Text}
	}
	return s
}

// shape is the kind of key an item has: per base key attribute, its
// number of '#' parts and its first part when that is a word.
func (im *importer) shape(s map[string]sampleValue) string {
	var out []string
	for _, k := range []string{im.indexes[0].pk, im.indexes[0].sk} {
		if k == "" {
			continue
		}
		v, ok := s[k]
		if !ok {
			out = append(out, "-")
			continue
		}
		parts := strings.Split(v.text, "#")
		lead := "*"
		if isWord(parts[0]) {
			lead = parts[0]
		}
		out = append(out, fmt.Sprintf("%s#…(%d parts)", lead, len(parts)))
	}
	return strings.Join(out, " / ")
}

// isWord: letters only (a tag such as ORDER, meta, "info").
func isWord(s string) bool {
	s = strings.Trim(s, `"`)
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && r != '_' {
			return false
		}
	}
	return true
}

// groupName names a group of items from the words of their keys, else
// from the letters their partition keys start with.
func (im *importer) groupName(e *entity) string {
	var words []string
	for _, k := range []string{im.indexes[0].pk, im.indexes[0].sk} {
		v, ok := e.samples[0][k]
		if !ok {
			continue
		}
		if lead := strings.Split(v.text, "#")[0]; isWord(lead) {
			words = append(words, strings.Trim(lead, `"`))
		} else if k == im.indexes[0].pk {
			var prefix []rune
			for _, r := range v.text {
				if !unicode.IsLetter(r) {
					break
				}
				prefix = append(prefix, r)
			}
			if len(prefix) > 1 {
				words = append(words, string(prefix))
			}
		}
	}
	name := ""
	for _, w := range words {
		if !strings.EqualFold(name, w) {
			name += capitalize(w)
		}
	}
	if name == "" {
		name = "Item"
	}
	return name
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// entityName makes a valid, unused entity name.
func (im *importer) entityName(name string, used map[string]bool) string {
	n := sanitize(name)
	if n != name {
		im.note("entity "+n, false, "named %s: %q is not a keyplan name (letters, digits, _)", n, name)
	}
	base := n
	for i := 2; used[strings.ToUpper(n)]; i++ {
		n = base + strconv.Itoa(i)
	}
	used[strings.ToUpper(n)] = true
	return n
}

// sanitize makes a keyplan name: letters, digits and _, starting with a
// letter.
func sanitize(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r < 128 && unicode.IsLetter(r):
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

func sanitizeIndex(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '.' || r == '-' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	for b.Len() < 3 {
		b.WriteByte('_')
	}
	return b.String()
}

// keyAttr reports whether a Workbench attribute is a key attribute only
// (the base table's, or a GSI's named for its GSI, as keyplan names
// them, or a native GSI's discriminator): not an attribute of the entity.
func (im *importer) keyAttr(name string) bool {
	for i, ix := range im.indexes {
		if i == 0 && (name == ix.pk || name == ix.sk) {
			return true
		}
		pk, sk := model.IndexKeyNames(ix.name)
		if i > 0 && (name == pk && ix.pk == pk || name == sk && ix.sk == sk || name == patterns.IndexEntityName(ix.name)) {
			return true // a native index's discriminator (keyplan's export) is a key's too
		}
	}
	return false
}

// attributes lists an entity's attributes: the facet's, then those its
// items hold, typed from the table's declarations (and, for strings that
// all are times in keyplan's form, as times); values keyplan cannot hold
// (maps, lists, sets, binary) are left out, said in a note.
func (im *importer) attributes(e *entity) {
	seen := map[string]bool{}
	var names []string
	for _, a := range e.attrs {
		if !seen[a.from] {
			seen[a.from] = true
			names = append(names, a.from)
		}
	}
	var more []string
	for _, s := range e.samples {
		for n := range s {
			if !seen[n] {
				seen[n] = true
				more = append(more, n)
			}
		}
	}
	sort.Strings(more)
	names = append(names, more...)
	e.attrs = nil
	e.made = map[string]bool{}
	taken := map[string]bool{}
	for _, n := range names {
		if im.keyAttr(n) {
			continue
		}
		if model.ReservedAttr(n) {
			im.note("entity "+e.name, false, "attribute %s is left out: keyplan's keys use that name (an index's key attribute), and the table has no such index: a GSI deleted, its keys left on the items?", n)
			continue
		}
		typ := im.t.Types[n]
		if typ == "" {
			typ = im.typeOf(e, n)
		}
		if typ == "" {
			typ = "S"
		}
		a := &attr{from: n, name: sanitize(n)}
		for i := 2; taken[a.name]; i++ {
			a.name = sanitize(n) + strconv.Itoa(i)
		}
		taken[a.name] = true
		if a.name != n {
			im.note("entity "+e.name, false, "attribute %q is named %s: a keyplan name is letters, digits and _", n, a.name)
		}
		switch typ {
		case "S":
			a.typ = model.TypeString
			if im.allTimes(e, n) {
				a.typ = model.TypeTime
			}
		case "N":
			a.typ = model.TypeNumber
			if im.t.TTLKnown && n == im.t.TTL {
				a.typ = model.TypeTTL
			} else if l := strings.ToLower(n); !im.t.TTLKnown && (l == "ttl" || strings.HasSuffix(l, "_ttl") || l == "expiresat" || l == "expires_at") {
				a.typ = model.TypeTTL
				im.note("entity "+e.name, true, "number %s is taken as the table's TTL attribute (epoch seconds), by its name", n)
			}
		case "BOOL":
			a.typ = model.TypeBool
		default:
			im.note("entity "+e.name, false, "attribute %s (%s) is left out, with its values: keyplan's attributes are strings, numbers, times and bools", n, typ)
			continue
		}
		e.attrs = append(e.attrs, a)
	}
}

// typeOf is the DynamoDB type most of an entity's items hold an
// attribute as; the items that hold it as another lose it (an example
// item cannot hold two types of one attribute), which a note says.
func (im *importer) typeOf(e *entity, n string) string {
	count := map[string]int{}
	var order []string
	for _, s := range e.samples {
		if v, ok := s[n]; ok {
			if count[v.typ] == 0 {
				order = append(order, v.typ)
			}
			count[v.typ]++
		}
	}
	best := ""
	for _, t := range order {
		if count[t] > count[best] {
			best = t
		}
	}
	if len(order) > 1 {
		dropped := 0
		for _, s := range e.samples {
			if v, ok := s[n]; ok && v.typ != best {
				delete(s, n)
				dropped++
			}
		}
		im.note("entity "+e.name, false, "attribute %s is held as %s by %d item(s) and as another type by %d: it is typed %s, and left out of the examples of the others (keyplan's attributes have one type)", n, best, count[best], dropped, best)
	}
	return best
}

// allTimes reports whether every sample value of an attribute is a time
// in keyplan's fixed-width form (so it can be a time and keep its bytes).
func (im *importer) allTimes(e *entity, n string) bool {
	found := false
	for _, s := range e.samples {
		v, ok := s[n]
		if !ok {
			continue
		}
		t, err := time.Parse(model.TimeLayout, v.text)
		if err != nil || t.Format(model.TimeLayout) != v.text {
			return false
		}
		found = true
	}
	return found
}

func (e *entity) attr(name string) *attr {
	for _, a := range e.attrs {
		if a.name == name {
			return a
		}
	}
	return nil
}

// value is an attribute's value in a sample, as text ("" and false when
// the sample lacks it).
func (e *entity) value(s map[string]sampleValue, a *attr) (string, bool) {
	v, ok := s[a.from]
	if !ok || v.typ != "S" && v.typ != "N" && v.typ != "BOOL" {
		return "", false
	}
	if v.typ == "S" && v.text == "" {
		return "", false // keyplan holds no empty string (Attribute.Check): no value, the attribute optional
	}
	return v.text, true
}

// encode renders a value as keyplan writes it in a key.
func (a *attr) encode(v string) (string, bool) {
	pa := &model.Attribute{Name: a.name, Type: a.typ, Min: a.min, Max: a.max}
	if a.decl != nil {
		pa.Digits = a.decl.Digits
	}
	var x any = v
	if a.typ == model.TypeNumber {
		x = json.Number(v)
	}
	s, err := pa.EncodeKey(x)
	return s, err == nil
}
