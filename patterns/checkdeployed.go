package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// DeployedBaseRule is KP109's id: a design with its findings keeps a
// deployed base key that identifies items by more than their id (the
// generated proof does not run on it).
const DeployedBaseRule = "KP109"

// KP109: a base key an earlier keyplan planned, or checked, and the table
// is deployed with, holding what a newer rule refuses in a new design: an
// attribute beside the id (KP104 since the planner keys base tables by
// the id alone) or one that may change (KP105). A base key never changes
// in place (KP607: every item would move), so refusing it would stop
// every tool without a fix; the deployed key keeps serving, and the
// warning says what it costs and how to fix it.
func ruleDeployedBase(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		k := d.Entity(e.Name).Key(model.BaseIndex)
		if k == nil || !d.deployedBase(e, k) {
			continue
		}
		var extra, changing []string
		for _, a := range append(k.PK.Attrs(), k.SK.Attrs()...) {
			switch {
			case e.IsID(a) || slices.Contains(extra, a) || slices.Contains(changing, a):
			case e.Fixed(a):
				extra = append(extra, a)
			default:
				changing = append(changing, a)
			}
		}
		key := fmt.Sprintf("%s / %s", k.PK, k.SK)
		if len(extra) > 0 {
			out = append(out, finding{entity(e), e.PosOf("keys"),
				fmt.Sprintf("its deployed base key %s holds %s beside its id (%s), which a new design would not (KP104: two %s items of one id with different %s are both stored, and a write by id needs %s too); the table keeps serving it",
					key, strings.Join(extra, ", "), strings.Join(e.ID, ", "), e.Name, strings.Join(extra, ", "), strings.Join(extra, ", ")),
				fmt.Sprintf("add %s to %s's id if it is part of what identifies an item (its items are already keyed so: no table change); otherwise the fix is new base keys, which means a new table (a base key never changes in place, KP607): plan the model without this lock and copy the items", strings.Join(extra, ", "), e.Name)})
		}
		if len(changing) > 0 {
			out = append(out, finding{entity(e), e.PosOf("keys"),
				fmt.Sprintf("its deployed base key %s holds %s, which is not an id attribute and may change (KP105: a base key cannot be updated in place); the table keeps serving it, and a write that changes %s is refused", key, strings.Join(changing, ", "), strings.Join(changing, ", ")),
				fmt.Sprintf("declare %s immutable if it never changes once written (no table change); otherwise the fix is new base keys, which means a new table (a base key never changes in place, KP607): plan the model without this lock and copy the items", strings.Join(changing, ", "))})
		}
	}
	return out
}

// deployedBase reports whether k, entity e's base key in the design, is
// the one the table is deployed with: the design was planned with a lock
// (Options.Lock) whose design keys e (or the entity it is renamed from)
// so, its attributes as the model now names them.
func (d *Design) deployedBase(e *model.Entity, k *EntityKey) bool {
	from := d.deployed
	if from == nil || from.Model() == nil {
		return false
	}
	lm := from.Model()
	old := e.Name
	if e.RenamedFrom != "" && lm.Entity(e.RenamedFrom) != nil {
		old = e.RenamedFrom
	}
	le, lk := lm.Entity(old), from.Entity(old)
	if le == nil || lk == nil || lk.Key(model.BaseIndex) == nil {
		return false
	}
	names := map[string]string{}
	for _, a := range e.Attributes {
		was := a.Name
		if a.RenamedFrom != "" && le.Attr(a.RenamedFrom) != nil {
			was = a.RenamedFrom
		}
		if le.Attr(was) != nil {
			names[was] = a.Name
		}
	}
	t, ok := translateKey(lk.Key(model.BaseIndex), names)
	return ok && t.PK.Equal(k.PK) && t.SK.Equal(k.SK)
}
