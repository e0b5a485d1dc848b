package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
)

// Writes. Every write the runtime makes, by name (Write) or directly
// (Create, Update, Replace, Delete), becomes one or more item writes with
// their conditions; one is one conditional request, several (a declared
// transaction, or guard items that must move with their item) one
// TransactWriteItems. A failed condition comes back as a *ConditionError
// naming the condition, tested on the item DynamoDB returns with the
// failure (ReturnValuesOnConditionCheckFailure).

// More errors matched with errors.Is.
var (
	// ErrCondition: a write's condition did not hold (*ConditionError says
	// which).
	ErrCondition = errors.New("condition failed")
	// ErrMaintained: a write would set an attribute a stream handler
	// keeps (a counter or a copy).
	ErrMaintained = errors.New("attribute kept by a stream handler")
	// ErrKeyChange: an update changes an attribute a key reads and the
	// write cannot rebuild the key (an atomic add, or a missing value).
	ErrKeyChange = errors.New("key cannot be rebuilt")
	// ErrUnknownWrite: no write pattern of that name.
	ErrUnknownWrite = errors.New("unknown write pattern")
	// ErrTooLarge: a transaction over DynamoDB's 100 items.
	ErrTooLarge = errors.New("transaction too large")
)

// ConditionError is a write whose condition did not hold.
type ConditionError struct {
	// Op and Subject name the call ("Write", "PlaceOrder"); Step is the
	// failed step of a transaction, from 1 (0 for a single write).
	Op, Subject string
	Step        int
	// Entity is the item's entity; Condition says what did not hold, and
	// how the item stood ("inventory ≥ $quantity: inventory is 1,
	// quantity 2").
	Entity    string
	Condition string
	// Item is the item as it was (nil: it did not exist).
	Item map[string]types.AttributeValue
	// Err is the specific reason, when there is one: ErrExists,
	// ErrChanged (the item is gone, or not as passed), ErrNotUnique.
	Err error
}

func (e *ConditionError) Error() string {
	step := ""
	if e.Step > 0 {
		step = fmt.Sprintf(" step %d (%s)", e.Step, e.Entity)
	}
	msg := fmt.Sprintf("%s %s%s: condition failed: %s", e.Op, e.Subject, step, e.Condition)
	if e.Err != nil && !strings.Contains(e.Condition, e.Err.Error()) {
		msg += " (" + e.Err.Error() + ")"
	}
	return msg
}

// Is makes every ConditionError match ErrCondition.
func (e *ConditionError) Is(target error) bool { return target == ErrCondition }

func (e *ConditionError) Unwrap() error { return e.Err }

// clause is one condition of an item write: as the request states it,
// and as keyplan tests it on the item a failed write returns.
type clause struct {
	cond expression.ConditionBuilder
	// attr is the attribute tested ("" for the item itself).
	attr string
	// text says what must hold; holds tests it (nil item: absent).
	text  string
	holds func(item map[string]types.AttributeValue) bool
	// err is the specific error when this clause fails.
	err error
}

// itemWrite is one item's write: a put, an update, a delete, or a check.
type itemWrite struct {
	kind    patterns.WriteOp
	entity  string
	step    int
	key     map[string]types.AttributeValue
	item    map[string]types.AttributeValue // put
	update  expression.UpdateBuilder
	updates bool
	clauses []clause
}

// Changes are what an update does to an item.
type Changes struct {
	// Set gives attributes new values.
	Set Values
	// Add adds to number attributes, atomically (a negative number
	// subtracts).
	Add Values
	// Remove removes optional attributes.
	Remove []string
	// With gives attributes as the item holds them now (nil: absent):
	// the write holds only if they still are. An update needs, for every
	// key it rebuilds, the values of the key's other attributes, and for
	// a unique value it changes, the value it replaces.
	With Values
	// Version is the version the caller read, for an entity with one.
	Version any
	// If are more conditions the item must meet; Params gives their
	// $parameters.
	If     []*patterns.Condition
	Params Params
}

