package dynamo

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns/model"
)

// updateWrite plans an update: the item's write, and the writes of the
// guard items of unique values it moves.
func (t *Table) updateWrite(entity string, key Values, ch Changes, step int) (*itemWrite, []*itemWrite, error) {
	e, _, err := t.entity(entity)
	if err != nil {
		return nil, nil, err
	}
	if cw, ok, err := t.counterUpdate(e, key, ch, step); ok || err != nil {
		if err != nil || len(cw) == 0 {
			return nil, nil, err
		}
		return cw[0], cw[1:], nil
	}
	p := t.plans[entity]
	k, err := t.key(entity, key)
	if err != nil {
		return nil, nil, err
	}
	setPlain, setPaths := plainValues(ch.Set)
	removePlain, removePaths := splitPaths(ch.Remove)
	w := &itemWrite{kind: model.WriteUpdate, entity: entity, step: step, key: k, clauses: make([]clause, 1, 2+len(ch.With)+len(ch.If))}
	w.clauses[0] = t.exists(ErrChanged)
	changed := map[string]bool{}
	mark := func(name string) (*model.Attribute, error) {
		a := e.Attr(name)
		switch {
		case a == nil:
			return nil, fmt.Errorf("%w %q of %s", ErrUnknownAttr, name, entity)
		case changed[name]:
			return nil, fmt.Errorf("%s.%s is changed twice", entity, name)
		case e.Fixed(name):
			return nil, fmt.Errorf("%w: %s.%s never changes once written", ErrImmutable, entity, name)
		case e.Maintained(name):
			return nil, fmt.Errorf("%w: %s.%s", ErrMaintained, entity, name)
		case name == e.Version:
			return nil, fmt.Errorf("%s.%s is the version: every write increments it", entity, name)
		case a.Derived != nil:
			return nil, fmt.Errorf("%w: %s.%s is derived from %s: the update computes it", ErrDerived, entity, name, strings.Join(a.Derived.Sources(), ", "))
		}
		changed[name] = true
		return a, nil
	}
	w.changes = make([]edit, 0, len(ch.Set)+len(ch.Add)+len(ch.Remove)+3)
	if err := inOrder(e, setPlain, func(name string) error {
		a, err := mark(name)
		if err != nil {
			return err
		}
		if ch.Set[name] == nil {
			return fmt.Errorf("%s.%s set to nothing: remove it instead", entity, name)
		}
		av, err := stored(a, ch.Set[name])
		if err != nil {
			return err
		}
		if av == nil { // an empty set: no value
			w.changes = append(w.changes, edit{updRemove, name, nil})
			return nil
		}
		w.changes = append(w.changes, edit{updSet, name, av})
		return nil
	}); err != nil {
		return nil, nil, err
	}
	if err := t.entryEdits(e, w, ch.Set, setPaths, removePaths, changed); err != nil {
		return nil, nil, err
	}
	for _, name := range sortedNames(ch.Add) {
		a, err := mark(name)
		if err != nil {
			return nil, nil, err
		}
		if a.Type == model.TypeSet {
			av, err := elementsValue(a, ch.Add[name])
			if err != nil {
				return nil, nil, err
			}
			w.changes = append(w.changes, edit{updAdd, name, av})
			continue
		}
		if a.Type != model.TypeNumber {
			return nil, nil, fmt.Errorf("add to %s.%s, a %s: add applies to numbers and sets", entity, name, a.Type)
		}
		n, err := number(a, ch.Add[name], true) // a delta: not in the attribute's range
		if err != nil {
			return nil, nil, err
		}
		w.changes = append(w.changes, edit{updAdd, name, &types.AttributeValueMemberN{Value: n}})
	}
	var removed map[string]bool
	if len(ch.Remove) > 0 {
		removed = make(map[string]bool, len(ch.Remove))
	}
	for _, name := range removePlain {
		a, err := mark(name)
		if err != nil {
			return nil, nil, err
		}
		if !a.Optional && a.Type != model.TypeSet {
			return nil, nil, fmt.Errorf("%w: %s.%s is required; it cannot be removed", ErrMissing, entity, name)
		}
		w.changes = append(w.changes, edit{updRemove, name, nil})
		removed[name] = true
	}
	if err := elementEdits(e, w, ch, mark); err != nil {
		return nil, nil, err
	}
	if len(w.changes) == 0 {
		return nil, nil, fmt.Errorf("an update of %s that changes nothing: give Set, Add, Remove, Discard or Append", entity)
	}
	// What the item holds after the update, as far as the write knows.
	after := Values{}
	for name, v := range ch.With {
		if !changed[name] {
			after[name] = v
		}
	}
	for _, id := range e.ID {
		after[id] = key[id]
	}
	// An equality condition fixes its attribute as With would: the write
	// holds only if the item has that value (KP701 counts it, Pinned).
	for _, c := range ch.If {
		if c.Op != model.CondEq || changed[c.Attr] || hasKey(after, c.Attr) {
			continue
		}
		if c.Param == "" {
			after[c.Attr] = c.Value
		} else if v := ch.Params[c.Param]; v != nil {
			after[c.Attr] = v
		}
	}
	for name, v := range setPlain {
		after[name] = v
	}
	if removed, err = rederive(e, w, after, changed, removed, ch.With); err != nil {
		return nil, nil, err
	}
	// Every key an attribute it changes reads is rebuilt, or removed when
	// the item no longer holds it (sparse).
	st := &updateState{changed: changed, removed: removed, add: ch.Add, with: ch.With, after: after}
	var holds map[string]bool
	if w.changes, holds, err = t.keyEdits(p, st, nil, w.changes); err != nil {
		return nil, nil, err
	}
	// During a migration, the accepted design's keys too (its readers
	// read them until the target's indexes are complete), and the old
	// names of renamed attributes.
	if w.changes, err = t.expandUpdate(entity, st, holds, w.changes); err != nil {
		return nil, nil, err
	}
	// The item must still hold what With says.
	if err := inOrder(e, ch.With, func(name string) error {
		var av types.AttributeValue
		if ch.With[name] != nil {
			if av, err = stored(e.Attr(name), ch.With[name]); err != nil {
				return err
			}
		}
		w.clauses = append(w.clauses, is(name, av, ErrChanged))
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("%w (With)", err)
	}
	if e.Version != "" {
		vc, err := t.versionClause(e, ch.Version)
		if err != nil {
			return nil, nil, err
		}
		w.clauses = append(w.clauses, vc)
		inc := edit{updAdd, e.Version, one}
		if t.renamed[entity][e.Version] != "" {
			// A renamed version is set, not added to: the old name may
			// hold it (the condition said which value it is).
			n, err := increment1(vc.eq)
			if err != nil {
				return nil, nil, err
			}
			inc = edit{updSet, e.Version, n}
		}
		w.changes = append(w.changes, inc)
	}
	if err := t.conditions(w, e, ch.If, ch.Params); err != nil {
		return nil, nil, err
	}
	if w.changes, err = t.renamedEdits(entity, w.changes); err != nil {
		return nil, nil, err
	}
	// Unique values it changes move their guards.
	var extra []*itemWrite
	for _, u := range t.unique[entity] {
		if !slices.ContainsFunc(u.Where, func(a string) bool { return changed[a] }) {
			continue
		}
		before := Values{}
		for _, a := range u.Where {
			v, ok := ch.With[a]
			if !changed[a] {
				v, ok = after[a]
			}
			if !ok && !hasKey(ch.With, a) {
				return nil, nil, fmt.Errorf("%w: the update changes %s, which %s keeps unique: pass its current value in With (its guard moves)", ErrKeyChange, a, u.Name)
			}
			before[a] = v
		}
		moves, err := t.guardMove(e, u, before, after, k, step)
		if err != nil {
			return nil, nil, err
		}
		extra = append(extra, moves...)
	}
	return w, extra, nil
}

// one is the version's increment.
var one = &types.AttributeValueMemberN{Value: "1"}

// increment1 is a stored whole number plus one.
func increment1(v types.AttributeValue) (types.AttributeValue, error) {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return nil, fmt.Errorf("the version read is %s, not a number", text(v))
	}
	i, ok := new(big.Int).SetString(n.Value, 10)
	if !ok {
		return nil, fmt.Errorf("the version read is %s, not a whole number", n.Value)
	}
	return &types.AttributeValueMemberN{Value: i.Add(i, big.NewInt(1)).String()}, nil
}

