package dynamo

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A write's condition and update are kept as data (which test or change,
// of which attribute, with which values) and turned into expressions by
// the SDK's expression builder. The builder's output depends only on the
// shape (tests, changes and names, in order), not on the values, so each
// shape is built once, with marker values, and its strings, names and
// value placeholders are reused: a request then costs a map of its
// values.

// condOp is a condition's test.
type condOp uint8

const (
	condExists condOp = iota
	condAbsent
	condEq
	condNe
	condLt
	condLe
	condGt
	condGe
	condIn
)

// updOp is an update's change.
type updOp uint8

const (
	updSet updOp = iota
	updAdd
	updRemove
	// updDelete takes elements out of a set (DELETE).
	updDelete
	// updAppend adds elements to the end of a list: SET a =
	// list_append(if_not_exists(a, :empty), :v).
	updAppend
)

// emptyList is the list an append starts from when the item has none.
var emptyList = &types.AttributeValueMemberL{Value: []types.AttributeValue{}}

// edit is one change of an update.
type edit struct {
	op   updOp
	name string
	val  types.AttributeValue
}

// shapeExpr is a built shape: the expressions, the names, and for each
// value (in the write's order) its placeholder.
type shapeExpr struct {
	cond, update string
	names        map[string]string
	slots        []string
}

// maxShapes bounds the cache of built shapes; past it, shapes are built
// each time.
const maxShapes = 4096

// shape is the cache key of a write's condition and update.
func (w *itemWrite) shape() string {
	var b strings.Builder
	n := 0
	for i := range w.clauses {
		n += len(w.clauses[i].attr) + 4
	}
	for _, c := range w.changes {
		n += len(c.name) + 2
	}
	b.Grow(n)
	for i := range w.clauses {
		c := &w.clauses[i]
		b.WriteByte(byte('a' + c.op))
		if c.op == condIn {
			b.WriteString(strconv.Itoa(len(c.in)))
		}
		b.WriteString(c.attr)
		if c.alt != "" {
			b.WriteByte(2)
			b.WriteString(c.alt)
		}
		b.WriteByte(0)
	}
	b.WriteByte(1)
	for _, c := range w.changes {
		b.WriteByte(byte('a' + c.op))
		b.WriteString(c.name)
		b.WriteByte(0)
	}
	return b.String()
}

// values lists a write's values in order: its clauses', then its
// changes'.
func (w *itemWrite) values(yield func(types.AttributeValue)) {
	for i := range w.clauses {
		c := &w.clauses[i]
		times := 1
		if c.alt != "" {
			times = 2 // tested on the attribute and on its old name
		}
		for range times {
			switch c.op {
			case condExists, condAbsent:
			case condIn:
				for _, v := range c.in {
					yield(v)
				}
			default:
				yield(c.eq)
			}
		}
	}
	for _, c := range w.changes {
		switch c.op {
		case updRemove:
		case updAppend:
			yield(emptyList)
			yield(c.val)
		default:
			yield(c.val)
		}
	}
}

// build builds a write's shape with the SDK's builder, each value given
// as a marker that says its position.
func (w *itemWrite) build() (*shapeExpr, error) {
	i := 0
	next := func() expression.ValueBuilder {
		v := expression.Value(&types.AttributeValueMemberS{Value: "\x00" + strconv.Itoa(i)})
		i++
		return v
	}
	b := expression.NewBuilder()
	if len(w.clauses) > 0 {
		conds := make([]expression.ConditionBuilder, len(w.clauses))
		for j := range w.clauses {
			c := &w.clauses[j]
			one := func(attr string) expression.ConditionBuilder {
				name := expression.Name(attr)
				switch c.op {
				case condExists:
					return expression.AttributeExists(name)
				case condAbsent:
					return expression.AttributeNotExists(name)
				case condEq:
					return name.Equal(next())
				case condNe:
					return name.NotEqual(next())
				case condLt:
					return name.LessThan(next())
				case condLe:
					return name.LessThanEqual(next())
				case condGt:
					return name.GreaterThan(next())
				case condGe:
					return name.GreaterThanEqual(next())
				}
				ops := make([]expression.OperandBuilder, len(c.in))
				for k := range ops {
					ops[k] = next()
				}
				return name.In(ops[0], ops[1:]...)
			}
			switch {
			case c.alt == "":
				conds[j] = one(c.attr)
			case c.op == condAbsent:
				// Absent under both names.
				conds[j] = expression.And(one(c.attr), one(c.alt))
			default:
				// The new name's value, or, while it is absent, the old
				// name's: (a OP v) OR (attribute_not_exists(a) AND old OP v).
				conds[j] = expression.Or(one(c.attr), expression.And(expression.AttributeNotExists(expression.Name(c.attr)), one(c.alt)))
			}
		}
		cond := conds[0]
		if len(conds) > 1 {
			cond = expression.And(conds[0], conds[1], conds[2:]...)
		}
		b = b.WithCondition(cond)
	}
	if len(w.changes) > 0 {
		var upd expression.UpdateBuilder
		for _, c := range w.changes {
			switch c.op {
			case updSet:
				upd = upd.Set(expression.Name(c.name), next())
			case updAdd:
				upd = upd.Add(expression.Name(c.name), next())
			case updRemove:
				upd = upd.Remove(expression.Name(c.name))
			case updDelete:
				upd = upd.Delete(expression.Name(c.name), next())
			case updAppend:
				empty := next()
				upd = upd.Set(expression.Name(c.name), expression.ListAppend(expression.IfNotExists(expression.Name(c.name), empty), next()))
			}
		}
		b = b.WithUpdate(upd)
	}
	expr, err := b.Build()
	if err != nil {
		return nil, err
	}
	s := &shapeExpr{cond: aws.ToString(expr.Condition()), update: aws.ToString(expr.Update()), names: expr.Names(), slots: make([]string, i)}
	for slot, v := range expr.Values() {
		m, ok := v.(*types.AttributeValueMemberS)
		if !ok || !strings.HasPrefix(m.Value, "\x00") {
			return nil, fmt.Errorf("the expression builder changed a value (%s)", slot)
		}
		k, err := strconv.Atoi(m.Value[1:])
		if err != nil || k >= i {
			return nil, fmt.Errorf("the expression builder changed a value (%s)", slot)
		}
		s.slots[k] = slot
	}
	return s, nil
}

// expressions are a write's condition and update expression, names and
// values, from its shape's cache.
func (t *Table) expressions(w *itemWrite) (cond, update *string, names map[string]string, values map[string]types.AttributeValue, err error) {
	if len(w.clauses) == 0 && len(w.changes) == 0 {
		return nil, nil, nil, nil, nil
	}
	key := w.shape()
	t.mu.Lock()
	s := t.shapes[key]
	t.mu.Unlock()
	if s == nil {
		if s, err = w.build(); err != nil {
			return nil, nil, nil, nil, err
		}
		t.mu.Lock()
		if len(t.shapes) < maxShapes {
			t.shapes[key] = s
		}
		t.mu.Unlock()
	}
	if len(s.slots) > 0 {
		values = make(map[string]types.AttributeValue, len(s.slots))
		i := 0
		w.values(func(v types.AttributeValue) {
			values[s.slots[i]] = v
			i++
		})
	}
	if s.cond != "" {
		cond = aws.String(s.cond)
	}
	if s.update != "" {
		update = aws.String(s.update)
	}
	return cond, update, maps.Clone(s.names), values, nil
}
