package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
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
func (t *Table) guards(e *patterns.Entity, v Values) ([]guard, error) {
	var out []guard
	seen := map[string]bool{}
	for _, p := range t.unique[e.Name] {
		var b strings.Builder
		b.WriteString(guardTag + string(patterns.Sep) + t.tag(e.Name))
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
			b.WriteString(string(patterns.Sep) + strings.ToUpper(a) + string(patterns.Sep) + enc)
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
			return strings.TrimPrefix(s, guardTag+string(patterns.Sep)+tag+string(patterns.Sep))
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
	return patterns.Tag(entity)
}

// putGuard is the transaction step that takes a guard for an item, and
// the error its failed condition means.
func (t *Table) putGuard(g guard, item map[string]types.AttributeValue, entity string) (types.TransactWriteItem, error, error) {
	absent, err := cond(expression.AttributeNotExists(expression.Name(t.d.PK)))
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(t.name), Item: g.item(item, t.d.PK, t.d.SK),
		ConditionExpression: absent.Condition(), ExpressionAttributeNames: absent.Names(),
	}}, fmt.Errorf("%w: %s %s is taken", ErrNotUnique, g.pattern, g.value(t.tag(entity))), err
}

// deleteGuard is the transaction step that drops an item's guard, on
// condition that the guard is the item's (owned), and what its failure means.
func (t *Table) deleteGuard(g guard, owned expression.Expression, entity string) (types.TransactWriteItem, error) {
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(t.name), Key: g.key,
		ConditionExpression: owned.Condition(), ExpressionAttributeNames: owned.Names(), ExpressionAttributeValues: owned.Values(),
	}}, fmt.Errorf("%w: the guard of %s %s is not this item's", ErrChanged, g.pattern, g.value(t.tag(entity)))
}

// cond builds a condition expression into the fields of a request.
func cond(c expression.ConditionBuilder) (expression.Expression, error) {
	return expression.NewBuilder().WithCondition(c).Build()
}

// Put writes an item unconditionally (create or replace). An entity with
// unique alternate keys must use Create, Replace and Delete, which keep the
// guards in step.
func (t *Table) Put(ctx context.Context, entity string, v Values) error {
	if len(t.unique[entity]) > 0 {
		return wrap("Put", entity, fmt.Errorf("%s has unique alternate keys (%s): use Create, Replace or Delete", entity, t.unique[entity][0].Name))
	}
	item, err := t.item(entity, v)
	if err != nil {
		return wrap("Put", entity, err)
	}
	_, err = t.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(t.name), Item: item})
	return wrap("Put", entity, err)
}

// Create writes a new item; ErrExists if its key is taken, ErrNotUnique
// if a unique alternate key's value is.
func (t *Table) Create(ctx context.Context, entity string, v Values) error {
	return wrap("Create", entity, t.create(ctx, entity, v))
}

func (t *Table) create(ctx context.Context, entity string, v Values) error {
	e, _, err := t.entity(entity)
	if err != nil {
		return err
	}
	item, err := t.item(entity, v)
	if err != nil {
		return err
	}
	guards, err := t.guards(e, v)
	if err != nil {
		return err
	}
	absent, err := cond(expression.AttributeNotExists(expression.Name(t.d.PK)))
	if err != nil {
		return err
	}
	if len(guards) == 0 {
		_, err := t.client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(t.name), Item: item,
			ConditionExpression: absent.Condition(), ExpressionAttributeNames: absent.Names(),
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return ErrExists
		}
		return err
	}
	tx := []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String(t.name), Item: item,
		ConditionExpression: absent.Condition(), ExpressionAttributeNames: absent.Names(),
	}}}
	reasons := []error{ErrExists}
	for _, g := range guards {
		step, reason, err := t.putGuard(g, item, entity)
		if err != nil {
			return err
		}
		tx, reasons = append(tx, step), append(reasons, reason)
	}
	return t.transact(ctx, tx, reasons)
}

// transact runs a transaction and maps a cancelled one to the reason of
// the first request whose condition failed.
func (t *Table) transact(ctx context.Context, tx []types.TransactWriteItem, reasons []error) error {
	_, err := t.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for i, r := range tce.CancellationReasons {
			if aws.ToString(r.Code) == "ConditionalCheckFailed" && i < len(reasons) {
				return reasons[i]
			}
		}
	}
	return err
}

// Replace overwrites an existing item with new values of the same id.
// old must be the item as stored (its unique alternate keys at least): the
// write fails with ErrChanged if it is not, and moves each changed unique
// value's guard in the same transaction (ErrNotUnique if the new value is
// taken). A changed sparse-index attribute moves the item in or out of the
// index, as Item decides.
func (t *Table) Replace(ctx context.Context, entity string, old, new Values) error {
	return wrap("Replace", entity, t.replace(ctx, entity, old, new))
}

