package patterns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads a model file (YAML or JSON, the same structure; "-" reads
// standard input) of at most MaxModelBytes and validates it. Every problem is reported as an [*Error] naming the file, line and column,
// the field and what was expected; they are joined into one error that
// matches [ErrInvalidModel].
func Load(path string) (*Model, error) {
	if path == "-" {
		return ReadModel("<stdin>", os.Stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidModel, err)
	}
	defer f.Close()
	return ReadModel(path, f)
}

// MaxModelBytes bounds a model file: far above any real model (the
// largest example is under 10 KB), far below what would exhaust memory.
const MaxModelBytes = 4 << 20

// maxNodes bounds the YAML nodes a model expands to, aliases included
// (an anchor used a thousand times is a thousand copies).
const maxNodes = 200_000

// ReadModel reads a model of at most MaxModelBytes from r (as ReadDesign
// and ReadLock read theirs); file names it in errors.
func ReadModel(file string, r io.Reader) (*Model, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxModelBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidModel, file, err)
	}
	if len(data) > MaxModelBytes {
		l := &loader{errorList: errorList{file: file}}
		l.add(Pos{Line: 1, Col: 1}, "", "the file is larger than %d bytes; a model is far smaller (is it the right file?)", MaxModelBytes)
		return nil, l.err()
	}
	return Parse(file, data)
}

// Parse reads a model from data; file names it in errors. JSON is recognised
// by a ".json" suffix or a leading "{", and must be strict JSON (one value,
// no comments). YAML must be one document.
func Parse(file string, data []byte) (*Model, error) {
	l := &loader{errorList: errorList{file: file}}
	if len(data) > MaxModelBytes {
		l.add(Pos{Line: 1, Col: 1}, "", "the model is larger than %d bytes", MaxModelBytes)
		return nil, l.err()
	}
	if strings.EqualFold(filepath.Ext(file), ".json") || bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		if !l.strictJSON(data) {
			return nil, l.err()
		}
		// JSON is YAML, except that YAML refuses tabs as indentation. A raw
		// tab cannot occur inside a JSON string, so each tab is whitespace:
		// one space keeps every column where it was.
		data = bytes.ReplaceAll(data, []byte("\t"), []byte(" "))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		l.syntax(err)
		return nil, l.err()
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		l.add(Pos{Line: 1, Col: 1}, "", "the file is empty; expected a mapping with table, entities and patterns")
		return nil, l.err()
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != io.EOF {
		at := Pos{Line: next.Line, Col: next.Column}
		if err != nil || at.Line == 0 {
			at = Pos{Line: 1, Col: 1}
		}
		l.add(at, "", "a second YAML document (after ---): a model is one document")
		return nil, l.err()
	}
	if n := expanded(&doc, map[*yaml.Node]int{}); n > maxNodes {
		l.add(Pos{Line: 1, Col: 1}, "", "the model expands to more than %d YAML nodes (anchors and aliases included); a model is far smaller", maxNodes)
		return nil, l.err()
	}
	m := l.model(doc.Content[0])
	if err := l.err(); err != nil {
		return nil, err
	}
	m.Source = file
	if err := m.validate(file); err != nil {
		return nil, err
	}
	return m, nil
}

// expanded counts the nodes under n with every alias expanded, each
// subtree counted once (memo), capped past maxNodes.
func expanded(n *yaml.Node, memo map[*yaml.Node]int) int {
	if n == nil {
		return 0
	}
	if c, ok := memo[n]; ok {
		return c
	}
	memo[n] = maxNodes + 1 // a cycle counts as too many
	c := 1
	if n.Kind == yaml.AliasNode {
		c += expanded(n.Alias, memo)
	}
	for _, k := range n.Content {
		if c += expanded(k, memo); c > maxNodes {
			break
		}
	}
	c = min(c, maxNodes+1)
	memo[n] = c
	return c
}

