package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
		return nil, openError(path, err)
	}
	defer f.Close()
	return ReadModel(path, f)
}

// openError says why a model file cannot be opened: it does not exist,
// or the system's reason (permission denied, ...). It matches
// ErrInvalidModel, and the os error (errors.Is(err, fs.ErrNotExist)).
func openError(path string, err error) error {
	e := &Error{File: path, Msg: "the model file does not exist", Err: err}
	if !errors.Is(err, fs.ErrNotExist) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		e.Msg = "the model file cannot be read: " + err.Error()
	}
	return e
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
		return nil, openError(file, err)
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
		l.syntax(err, data)
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
	if alias := aliasLoop(&doc, map[*yaml.Node]bool{}); alias != nil {
		anchor := alias.Alias
		l.add(pos(alias), "", "the alias *%s refers to itself: it is inside the node its anchor &%s (at %d:%d) marks, so it would repeat without end; an alias can only repeat a node that ends before it", alias.Value, anchor.Anchor, anchor.Line, anchor.Column)
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

// aliasLoop returns an alias inside the node it names (entities: &a
// [*a]), or nil. open holds the nodes being walked (true) and those
// done (false).
func aliasLoop(n *yaml.Node, open map[*yaml.Node]bool) *yaml.Node {
	if n == nil {
		return nil
	}
	if _, seen := open[n]; seen {
		return nil
	}
	open[n] = true
	defer func() { open[n] = false }()
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		if open[n.Alias] {
			return n
		}
		if a := aliasLoop(n.Alias, open); a != nil {
			return a
		}
	}
	for _, k := range n.Content {
		if a := aliasLoop(k, open); a != nil {
			return a
		}
	}
	return nil
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

// topFields are the fields of a model.
var topFields = []string{"table", "tables", "indexKeys", "headroom", "consistency", "principals", "entities", "patterns", "writes", "examples"}

func (l *loader) model(n *yaml.Node) *Model {
	m := &Model{Pos: pos(n), FieldPos: map[string]Pos{}}
	seen := map[string]bool{}
	for _, f := range l.fields(n, "", topFields) {
		seen[f.key] = true
		switch f.key {
		case "headroom", "consistency", "principals":
			l.setting(m, f)
		case "table":
			m.Table = l.str(f.val, "table")
			m.Pos = pos(f.val)
		case "indexKeys":
			m.IndexKeys, m.IndexKeysPos = l.indexKeys(f.val), pos(f.val)
		case "tables":
			m.Tables = l.tables(f.val)
			m.FieldPos["tables"] = pos(f.val)
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
		if req == "table" && seen["tables"] {
			continue
		}
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