// Update changes attributes of an existing item in one request (or one
// transaction when a unique value's guard moves): it sets, adds to and
// removes attributes, rebuilds every GSI key an attribute it changes
// reads, and adds or removes sparse keys as their condition starts or
// stops holding. ErrKeyChange when a key cannot be rebuilt from what it
// is given; *ConditionError (ErrChanged: the item is gone or not as
// With says) when a condition fails.
func (t *Table) Update(ctx context.Context, entity string, key Values, ch Changes) error {
	w, extra, err := t.updateWrite(entity, key, ch, 0)
	if err != nil {
		return wrap("Update", entity, err)
	}
	return t.execute(ctx, "Update", entity, append([]*itemWrite{w}, extra...))
}

// UpdateInput builds the UpdateItem request of an update that moves no
// guard (see Update).
func (t *Table) UpdateInput(entity string, key Values, ch Changes) (*dynamodb.UpdateItemInput, error) {
	w, extra, err := t.updateWrite(entity, key, ch, 0)
	if err == nil && len(extra) > 0 {
		err = fmt.Errorf("the update moves a unique value's guard: it is a transaction (use Update)")
	}
	if err != nil {
		return nil, wrap("UpdateInput", entity, err)
	}
	in, err := t.request(w)
	if err != nil {
		return nil, wrap("UpdateInput", entity, err)
	}
	return in.Update, nil
}

// requests are one item write as a request of each kind.
type requests struct {
	Put    *dynamodb.PutItemInput
	Update *dynamodb.UpdateItemInput
	Delete *dynamodb.DeleteItemInput
	tx     types.TransactWriteItem
}

// request builds an item write's request, alone and as a transaction
// item.
func (t *Table) request(w *itemWrite) (*requests, error) {
	b := expression.NewBuilder()
	if len(w.clauses) > 0 {
		conds := make([]expression.ConditionBuilder, len(w.clauses))
		for i, c := range w.clauses {
			conds[i] = c.cond
		}
		cond := conds[0]
		if len(conds) > 1 {
			cond = expression.And(conds[0], conds[1], conds[2:]...)
		}
		b = b.WithCondition(cond)
	}
	if w.updates {
		b = b.WithUpdate(w.update)
	}
	var expr expression.Expression
	if len(w.clauses) > 0 || w.updates {
		var err error
		if expr, err = b.Build(); err != nil {
			return nil, err
		}
	}
	table := aws.String(t.name)
	old := types.ReturnValuesOnConditionCheckFailureAllOld
	r := &requests{}
	switch w.kind {
	case patterns.WritePut:
		r.Put = &dynamodb.PutItemInput{TableName: table, Item: w.item, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: old}
		r.tx.Put = &types.Put{TableName: table, Item: w.item, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(old)}
	case patterns.WriteUpdate:
		r.Update = &dynamodb.UpdateItemInput{TableName: table, Key: w.key, UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: old}
		r.tx.Update = &types.Update{TableName: table, Key: w.key, UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(old)}
	case patterns.WriteDelete:
		r.Delete = &dynamodb.DeleteItemInput{TableName: table, Key: w.key, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: old}
		r.tx.Delete = &types.Delete{TableName: table, Key: w.key, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(old)}
	case patterns.WriteCheck:
		r.tx.ConditionCheck = &types.ConditionCheck{TableName: table, Key: w.key, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(old)}
	}
	return r, nil
}

// MaxTransactItems is DynamoDB's limit on a transaction's items.
const MaxTransactItems = 100

// transactInput builds the transaction of several item writes.
func (t *Table) transactInput(ws []*itemWrite) (*dynamodb.TransactWriteItemsInput, error) {
	if len(ws) > MaxTransactItems {
		return nil, fmt.Errorf("%w: %d items (guard items included); DynamoDB takes %d", ErrTooLarge, len(ws), MaxTransactItems)
	}
	seen := map[string]int{}
	in := &dynamodb.TransactWriteItemsInput{}
	for i, w := range ws {
		k := keyText(t.d, w.keyOf(t.d))
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("steps %d and %d write the same item (%s): a transaction touches an item once", ws[j].step, w.step, k)
		}
		seen[k] = i
		r, err := t.request(w)
		if err != nil {
			return nil, err
		}
		in.TransactItems = append(in.TransactItems, r.tx)
	}
	return in, nil
}

func (w *itemWrite) keyOf(d *patterns.Design) map[string]types.AttributeValue {
	if w.key != nil {
		return w.key
	}
	return map[string]types.AttributeValue{d.PK: w.item[d.PK], d.SK: w.item[d.SK]}
}

