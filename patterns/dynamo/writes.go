package dynamo

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
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
	// Entity is the item's entity; Condition says what the write needs
	// and how the item stood ("inventory ≥ $quantity (2): inventory is
	// 1", "an existing item: Ticket TICKET#t1 does not exist"), or, when
	// the item as it was is unknown, "one of: " the conditions.
	Entity    string
	Condition string
	// Item is the item as it was (nil: it did not exist).
	Item map[string]types.AttributeValue
	// Err is the specific reason, when there is one: ErrExists,
	// ErrChanged (the item is gone, or not as passed), ErrNotUnique.
	Err error
	// Clauses name the condition that failed as the model does (the one,
	// or every one the write had when which is unknown): what a step's
	// fails: matches.
	Clauses []Clause
}

func (e *ConditionError) Error() string {
	step := ""
	if e.Step > 0 {
		step = fmt.Sprintf(" step %d (%s)", e.Step, e.Entity)
	}
	if strings.HasPrefix(e.Condition, oneOf) { // the item is unknown
		msg := fmt.Sprintf("%s %s%s: a condition failed, %s", e.Op, e.Subject, step, e.Condition)
		if e.Err != nil {
			msg += " (" + e.Err.Error() + ")"
		}
		return msg
	}
	return fmt.Sprintf("%s %s%s needs %s", e.Op, e.Subject, step, e.Condition)
}

// Is makes every ConditionError match ErrCondition.
func (e *ConditionError) Is(target error) bool { return target == ErrCondition }

func (e *ConditionError) Unwrap() error { return e.Err }

// clause is one condition of an item write: as the request states it
// (op on attr, with the operand eq or the list in), and as keyplan tests
// it on the item a failed write returns.
type clause struct {
	op   condOp
	attr string
	eq   types.AttributeValue
	in   []types.AttributeValue
	// text says what must hold ("": said from op, attr and eq); holds
	// tests it (nil item: absent), unless isEq.
	text  string
	holds func(item map[string]types.AttributeValue) bool
	// err is the specific error when this clause fails.
	err error
	// isEq marks the clause attr = eq (eq nil: attr is absent), said and
	// tested from those fields; version marks it as the version read.
	isEq    bool
	version bool
	// alt is the old name of an attribute renamed with renamedFrom: an
	// item not yet backfilled holds the value there. The clause then
	// tests the attribute's value as a reader decodes it: attr when the
	// item has it, alt otherwise.
	alt string
	// ifExists says how an item that is there fails the clause ("": by
	// the value of attr); found, when set, says how any item fails it.
	ifExists string
	found    func(item map[string]types.AttributeValue) string
	// kind, pattern and decl name the clause as the model does (named):
	// its kind, a unique pattern's name, a condition: clause.
	kind    model.FailsKind
	pattern string
	decl    *model.Condition
}

// said is what the clause says the write needs (after "needs": "an
// existing item", "revision still 3 (the version read)").
func (c *clause) said() string {
	switch {
	case c.text != "":
		return c.text
	case c.version:
		return c.attr + " still " + text(c.eq) + " (the version read)"
	case c.eq == nil:
		return c.attr + " absent"
	}
	return c.attr + " = " + text(c.eq)
}

// testable reports whether keyplan can test the clause on an item.
func (c *clause) testable() bool { return c.isEq || c.holds != nil }

// test tests the clause on an item as it was (nil: absent).
func (c *clause) test(it map[string]types.AttributeValue) bool {
	it = c.view(it)
	if c.isEq {
		if c.eq == nil {
			return it != nil && it[c.attr] == nil
		}
		return it != nil && SameValue(it[c.attr], c.eq)
	}
	return c.holds(it)
}

// view is the item as the clause reads it: a renamed attribute's value
// under its old name stands for it while the new name is absent.
func (c *clause) view(it map[string]types.AttributeValue) map[string]types.AttributeValue {
	if c.alt == "" || it == nil || it[c.attr] != nil || it[c.alt] == nil {
		return it
	}
	v := maps.Clone(it)
	v[c.attr] = it[c.alt]
	return v
}

