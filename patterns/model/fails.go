package model

import (
	"fmt"
	"slices"
	"strings"
)

// The stable vocabulary of examples.steps[].fails (docs/writes.md): a
// step expected to be refused names the condition that refuses it as the
// model writes it, not by keyplan's wording of it (which changes).

// FailsKind is the kind of condition a step's fails: names.
type FailsKind string

// The kinds of fails:.
const (
	// FailsAbsent: the item must be new (if: absent, a create).
	FailsAbsent FailsKind = "absent"
	// FailsExists: the item must exist (an update, a delete, if:
	// present).
	FailsExists FailsKind = "exists"
	// FailsVersion: the item must still be at the version read (the
	// entity's version attribute).
	FailsVersion FailsKind = "version"
	// FailsUnique: a unique pattern's value must be free (its guard).
	FailsUnique FailsKind = "unique"
	// FailsAttribute: a condition on the attribute Attr: a condition:
	// clause on it, the version if it is the version attribute, or the
	// value an update passed in with.
	FailsAttribute FailsKind = "attribute"
	// FailsCondition: the condition: clause Condition, as the write
	// declares it.
	FailsCondition FailsKind = "condition"
	// FailsText: the start of keyplan's wording of the condition (today's
	// or an earlier one: the table of docs/writes.md).
	FailsText FailsKind = "text"
)

// FailsSpec is what a step's fails: names.
type FailsSpec struct {
	Kind FailsKind
	// Attr is the attribute (FailsAttribute).
	Attr string
	// Pattern is the unique pattern (FailsUnique).
	Pattern string
	// Condition is the clause (FailsCondition).
	Condition *Condition
	// Text is fails: as written (every kind but FailsCondition).
	Text string
}

// ParseFails reads a fails: string: absent, exists, version, "unique:
// PATTERN", an attribute's name (or the start of a wording that is one
// word), or the start of keyplan's wording of the condition.
func ParseFails(s string) FailsSpec {
	t := strings.TrimSpace(s)
	switch {
	case t == string(FailsAbsent), t == string(FailsExists), t == string(FailsVersion):
		return FailsSpec{Kind: FailsKind(t), Text: s}
	case strings.HasPrefix(t, "unique:"):
		return FailsSpec{Kind: FailsUnique, Pattern: strings.TrimSpace(strings.TrimPrefix(t, "unique:")), Text: s}
	case ValidName(t):
		return FailsSpec{Kind: FailsAttribute, Attr: t, Text: s}
	}
	return FailsSpec{Kind: FailsText, Text: s}
}

// FailsOf is what a step's fails: names ("" Kind: the step must
// succeed). A clause {unique: PATTERN} names the unique pattern when no
// entity the write writes has an attribute named unique.
func (m *Model) FailsOf(st *Step) FailsSpec {
	c := st.FailsCondition
	if c == nil {
		if st.Fails == "" {
			return FailsSpec{}
		}
		return ParseFails(st.Fails)
	}
	if c.Attr == string(FailsUnique) && c.Op == CondEq && c.Param == "" && !m.writesAttr(st.Write, c.Attr) {
		return FailsSpec{Kind: FailsUnique, Pattern: c.Value, Text: "unique: " + c.Value}
	}
	return FailsSpec{Kind: FailsCondition, Condition: c, Attr: c.Attr}
}

// writesAttr reports whether a write pattern writes an entity with the
// attribute.
func (m *Model) writesAttr(write, attr string) bool {
	w := m.Write(write)
	if w == nil {
		return false
	}
	for _, it := range w.Items() {
		if ent := m.Entity(it.Entity); ent != nil && ent.Attr(attr) != nil {
			return true
		}
	}
	return false
}

// SameCondition reports whether two condition clauses say the same: the
// attribute, the comparison and its operand.
func SameCondition(a, b *Condition) bool {
	if a == nil || b == nil || a.Attr != b.Attr || a.Op != b.Op || a.Value != b.Value || a.Param != b.Param || len(a.Values) != len(b.Values) {
		return false
	}
	for i := range a.Values {
		if a.Values[i] != b.Values[i] {
			return false
		}
	}
	return true
}

// Clause is the condition as a condition: clause writes it, for fails:
// and messages: "{status: PAID}", "{inventory: {ge: $quantity}}",
// "{status: {in: [open, paid]}}", "{shippedAt: {absent: true}}".
func (c *Condition) Clause() string {
	operand := c.Value
	if c.Param != "" {
		operand = "$" + c.Param
	}
	switch c.Op {
	case CondEq:
		return "{" + c.Attr + ": " + operand + "}"
	case CondIn:
		return "{" + c.Attr + ": {in: [" + strings.Join(c.Values, ", ") + "]}}"
	case CondExists, CondAbsent:
		return "{" + c.Attr + ": {" + string(c.Op) + ": true}}"
	}
	return "{" + c.Attr + ": {" + string(c.Op) + ": " + operand + "}}"
}

// failsProblem says why a step's fails: names no condition its write w
// has ("" when it may: a string that is not a condition: clause or a
// unique pattern is matched against the refusal itself).
func (m *Model) failsProblem(st *Step, w *Write) string {
	f := m.FailsOf(st)
	switch f.Kind {
	case FailsCondition:
		for _, it := range w.Items() {
			for _, c := range it.Condition {
				if SameCondition(c, f.Condition) {
					return ""
				}
			}
		}
		return fmt.Sprintf("%s is no condition: clause of %s; %s", f.Condition.Clause(), w.Name, m.failsChoices(w))
	case FailsUnique:
		for _, it := range w.Items() {
			if p := m.Pattern(f.Pattern); p != nil && p.Unique && len(p.Entities) == 1 && p.Entities[0] == it.Entity {
				return ""
			}
		}
		return fmt.Sprintf("unique: %s names no unique pattern of what %s writes; %s", f.Pattern, w.Name, m.failsChoices(w))
	}
	return ""
}

// failsChoices says what a step of write w may name in fails:.
func (m *Model) failsChoices(w *Write) string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, it := range w.Items() {
		e := m.Entity(it.Entity)
		switch {
		case it.Op == WritePut && it.If == IfAbsent:
			add(string(FailsAbsent))
		case it.Op == WriteUpdate || it.Op == WriteDelete || it.If == IfPresent:
			add(string(FailsExists))
			if e != nil && e.Version != "" {
				add(string(FailsVersion))
			}
		}
		for _, c := range it.Condition {
			add(c.Clause())
		}
		for _, p := range m.Patterns {
			if p.Unique && len(p.Entities) == 1 && p.Entities[0] == it.Entity && it.Op != WriteCheck {
				add(fmt.Sprintf("%q", "unique: "+p.Name))
			}
		}
	}
	if len(out) == 0 {
		return "it declares no condition"
	}
	return "expected one of: " + strings.Join(out, ", ")
}