// updateState is what an update knows of the item, by attribute name
// (of one design): the attributes it changes and removes, its additions,
// the values With gives, and the values it holds after.
type updateState struct {
	changed, removed map[string]bool
	add, with, after Values
}

// renamedAs is the state with attributes renamed by names (name → name
// in the other design; names it lacks are left out).
func (st *updateState) renamedAs(names map[string]string) *updateState {
	out := &updateState{changed: map[string]bool{}, removed: map[string]bool{}, add: Values{}, with: Values{}, after: Values{}}
	for n, o := range names {
		if st.changed[n] {
			out.changed[o] = true
		}
		if st.removed[n] {
			out.removed[o] = true
		}
		if v, ok := st.add[n]; ok {
			out.add[o] = v
		}
		if v, ok := st.with[n]; ok {
			out.with[o] = v
		}
		if v, ok := st.after[n]; ok {
			out.after[o] = v
		}
	}
	return out
}

// encode encodes the attributes a key reads as the item holds them after
// the update: present and enc by attribute position; added lists those
// an atomic add changes (their value is unknown), missing those neither
// the update nor With gives.
func (st *updateState) encode(e *model.Entity, reads []int, enc []string, present []bool) (added, missing []string, gone bool, err error) {
	if slices.ContainsFunc(reads, func(i int) bool { return st.removed[e.Attributes[i].Name] }) {
		// The item no longer holds what the key reads: it leaves the
		// index, whatever else the key reads (sparse).
		return nil, nil, true, nil
	}
	for _, i := range reads {
		name := e.Attributes[i].Name
		present[i], enc[i] = false, ""
		v, known := st.after[name]
		switch {
		case st.add[name] != nil:
			added = append(added, name)
		case !known && !hasKey(st.with, name):
			missing = append(missing, name)
		case v != nil:
			s, err := e.Attributes[i].EncodeKey(v)
			if err != nil {
				return nil, nil, false, err
			}
			enc[i], present[i] = s, true
		}
	}
	return added, missing, false, nil
}