// itemWrite is one item's write: a put, an update, a delete, or a check.
type itemWrite struct {
	kind   model.WriteOp
	entity string
	step   int
	// op is the write's op in a Transact (from 1; 0: none), opName its
	// write pattern.
	op      int
	opName  string
	key     map[string]types.AttributeValue
	item    map[string]types.AttributeValue // put
	changes []edit                          // update
	clauses []clause
	// guard marks a guard item's write (its clauses are on the guard's
	// attributes, not the entity's).
	guard bool
	// returnOld asks for the item as it was (its objects to delete:
	// objects.go).
	returnOld bool
}

// Changes are what an update does to an item.
type Changes struct {
	// Set gives attributes new values (a whole set, list or map too), and
	// map entries (a.b: the map must be there).
	Set Values
	// Add adds to number attributes, atomically (a negative number
	// subtracts).
	Add Values
	// Remove removes optional attributes, and map entries (a.b).
	Remove []string
	// Discard takes elements out of sets (DELETE); Append adds elements
	// to the end of lists.
	Discard, Append Values
	// With gives attributes as the item holds them now (nil: absent):
	// the write holds only if they still are. An update needs, for every
	// key it rebuilds, the values of the key's other attributes, and for
	// a unique value it changes, the value it replaces.
	With Values
	// Version is the version the caller read, for an entity with one.
	Version any
	// If are more conditions the item must meet; Params gives their
	// $parameters. An equality condition gives its attribute to the keys
	// the update rebuilds, as With would.
	If     []*model.Condition
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
// guard (see Update) and sets or removes no value kept in S3
// (ErrObjectInline: Update stores the object first).
func (t *Table) UpdateInput(entity string, key Values, ch Changes) (*dynamodb.UpdateItemInput, error) {
	w, extra, err := t.updateWrite(entity, key, ch, 0)
	if err == nil && len(extra) > 0 {
		err = fmt.Errorf("the update moves a unique value's guard: it is a transaction (use Update)")
	}
	if err == nil {
		err = t.refuseInline([]*itemWrite{w})
	}
	if err != nil {
		return nil, wrap("UpdateInput", entity, err)
	}
	in, err := t.request(w, false)
	if err != nil {
		return nil, wrap("UpdateInput", entity, err)
	}
	return in.Update, nil
}

// requests are one item write as a request on its own (one of Put,
// Update, Delete) or as a transaction's item.
type requests struct {
	Put    *dynamodb.PutItemInput
	Update *dynamodb.UpdateItemInput
	Delete *dynamodb.DeleteItemInput
	tx     types.TransactWriteItem
}

// request builds an item write's request: alone, or (tx) as a
// transaction item.
func (t *Table) request(w *itemWrite, tx bool) (requests, error) {
	if names := t.renamed[w.entity]; len(names) > 0 && !w.guard {
		for i := range w.clauses {
			w.clauses[i].alt = names[w.clauses[i].attr]
		}
	}
	cond, upd, names, values, err := t.expressions(w)
	if err != nil {
		return requests{}, err
	}
	table := aws.String(t.name)
	const old = types.ReturnValuesOnConditionCheckFailureAllOld
	var r requests
	switch {
	case w.kind == model.WritePut && tx:
		r.tx.Put = &types.Put{TableName: table, Item: w.item, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: old}
	case w.kind == model.WritePut:
		r.Put = &dynamodb.PutItemInput{TableName: table, Item: w.item, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: old}
	case w.kind == model.WriteUpdate && tx:
		r.tx.Update = &types.Update{TableName: table, Key: w.key, UpdateExpression: upd, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: old}
	case w.kind == model.WriteUpdate:
		r.Update = &dynamodb.UpdateItemInput{TableName: table, Key: w.key, UpdateExpression: upd, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: old}
	case w.kind == model.WriteDelete && tx:
		r.tx.Delete = &types.Delete{TableName: table, Key: w.key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: old}
	case w.kind == model.WriteDelete:
		r.Delete = &dynamodb.DeleteItemInput{TableName: table, Key: w.key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: old}
	case w.kind == model.WriteCheck:
		r.tx.ConditionCheck = &types.ConditionCheck{TableName: table, Key: w.key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: old}
	}
	if w.returnOld {
		switch {
		case r.Put != nil:
			r.Put.ReturnValues = types.ReturnValueAllOld
		case r.Update != nil:
			r.Update.ReturnValues = types.ReturnValueUpdatedOld
		case r.Delete != nil:
			r.Delete.ReturnValues = types.ReturnValueAllOld
		}
	}
	return r, nil
}

// transactInput builds the transaction of several item writes.
func (t *Table) transactInput(ws []*itemWrite) (*dynamodb.TransactWriteItemsInput, error) {
	if len(ws) > model.MaxTransactItems {
		return nil, fmt.Errorf("%w: %d items (guard items included); DynamoDB takes %d", ErrTooLarge, len(ws), model.MaxTransactItems)
	}
	seen := make(map[string]int, len(ws))
	in := &dynamodb.TransactWriteItemsInput{TransactItems: make([]types.TransactWriteItem, 0, len(ws))}
	for i, w := range ws {
		k := w.keyOf(t.d)
		pk, _ := k[t.d.PK].(*types.AttributeValueMemberS)
		sk, _ := k[t.d.SK].(*types.AttributeValueMemberS)
		if pk != nil && sk != nil {
			id := pk.Value + "\x00" + sk.Value
			if j, dup := seen[id]; dup {
				return nil, fmt.Errorf("%s and %s write the same item (%s): a transaction touches an item once", ws[j].name(), w.name(), KeyText(t.d, k))
			}
			seen[id] = i
		}
		r, err := t.request(w, true)
		if err != nil {
			return nil, err
		}
		in.TransactItems = append(in.TransactItems, r.tx)
	}
	return in, nil
}

// subject names the op of a Transact w is part of: "AddLine (op 3)".
func (w *itemWrite) subject() string { return fmt.Sprintf("%s (op %d)", w.opName, w.op) }

// name says which write of a transaction w is.
func (w *itemWrite) name() string {
	switch {
	case w.op > 0 && w.step > 0:
		return fmt.Sprintf("%s step %d", w.subject(), w.step)
	case w.op > 0:
		return w.subject()
	}
	return fmt.Sprintf("step %d", w.step)
}

func (w *itemWrite) keyOf(d *patterns.Design) map[string]types.AttributeValue {
	if w.key != nil {
		return w.key
	}
	return map[string]types.AttributeValue{d.PK: w.item[d.PK], d.SK: w.item[d.SK]}
}

// execute runs item writes: one alone, several as a transaction.
func (t *Table) execute(ctx context.Context, op, subject string, ws []*itemWrite) error {
	stored, err := t.storeObjects(ctx, ws)
	if err != nil {
		return wrap(op, subject, err)
	}
	if len(ws) == 1 {
		w := ws[0]
		r, err := t.request(w, false)
		if err != nil {
			t.deleteObjects(ctx, stored)
			return wrap(op, subject, err)
		}
		var old map[string]types.AttributeValue
		switch {
		case r.Put != nil:
			var out *dynamodb.PutItemOutput
			if out, err = t.client.PutItem(ctx, r.Put); err == nil {
				old = out.Attributes
			}
		case r.Update != nil:
			var out *dynamodb.UpdateItemOutput
			if out, err = t.client.UpdateItem(ctx, r.Update); err == nil {
				old = out.Attributes
			}
		case r.Delete != nil:
			var out *dynamodb.DeleteItemOutput
			if out, err = t.client.DeleteItem(ctx, r.Delete); err == nil {
				old = out.Attributes
			}
		default:
			t.deleteObjects(ctx, stored)
			return wrap(op, subject, fmt.Errorf("a %s is a step of a transaction", w.kind))
		}
		if err == nil && w.returnOld {
			return wrap(op, subject, t.dropObjects(ctx, w, old))
		}
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			t.deleteObjects(ctx, stored) // refused: no item holds them
			// DynamoDB returns the item as it was (nil: there was none).
			// Only on an engine that leaves it out (RefusedItemReader) is
			// it read. A role without GetItem (a write pattern's grant) is
			// denied that read: the item stays unknown, and the error
			// names the condition without judging it.
			item, known := ccf.Item, true
			if item == nil && t.readsRefused != nil && t.readsRefused(ctx) {
				out, gerr := t.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(t.name), Key: w.keyOf(t.d), ConsistentRead: aws.Bool(true)})
				if gerr == nil {
					item = out.Item
				} else {
					known = false
				}
			}
			return t.explain(op, subject, w, item, known)
		}
		if err != nil && len(stored) > 0 {
			// Not refused, not acknowledged (a timeout, a reset): the item
			// may hold the new objects or not, so they stay, named.
			err = &InDoubtError{Keys: stored, Err: err}
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
	if w.op > 0 {
		subject = w.subject()
	}
	ce := &ConditionError{Op: op, Subject: subject, Step: w.step, Entity: w.entity, Item: item}
	if len(item) == 0 {
		ce.Item = nil
	}
	if !known && len(w.clauses) > 1 {
		// Which clause failed is not known: name them all, and the
		// specific error if they share one.
		ce.Condition = oneOf + clauseTexts(w.clauses)
		ce.Clauses = namedAll(w.clauses)
		ce.Err = w.clauses[0].err
		for _, c := range w.clauses[1:] {
			if sentinel(c.err) != sentinel(ce.Err) {
				ce.Err = nil
			}
		}
		return ce
	}
	for i := range w.clauses {
		c := &w.clauses[i]
		if known && c.testable() && c.test(ce.Item) {
			continue
		}
		ce.Condition, ce.Err, ce.Clauses = c.said(), c.err, []Clause{c.named()}
		if known && c.testable() {
			ce.Condition += ": " + describe(ce.Item, c, t.itemName(w.entity, w.keyOf(t.d)))
		}
		return ce
	}
	ce.Condition, ce.Clauses = oneOf+clauseTexts(w.clauses), namedAll(w.clauses)
	return ce
}

