package patterns

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// What a model edit changes that no key, index or pattern's plan shows:
// an attribute added, its values, range or length, an entity's settings,
// a pattern's or a write's definition (KP621). The table does not see it,
// but the lock records it (the runtime, the handlers and generated code
// read the model from it), so keyplan diff lists it and keyplan lock says
// it records it.

// modelChanges lists them, entity by entity, then the patterns and the
// writes kept. Renames (KP606) and removed key attributes (KP605) are
// said by their own rules.
func (c *comparison) modelChanges(oldOf map[string]string) {
	if c.fm.IndexKeys != c.tm.IndexKeys {
		c.df.add(ChangeModel, Subject{SubjectTable, c.to.Table}, "indexKeys %s → %s (new GSIs are keyed so; the deployed ones stay as they are)", cmp.Or(string(c.fm.IndexKeys), notSet), cmp.Or(string(c.tm.IndexKeys), notSet))
	}
	for _, e := range c.tm.Entities {
		old, ok := oldOf[e.Name]
		if !ok {
			continue // a new entity: its items are new (no table change either)
		}
		fe := c.fm.Entity(old)
		var said []string
		renamed := map[string]bool{}
		for _, a := range e.Attributes {
			was := a.Name
			if a.RenamedFrom != "" && fe.Attr(a.RenamedFrom) != nil {
				was = a.RenamedFrom
				renamed[was] = true
			}
			fa := fe.Attr(was)
			if fa == nil {
				said = append(said, fmt.Sprintf("attribute %s added (%s)", a.Name, a.Type))
				continue
			}
			if d := fieldChanges(fa, a, "name", "renamedFrom"); len(d) > 0 {
				said = append(said, fmt.Sprintf("attribute %s: %s%s", a.Name, strings.Join(d, ", "), objectMove(fa, a)))
			}
		}
		for _, fa := range fe.Attributes {
			if e.Attr(fa.Name) == nil && !renamed[fa.Name] && !c.keyReads(old, fa.Name) {
				said = append(said, fmt.Sprintf("attribute %s removed (its values stay in the items already written)", fa.Name))
			}
		}
		if d := fieldChanges(fe, e, "name", "renamedFrom", "attributes", "within", "keys"); len(d) > 0 {
			said = append(said, strings.Join(d, ", "))
		}
		if len(said) > 0 {
			c.df.add(ChangeModel, Subject{SubjectEntity, e.Name}, "%s", strings.Join(said, "; "))
		}
	}
	for _, p := range patternsByName(c.tm) {
		fp := c.fm.Pattern(p.Name)
		if fp == nil {
			continue
		}
		was, now := c.from.Pattern(p.Name), c.to.Pattern(p.Name)
		if was == nil || now == nil || requestText(was) != requestText(now) {
			continue // its plan changes: the keys' and indexes' rules say how
		}
		if d := fieldChanges(fp, p); len(d) > 0 {
			c.df.add(ChangeModel, Subject{SubjectPattern, p.Name}, "%s (its plan stays)", strings.Join(d, ", "))
		}
	}
	for _, w := range c.tm.Writes {
		if fw := c.fm.Write(w.Name); fw != nil {
			if d := fieldChanges(fw, w); len(d) > 0 {
				c.df.add(ChangeModel, Subject{SubjectWrite, w.Name}, "%s", strings.Join(d, ", "))
			}
		}
	}
}

// keyReads reports whether a locked key of entity reads attr (its
// removal is KP605's).
func (c *comparison) keyReads(entity, attr string) bool {
	ek := c.from.Entity(entity)
	if ek == nil {
		return false
	}
	for _, k := range ek.Keys {
		if slices.Contains(append(k.PK.Attrs(), k.SK.Attrs()...), attr) {
			return true
		}
	}
	return false
}

// fieldChanges compares two values of one model type by their JSON
// fields (those named skip left out) and says each change: "maxLength
// 200 → 400", "values: blocked added", "rate (not set) → 5".
func fieldChanges(a, b any, skip ...string) []string {
	fields := func(v any) map[string]json.RawMessage {
		raw, _ := json.Marshal(v)
		var m map[string]json.RawMessage
		json.Unmarshal(raw, &m)
		for _, k := range skip {
			delete(m, k)
		}
		return m
	}
	fa, fb := fields(a), fields(b)
	var names []string
	for k := range fa {
		names = append(names, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var out []string
	for _, k := range names {
		x, y := fa[k], fb[k]
		if string(x) == string(y) {
			continue
		}
		if k == "values" {
			var was, now []string
			json.Unmarshal(x, &was)
			json.Unmarshal(y, &now)
			var parts []string
			if add := minus(now, was); len(add) > 0 {
				parts = append(parts, strings.Join(add, ", ")+" added")
			}
			if gone := minus(was, now); len(gone) > 0 {
				parts = append(parts, strings.Join(gone, ", ")+" removed")
			}
			if len(parts) > 0 {
				out = append(out, "values: "+strings.Join(parts, "; "))
				continue
			}
		}
		out = append(out, fmt.Sprintf("%s %s → %s", k, rawText(x), rawText(y)))
	}
	return out
}

// notSet is how a message names a model field left out.
const notSet = "(not set)"

// rawText renders a JSON field's value for messages ("(not set)" when
// it is absent).
func rawText(r json.RawMessage) string {
	if len(r) == 0 {
		return notSet
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(r, &list) == nil {
		return "[" + strings.Join(list, ", ") + "]"
	}
	return jsonText(json.RawMessage(r))
}
