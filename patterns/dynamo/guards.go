package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Guard items keep unique alternate keys unique: one item per value, keyed
// so that no entity's key can equal it ('~' is no tag character), written
// in the same transaction as the item it guards.
const (
	guardTag = patterns.GuardTag
	// OwnerPK and OwnerSK on a guard item name the item it guards.
	OwnerPK = "ownerPK"
	OwnerSK = "ownerSK"
)

// guard is one unique alternate key's guard for an item.
type guard struct {
	pattern string
	key     map[string]types.AttributeValue
}

// guards builds the guard keys of an item's unique alternate keys; an
// alternate key whose attributes the item lacks has none.
func (t *Table) guards(e *model.Entity, v Values) ([]guard, error) {
	var out []guard
	seen := map[string]bool{}
	for _, p := range t.unique[e.Name] {
		var b strings.Builder
		b.WriteString(guardTag + string(model.Sep) + t.tag(e.Name))
		complete := true
		for _, a := range p.Where {
			x, ok := v[a]
			if !ok || x == nil {
				complete = false
				break
			}
			enc, err := e.Attr(a).EncodeKey(x)
			if err != nil {
				return nil, err
			}
			b.WriteString(string(model.Sep) + strings.ToUpper(a) + string(model.Sep) + enc)
		}
		if !complete || seen[b.String()] {
			continue
		}
		seen[b.String()] = true
		out = append(out, guard{p.Name, map[string]types.AttributeValue{
			t.d.PK: &types.AttributeValueMemberS{Value: b.String()},
			t.d.SK: &types.AttributeValueMemberS{Value: guardTag},
		}})
	}
	return out, nil
}

func (g guard) item(owner map[string]types.AttributeValue, pk, sk string) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{OwnerPK: owner[pk], OwnerSK: owner[sk]}
	for k, v := range g.key {
		item[k] = v
	}
	return item
}

// value is the guarded value as the guard's key spells it (tag: the
// entity's).
func (g guard) value(tag string) string {
	for _, v := range g.key {
		if s := v.(*types.AttributeValueMemberS).Value; s != guardTag {
			return strings.TrimPrefix(s, guardTag+string(model.Sep)+tag+string(model.Sep))
		}
	}
	return ""
}

// tag is the constant an entity's keys and guards carry: the design's
// (an entity renamed with renamedFrom keeps its old one, so its items and
// guards keep their keys).
func (t *Table) tag(entity string) string {
	if ek := t.d.Entity(entity); ek != nil && ek.Tag != "" {
		return ek.Tag
	}
	return model.Tag(entity)
}

// Put writes an item whatever is there (create or overwrite). An entity
// with unique alternate keys, a version or attributes a stream handler
// maintains must use Create, Replace, Update and Delete, which keep them.
func (t *Table) Put(ctx context.Context, entity string, v Values) error {
	ws, err := t.putWrite(entity, v, true, "", nil, nil, 0)
	if err != nil {
		return wrap("Put", entity, err)
	}
	return t.execute(ctx, "Put", entity, ws)
}

// Create writes a new item (with version 1, for an entity with one) and
// its guards; ErrExists if its key is taken, ErrNotUnique if a unique
// alternate key's value is (both within a *ConditionError).
func (t *Table) Create(ctx context.Context, entity string, v Values) error {
	ws, err := t.putWrite(entity, v, true, model.IfAbsent, nil, nil, 0)
	if err != nil {
		return wrap("Create", entity, err)
	}
	return t.execute(ctx, "Create", entity, ws)
}