// namedAll names each of the clauses as the model does.
func namedAll(cs []clause) []Clause {
	out := make([]Clause, len(cs))
	for i := range cs {
		out[i] = cs[i].named()
	}
	return out
}

// itemName names an item by its entity and id ("Ticket t1", "Comment
// t1/c1"), read back from its key; by the key itself when that fails.
func (t *Table) itemName(entity string, key map[string]types.AttributeValue) string {
	e, ek, err := t.entity(entity)
	pk, _ := key[t.d.PK].(*types.AttributeValueMemberS)
	sk, _ := key[t.d.SK].(*types.AttributeValueMemberS)
	if err == nil && pk != nil && sk != nil {
		k, v := ek.Key(model.BaseIndex), Values{}
		if parse(e, k.PK, pk.Value, v) && parse(e, k.SK, sk.Value, v) {
			ids := make([]string, 0, len(e.ID))
			for _, id := range e.ID {
				if v[id] == nil {
					ids = nil
					break
				}
				ids = append(ids, fmt.Sprint(v[id]))
			}
			if len(ids) > 0 {
				return entity + " " + strings.Join(ids, "/")
			}
		}
	}
	return entity + " " + KeyText(t.d, key)
}

// sentinel is the Err* a clause's error matches (nil: none).
func sentinel(err error) error {
	for _, s := range []error{ErrExists, ErrChanged, ErrNotUnique} {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// oneOf starts the Condition of a refused write whose item is unknown.
const oneOf = "one of: "

func clauseTexts(cs []clause) string {
	var s []string
	for i := range cs {
		s = append(s, cs[i].said())
	}
	return strings.Join(s, "; ")
}

// describe says how the item (named: its entity and key) stood against
// a failed clause.
func describe(item map[string]types.AttributeValue, c *clause, named string) string {
	switch {
	case c.found != nil:
		return c.found(item)
	case item == nil:
		return named + " does not exist"
	case c.ifExists != "":
		return named + " " + c.ifExists
	case c.attr == "":
		return named + " exists"
	}
	return c.attr + " is " + text(c.view(item)[c.attr])
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
	case *types.AttributeValueMemberB:
		return base64.StdEncoding.EncodeToString(x.Value)
	}
	return fmt.Sprintf("%v", v)
}

// exists is the clause that the item is there.
func (t *Table) exists(err error) clause {
	return clause{op: condExists, attr: t.d.PK, text: "an existing item", err: err, kind: model.FailsExists,
		holds: func(it map[string]types.AttributeValue) bool { return it != nil }}
}

// absent is the clause that the item is not there yet (if: absent, a
// guard): when it fails, the item is there, and is said to be
// (ifExists).
func (t *Table) absent(err error) clause {
	return clause{op: condAbsent, attr: t.d.PK, text: "a new item (if: absent)", ifExists: "already exists", err: err, kind: model.FailsAbsent,
		holds: func(it map[string]types.AttributeValue) bool { return it == nil }}
}

// is is the clause that an attribute holds a value (nil: is absent).
func is(attr string, v types.AttributeValue, err error) clause {
	if v == nil {
		return clause{op: condAbsent, attr: attr, err: err, isEq: true, kind: model.FailsAttribute}
	}
	return clause{op: condEq, attr: attr, err: err, isEq: true, eq: v, kind: model.FailsAttribute}
}

// condition is a declared condition as a clause, its $parameter from
// params.
func (t *Table) condition(e *model.Entity, c *model.Condition, params Params) (clause, error) {
	a := e.Attr(c.Attr)
	if a == nil {
		return clause{}, fmt.Errorf("%w %q of %s", ErrUnknownAttr, c.Attr, e.Name)
	}
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
	cl := clause{attr: c.Attr, text: c.String(), kind: model.FailsCondition, decl: c}
	switch c.Op {
	case model.CondExists:
		cl.op = condExists
		cl.holds = func(it map[string]types.AttributeValue) bool { return it != nil && it[c.Attr] != nil }
		return cl, nil
	case model.CondAbsent:
		cl.op = condAbsent
		cl.holds = func(it map[string]types.AttributeValue) bool { return it != nil && it[c.Attr] == nil }
		return cl, nil
	case model.CondIn:
		cl.op = condIn
		for _, s := range c.Values {
			v, err := value(s, false)
			if err != nil {
				return clause{}, err
			}
			cl.in = append(cl.in, v)
		}
		if len(cl.in) == 0 {
			return clause{}, fmt.Errorf("condition on %s: in lists no value", c.Attr)
		}
		vals := cl.in
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
	ops := map[model.CondOp]struct {
		op   condOp
		test func(int) bool
	}{
		model.CondEq: {condEq, func(n int) bool { return n == 0 }}, model.CondNe: {condNe, func(n int) bool { return n != 0 }},
		model.CondLt: {condLt, func(n int) bool { return n < 0 }}, model.CondLe: {condLe, func(n int) bool { return n <= 0 }},
		model.CondGt: {condGt, func(n int) bool { return n > 0 }}, model.CondGe: {condGe, func(n int) bool { return n >= 0 }},
	}
	o, ok := ops[c.Op]
	if !ok {
		return clause{}, fmt.Errorf("condition on %s: unknown comparison %q", c.Attr, c.Op)
	}
	cl.op, cl.eq = o.op, v
	cl.holds = func(it map[string]types.AttributeValue) bool {
		if it == nil {
			return false
		}
		n, ok := compareAV(it[c.Attr], v)
		return ok && o.test(n)
	}
	return cl, nil
}