// strictJSON checks that data is one JSON value and nothing else,
// recording where it is not.
func (l *loader) strictJSON(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	err := dec.Decode(&v)
	off := dec.InputOffset()
	if err == nil {
		if _, more := dec.Token(); more != io.EOF {
			err = fmt.Errorf("unexpected data after the top-level value")
			for off < int64(len(data)) && strings.ContainsRune(" \t\r\n", rune(data[off])) {
				off++
			}
		}
	}
	if err == nil {
		return true
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	line, col := 1, 1
	for _, b := range data[:min(int(off), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	l.add(Pos{Line: line, Col: col}, "", "invalid JSON: %v (JSON input is strict: one value, no comments, no trailing data)", err)
	return false
}

// reservedAttr matches the attribute names keyplan's keys use.
var reservedAttr = regexp.MustCompile(`^(PK|SK|GSI[0-9]+(PK|SK))$`)

var yamlLine = regexp.MustCompile(`line (\d+)(?::(\d+))?`)

// syntax turns a YAML parser error into a positioned Error.
func (l *loader) syntax(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pos := Pos{Line: 1, Col: 1}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		pos.Line, _ = strconv.Atoi(m[1])
		pos.Col = 1
		if m[2] != "" {
			pos.Col, _ = strconv.Atoi(m[2])
		}
		msg = strings.TrimSpace(yamlLine.ReplaceAllString(msg, ""))
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, ":"), " ")
	}
	l.add(pos, "", "syntax error: %s", msg)
}

type loader struct {
	errorList
}

func pos(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

type field struct {
	key   string
	keyAt Pos
	val   *yaml.Node
}

// fields walks a mapping, reporting duplicate keys and keys not in allowed
// (nil allowed: any key).
func (l *loader) fields(n *yaml.Node, path string, allowed []string) []field {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		l.add(pos(n), path, "expected a mapping, found %s", kindName(n))
		return nil
	}
	var out []field
	seen := map[string]Pos{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			l.add(pos(k), path, "expected a name as mapping key, found %s", kindName(k))
			continue
		}
		if prev, dup := seen[k.Value]; dup {
			l.add(pos(k), join(path, k.Value), "duplicate name %q (first declared at line %d)", k.Value, prev.Line)
			continue
		}
		seen[k.Value] = pos(k)
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			l.unknown(pos(k), path, "field", k.Value, allowed)
			continue
		}
		out = append(out, field{key: k.Value, keyAt: pos(k), val: v})
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (l *loader) str(n *yaml.Node, path string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.add(pos(n), path, "expected a string, found %s", kindName(n))
		return ""
	}
	return n.Value
}

// name reads an identifier-like name (entity, attribute).
func (l *loader) name(n *yaml.Node, path string) string {
	s := l.str(n, path)
	if s != "" && !validName(s) {
		l.add(pos(n), path, "%q is not a valid name; expected letters, digits and _ (starting with a letter)", s)
	}
	return s
}