func (t *Table) replace(ctx context.Context, entity string, old, new Values) error {
	e, _, err := t.entity(entity)
	if err != nil {
		return err
	}
	oldKey, err := t.key(entity, old)
	if err != nil {
		return err
	}
	item, err := t.item(entity, new)
	if err != nil {
		return err
	}
	if err := immutableKept(e, old, new); err != nil {
		return err
	}
	for _, k := range []string{t.d.PK, t.d.SK} {
		if item[k].(*types.AttributeValueMemberS).Value != oldKey[k].(*types.AttributeValueMemberS).Value {
			return fmt.Errorf("the id changed: delete the old item and create the new one")
		}
	}
	oldGuards, err := t.guards(e, old)
	if err != nil {
		return err
	}
	newGuards, err := t.guards(e, new)
	if err != nil {
		return err
	}
	// The stored item must still hold the old unique values.
	c := expression.AttributeExists(expression.Name(t.d.PK))
	for _, p := range t.unique[entity] {
		for _, a := range p.Where {
			if x, ok := old[a]; ok && x != nil {
				av, err := stored(e.Attr(a), x)
				if err != nil {
					return err
				}
				c = c.And(expression.Name(a).Equal(expression.Value(av)))
			} else {
				c = c.And(expression.AttributeNotExists(expression.Name(a)))
			}
		}
	}
	match, err := cond(c)
	if err != nil {
		return err
	}
	tx := []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String(t.name), Item: item,
		ConditionExpression: match.Condition(), ExpressionAttributeNames: match.Names(), ExpressionAttributeValues: match.Values(),
	}}}
	reasons := []error{ErrChanged}
	same := func(a, b guard) bool {
		return a.key[t.d.PK].(*types.AttributeValueMemberS).Value == b.key[t.d.PK].(*types.AttributeValueMemberS).Value
	}
	owned, err := t.ownedBy(oldKey)
	if err != nil {
		return err
	}
	for _, g := range oldGuards {
		if slices.ContainsFunc(newGuards, func(n guard) bool { return same(g, n) }) {
			continue
		}
		step, reason := t.deleteGuard(g, owned, entity)
		tx, reasons = append(tx, step), append(reasons, reason)
	}
	for _, g := range newGuards {
		if slices.ContainsFunc(oldGuards, func(o guard) bool { return same(g, o) }) {
			continue
		}
		step, reason, err := t.putGuard(g, item, entity)
		if err != nil {
			return err
		}
		tx, reasons = append(tx, step), append(reasons, reason)
	}
	return t.transact(ctx, tx, reasons)
}

// immutableKept refuses a change to an attribute that never changes once
// written (id attributes and those declared immutable).
func immutableKept(e *patterns.Entity, old, new Values) error {
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

// ownedBy is the condition that a guard names the item with key.
func (t *Table) ownedBy(key map[string]types.AttributeValue) (expression.Expression, error) {
	return cond(expression.Name(OwnerPK).Equal(expression.Value(key[t.d.PK])).
		And(expression.Name(OwnerSK).Equal(expression.Value(key[t.d.SK]))))
}

// Delete removes an item and its guards; v needs the id and the unique
// alternate keys' attributes. ErrChanged if the item is gone or its
// guards are not its own.
func (t *Table) Delete(ctx context.Context, entity string, v Values) error {
	return wrap("Delete", entity, t.delete(ctx, entity, v))
}

func (t *Table) delete(ctx context.Context, entity string, v Values) error {
	e, _, err := t.entity(entity)
	if err != nil {
		return err
	}
	key, err := t.key(entity, v)
	if err != nil {
		return err
	}
	guards, err := t.guards(e, v)
	if err != nil {
		return err
	}
	present, err := cond(expression.AttributeExists(expression.Name(t.d.PK)))
	if err != nil {
		return err
	}
	tx := []types.TransactWriteItem{{Delete: &types.Delete{
		TableName: aws.String(t.name), Key: key,
		ConditionExpression: present.Condition(), ExpressionAttributeNames: present.Names(),
	}}}
	reasons := []error{ErrChanged}
	owned, err := t.ownedBy(key)
	if err != nil {
		return err
	}
	for _, g := range guards {
		step, reason := t.deleteGuard(g, owned, entity)
		tx, reasons = append(tx, step), append(reasons, reason)
	}
	if len(t.unique[entity]) > 0 && len(guards) < len(t.unique[entity]) {
		return fmt.Errorf("%w: give the values of the unique alternate keys too, so their guards go with the item", ErrMissing)
	}
	return t.transact(ctx, tx, reasons)
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
