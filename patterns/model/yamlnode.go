package model

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The YAML toolkit the loader's section decoders share: positions, a
// mapping's fields (each key once, unknown keys named with a suggestion),
// and the scalars a model holds, each refused with what was expected.

var yamlLine = regexp.MustCompile(`line (\d+)(?::(\d+))?`)

// syntax turns a YAML parser error into a positioned Error: where the
// problem is, its field and what was expected (locateSyntax). When the
// line it names (or the one before) holds a key longer than YAML allows
// (maxYAMLKey), that is said instead: the parser's own message ("did not
// find expected ',' or '}'") would hide it.
func (l *loader) syntax(err error, data []byte) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimSpace(yamlLine.ReplaceAllString(msg, ""))
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, ":"), " ")
	}
	for _, n := range []int{max(line, 1), line + 1} {
		if at, key, ok := longKey(data, n); ok {
			l.add(at, "", "the key %q is %d characters: a name is at most %d (and YAML reads no key longer than %d)", key, len(key), MaxName, maxYAMLKey)
			return
		}
	}
	at, field, text := locateSyntax(msg, line, data)
	l.add(at, field, "").Msg = text // not clipped: a sentence, not the file's text
}

// maxYAMLKey is the longest key the YAML parser reads (a longer one is a
// syntax error to it, in JSON input too).
const maxYAMLKey = 1024

// longKey finds a key longer than maxYAMLKey on line (from 1) or the line
// before: a run of text, quoted or not, that a colon follows (one pass:
// the file may be one 4 MB line).
func longKey(data []byte, line int) (Pos, string, bool) {
	lines := strings.Split(string(data), "\n")
	for n := max(line-1, 1); n <= line && n <= len(lines); n++ {
		text := lines[n-1]
		start, quote := 0, byte(0)
		for i := 0; i < len(text); i++ {
			c := text[i]
			switch {
			case quote != 0:
				if c == '\\' && quote == '"' {
					i++
				} else if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote, start = c, i
			case (c == ' ' || c == '\t') && start == i: // leading blanks
				start = i + 1
			case c == '{' || c == '[' || c == ',':
				start = i + 1
			case c == ':':
				if key := strings.Trim(strings.TrimRight(text[start:i], " \t"), "\"'"); len(key) > maxYAMLKey {
					return Pos{Line: n, Col: utf8.RuneCountInString(text[:start]) + 1}, key, true
				}
				start = i + 1
			}
		}
	}
	return Pos{}, "", false
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

// MaxName is the longest name keyplan takes, in characters, for an
// entity, an attribute, a pattern, a write or an example item: DynamoDB's
// limit on the name of an attribute an index projects
// (MaxAttributeNameLength), since any attribute may be projected, and one
// rule for every name. A longer one is refused as too long.
const MaxName = MaxAttributeNameLength

// name reads an identifier-like name (entity, attribute).
func (l *loader) name(n *yaml.Node, path string) string {
	s := l.str(n, path)
	switch {
	case len(s) > MaxName:
		l.add(pos(n), path, "the name %q is %d characters; expected at most %d", s, len(s), MaxName)
	case s != "" && !ValidName(s):
		l.add(pos(n), path, "%q is not a valid name; expected letters, digits and _ (starting with a letter)", s)
	}
	return s
}

func ValidName(s string) bool {
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

// capped refuses more than max entries of a mapping (what follows is not
// read).
func (l *loader) capped(fs []field, n *yaml.Node, path string, max int) []field {
	if len(fs) <= max {
		return fs
	}
	l.add(pos(n), path, "%d entries; at most %d are accepted (a model is far smaller)", len(fs), max)
	return fs[:max]
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

// value reads an example value: a scalar, a list of scalars (a set's or
// list's value) or a mapping of scalars (a map's).
func (l *loader) value(n *yaml.Node, path string) any {
	n = deref(n)
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, l.scalar(c, path))
		}
		return out
	case yaml.MappingNode:
		out := map[string]any{}
		for _, f := range l.fields(n, path, nil) {
			out[f.key] = l.scalar(f.val, join(path, f.key))
		}
		return out
	}
	return l.scalar(n, path)
}