func validName(s string) bool {
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// strs reads a list of strings, or one string as a list of one.
func (l *loader) strs(n *yaml.Node, path string) []string {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		l.add(pos(n), path, "expected a list of names, found %s", kindName(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	seen := map[string]bool{}
	for _, c := range n.Content {
		c = deref(c)
		s := l.str(c, path)
		if s == "" {
			continue
		}
		if seen[s] {
			l.add(pos(c), path, "duplicate name %q in list", s)
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

func (l *loader) integer(n *yaml.Node, path string) (int64, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return v, true
		}
	}
	l.add(pos(n), path, "expected a whole number, found %s", kindName(n))
	return 0, false
}

func (l *loader) count(n *yaml.Node, path string, lo, hi int64) int {
	v, ok := l.integer(n, path)
	if !ok {
		return 0
	}
	if v < lo || v > hi {
		l.add(pos(n), path, "expected a whole number from %d to %d, found %d", lo, hi, v)
		return 0
	}
	return int(v)
}

func (l *loader) boolean(n *yaml.Node, path string) bool {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		var b bool
		if err := n.Decode(&b); err == nil {
			return b
		}
	}
	l.add(pos(n), path, "expected true or false, found %s", kindName(n))
	return false
}

// MaxRate bounds a declared rate (requests or writes per second): far
// above any table's throughput, far below where sums of rates lose
// precision.
const MaxRate = 1e9

// number reads a rate: a finite number of at most MaxRate.
func (l *loader) number(n *yaml.Node, path string) float64 {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		v, err := strconv.ParseFloat(n.Value, 64)
		switch {
		case err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) && v <= MaxRate:
			return v
		case err == nil && v > MaxRate:
			l.add(pos(n), path, "expected at most %g per second, found %s", float64(MaxRate), n.Value)
			return 0
		}
		if lower := strings.ToLower(n.Value); strings.Contains(lower, "nan") || strings.Contains(lower, "inf") {
			l.add(pos(n), path, "expected a finite number, found %q", n.Value)
			return 0
		}
	}
	l.add(pos(n), path, "expected a number, found %s", kindName(n))
	return 0
}

var (
	topFields     = []string{"table", "entities", "patterns", "writes", "examples"}
	entityFields  = []string{"id", "within", "attributes", "keys", "writes", "copies", "counters", "archive", "renamedFrom", "version"}
	writeFields   = []string{"put", "update", "delete", "check", "transact", "batch", "if", "set", "add", "remove", "with", "condition", "rate"}
	writeOps      = []string{string(WritePut), string(WriteUpdate), string(WriteDelete), string(WriteCheck), string(WriteTransact), string(WriteBatch)}
	attrFields    = []string{"type", "values", "cardinality", "min", "max", "digits", "maxLength", "optional", "immutable", "renamedFrom"}
	keyFields     = []string{"pk", "sk"}
	patternFields = []string{"get", "query", "where", "sort", "filter", "limit", "returns", "consistent", "unique", "rate", "shards"}
	typeNames     = []string{string(TypeString), string(TypeNumber), string(TypeTime), string(TypeBool), string(TypeTTL)}
)

func (l *loader) model(n *yaml.Node) *Model {
	m := &Model{Pos: pos(n)}
	seen := map[string]bool{}
	for _, f := range l.fields(n, "", topFields) {
		seen[f.key] = true
		switch f.key {
		case "table":
			m.Table = l.str(f.val, "table")
			m.Pos = pos(f.val)
		case "entities":
			for _, ef := range l.capped(l.fields(f.val, "entities", nil), f.val, "entities", MaxEntities) {
				m.Entities = append(m.Entities, l.entity(ef))
			}
		case "patterns":
			for _, pf := range l.capped(l.fields(f.val, "patterns", nil), f.val, "patterns", MaxPatterns) {
				m.Patterns = append(m.Patterns, l.pattern(pf))
			}
		case "writes":
			for _, wf := range l.capped(l.fields(f.val, "writes", nil), f.val, "writes", MaxPatterns) {
				path := "writes." + wf.key
				w := l.write(wf.val, path, wf.keyAt)
				w.Name = l.name(&yaml.Node{Kind: yaml.ScalarNode, Value: wf.key, Line: wf.keyAt.Line, Column: wf.keyAt.Col}, path)
				m.Writes = append(m.Writes, w)
			}
		case "examples":
			m.Examples = l.examples(f.val)
		}
	}
	for _, req := range []string{"table", "entities", "patterns"} {
		if !seen[req] && deref(n).Kind == yaml.MappingNode {
			l.add(pos(n), req, "missing; the model needs table, entities and patterns")
		}
	}
	return m
}

// Limits on a model's size: each far above any real model, and what
// keeps planning bounded (a model the loader accepts plans in well under
// a second: BenchmarkPlanAtLimits).
const (
	MaxEntities   = 500
	MaxPatterns   = 2000 // read patterns; write patterns as many
	MaxAttributes = 1000 // per entity
)

// capped refuses more than max entries of a mapping (what follows is not
// read).
func (l *loader) capped(fs []field, n *yaml.Node, path string, max int) []field {
	if len(fs) <= max {
		return fs
	}
	l.add(pos(n), path, "%d entries; at most %d are accepted (a model is far smaller)", len(fs), max)
	return fs[:max]
}

func (l *loader) entity(f field) *Entity {
	path := "entities." + f.key
	e := &Entity{Name: l.name(&yaml.Node{Kind: yaml.ScalarNode, Value: f.key, Line: f.keyAt.Line, Column: f.keyAt.Col}, path), Pos: f.keyAt, FieldPos: map[string]Pos{}}
	for _, g := range l.fields(f.val, path, entityFields) {
		e.FieldPos[g.key] = pos(g.val)
		p := join(path, g.key)
		switch g.key {
		case "id":
			e.ID = l.strs(g.val, p)
		case "within":
			e.Within = l.str(g.val, p)
		case "renamedFrom":
			e.RenamedFrom = l.name(g.val, p)
		case "version":
			e.Version = l.name(g.val, p)
		case "attributes":
			for _, af := range l.capped(l.fields(g.val, p, nil), g.val, p, MaxAttributes) {
				e.Attributes = append(e.Attributes, l.attribute(af, p))
			}
		case "copies":
			for _, cf := range l.fields(g.val, p, nil) {
				e.Copies = append(e.Copies, l.copy(cf, join(p, cf.key)))
			}
		case "counters":
			for _, cf := range l.fields(g.val, p, nil) {
				e.Counters = append(e.Counters, l.counter(cf, join(p, cf.key)))
			}
		case "archive":
			e.Archive = l.boolean(g.val, p)
		case "writes":
			if e.Writes = l.number(g.val, p); e.Writes < 0 {
				l.add(pos(g.val), p, "expected a rate of zero or more writes per second, found %v", e.Writes)
			}
		case "keys":
			for _, kf := range l.fields(g.val, p, nil) {
				ks := &KeySpec{Index: kf.key, Pos: kf.keyAt}
				for _, tf := range l.fields(kf.val, join(p, kf.key), keyFields) {
					switch tf.key {
					case "pk":
						ks.PK, ks.PKPos = l.str(tf.val, join(join(p, kf.key), "pk")), pos(tf.val)
					case "sk":
						ks.SK, ks.SKPos = l.str(tf.val, join(join(p, kf.key), "sk")), pos(tf.val)
					}
				}
				e.Keys = append(e.Keys, ks)
			}
		}
	}
	return e
}

// copy reads `attr: {from: Entity.attr, via: Pattern}`.
func (l *loader) copy(f field, path string) *Copy {
	c := &Copy{Attr: f.key, Pos: f.keyAt}
	for _, g := range l.fields(f.val, path, []string{"from", "via"}) {
		switch g.key {
		case "from":
			ent, attr, ok := strings.Cut(l.str(g.val, join(path, "from")), ".")
			if !ok || ent == "" || attr == "" {
				l.add(pos(g.val), join(path, "from"), "expected Entity.attribute, e.g. Customer.name")
			}
			c.FromEntity, c.FromAttr = ent, attr
		case "via":
			c.Via = l.str(g.val, join(path, "via"))
		}
	}
	if c.FromEntity == "" || c.Via == "" {
		l.add(f.keyAt, path, "a copy needs from: Entity.attribute and via: the pattern that finds the copies")
	}
	return c
}

// counter reads `attr: {count: Child, where: {…}}` or `{sum: Child.attr}`.
func (l *loader) counter(f field, path string) *Counter {
	c := &Counter{Attr: f.key, Pos: f.keyAt}
	for _, g := range l.fields(f.val, path, []string{"count", "sum", "where", "expiries"}) {
		switch g.key {
		case "expiries":
			switch v := l.str(g.val, join(path, "expiries")); v {
			case "keep":
				c.KeepExpired = true
			case "count":
			default:
				l.add(pos(g.val), join(path, "expiries"), "expected count (an expired child counts down) or keep, found %q", v)
			}
		case "count":
			c.Child = l.str(g.val, join(path, "count"))
		case "sum":
			ent, attr, ok := strings.Cut(l.str(g.val, join(path, "sum")), ".")
			if !ok || ent == "" || attr == "" {
				l.add(pos(g.val), join(path, "sum"), "expected Child.attribute, e.g. Match.ratingDelta")
			}
			if c.Child != "" {
				l.add(g.keyAt, path, "a counter either counts or sums, not both")
			}
			c.Child, c.Sum = ent, attr
		case "where":
			for _, cf := range l.fields(g.val, join(path, "where"), nil) {
				if cf.val.Kind != yaml.ScalarNode || cf.val.Tag == "!!null" {
					l.add(pos(cf.val), join(join(path, "where"), cf.key), "expected a constant value, found %s", kindName(cf.val))
					continue
				}
				c.Where = append(c.Where, Const{Attr: cf.key, Value: cf.val.Value})
			}
		}
	}
	if c.Child == "" {
		l.add(f.keyAt, path, "a counter needs count: Child or sum: Child.attribute")
	}
	return c
}

func (l *loader) attribute(f field, parent string) *Attribute {
	path := join(parent, f.key)
	a := &Attribute{Name: f.key, Pos: f.keyAt}
	if !validName(f.key) {
		l.add(f.keyAt, path, "%q is not a valid attribute name; expected letters, digits and _ (starting with a letter)", f.key)
	} else if reservedAttr.MatchString(f.key) {
		l.add(f.keyAt, path, "%q is a key attribute keyplan writes (%s, %s, GSI<n>PK, GSI<n>SK): it would be overwritten, or put items into an index; rename it", f.key, TablePK, TableSK)
	}
	v := deref(f.val)
	if v.Kind == yaml.ScalarNode {
		a.Type = l.attrType(v, path)
		return a
	}
	seenType := false
	for _, g := range l.fields(v, path, attrFields) {
		p := join(path, g.key)
		switch g.key {
		case "type":
			a.Type = l.attrType(g.val, p)
			seenType = true
		case "values":
			a.Values = l.strs(g.val, p)
			if len(a.Values) == 0 {
				l.add(pos(g.val), p, "expected at least one value")
			}
		case "cardinality":
			a.Cardinality = l.count(g.val, p, 1, 1<<40)
		case "min":
			if x, ok := l.integer(g.val, p); ok {
				a.Min = &x
			}
		case "max":
			if x, ok := l.integer(g.val, p); ok {
				a.Max = &x
			}
		case "digits":
			a.Digits = l.count(g.val, p, 1, MaxDigits)
		case "maxLength":
			a.MaxLength = l.count(g.val, p, 1, MaxItemBytes)
		case "optional":
			a.Optional = l.boolean(g.val, p)
		case "immutable":
			a.Immutable = l.boolean(g.val, p)
		case "renamedFrom":
			a.RenamedFrom = l.name(g.val, p)
		}
	}
	if !seenType {
		if a.Values != nil {
			a.Type = TypeString
		} else {
			l.add(pos(v), path, "missing type; expected one of: %s", list(typeNames))
		}
	}
	return a
}

func (l *loader) attrType(n *yaml.Node, path string) AttrType {
	s := l.str(n, path)
	if s == "" {
		return ""
	}
	if !slices.Contains(typeNames, s) {
		l.unknown(pos(n), path, "type", s, typeNames)
		return ""
	}
	return AttrType(s)
}

// write reads a write pattern, or a step of a transaction: a mapping
// with one operation (put, update, delete, check, transact, batch) and
// its fields.
func (l *loader) write(n *yaml.Node, path string, at Pos) *Write {
	w := &Write{Pos: at, FieldPos: map[string]Pos{}}
	for _, g := range l.fields(n, path, writeFields) {
		w.FieldPos[g.key] = pos(g.val)
		fp := join(path, g.key)
		if slices.Contains(writeOps, g.key) {
			if w.Op != "" {
				l.add(g.keyAt, fp, "a write does one thing; %s already says %s", path, w.Op)
				continue
			}
			w.Op = WriteOp(g.key)
		}
		switch g.key {
		case "put", "update", "delete", "check":
			w.Entity = l.str(g.val, fp)
		case "transact":
			v := deref(g.val)
			if v.Kind != yaml.SequenceNode {
				l.add(pos(v), fp, "expected a list of steps, found %s", kindName(v))
				continue
			}
			for i, step := range v.Content {
				w.Steps = append(w.Steps, l.write(step, fmt.Sprintf("%s[%d]", fp, i), pos(step)))
			}
		case "batch":
			for _, bf := range l.fields(g.val, fp, []string{string(WritePut), string(WriteDelete)}) {
				if w.Batch != "" {
					l.add(bf.keyAt, fp, "a batch either puts or deletes, not both")
					continue
				}
				w.Batch, w.Entity = WriteOp(bf.key), l.str(bf.val, join(fp, bf.key))
			}
		case "if":
			w.If = l.str(g.val, fp)
		case "set":
			w.Set = l.strs(g.val, fp)
		case "remove":
			w.Remove = l.strs(g.val, fp)
		case "with":
			w.With = l.strs(g.val, fp)
		case "add":
			w.Add = l.increments(g.val, fp)
		case "condition":
			for _, cf := range l.fields(g.val, fp, nil) {
				w.Condition = append(w.Condition, l.condition(cf, join(fp, cf.key)))
			}
		case "rate":
			w.Rate = l.number(g.val, fp)
		}
	}
	if w.Op == "" && deref(n).Kind == yaml.MappingNode {
		l.add(at, path, "missing the operation; expected one of: %s", list(writeOps))
	}
	return w
}

// increments reads add: a list of attributes (each added the caller's
// parameter of its name), or attribute → $param, -$param or a constant.
func (l *loader) increments(n *yaml.Node, path string) []*Increment {
	n = deref(n)
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.ScalarNode {
		var out []*Increment
		for _, a := range l.strs(n, path) {
			out = append(out, &Increment{Attr: a, Param: a})
		}
		return out
	}
	var out []*Increment
	for _, f := range l.fields(n, path, nil) {
		inc := &Increment{Attr: f.key}
		v := deref(f.val)
		s := l.str(v, join(path, f.key))
		switch {
		case strings.HasPrefix(s, "-$"):
			inc.Param, inc.Negate = s[2:], true
		case strings.HasPrefix(s, "$"):
			inc.Param = s[1:]
		default:
			by, err := strconv.ParseInt(s, 10, 64)
			if err != nil && s != "" {
				l.add(pos(v), join(path, f.key), "expected $param, -$param or a whole number, found %q", s)
			}
			inc.By = by
		}
		if (inc.Param != "" && !validName(inc.Param)) || (inc.Param == "" && strings.Contains(s, "$")) {
			l.add(pos(v), join(path, f.key), "%q is not a parameter name; expected letters, digits and _", inc.Param)
		}
		out = append(out, inc)
	}
	return out
}

// condition reads attr: VALUE (equal to a constant), attr: $param (equal
// to the caller's parameter), or attr: {OP: operand} with OP one of eq,
// ne, lt, le, gt, ge (a constant or $param), in (a list of constants),
// exists or absent (true).
func (l *loader) condition(f field, path string) *Condition {
	c := &Condition{Attr: f.key, Op: CondEq, Pos: f.keyAt}
	operand := func(v *yaml.Node, p string) {
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			l.add(pos(v), p, "expected a constant or $param, found %s", kindName(v))
			return
		}
		if name, ok := strings.CutPrefix(v.Value, "$"); ok {
			if !validName(name) {
				l.add(pos(v), p, "%q is not a parameter name; expected letters, digits and _", name)
			}
			c.Param = name
			return
		}
		c.Value = v.Value
	}
	v := deref(f.val)
	if v.Kind != yaml.MappingNode {
		operand(v, path)
		return c
	}
	fs := l.fields(v, path, []string{"eq", "ne", "lt", "le", "gt", "ge", "in", "exists", "absent"})
	if len(fs) != 1 {
		l.add(pos(v), path, "expected one comparison, e.g. {ge: $quantity}")
		return c
	}
	g := fs[0]
	c.Op = CondOp(g.key)
	switch c.Op {
	case CondIn:
		c.Values = l.strs(g.val, join(path, "in"))
	case CondExists, CondAbsent:
		if !l.boolean(g.val, join(path, g.key)) {
			l.add(pos(g.val), join(path, g.key), "write %s: true (a condition that does not test is no condition)", g.key)
		}
	default:
		operand(deref(g.val), join(path, g.key))
	}
	return c
}