// execute runs item writes: one alone, several as a transaction.
func (t *Table) execute(ctx context.Context, op, subject string, ws []*itemWrite) error {
	if len(ws) == 1 {
		w := ws[0]
		r, err := t.request(w)
		if err != nil {
			return wrap(op, subject, err)
		}
		switch {
		case r.Put != nil:
			_, err = t.client.PutItem(ctx, r.Put)
		case r.Update != nil:
			_, err = t.client.UpdateItem(ctx, r.Update)
		case r.Delete != nil:
			_, err = t.client.DeleteItem(ctx, r.Delete)
		default:
			return wrap(op, subject, fmt.Errorf("a %s is a step of a transaction", w.kind))
		}
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			// DynamoDB returns the item as it was (nil: there was none).
			// An engine without ReturnValuesOnConditionCheckFailure returns
			// none either way: read it (a role without GetItem, which only
			// DynamoDB itself would have, keeps the nil).
			item := ccf.Item
			if item == nil {
				out, gerr := t.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(t.name), Key: w.keyOf(t.d), ConsistentRead: aws.Bool(true)})
				if gerr == nil {
					item = out.Item
				}
			}
			return t.explain(op, subject, w, item, true)
		}
		return wrap(op, subject, err)
	}
	in, err := t.transactInput(ws)
	if err != nil {
		return wrap(op, subject, err)
	}
	_, err = t.client.TransactWriteItems(ctx, in)
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for i, r := range tce.CancellationReasons {
			if aws.ToString(r.Code) == "ConditionalCheckFailed" && i < len(ws) {
				return t.explain(op, subject, ws[i], r.Item, r.Item != nil)
			}
		}
	}
	return wrap(op, subject, err)
}

// explain names the condition of w that the item as it was (known: the
// engine returned it, nil then meaning absent) fails.
func (t *Table) explain(op, subject string, w *itemWrite, item map[string]types.AttributeValue, known bool) error {
	ce := &ConditionError{Op: op, Subject: subject, Step: w.step, Entity: w.entity, Item: item}
	if len(item) == 0 {
		ce.Item = nil
	}
	for _, c := range w.clauses {
		if known && c.holds != nil && c.holds(ce.Item) {
			continue
		}
		ce.Condition, ce.Err = c.text, c.err
		if known && c.holds != nil {
			ce.Condition += ": " + describe(ce.Item, c)
		}
		return ce
	}
	ce.Condition = "one of: " + clauseTexts(w.clauses)
	return ce
}

func clauseTexts(cs []clause) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.text)
	}
	return strings.Join(s, "; ")
}

// describe says how the item stood against a failed clause.
func describe(item map[string]types.AttributeValue, c clause) string {
	switch {
	case item == nil:
		return "the item does not exist"
	case c.attr == "":
		return "the item exists"
	}
	return c.attr + " is " + text(item[c.attr])
}

// compareAV orders two scalar values of one type (numbers numerically);
// ok is false when they cannot be compared.
func compareAV(a, b types.AttributeValue) (int, bool) {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		if y, ok := b.(*types.AttributeValueMemberS); ok {
			return strings.Compare(x.Value, y.Value), true
		}
	case *types.AttributeValueMemberN:
		if y, ok := b.(*types.AttributeValueMemberN); ok {
			p, ok1 := new(big.Float).SetString(x.Value)
			q, ok2 := new(big.Float).SetString(y.Value)
			if ok1 && ok2 {
				return p.Cmp(q), true
			}
		}
	case *types.AttributeValueMemberB:
		if y, ok := b.(*types.AttributeValueMemberB); ok {
			return strings.Compare(string(x.Value), string(y.Value)), true
		}
	case *types.AttributeValueMemberBOOL:
		if y, ok := b.(*types.AttributeValueMemberBOOL); ok && x.Value == y.Value {
			return 0, true
		}
	}
	return 0, false
}

// text renders a stored value for messages.
func text(v types.AttributeValue) string {
	switch x := v.(type) {
	case nil:
		return "absent"
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(x.Value)
	}
	return fmt.Sprintf("%v", v)
}

// exists is the clause that the item is there.
func (t *Table) exists(err error) clause {
	return clause{cond: expression.AttributeExists(expression.Name(t.d.PK)), text: "the item exists", err: err,
		holds: func(it map[string]types.AttributeValue) bool { return it != nil }}
}

