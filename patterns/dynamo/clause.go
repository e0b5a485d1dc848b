package dynamo

import (
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Clause is a condition a refused write needed, named as the model names
// it (examples.steps[].fails, docs/writes.md): its kind, the attribute it
// tests, the unique pattern whose guard it is, or the condition: clause
// the write declares; and how keyplan words it, today and before.
type Clause struct {
	Kind model.FailsKind
	// Attr is the attribute it tests (version, attribute, condition).
	Attr string
	// Pattern is the unique pattern whose value must be free or held
	// (unique).
	Pattern string
	// Condition is the write's condition: clause (condition).
	Condition *model.Condition
	// Said is keyplan's wording of it ("rev still 1 (the version read)");
	// Earlier are earlier versions' wordings of it, oldest first (the
	// table of docs/writes.md): a fails: that starts one of them names
	// it still.
	Said    string
	Earlier []string
}

// named is the clause as the model names it.
func (c *clause) named() Clause {
	out := Clause{Kind: c.kind, Attr: c.attr, Pattern: c.pattern, Condition: c.decl, Said: c.said()}
	switch c.kind {
	case model.FailsAbsent:
		out.Attr = ""
		// 166c88c, then 3df626b; a1fb4d3 says "a new item (if: absent)".
		out.Earlier = []string{"no such item exists yet", "the item is new (if: absent)"}
	case model.FailsExists:
		out.Attr = ""
		out.Earlier = []string{"the item exists"} // until a1fb4d3: "an existing item"
	case model.FailsVersion:
		out.Earlier = []string{c.attr + " is still " + text(c.eq) + " (the version read)"} // until a1fb4d3
	case model.FailsUnique:
		out.Attr = ""
		if v, ok := strings.CutSuffix(c.text, " free (unique)"); ok {
			out.Earlier = []string{v + " is free"} // until a1fb4d3
		} else { // a guard held by the item (a delete or a move)
			out.Earlier = []string{c.attr + " = " + text(c.eq)}
		}
	case model.FailsAttribute:
		if c.eq == nil {
			out.Earlier = []string{c.attr + " is absent"} // until a1fb4d3
		}
	}
	return out
}

// Stable is how fails: names the clause, in its stable words: "absent",
// "exists", "version", "unique: PATTERN", the attribute, or the
// condition: clause ("{status: open}"); then, for a clause on an
// attribute, the attribute alone too.
func (c Clause) Stable() []string {
	switch c.Kind {
	case model.FailsUnique:
		return []string{"unique: " + c.Pattern}
	case model.FailsVersion:
		return []string{"version", c.Attr}
	case model.FailsCondition:
		return []string{c.Condition.Clause(), c.Attr}
	case model.FailsAttribute:
		return []string{c.Attr}
	}
	return []string{string(c.Kind)}
}

// Matches reports whether fails: f names the clause, condition being
// keyplan's wording of the failure today (ConditionError.Condition); by
// an earlier wording, earlier is set.
func (c Clause) Matches(f model.FailsSpec, condition string) (ok, earlier bool) {
	switch f.Kind {
	case model.FailsAbsent, model.FailsExists, model.FailsVersion:
		if c.Kind == f.Kind {
			return true, false
		}
	case model.FailsUnique:
		return c.Kind == f.Kind && c.Pattern == f.Pattern, false
	case model.FailsCondition:
		return c.Kind == f.Kind && model.SameCondition(c.Condition, f.Condition), false
	case model.FailsAttribute:
		if c.Attr == f.Attr && c.Kind != model.FailsAbsent && c.Kind != model.FailsExists {
			return true, false
		}
	}
	if f.Text == "" {
		return false, false
	}
	if strings.HasPrefix(condition, f.Text) {
		return true, false
	}
	for _, e := range c.Earlier {
		if strings.HasPrefix(e, f.Text) {
			return true, true
		}
	}
	return false, false
}