func (l *loader) pattern(f field) *Pattern {
	path := "patterns." + f.key
	p := &Pattern{Name: l.name(&yaml.Node{Kind: yaml.ScalarNode, Value: f.key, Line: f.keyAt.Line, Column: f.keyAt.Col}, path), Pos: f.keyAt, FieldPos: map[string]Pos{}}
	for _, g := range l.fields(f.val, path, patternFields) {
		p.FieldPos[g.key] = pos(g.val)
		fp := join(path, g.key)
		switch g.key {
		case "get", "query":
			if p.Op != "" {
				l.add(g.keyAt, fp, "a pattern is either a get or a query, not both")
				continue
			}
			p.Op = ReadOp(g.key)
			p.Entities = l.strs(g.val, fp)
		case "where":
			p.Where = l.strs(g.val, fp)
		case "sort":
			p.Sort, p.Desc = l.sortSpec(g.val, fp)
		case "filter":
			for _, cf := range l.fields(g.val, fp, nil) {
				if cf.val.Kind != yaml.ScalarNode || cf.val.Tag == "!!null" {
					l.add(pos(cf.val), join(fp, cf.key), "expected a constant value, found %s", kindName(cf.val))
					continue
				}
				p.Filter = append(p.Filter, Const{Attr: cf.key, Value: cf.val.Value})
			}
		case "limit":
			p.Limit = l.count(g.val, fp, 1, 1<<31-1)
		case "returns":
			p.Returns = l.strs(g.val, fp)
		case "consistent":
			p.Consistent = l.boolean(g.val, fp)
		case "unique":
			p.Unique = l.boolean(g.val, fp)
		case "rate":
			if p.Rate = l.number(g.val, fp); p.Rate < 0 {
				l.add(pos(g.val), fp, "expected a rate of zero or more requests per second, found %v", p.Rate)
			}
		case "shards":
			p.Shards = l.count(g.val, fp, 1, MaxShards)
		}
	}
	if p.Op == "" {
		l.add(f.keyAt, path, "missing get or query; expected {get: ENTITY} or {query: ENTITY or [ENTITY, …]}")
	}
	return p
}

