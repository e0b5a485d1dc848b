package expression

import (
	"bytes"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// KeyCondition is a KeyConditionExpression reduced to what a Query reads:
// the partition key's values and, optionally, a range of sort key values.
// On a multi-attribute sort key the condition holds equalities on its
// leading attributes (Eq) and Op on the next one.
type KeyCondition struct {
	// Hash holds the value of each partition key attribute, in the key
	// schema's order.
	Hash []*types.Item
	// Eq holds the values of the leading sort key attributes compared by
	// equality (multi-attribute sort keys; empty otherwise).
	Eq []*types.Item
	// Op is the condition on sort key attribute len(Eq) ("" for none): =
	// < <= > >= BETWEEN begins_with; Lo is its value (BETWEEN's lower
	// bound), Hi BETWEEN's upper bound.
	Op     string
	Lo, Hi *types.Item
}

// KeySchema names a table's or index's key attributes, in order, and
// their types. A GSI may have up to four of each (multi-attribute keys).
type KeySchema struct {
	Hash, Range []string
	Types       map[string]string
}

// Multi reports whether the key has more than one attribute on a side:
// the query rules of multi-attribute keys apply (and their messages).
func (ks KeySchema) Multi() bool { return len(ks.Hash) > 1 || len(ks.Range) > 1 }

// IsKey reports whether name is one of the key's attributes.
func (ks KeySchema) IsKey(name string) bool {
	return slices.Contains(ks.Hash, name) || slices.Contains(ks.Range, name)
}

var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// keyTerm is one key attribute's condition.
type keyTerm struct {
	op     string
	lo, hi *types.Item
}

const typeMismatch = "One or more parameter values were invalid: Condition parameter type does not match schema type"

// Key reduces a parsed KeyConditionExpression to a KeyCondition on ks, or
// refuses it with DynamoDB's message.
func (c *Condition) Key(ks KeySchema) (*KeyCondition, error) {
	var leaves []condition
	if err := flattenAnd(c.c, &leaves); err != nil {
		return nil, err
	}

	terms := map[string]keyTerm{}

	for _, leaf := range leaves {
		name, op, lo, hi, err := keyLeaf(leaf)
		if err != nil {
			return nil, err
		}

		if _, seen := terms[name]; seen {
			return nil, errorf("KeyConditionExpressions must only contain one condition per key")
		}

		switch {
		case slices.Contains(ks.Hash, name):
			if op != "=" {
				return nil, ks.hashNotEqual(name)
			}
		case slices.Contains(ks.Range, name):
		default:
			return nil, errorf("Query key condition not supported: %s is not a key attribute", name)
		}

		for _, v := range []*types.Item{lo, hi} {
			if v != nil && types.TypeOf(v) != ks.Types[name] {
				return nil, errorf(typeMismatch)
			}
		}

		terms[name] = keyTerm{op: op, lo: lo, hi: hi}
	}

	return ks.reduce(terms)
}

// hashNotEqual refuses a condition other than equality on a partition key
// attribute.
func (ks KeySchema) hashNotEqual(name string) error {
	if ks.Multi() {
		return errorf("Query key condition not supported: HASH key attribute %s must have an equality condition specified in the query", name)
	}

	return errorf("Query key condition not supported")
}

// reduce checks the conditions against the key's query rules and builds
// the KeyCondition: every partition key attribute by equality; sort key
// attributes left to right with no gap, equality on all but the last one
// used.
func (ks KeySchema) reduce(terms map[string]keyTerm) (*KeyCondition, error) {
	kc := &KeyCondition{}

	for _, h := range ks.Hash {
		t, ok := terms[h]
		if !ok {
			if ks.Multi() {
				return nil, errorf("Query condition missed key schema element: %s: every HASH key attribute (%s) must have an equality condition specified in the query", h, strings.Join(ks.Hash, ", "))
			}

			return nil, errorf("Query condition missed key schema element: %s", h)
		}

		kc.Hash = append(kc.Hash, t.lo)
	}

	last := -1

	for i, r := range ks.Range {
		if _, ok := terms[r]; ok {
			last = i
		}
	}

	for i := 0; i <= last; i++ {
		t, ok := terms[ks.Range[i]]

		if i == last {
			kc.Op, kc.Lo, kc.Hi = t.op, t.lo, t.hi
			break
		}

		if !ok || t.op != "=" {
			next := i + 1
			for ; next < last; next++ {
				if _, ok := terms[ks.Range[next]]; ok {
					break
				}
			}

			return nil, errorf("Query key condition not supported: RANGE key attributes %s must have equality conditions specified in the query because a condition is present on key attribute %s", ks.Range[i], ks.Range[next])
		}

		kc.Eq = append(kc.Eq, t.lo)
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

// MatchSort reports whether an item's sort key attributes (rng, in the
// key schema's order) satisfy the condition.
func (kc *KeyCondition) MatchSort(item map[string]*types.Item, rng []string) bool {
	for i, v := range kc.Eq {
		if c, ok := types.Compare(item[rng[i]], v); !ok || c != 0 {
			return false
		}
	}

	if kc.Op == "" {
		return true
	}

	return kc.MatchRange(item[rng[len(kc.Eq)]])
}

// MatchHash reports whether an item's partition key attributes (hash, in
// the key schema's order) are the condition's.
func (kc *KeyCondition) MatchHash(item map[string]*types.Item, hash []string) bool {
	for i, v := range kc.Hash {
		if !types.Equal(item[hash[i]], v) {
			return false
		}
	}

	return true
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
	for _, p := range c.Paths() {
		out = append(out, p.Top())
	}

	return out
}

// Paths are the document paths a condition reads, in order.
func (c *Condition) Paths() []Path {
	var out []Path

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
			out = operandPaths(out, c.l, c.r)
		case *betweenCondition:
			out = operandPaths(out, c.v, c.lo, c.hi)
		case *inCondition:
			out = operandPaths(out, append([]operand{c.v}, c.list...)...)
		case *funcCondition:
			out = operandPaths(out, c.args...)
		case *legacyCondition:
			out = append(out, Path{{Name: c.attr, Index: -1}})
		}
	}

	walk(c.c)

	return out
}

// operandPaths appends the document paths the operands read to out.
func operandPaths(out []Path, ops ...operand) []Path {
	for _, o := range ops {
		switch o := o.(type) {
		case *pathOperand:
			out = append(out, o.path)
		case *callOperand:
			out = operandPaths(out, o.args...)
		case *arithOperand:
			out = operandPaths(out, o.l, o.r)
		}
	}

	return out
}