// absent is the clause that the item is not there yet.
func (t *Table) absent(err error) clause {
	return clause{cond: expression.AttributeNotExists(expression.Name(t.d.PK)), text: "no such item exists yet", err: err,
		holds: func(it map[string]types.AttributeValue) bool { return it == nil }}
}

// is is the clause that an attribute holds a value (nil: is absent).
func is(attr string, v types.AttributeValue, err error) clause {
	if v == nil {
		return clause{attr: attr, cond: expression.AttributeNotExists(expression.Name(attr)), text: attr + " is absent", err: err,
			holds: func(it map[string]types.AttributeValue) bool { return it != nil && it[attr] == nil }}
	}
	return clause{attr: attr, cond: expression.Name(attr).Equal(expression.Value(v)), text: attr + " = " + text(v), err: err,
		holds: func(it map[string]types.AttributeValue) bool { return it != nil && SameValue(it[attr], v) }}
}

// condition is a declared condition as a clause, its $parameter from
// params.
func (t *Table) condition(e *patterns.Entity, c *patterns.Condition, params Params) (clause, error) {
	a := e.Attr(c.Attr)
	if a == nil {
		return clause{}, fmt.Errorf("%w %q of %s", ErrUnknownAttr, c.Attr, e.Name)
	}
	name := expression.Name(c.Attr)
	value := func(s string, param bool) (types.AttributeValue, error) {
		var v any = s
		if param {
			x, ok := params[s]
			if !ok || x == nil {
				return nil, fmt.Errorf("%w: parameter %s (condition on %s)", ErrMissing, s, c.Attr)
			}
			v = x
		}
		return stored(a, v)
	}
	cl := clause{attr: c.Attr, text: c.String()}
	switch c.Op {
	case patterns.CondExists:
		cl.cond = expression.AttributeExists(name)
		cl.holds = func(it map[string]types.AttributeValue) bool { return it != nil && it[c.Attr] != nil }
		return cl, nil
	case patterns.CondAbsent:
		cl.cond = expression.AttributeNotExists(name)
		cl.holds = func(it map[string]types.AttributeValue) bool { return it != nil && it[c.Attr] == nil }
		return cl, nil
	case patterns.CondIn:
		var vals []types.AttributeValue
		for _, s := range c.Values {
			v, err := value(s, false)
			if err != nil {
				return clause{}, err
			}
			vals = append(vals, v)
		}
		ops := make([]expression.OperandBuilder, len(vals))
		for i, v := range vals {
			ops[i] = expression.Value(v)
		}
		cl.cond = name.In(ops[0], ops[1:]...)
		cl.holds = func(it map[string]types.AttributeValue) bool {
			return it != nil && slices.ContainsFunc(vals, func(v types.AttributeValue) bool { return SameValue(it[c.Attr], v) })
		}
		return cl, nil
	}
	operand, param := c.Value, false
	if c.Param != "" {
		operand, param = c.Param, true
	}
	v, err := value(operand, param)
	if err != nil {
		return clause{}, err
	}
	if param {
		cl.text += " (" + text(v) + ")"
	}
	test := map[patterns.CondOp]func(int) bool{
		patterns.CondEq: func(n int) bool { return n == 0 }, patterns.CondNe: func(n int) bool { return n != 0 },
		patterns.CondLt: func(n int) bool { return n < 0 }, patterns.CondLe: func(n int) bool { return n <= 0 },
		patterns.CondGt: func(n int) bool { return n > 0 }, patterns.CondGe: func(n int) bool { return n >= 0 },
	}[c.Op]
	switch c.Op {
	case patterns.CondEq:
		cl.cond = name.Equal(expression.Value(v))
	case patterns.CondNe:
		cl.cond = name.NotEqual(expression.Value(v))
	case patterns.CondLt:
		cl.cond = name.LessThan(expression.Value(v))
	case patterns.CondLe:
		cl.cond = name.LessThanEqual(expression.Value(v))
	case patterns.CondGt:
		cl.cond = name.GreaterThan(expression.Value(v))
	case patterns.CondGe:
		cl.cond = name.GreaterThanEqual(expression.Value(v))
	}
	cl.holds = func(it map[string]types.AttributeValue) bool {
		if it == nil {
			return false
		}
		n, ok := compareAV(it[c.Attr], v)
		return ok && test(n)
	}
	return cl, nil
}