// keyReads lists the attributes (by position) a key reads.
func keyReads(kp keyPlan, buf []int) []int {
	reads := append(buf[:0], kp.needs...)
	for _, wc := range kp.when {
		reads = append(reads, wc.attr)
	}
	return reads
}

// keyEdits appends to edits the rebuilding of each GSI key of p that an
// attribute the update changes reads (only: the keys to consider, nil
// for all), or its removal when the item no longer holds it (sparse). It
// reports, by key attribute name, whether the item holds each key it
// rebuilt.
func (t *Table) keyEdits(p *entityPlan, st *updateState, only func(kp keyPlan) bool, edits []edit) ([]edit, map[string]bool, error) {
	e := p.e
	n := len(e.Attributes)
	var encBuf [16]string
	var presentBuf [16]bool
	var enc []string
	var present []bool
	if n <= len(encBuf) {
		enc, present = encBuf[:n], presentBuf[:n]
	} else {
		enc, present = make([]string, n), make([]bool, n)
	}
	var readBuf [16]int
	var holds map[string]bool
	for _, kp := range p.keys {
		if kp.table {
			continue
		}
		reads := keyReads(kp, readBuf[:0])
		if !slices.ContainsFunc(reads, func(i int) bool { return st.changed[e.Attributes[i].Name] }) {
			continue
		}
		if only != nil && !only(kp) {
			continue
		}
		added, missing, gone, err := st.encode(e, reads, enc, present)
		if err != nil {
			return nil, nil, err
		}
		if holds == nil {
			holds = map[string]bool{}
		}
		if gone {
			edits = keyEdit(edits, kp, nil, nil)
			holds[kp.id()] = false
			continue
		}
		pk := t.indexOf(kp)
		switch {
		case len(added) > 0:
			return nil, nil, fmt.Errorf("%w: add to %s, which %s's key reads: its new value is unknown to the write; set it instead", ErrKeyChange, strings.Join(added, ", "), pk)
		case len(missing) > 0:
			return nil, nil, fmt.Errorf("%w: the update changes %s, which %s's key also builds from %s: pass %s in With (as the item holds it)",
				ErrKeyChange, changedIn(reads, e, st.changed), pk, strings.Join(missing, ", "), strings.Join(missing, ", "))
		}
		if p.holds(kp, present, enc) {
			pkv, err := p.build(kp.pk, enc, st.after)
			if err != nil {
				return nil, nil, err
			}
			skv, err := p.build(kp.sk, enc, st.after)
			if err != nil {
				return nil, nil, err
			}
			edits = keyEdit(edits, kp, &types.AttributeValueMemberS{Value: pkv}, &types.AttributeValueMemberS{Value: skv})
			holds[kp.id()] = true
		} else {
			edits = keyEdit(edits, kp, nil, nil)
			holds[kp.id()] = false
		}
	}
	return edits, holds, nil
}

