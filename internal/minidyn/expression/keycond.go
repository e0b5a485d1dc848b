package expression

import (
	"bytes"
	"strings"

	"github.com/keyplan/keyplan/internal/minidyn/types"
)

// KeyCondition is a KeyConditionExpression reduced to what a Query reads:
// the partition key's value and, optionally, a range of sort key values.
type KeyCondition struct {
	Hash *types.Item
	// Op is the sort key condition ("" for none): = < <= > >= BETWEEN
	// begins_with; Lo is its value (BETWEEN's lower bound), Hi BETWEEN's
	// upper bound.
	Op     string
	Lo, Hi *types.Item
}

// KeySchema names a table's or index's key attributes and their types.
type KeySchema struct {
	Hash, Range         string
	HashType, RangeType string
}

var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// Key reduces a parsed KeyConditionExpression to a KeyCondition on ks, or
// refuses it with DynamoDB's message.
func (c *Condition) Key(ks KeySchema) (*KeyCondition, error) {
	var leaves []condition
	if err := flattenAnd(c.c, &leaves); err != nil {
		return nil, err
	}

	kc := &KeyCondition{}
	seen := map[string]bool{}

	for _, leaf := range leaves {
		name, op, lo, hi, err := keyLeaf(leaf)
		if err != nil {
			return nil, err
		}

		if seen[name] {
			return nil, errorf("KeyConditionExpressions must only contain one condition per key")
		}

		seen[name] = true

		switch name {
		case ks.Hash:
			if op != "=" {
				return nil, errorf("Query key condition not supported")
			}

			if types.TypeOf(lo) != ks.HashType {
				return nil, errorf("One or more parameter values were invalid: Condition parameter type does not match schema type")
			}

			kc.Hash = lo
		case ks.Range:
			for _, v := range []*types.Item{lo, hi} {
				if v != nil && types.TypeOf(v) != ks.RangeType {
					return nil, errorf("One or more parameter values were invalid: Condition parameter type does not match schema type")
				}
			}

			kc.Op, kc.Lo, kc.Hi = op, lo, hi
		default:
			return nil, errorf("Query key condition not supported: %s is not a key attribute", name)
		}
	}

	if kc.Hash == nil {
		return nil, errorf("Query condition missed key schema element: %s", ks.Hash)
	}

	return kc, nil
}

func flattenAnd(c condition, out *[]condition) error {
	switch c := c.(type) {
	case *andCondition:
		if err := flattenAnd(c.l, out); err != nil {
			return err
		}

		return flattenAnd(c.r, out)
	case *orCondition:
		return errorf("Invalid operator used in KeyConditionExpression: OR")
	case *notCondition:
		return errorf("Invalid operator used in KeyConditionExpression: NOT")
	case *inCondition:
		return errorf("Invalid operator used in KeyConditionExpression: IN")
	case *funcCondition:
		if c.fn != "begins_with" {
			return errorf("Invalid operator used in KeyConditionExpression: %s", c.fn)
		}
	case *compareCondition:
		if c.op == "<>" {
			return errorf("Invalid operator used in KeyConditionExpression: <>")
		}
	}

	*out = append(*out, c)

	return nil
}

// keyLeaf reads one condition on one key attribute: its name, operator
// and values.
func keyLeaf(c condition) (name, op string, lo, hi *types.Item, err error) {
	switch c := c.(type) {
	case *compareCondition:
		l, r, op := c.l, c.r, c.op
		if _, ok := l.(*valueOperand); ok {
			l, r, op = r, l, flipped[op]
		}

		name, err := keyName(l)
		if err != nil {
			return "", "", nil, nil, err
		}

		v, err := keyValue(r)

		return name, op, v, nil, err
	case *betweenCondition:
		name, err := keyName(c.v)
		if err != nil {
			return "", "", nil, nil, err
		}

		lo, err := keyValue(c.lo)
		if err != nil {
			return "", "", nil, nil, err
		}

		hi, err := keyValue(c.hi)

		return name, "BETWEEN", lo, hi, err
	case *funcCondition:
		name, err := keyName(c.args[0])
		if err != nil {
			return "", "", nil, nil, err
		}

		v, err := keyValue(c.args[1])

		return name, "begins_with", v, nil, err
	}

	return "", "", nil, nil, errorf("Query key condition not supported")
}

func keyName(o operand) (string, error) {
	switch o := o.(type) {
	case *pathOperand:
		if len(o.path) > 1 {
			return "", errorf("KeyConditionExpressions cannot have conditions on nested attributes")
		}

		return o.path.Top(), nil
	case *callOperand:
		return "", errorf("KeyConditionExpressions cannot contain nested operations")
	}

	return "", errorf("Query key condition not supported")
}

func keyValue(o operand) (*types.Item, error) {
	switch o := o.(type) {
	case *valueOperand:
		return o.v, nil
	case *callOperand:
		return nil, errorf("KeyConditionExpressions cannot contain nested operations")
	}

	return nil, errorf("Query key condition not supported")
}

// MatchRange reports whether a sort key value satisfies the condition.
func (kc *KeyCondition) MatchRange(v *types.Item) bool {
	if kc.Op == "" {
		return true
	}

	if v == nil {
		return false
	}

	if kc.Op == "begins_with" {
		switch types.TypeOf(v) {
		case types.TypeS:
			return types.TypeOf(kc.Lo) == types.TypeS && strings.HasPrefix(*v.S, *kc.Lo.S)
		case types.TypeB:
			return types.TypeOf(kc.Lo) == types.TypeB && bytes.HasPrefix(v.B, kc.Lo.B)
		}

		return false
	}

	c, ok := types.Compare(v, kc.Lo)
	if !ok {
		return false
	}

	switch kc.Op {
	case "=":
		return c == 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "BETWEEN":
		d, ok := types.Compare(v, kc.Hi)
		return c >= 0 && ok && d <= 0
	}

	return false
}

// Names are the top-level attributes a condition reads (a filter on a
// Query may not read the key's).
func (c *Condition) Names() []string {
	var out []string

	var walkOperand func(o operand)
	walkOperand = func(o operand) {
		switch o := o.(type) {
		case *pathOperand:
			out = append(out, o.path.Top())
		case *callOperand:
			for _, a := range o.args {
				walkOperand(a)
			}
		case *arithOperand:
			walkOperand(o.l)
			walkOperand(o.r)
		}
	}

	var walk func(c condition)
	walk = func(c condition) {
		switch c := c.(type) {
		case *andCondition:
			walk(c.l)
			walk(c.r)
		case *orCondition:
			walk(c.l)
			walk(c.r)
		case *notCondition:
			walk(c.c)
		case *compareCondition:
			walkOperand(c.l)
			walkOperand(c.r)
		case *betweenCondition:
			walkOperand(c.v)
			walkOperand(c.lo)
			walkOperand(c.hi)
		case *inCondition:
			walkOperand(c.v)

			for _, o := range c.list {
				walkOperand(o)
			}
		case *funcCondition:
			for _, a := range c.args {
				walkOperand(a)
			}
		case *legacyCondition:
			out = append(out, c.attr)
		}
	}

	walk(c.c)

	return out
}