// sortSpec reads sort: "attr", "attr asc|desc", or a list of those. A key
// orders by its whole sort key, so every direction must be the same.
func (l *loader) sortSpec(n *yaml.Node, path string) ([]string, bool) {
	n = deref(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			l.add(pos(n), path, "expected at least one sort attribute")
		}
	}
	var attrs []string
	dir := ""
	for _, it := range items {
		it = deref(it)
		s := strings.Fields(l.str(it, path))
		d := ""
		switch {
		case len(s) == 1:
		case len(s) == 2 && (s[1] == "asc" || s[1] == "desc"):
			d = s[1]
		case len(s) > 0 || it.Kind == yaml.ScalarNode:
			l.add(pos(it), path, "expected \"ATTRIBUTE\", \"ATTRIBUTE asc\" or \"ATTRIBUTE desc\", found %q", it.Value)
			continue
		default:
			continue
		}
		if slices.Contains(attrs, s[0]) {
			l.add(pos(it), path, "%q is listed twice", s[0])
			continue
		}
		attrs = append(attrs, s[0])
		if d != "" && dir != "" && d != dir {
			l.add(pos(it), path, "%s is %s but an earlier sort attribute is %s: a query orders by its whole sort key, so every attribute goes the same way", s[0], d, dir)
		}
		if d != "" {
			dir = d
		}
	}
	return attrs, dir == "desc"
}

