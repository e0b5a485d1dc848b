package model

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Decoding the examples section: sample items, the writes to run on
// them, and the reads expected back.

func (l *loader) examples(n *yaml.Node) *Examples {
	ex := &Examples{}
	for _, f := range l.fields(n, "examples", []string{"now", "items", "steps", "expect"}) {
		switch f.key {
		case "now":
			ex.Now = l.str(f.val, "examples.now")
			if _, err := time.Parse(time.RFC3339, ex.Now); err != nil && ex.Now != "" {
				l.add(pos(f.val), "examples.now", "expected an RFC 3339 time such as 2100-01-01T00:00:00Z, found %q", ex.Now)
			}
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
							st.Params[pf.key] = l.value(pf.val, join(join(path, "params"), pf.key))
						}
					case "fails":
						st.Fails, st.FailsCondition = l.fails(g.val, join(path, "fails"))
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
				it := &ExampleItem{Name: itf.key, Entity: ents[0].key, Pos: itf.keyAt, Values: map[string]any{}, At: map[string]Pos{}}
				for _, vf := range l.fields(ents[0].val, join(path, ents[0].key), nil) {
					it.Values[vf.key] = l.value(vf.val, join(join(path, ents[0].key), vf.key))
					it.At[vf.key] = vf.keyAt
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
				var items *yaml.Node
				for _, g := range l.fields(c, path, []string{"pattern", "params", "ids", "items", "count", "values"}) {
					switch g.key {
					case "pattern":
						x.Pattern = l.str(g.val, join(path, "pattern"))
					case "params":
						for _, pf := range l.fields(g.val, join(path, "params"), nil) {
							x.Params[pf.key] = l.scalar(pf.val, join(join(path, "params"), pf.key))
						}
					case "count":
						seenItems = true
						if n, ok := l.integer(deref(g.val), join(path, "count")); ok {
							x.Count = &n
						}
					case "values":
						x.Values = map[string]map[string]any{}
						for _, itf := range l.fields(g.val, join(path, "values"), nil) {
							vals := map[string]any{}
							for _, vf := range l.fields(itf.val, join(join(path, "values"), itf.key), nil) {
								vals[vf.key] = l.value(vf.val, join(join(join(path, "values"), itf.key), vf.key))
							}
							x.Values[itf.key] = vals
						}
					case "ids":
						x.IDs = l.batchIDs(g.val, join(path, "ids"))
					case "items":
						seenItems = true
						items = g.val
					}
				}
				switch v := deref(items); {
				case items == nil:
				case x.IDs != nil:
					x.Items = l.batchItems(items, join(path, "items"))
				case v.Kind == yaml.SequenceNode && len(v.Content) == 0:
					x.Items = []string{}
				default:
					x.Items = l.strs(items, join(path, "items"))
				}
				if x.Pattern == "" {
					l.add(x.Pos, join(path, "pattern"), "missing; expected the name of a pattern")
				}
				if !seenItems {
					l.add(x.Pos, join(path, "items"), "missing; expected the list of item names the pattern returns ([] for none), or count: N for a pattern that returns a number")
				}
				ex.Expect = append(ex.Expect, x)
			}
		}
	}
	return ex
}

// batchIDs reads a batch read's ids: a list of mappings, each an id's
// attributes and values.
func (l *loader) batchIDs(n *yaml.Node, path string) []map[string]any {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		l.add(pos(n), path, "expected a list of ids, each {attribute: value, …}, found %s", kindName(n))
		return nil
	}
	out := make([]map[string]any, 0, len(n.Content))
	for i, c := range n.Content {
		id := map[string]any{}
		for _, f := range l.fields(c, fmt.Sprintf("%s[%d]", path, i), nil) {
			id[f.key] = l.scalar(f.val, join(fmt.Sprintf("%s[%d]", path, i), f.key))
		}
		out = append(out, id)
	}
	return out
}

// batchItems reads what a batch read returns: one example item's name
// per id, in order, null for an id with no item ("" in Items); a name may
// repeat (an id given twice).
func (l *loader) batchItems(n *yaml.Node, path string) []string {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		l.add(pos(n), path, "expected one item name per id, null where an id has none, found %s", kindName(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		if c = deref(c); c.Kind == yaml.ScalarNode && c.Tag == "!!null" {
			out = append(out, "")
			continue
		}
		out = append(out, l.str(c, path))
	}
	return out
}

// fails reads a step's fails: a string (ParseFails), or one condition:
// clause as a write declares it ({inventory: {ge: $quantity}}).
func (l *loader) fails(n *yaml.Node, path string) (string, *Condition) {
	v := deref(n)
	if v.Kind != yaml.MappingNode {
		return l.str(n, path), nil
	}
	fs := l.fields(v, path, nil)
	if len(fs) != 1 {
		l.add(pos(v), path, "expected one condition, as a condition: clause writes it ({status: open}, {inventory: {ge: $quantity}}), or a string: absent, exists, version, \"unique: PATTERN\", an attribute")
		return "", nil
	}
	return "", l.condition(fs[0], join(path, fs[0].key))
}
