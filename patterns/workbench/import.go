package workbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/keyplan/keyplan/patterns"
)

// ErrInvalid is matched by every error about an unusable Workbench file.
var ErrInvalid = errors.New("invalid NoSQL Workbench model")

// Error names the file and the field of an unusable Workbench model.
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

// ImportOptions tune an import.
type ImportOptions struct {
	// Table names the table to import from a model of several (default:
	// the only one).
	Table string
}

// Note is something the import could not carry over as it was, or
// inferred: the output says it as a comment.
type Note struct {
	// Subject is what it is about: "entity Subscription", "attribute TTL".
	Subject string
	Text    string
	// Guess is true when the import inferred something the file does not
	// say (a key template from sample values, an entity from key shapes).
	Guess bool
}

func (n Note) String() string {
	kind := "note"
	if n.Guess {
		kind = "guess"
	}
	return kind + ": " + n.Subject + ": " + n.Text
}

// Imported is a Workbench model made a keyplan model.
type Imported struct {
	// YAML is the keyplan model file, its notes as comments at the top.
	YAML  []byte
	Notes []Note
}

// Import reads a Workbench data model and makes a keyplan model of one of
// its tables: an entity per facet (or, with no facets, per shape of key
// the items have), hand-made keys whose templates are inferred from the
// items' key values (a facet's key aliases win where they are templates
// the items agree with), the items as examples.items, and patterns
// inferred from the keys (a get by each entity's id, a query per GSI key
// and per item collection), every guess said in a note. The file lists no
// access patterns (the public models have none), so the user replaces the
// inferred ones with the application's questions.
func Import(file string, data []byte, o ImportOptions) (*Imported, error) {
	if err := precheck(file, data); err != nil {
		return nil, err
	}
	var wb Model
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&wb); err != nil {
		return nil, &Error{File: file, Msg: jsonError(data, err)}
	}
	if len(wb.DataModel) == 0 {
		return nil, &Error{File: file, Field: "DataModel", Msg: "expected at least one table"}
	}
	var t *Table
	var names []string
	for i, x := range wb.DataModel {
		if x == nil {
			return nil, &Error{File: file, Field: fmt.Sprintf("DataModel[%d]", i), Msg: "expected a table, found null"}
		}
		names = append(names, x.TableName)
		if x.TableName == o.Table || (o.Table == "" && len(wb.DataModel) == 1) {
			t = x
		}
	}
	if t == nil {
		if o.Table == "" {
			return nil, &Error{File: file, Field: "DataModel", Msg: fmt.Sprintf("holds %d tables (%s); name the one to import", len(names), strings.Join(names, ", "))}
		}
		return nil, &Error{File: file, Field: "DataModel", Msg: fmt.Sprintf("no table %q; the model holds %s", o.Table, strings.Join(names, ", "))}
	}
	im := &importer{file: file, t: t}
	if err := im.check(); err != nil {
		return nil, err
	}
	decls, err := readDeclarations(wb.ModelMetadata.Description)
	if err != nil {
		im.note("the model's description", false, "%v: the declarations are inferred instead", err)
	}
	im.decls = decls
	if decls == nil {
		im.note("attributes", false, "the file declares no enum values, string lengths or number ranges (a Workbench model has no field for them; keyplan's own export carries them in its description): declare values, maxLength and min/max where the application has them, or keyplan cannot prove key sizes and cardinalities")
	}
	return im.run()
}

// precheck refuses, before the file is parsed, what the model made of it
// could not hold: more than MaxFileBytes, or more than MaxItems items. The
// items are counted by reading the JSON's tokens, keeping none of them:
// time and memory bounded by the file's size, not by what it holds. A file
// that is not JSON is left to the parse, which says where.
func precheck(file string, data []byte) error {
	if len(data) > MaxFileBytes {
		return &Error{File: file, Msg: fmt.Sprintf("larger than %d MB, which is the most keyplan imports (the model it makes must stay under the %d MB keyplan loads)",
			MaxFileBytes>>20, patterns.MaxModelBytes>>20)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	// stack holds, per open container, whether it is an object (and then
	// whether its next token is a key) and whether it is a TableData array.
	type level struct{ object, key, items bool }
	var stack []level
	done := func() { // a value ended: its object's next token is a key
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
	}
	lastKey, items := "", 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or a syntax error the parse reports
		}
		n := len(stack)
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:n-1]
			done()
			continue
		}
		if n > 0 && stack[n-1].object && stack[n-1].key {
			lastKey, _ = tok.(string)
			stack[n-1].key = false
			continue
		}
		if n > 0 && stack[n-1].items {
			if items++; items > MaxItems {
				return &Error{File: file, Field: "TableData", Msg: fmt.Sprintf("more than %d items; keyplan imports at most %d (each becomes an example of the model, which must stay under the %d MB keyplan loads): import a smaller sample",
					MaxItems, MaxItems, patterns.MaxModelBytes>>20)}
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{object: true, key: true})
		case json.Delim('['):
			stack = append(stack, level{items: n > 0 && stack[n-1].object && lastKey == "TableData"})
		default:
			done()
		}
	}
}