// expandUpdate adds to an update, during a migration, the accepted
// design's GSI keys its changes rebuild, as expand does for a whole item:
// a key of the accepted design is the item's where the target gives it
// no key on that index (the target's key wins where it holds). holds
// says which target keys the update rebuilt, and whether the item holds
// them.
func (t *Table) expandUpdate(entity string, st *updateState, holds map[string]bool, edits []edit) ([]edit, error) {
	r := t.rollout
	if r == nil {
		return edits, nil
	}
	old, ok := r.entity[entity]
	if !ok {
		return edits, nil // new in the target: no keys before it
	}
	p := t.plans[entity]
	pp := r.prev.plans[old]
	prev := st.renamedAs(r.attrs[entity])
	target := map[string]keyPlan{}
	for _, kp := range p.keys {
		if !kp.table {
			target[kp.id()] = kp
		}
	}
	var encBuf [16]string
	var presentBuf [16]bool
	var readBuf [16]int
	// ownedByTarget reports whether the item holds the target's key on
	// the index of the accepted design's key kp after the update.
	ownedByTarget := func(kp keyPlan) (bool, error) {
		tk, ok := target[kp.id()]
		if !ok {
			return false, nil
		}
		if h, rebuilt := holds[kp.id()]; rebuilt {
			return h, nil
		}
		n := len(p.e.Attributes)
		var enc []string
		var present []bool
		if n <= len(encBuf) {
			enc, present = encBuf[:n], presentBuf[:n]
		} else {
			enc, present = make([]string, n), make([]bool, n)
		}
		reads := keyReads(tk, readBuf[:0])
		added, missing, gone, err := st.encode(p.e, reads, enc, present)
		if err != nil || gone {
			return false, err
		}
		if len(added)+len(missing) > 0 {
			return false, fmt.Errorf("%w: during the migration the update rebuilds %s's key of the accepted design, unless the target's key on that index holds, which reads %s: pass %s in With (as the item holds it)",
				ErrKeyChange, r.prev.indexOf(kp), strings.Join(append(added, missing...), ", "), strings.Join(append(added, missing...), ", "))
		}
		return p.holds(tk, present, enc), nil
	}
	var ferr error
	more, _, err := r.prev.keyEdits(pp, prev, func(kp keyPlan) bool {
		if ferr != nil {
			return false
		}
		owned, err := ownedByTarget(kp)
		ferr = err
		return err == nil && !owned
	}, nil)
	if ferr != nil {
		return nil, ferr
	}
	if err != nil {
		if errors.Is(err, ErrKeyChange) {
			return nil, fmt.Errorf("the accepted design's keys (the migration writes both): %w", err)
		}
		return nil, notYet(err)
	}
	// Where the target's key stops holding and the accepted design's
	// holds, the accepted design's is the item's (not both edits).
	edits = slices.DeleteFunc(edits, func(c edit) bool {
		return slices.ContainsFunc(more, func(m edit) bool { return m.name == c.name })
	})
	return append(edits, more...), nil
}

// renamedEdits adds the old names of renamed attributes to an update's
// edits. During a migration (the rollout) the old name is written with
// the new one (the accepted design's readers read it, and the backfill
// then finds nothing to copy); an atomic add is refused, since the new
// name may not hold the value yet. Without one, a write of the new name
// removes the old (so an item's old value never answers for a removed
// new one).
func (t *Table) renamedEdits(entity string, edits []edit) ([]edit, error) {
	names := t.renamed[entity]
	if len(names) == 0 {
		return edits, nil
	}
	var dual map[string]string
	if r := t.rollout; r != nil {
		dual = r.attrs[entity]
	}
	n := len(edits)
	for _, c := range edits[:n] {
		old := names[c.name]
		if old == "" {
			continue
		}
		switch {
		case dual[c.name] != old:
			edits = append(edits, edit{updRemove, old, nil})
		case c.op == updAdd:
			return nil, fmt.Errorf("%w: add to %s.%s, renamed from %s, while a migration backfills it (the new name may not hold its value yet): set it instead, passing the value read in With", ErrKeyChange, entity, c.name, old)
		default:
			edits = append(edits, edit{c.op, old, c.val})
		}
	}
	return edits, nil
}