func (l *loader) examples(n *yaml.Node) *Examples {
	ex := &Examples{}
	for _, f := range l.fields(n, "examples", []string{"items", "steps", "expect"}) {
		switch f.key {
		case "steps":
			seq := deref(f.val)
			if seq.Kind != yaml.SequenceNode {
				l.add(pos(seq), "examples.steps", "expected a list of {write, params, fails, item}, found %s", kindName(seq))
				continue
			}
			for i, c := range seq.Content {
				path := fmt.Sprintf("examples.steps[%d]", i)
				st := &Step{Pos: pos(deref(c)), Params: map[string]any{}}
				for _, g := range l.fields(c, path, []string{"write", "params", "fails", "item"}) {
					switch g.key {
					case "write":
						st.Write = l.str(g.val, join(path, "write"))
					case "params":
						for _, pf := range l.fields(g.val, join(path, "params"), nil) {
							if v := deref(pf.val); v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
								st.Params[pf.key] = nil // with: the item lacks it
								continue
							}
							st.Params[pf.key] = l.scalar(pf.val, join(join(path, "params"), pf.key))
						}
					case "fails":
						st.Fails = l.str(g.val, join(path, "fails"))
					case "item":
						st.Item = l.name(g.val, join(path, "item"))
					}
				}
				if st.Write == "" {
					l.add(st.Pos, join(path, "write"), "missing; expected the name of a write pattern")
				}
				ex.Steps = append(ex.Steps, st)
			}
		case "items":
			for _, itf := range l.fields(f.val, "examples.items", nil) {
				path := "examples.items." + itf.key
				ents := l.fields(itf.val, path, nil)
				if len(ents) != 1 {
					if deref(itf.val).Kind == yaml.MappingNode {
						l.add(pos(itf.val), path, "expected exactly one entity name mapped to its attribute values, e.g. {Player: {playerId: p1}}")
					}
					continue
				}
				it := &ExampleItem{Name: itf.key, Entity: ents[0].key, Pos: itf.keyAt, Values: map[string]any{}}
				for _, vf := range l.fields(ents[0].val, join(path, ents[0].key), nil) {
					it.Values[vf.key] = l.scalar(vf.val, join(join(path, ents[0].key), vf.key))
				}
				ex.Items = append(ex.Items, it)
			}
		case "expect":
			seq := deref(f.val)
			if seq.Kind != yaml.SequenceNode {
				l.add(pos(seq), "examples.expect", "expected a list of {pattern, params, items}, found %s", kindName(seq))
				continue
			}
			for i, c := range seq.Content {
				path := fmt.Sprintf("examples.expect[%d]", i)
				x := &Expectation{Pos: pos(deref(c)), Params: map[string]any{}}
				seenItems := false
				for _, g := range l.fields(c, path, []string{"pattern", "params", "items"}) {
					switch g.key {
					case "pattern":
						x.Pattern = l.str(g.val, join(path, "pattern"))
					case "params":
						for _, pf := range l.fields(g.val, join(path, "params"), nil) {
							x.Params[pf.key] = l.scalar(pf.val, join(join(path, "params"), pf.key))
						}
					case "items":
						seenItems = true
						if v := deref(g.val); v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
							x.Items = []string{}
						} else {
							x.Items = l.strs(g.val, join(path, "items"))
						}
					}
				}
				if x.Pattern == "" {
					l.add(x.Pos, join(path, "pattern"), "missing; expected the name of a pattern")
				}
				if !seenItems {
					l.add(x.Pos, join(path, "items"), "missing; expected the list of item names the pattern returns ([] for none)")
				}
				ex.Expect = append(ex.Expect, x)
			}
		}
	}
	return ex
}

// scalar reads an example value: string, number or bool.
func (l *loader) scalar(n *yaml.Node, path string) any {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.add(pos(n), path, "expected a string, number or bool, found %s", kindName(n))
		return nil
	}
	switch n.Tag {
	case "!!int", "!!float":
		if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return json.Number(strconv.FormatInt(v, 10))
		}
		return json.Number(n.Value)
	case "!!bool":
		var b bool
		_ = n.Decode(&b)
		return b
	}
	return n.Value
}