// jsonError says where a JSON syntax or type error is.
func jsonError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			return fmt.Sprintf("%s: %s: expected %s, found JSON %s", position(data, off), te.Field, te.Type, te.Value)
		}
	}
	if off >= 0 {
		return position(data, off) + ": " + err.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return position(data, int64(len(data))) + ": the file ends inside the JSON (unexpected end of the file)"
	}
	return "not a NoSQL Workbench model (JSON): " + err.Error()
}

func position(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("%d:%d", line, col)
}

type importer struct {
	file  string
	t     *Table
	notes []Note
	// declared types of the table's attributes (S, N, BOOL, M, ...).
	types map[string]string
	ents  []*entity
	// keyName maps a Workbench key attribute to keyplan's index name.
	indexes []index
	// decls are the declarations keyplan's export carried, by entity
	// (readDeclarations; nil for another file).
	decls map[string]*entityDecl
}

type index struct {
	name   string // keyplan's index name ("table" for the base table)
	pk, sk string // the Workbench key attribute names
}

type entity struct {
	name    string
	alias   KeyAlias
	samples []map[string]sampleValue
	attrs   []*attr
	keys    map[string][2]string // index -> pk, sk templates
	id      []string
	// made lists attributes made from key parts (no item attribute held them).
	made map[string]bool
}

type sampleValue struct {
	typ  string // S, N, BOOL, or another DynamoDB type (kept out)
	text string
}

type attr struct {
	name string // keyplan's name
	from string // the Workbench attribute
	typ  patterns.AttrType
	min  *int64
	max  *int64
	// decl is what keyplan's export declared (nil: a file keyplan did not
	// write, or an attribute it did not declare).
	decl *attrDecl
}

func (im *importer) note(subject string, guess bool, format string, args ...any) {
	im.notes = append(im.notes, Note{Subject: subject, Text: fmt.Sprintf(format, args...), Guess: guess})
}

// check refuses what cannot be a table.
func (im *importer) check() error {
	t := im.t
	field := "DataModel[" + t.TableName + "]"
	if t.TableName == "" {
		return &Error{File: im.file, Field: "DataModel.TableName", Msg: "missing; expected the table's name"}
	}
	if t.KeyAttributes.PartitionKey.AttributeName == "" {
		return &Error{File: im.file, Field: field + ".KeyAttributes.PartitionKey.AttributeName", Msg: "missing; expected the partition key's attribute name"}
	}
	for i, g := range t.GlobalSecondaryIndexes {
		if g == nil || g.IndexName == "" || g.KeyAttributes.PartitionKey.AttributeName == "" {
			return &Error{File: im.file, Field: fmt.Sprintf("%s.GlobalSecondaryIndexes[%d]", field, i), Msg: "expected an IndexName and KeyAttributes.PartitionKey"}
		}
	}
	for i, f := range t.TableFacets {
		if f == nil || f.FacetName == "" {
			return &Error{File: im.file, Field: fmt.Sprintf("%s.TableFacets[%d].FacetName", field, i), Msg: "missing; expected the facet's name"}
		}
	}
	return nil
}