// inOrder calls fn with the names of v in the entity's attribute order
// (deterministic requests without sorting); a name that is no attribute
// of the entity is ErrUnknownAttr.
func inOrder(e *model.Entity, v Values, fn func(name string) error) error {
	seen := 0
	for _, a := range e.Attributes {
		if _, ok := v[a.Name]; ok {
			seen++
			if err := fn(a.Name); err != nil {
				return err
			}
		}
	}
	if seen < len(v) {
		for _, name := range sortedNames(v) {
			if e.Attr(name) == nil {
				return fmt.Errorf("%w %q of %s", ErrUnknownAttr, name, e.Name)
			}
		}
	}
	return nil
}

func hasKey(v Values, name string) bool {
	_, ok := v[name]
	return ok
}

// changedIn lists the changed attributes among a key's.
func changedIn(reads []int, e *model.Entity, changed map[string]bool) string {
	var out []string
	for _, i := range reads {
		if n := e.Attributes[i].Name; changed[n] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// indexOf names a compiled key's index.
func (t *Table) indexOf(kp keyPlan) string {
	for _, ix := range t.d.SecondaryIndexes() {
		if ix.SK == kp.skName && !ix.Native() {
			return ix.Name
		}
	}
	return model.BaseIndex
}

// versionClause is the condition that the item is at the version read.
func (t *Table) versionClause(e *model.Entity, read any) (clause, error) {
	if read == nil {
		return clause{}, fmt.Errorf("%w: %s has a version (%s): pass the version read", ErrMissing, e.Name, e.Version)
	}
	av, err := stored(e.Attr(e.Version), read)
	if err != nil {
		return clause{}, err
	}
	c := is(e.Version, av, ErrChanged)
	c.version, c.kind = true, model.FailsVersion
	return c, nil
}

// guardFor is a unique pattern's guard for values; false when the values
// lack one of its attributes (the item has no guard then).
func (t *Table) guardFor(e *model.Entity, u *model.Pattern, v Values) (guard, bool, error) {
	var b strings.Builder
	b.WriteString(guardTag + string(model.Sep) + t.tag(e.Name))
	for _, a := range u.Where {
		x, ok := v[a]
		if !ok || x == nil {
			return guard{}, false, nil
		}
		enc, err := e.Attr(a).EncodeKey(x)
		if err != nil {
			return guard{}, false, err
		}
		b.WriteString(string(model.Sep) + strings.ToUpper(a) + string(model.Sep) + enc)
	}
	return guard{u.Name, map[string]types.AttributeValue{
		t.d.PK: &types.AttributeValueMemberS{Value: b.String()},
		t.d.SK: &types.AttributeValueMemberS{Value: guardTag},
	}}, true, nil
}

// guardMove is the writes that move a unique pattern's guard from the
// values before to those after, for the item with key owner.
func (t *Table) guardMove(e *model.Entity, u *model.Pattern, before, after Values, owner map[string]types.AttributeValue, step int) ([]*itemWrite, error) {
	old, hadOld, err := t.guardFor(e, u, before)
	if err != nil {
		return nil, err
	}
	now, hasNew, err := t.guardFor(e, u, after)
	if err != nil {
		return nil, err
	}
	if hadOld && hasNew && SameValue(old.key[t.d.PK], now.key[t.d.PK]) {
		return nil, nil
	}
	var out []*itemWrite
	if hadOld {
		out = append(out, t.guardDelete(e, old, owner, step))
	}
	if hasNew {
		out = append(out, t.guardPut(e, now, owner, step))
	}
	return out, nil
}

// guardPut takes a guard for the item with key owner.
func (t *Table) guardPut(e *model.Entity, g guard, owner map[string]types.AttributeValue, step int) *itemWrite {
	c := t.absent(fmt.Errorf("%w: %s %s is taken", ErrNotUnique, g.pattern, g.value(t.tag(e.Name))))
	c.text = fmt.Sprintf("%s %s free (unique)", g.pattern, g.value(t.tag(e.Name)))
	c.kind, c.pattern = model.FailsUnique, g.pattern
	c.found = func(it map[string]types.AttributeValue) string { return "it is taken by " + t.guardOwner(e.Name, it) }
	return &itemWrite{kind: model.WritePut, entity: e.Name, step: step, item: g.item(owner, t.d.PK, t.d.SK), clauses: []clause{c}, guard: true}
}

// guardDelete drops a guard, on condition it is the item's.
func (t *Table) guardDelete(e *model.Entity, g guard, owner map[string]types.AttributeValue, step int) *itemWrite {
	err := fmt.Errorf("%w: the guard of %s %s is not this item's", ErrChanged, g.pattern, g.value(t.tag(e.Name)))
	cs := []clause{is(OwnerPK, owner[t.d.PK], err), is(OwnerSK, owner[t.d.SK], err)}
	for i := range cs {
		cs[i].kind, cs[i].pattern = model.FailsUnique, g.pattern
		cs[i].text = fmt.Sprintf("%s %s held by this %s", g.pattern, g.value(t.tag(e.Name)), e.Name)
		cs[i].found = func(it map[string]types.AttributeValue) string {
			if it == nil {
				return "no item holds it"
			}
			return "it is held by " + t.guardOwner(e.Name, it)
		}
	}
	return &itemWrite{kind: model.WriteDelete, entity: e.Name, step: step, key: g.key, clauses: cs, guard: true}
}

// guardOwner names the item a guard item holds its value for.
func (t *Table) guardOwner(entity string, guard map[string]types.AttributeValue) string {
	if guard == nil {
		return "no item"
	}
	return t.itemName(entity, map[string]types.AttributeValue{t.d.PK: guard[OwnerPK], t.d.SK: guard[OwnerSK]})
}

// putWrite plans a put of a whole item: if IfAbsent a create (its guards
// taken), if IfPresent a replacement that keeps what stream handlers
// maintain (an update of every other attribute), if "" either.
//
// v may hold other names than the entity's attributes (a write's other
// parameters) unless strict.
func (t *Table) putWrite(entity string, v Values, strict bool, mode string, conds []*model.Condition, params Params, step int) ([]*itemWrite, error) {
	e, _, err := t.entity(entity)
	if err != nil {
		return nil, err
	}
	// A stream handler keeps a counter or copy once the item exists; its
	// first value is the creator's.
	for name := range v {
		if e.Maintained(name) && mode != model.IfAbsent {
			return nil, fmt.Errorf("%w: %s.%s (only a create gives it its first value)", ErrMaintained, entity, name)
		}
	}
	switch mode {
	case model.IfPresent:
		if len(t.unique[entity]) > 0 {
			return nil, fmt.Errorf("%s has unique alternate keys (%s): replace it with Replace, or an update passing the unique values it changes", entity, t.unique[entity][0].Name)
		}
		ch := Changes{Set: Values{}, Version: v[e.Version], If: conds, Params: params, With: Values{}}
		for _, a := range e.Attributes {
			x, has := v[a.Name]
			switch {
			case e.IsID(a.Name) || e.Maintained(a.Name) || a.Name == e.Version || a.Derived != nil || !a.Stored():
			case a.Immutable:
				ch.With[a.Name] = x
			case has && x != nil:
				ch.Set[a.Name] = x
			case a.Optional || a.Type == model.TypeSet:
				ch.Remove = append(ch.Remove, a.Name)
			case t.d.RequiredHint(entity, a.Name) != "":
				return nil, fmt.Errorf("%w: %s.%s is required: %s", ErrMissing, entity, a.Name, t.d.RequiredHint(entity, a.Name))
			default:
				return nil, fmt.Errorf("%w: %s.%s is required", ErrMissing, entity, a.Name)
			}
		}
		w, extra, err := t.updateWrite(entity, v, ch, step)
		if err != nil {
			return nil, err
		}
		return append([]*itemWrite{w}, extra...), nil
	case model.IfAbsent:
		if e.Version != "" { // a new item is at version 1
			v = maps.Clone(v)
			v[e.Version] = 1
		}
		item, err := t.build(entity, v, strict)
		if err != nil {
			return nil, err
		}
		w := &itemWrite{kind: model.WritePut, entity: entity, step: step, item: item, clauses: make([]clause, 1, 1+len(conds))}
		w.clauses[0] = t.absent(ErrExists)
		if err := t.conditions(w, e, conds, params); err != nil {
			return nil, err
		}
		unique := t.unique[entity]
		if len(unique) == 0 {
			return []*itemWrite{w}, nil
		}
		out := []*itemWrite{w}
		key := map[string]types.AttributeValue{t.d.PK: item[t.d.PK], t.d.SK: item[t.d.SK]}
		for _, u := range unique {
			g, ok, err := t.guardFor(e, u, v)
			if err != nil {
				return nil, err
			}
			if ok && !t.writesGuard(out[1:], g) {
				out = append(out, t.guardPut(e, g, key, step))
			}
		}
		return out, nil
	}
	if err := t.unconditional(e, true); err != nil {
		return nil, fmt.Errorf("%w: create it (Create) or replace it (Replace, Update)", err)
	}
	item, err := t.build(entity, v, strict)
	if err != nil {
		return nil, err
	}
	w := &itemWrite{kind: model.WritePut, entity: entity, step: step, item: item}
	return []*itemWrite{w}, t.conditions(w, e, conds, params)
}

// deleteWrite plans a delete: the item (on condition it exists, is at the
// version read, and holds the unique values given) and its guards. A
// unique attribute the values lack must be absent from the item, so no
// guard is left behind.
func (t *Table) deleteWrite(entity string, v Values, conds []*model.Condition, params Params, step int) ([]*itemWrite, error) {
	e, _, err := t.entity(entity)
	if err != nil {
		return nil, err
	}
	k, err := t.key(entity, v)
	if err != nil {
		return nil, err
	}
	w := &itemWrite{kind: model.WriteDelete, entity: entity, step: step, key: k, clauses: []clause{t.exists(ErrChanged)}}
	if e.Version != "" {
		vc, err := t.versionClause(e, v[e.Version])
		if err != nil {
			return nil, err
		}
		w.clauses = append(w.clauses, vc)
	}
	if err := t.conditions(w, e, conds, params); err != nil {
		return nil, err
	}
	out := []*itemWrite{w}
	cds, err := t.counterDeletes(e, v, step)
	if err != nil {
		return nil, err
	}
	out = append(out, cds...)
	tested := map[string]bool{}
	for _, u := range t.unique[entity] {
		for _, a := range u.Where {
			if tested[a] || e.IsID(a) {
				continue
			}
			tested[a] = true
			var av types.AttributeValue
			if x := v[a]; x != nil {
				if av, err = stored(e.Attr(a), x); err != nil {
					return nil, err
				}
			}
			c := is(a, av, ErrChanged)
			if av == nil {
				c.text = a + " is absent (pass it when the item holds it: its guard goes with the item)"
			}
			w.clauses = append(w.clauses, c)
		}
		g, ok, err := t.guardFor(e, u, v)
		if err != nil {
			return nil, err
		}
		if ok && !t.writesGuard(out[1:], g) {
			out = append(out, t.guardDelete(e, g, k, step))
		}
	}
	return out, nil
}

// checkWrite plans a transaction's check of an item.
func (t *Table) checkWrite(entity string, v Values, conds []*model.Condition, params Params, step int) (*itemWrite, error) {
	e, _, err := t.entity(entity)
	if err != nil {
		return nil, err
	}
	k, err := t.key(entity, v)
	if err != nil {
		return nil, err
	}
	w := &itemWrite{kind: model.WriteCheck, entity: entity, step: step, key: k}
	return w, t.conditions(w, e, conds, params)
}

// conditions adds declared conditions to an item write, their
// $parameters from params.
func (t *Table) conditions(w *itemWrite, e *model.Entity, conds []*model.Condition, params Params) error {
	for _, c := range conds {
		cl, err := t.condition(e, c, params)
		if err != nil {
			return err
		}
		w.clauses = append(w.clauses, cl)
	}
	return nil
}

// writesGuard reports whether one of ws writes the guard item g (two
// unique patterns on one attribute share it).
func (t *Table) writesGuard(ws []*itemWrite, g guard) bool {
	return slices.ContainsFunc(ws, func(x *itemWrite) bool { return SameValue(x.keyOf(t.d)[t.d.PK], g.key[t.d.PK]) })
}

// unconditional refuses a write without conditions (a put without if, a
// batch; put: it writes whole items) of an entity whose writes need them:
// unique values (guard items), a version, and for puts the attributes
// stream handlers keep (KP703, KP706 at plan time).
func (t *Table) unconditional(e *model.Entity, put bool) error {
	var why []string
	if len(t.unique[e.Name]) > 0 {
		why = append(why, "unique values")
	}
	if e.Version != "" {
		why = append(why, "a version")
	}
	if put && len(e.Counters)+len(e.Copies) > 0 {
		why = append(why, "attributes stream handlers keep")
	}
	if len(why) > 0 {
		return fmt.Errorf("%s has %s, which a write without conditions would break (KP703, KP706)", e.Name, strings.Join(why, " and "))
	}
	return nil
}