// Replace rewrites an existing item from old (as read) to new, with one
// UpdateItem, or one transaction when a unique value's guard moves: every
// attribute that differs is set or removed, every key it reads rebuilt;
// attributes stream handlers maintain are left as they are. It holds only
// if the item is still as old says (each attribute old gives, immutable
// ones included, and the absence of those it lacks; for an entity with a
// version, the version): ErrChanged otherwise. An id or immutable
// attribute cannot change.
func (t *Table) Replace(ctx context.Context, entity string, old, new Values) error {
	e, _, err := t.entity(entity)
	if err != nil {
		return wrap("Replace", entity, err)
	}
	if err := immutableKept(e, old, new); err != nil {
		return wrap("Replace", entity, err)
	}
	ch := Changes{Set: Values{}, With: Values{}, Version: old[e.Version]}
	for _, a := range e.Attributes {
		if a.Immutable && !e.IsID(a.Name) {
			// As old says (the item holds it only so), and known to the
			// keys the update rebuilds from it.
			ch.With[a.Name] = old[a.Name]
			continue
		}
		if e.Fixed(a.Name) || e.Maintained(a.Name) || a.Name == e.Version || a.Derived != nil || !a.Stored() {
			continue
		}
		o, n := old[a.Name], new[a.Name]
		ch.With[a.Name] = o
		switch {
		case n == nil && o != nil:
			ch.Remove = append(ch.Remove, a.Name)
		case n != nil && !sameStored(a, o, n):
			ch.Set[a.Name] = n
		}
	}
	if len(ch.Set)+len(ch.Remove) == 0 {
		return nil // nothing to change
	}
	w, extra, err := t.updateWrite(entity, old, ch, 0)
	if err != nil {
		return wrap("Replace", entity, err)
	}
	return t.execute(ctx, "Replace", entity, append([]*itemWrite{w}, extra...))
}

// sameStored reports whether two values of an attribute are stored alike.
func sameStored(a *model.Attribute, x, y any) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	p, err1 := stored(a, x)
	q, err2 := stored(a, y)
	return err1 == nil && err2 == nil && SameValue(p, q)
}

// immutableKept refuses a change to an attribute that never changes once
// written (id attributes and those declared immutable).
func immutableKept(e *model.Entity, old, new Values) error {
	for _, a := range e.Attributes {
		if !e.Fixed(a.Name) {
			continue
		}
		o, n := old[a.Name], new[a.Name]
		if o == nil && n == nil {
			continue
		}
		oe, err1 := a.EncodeKey(o)
		ne, err2 := a.EncodeKey(n)
		if o == nil || n == nil || err1 != nil || err2 != nil || oe != ne {
			return fmt.Errorf("%w: %s.%s from %v to %v: delete the item and create it again", ErrImmutable, e.Name, a.Name, o, n)
		}
	}
	return nil
}

// Delete removes an item and the guards of its unique values: v needs the
// id, the version read (an entity with one), and the unique attributes
// the item holds (one it lacks must be absent from v too, so no guard is
// left behind). One DeleteItem when there is no guard, a transaction
// otherwise; ErrChanged (in a *ConditionError) if the item is gone or not
// as v says.
func (t *Table) Delete(ctx context.Context, entity string, v Values) error {
	ws, err := t.deleteWrite(entity, v, nil, nil, 0)
	if err != nil {
		return wrap("Delete", entity, err)
	}
	return t.execute(ctx, "Delete", entity, ws)
}

// Items are the items a Create of the entity writes: the item, then the
// guard items of its unique alternate keys. For bulk loading into an
// empty table (BatchWriteItem), where Create's conditions are not needed.
func (t *Table) Items(entity string, v Values) ([]map[string]types.AttributeValue, error) {
	e, _, err := t.entity(entity)
	if err != nil {
		return nil, wrap("Items", entity, err)
	}
	item, err := t.item(entity, v)
	if err != nil {
		return nil, wrap("Items", entity, err)
	}
	guards, err := t.guards(e, v)
	if err != nil {
		return nil, wrap("Items", entity, err)
	}
	out := []map[string]types.AttributeValue{item}
	for _, g := range guards {
		out = append(out, g.item(item, t.d.PK, t.d.SK))
	}
	return out, nil
}
