package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decoding the writes section: put, update, delete, check, transact and
// batch, their increments and conditions.

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
		case "discard":
			w.Discard = l.increments(g.val, fp)
		case "append":
			w.Append = l.increments(g.val, fp)
		case "as":
			w.As = l.name(g.val, fp)
		case "condition":
			for _, cf := range l.fields(g.val, fp, nil) {
				w.Condition = append(w.Condition, l.condition(cf, join(fp, cf.key)))
			}
		case "rate":
			w.Rate = l.number(g.val, fp)
		case "peak":
			w.Peak = l.number(g.val, fp)
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
		if (inc.Param != "" && !ValidName(inc.Param)) || (inc.Param == "" && strings.Contains(s, "$")) {
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
			if !ValidName(name) {
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

var (
	writeFields = []string{"put", "update", "delete", "check", "transact", "batch", "if", "set", "add", "remove", "with", "condition", "rate", "peak", "as", "discard", "append"}
	writeOps    = []string{string(WritePut), string(WriteUpdate), string(WriteDelete), string(WriteCheck), string(WriteTransact), string(WriteBatch)}
)