func (im *importer) run() (*Imported, error) {
	t := im.t
	im.types = map[string]string{}
	for _, a := range t.NonKeyAttributes {
		im.types[a.AttributeName] = a.AttributeType
	}
	sk := ""
	if t.KeyAttributes.SortKey != nil {
		sk = t.KeyAttributes.SortKey.AttributeName
	}
	im.indexes = []index{{patterns.BaseIndex, t.KeyAttributes.PartitionKey.AttributeName, sk}}
	if pk := t.KeyAttributes.PartitionKey.AttributeName; pk != patterns.TablePK || sk != patterns.TableSK {
		im.note("table "+t.TableName, false, "its keys %s/%s become keyplan's %s/%s (same values, keyplan's names)", pk, orNone(sk), patterns.TablePK, patterns.TableSK)
	}
	for _, g := range t.GlobalSecondaryIndexes {
		gsk := ""
		if g.KeyAttributes.SortKey != nil {
			gsk = g.KeyAttributes.SortKey.AttributeName
		}
		name := g.IndexName
		if !patterns.ValidTableName(name) {
			name = sanitizeIndex(name)
			im.note("index "+g.IndexName, false, "renamed %s: an index name is 3-255 of [a-zA-Z0-9_.-]", name)
		}
		im.indexes = append(im.indexes, index{name, g.KeyAttributes.PartitionKey.AttributeName, gsk})
		pkName, skName := patterns.IndexKeyNames(name)
		if g.KeyAttributes.PartitionKey.AttributeName != pkName || gsk != skName {
			im.note("index "+name, false, "its keys %s/%s become keyplan's %s/%s, holding the same values (keyplan names a GSI's key attributes after the GSI)", g.KeyAttributes.PartitionKey.AttributeName, orNone(gsk), pkName, skName)
		}
		if g.Projection.ProjectionType != "" && g.Projection.ProjectionType != string(patterns.ProjectAll) {
			im.note("index "+name, false, "its projection %s %s is not carried over: keyplan derives a GSI's projection from what the patterns return", g.Projection.ProjectionType, strings.Join(g.Projection.NonKeyAttributes, ", "))
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
	if held > patterns.MaxModelBytes {
		return nil, im.tooBig()
	}
	if len(im.ents) == 0 {
		return nil, &Error{File: im.file, Field: "DataModel[" + t.TableName + "]", Msg: "has no facets and no items (TableData): nothing says what its entities are"}
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
	return &Error{File: im.file, Field: "DataModel[" + im.t.TableName + "]", Msg: fmt.Sprintf(
		"the model it makes is larger than the %d MB keyplan loads: import a model with fewer or smaller items", patterns.MaxModelBytes>>20)}
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
	for _, f := range t.TableFacets {
		e := &entity{name: im.entityName(f.FacetName, used), alias: f.KeyAttributeAlias}
		for _, it := range f.TableData {
			e.samples = append(e.samples, im.sample(it))
		}
		for _, a := range f.NonKeyAttributes {
			e.attrs = append(e.attrs, &attr{from: a})
		}
		im.ents = append(im.ents, e)
	}
	if len(t.TableData) == 0 {
		return
	}
	groups := map[string]*entity{}
	var order []string
	for _, it := range t.TableData {
		s := im.sample(it)
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
		im.note("entity "+e.name, true, "the file has no facets: %d item(s) whose keys have the shape %s are taken as one entity, named from their keys", len(e.samples), sig)
		im.ents = append(im.ents, e)
	}
}

// sample reads an item's scalar values.
func (im *importer) sample(it Item) map[string]sampleValue {
	s := map[string]sampleValue{}
	for name, v := range it {
		for typ, raw := range v {
			sv := sampleValue{typ: typ}
			switch typ {
			case "S", "N":
				var str string
				if json.Unmarshal(raw, &str) != nil {
					str = strings.TrimSpace(string(raw)) // a bare number
				}
				sv.text = str
			case "BOOL":
				var b bool
				_ = json.Unmarshal(raw, &b)
				sv.text = strconv.FormatBool(b)
			default:
				sv.text = string(raw)
			}
			s[name] = sv
		}
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
		pk, sk := patterns.IndexKeyNames(ix.name)
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
		typ := im.types[n]
		for _, s := range e.samples {
			if v, ok := s[n]; ok && typ == "" {
				typ = v.typ
			}
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
			a.typ = patterns.TypeString
			if im.allTimes(e, n) {
				a.typ = patterns.TypeTime
			}
		case "N":
			a.typ = patterns.TypeNumber
			if l := strings.ToLower(n); l == "ttl" || strings.HasSuffix(l, "_ttl") || l == "expiresat" || l == "expires_at" {
				a.typ = patterns.TypeTTL
				im.note("entity "+e.name, true, "number %s is taken as the table's TTL attribute (epoch seconds), by its name", n)
			}
		case "BOOL":
			a.typ = patterns.TypeBool
		default:
			im.note("entity "+e.name, false, "attribute %s (%s) is left out, with its values: keyplan's attributes are strings, numbers, times and bools", n, typ)
			continue
		}
		e.attrs = append(e.attrs, a)
	}
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
		t, err := time.Parse(patterns.TimeLayout, v.text)
		if err != nil || t.Format(patterns.TimeLayout) != v.text {
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
	pa := &patterns.Attribute{Name: a.name, Type: a.typ, Min: a.min, Max: a.max}
	if a.decl != nil {
		pa.Digits = a.decl.Digits
	}
	var x any = v
	if a.typ == patterns.TypeNumber {
		x = json.Number(v)
	}
	s, err := pa.EncodeKey(x)
	return s, err == nil
}
