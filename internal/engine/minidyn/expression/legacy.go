package expression

import (
	"bytes"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// The pre-expression ("legacy") parameters: Expected, QueryFilter,
// ScanFilter and KeyConditions (conditions on one top-level attribute
// each, joined by ConditionalOperator), AttributeUpdates and
// AttributesToGet. They are built into the same Condition, KeyCondition,
// Update and Projection values as expressions, with their own validation
// messages and the operators' legacy meanings.

// LegacyCondition is one attribute's condition in Expected, QueryFilter,
// ScanFilter or KeyConditions.
type LegacyCondition struct {
	Attr   string
	Op     string // EQ NE LE LT GE GT NOT_NULL NULL CONTAINS NOT_CONTAINS BEGINS_WITH IN BETWEEN
	Values []*types.Item
	// Expected's own form (no ComparisonOperator): Exists and Value.
	Exists   *bool
	Value    *types.Item
	HasList  bool // AttributeValueList was given
	Expected bool // from Expected (Exists and Value are allowed)
}

// legacyCondition evaluates one LegacyCondition on an item.
type legacyCondition struct {
	attr   string
	op     string
	values []*types.Item
}

func (*legacyCondition) isCondition() {}

var legacyArity = map[string][2]int{ // operator: min, max number of values
	"EQ": {1, 1}, "NE": {1, 1}, "LE": {1, 1}, "LT": {1, 1}, "GE": {1, 1}, "GT": {1, 1},
	"NOT_NULL": {0, 0}, "NULL": {0, 0}, "CONTAINS": {1, 1}, "NOT_CONTAINS": {1, 1},
	"BEGINS_WITH": {1, 1}, "IN": {1, 1 << 30}, "BETWEEN": {2, 2},
}

const invalidParameter = "One or more parameter values were invalid: "

// build checks a legacy condition and returns what evaluates it.
func (lc LegacyCondition) build() (condition, error) {
	op := lc.Op

	if lc.Expected {
		switch {
		case lc.Value != nil && lc.HasList:
			return nil, errorf(invalidParameter+"Value and AttributeValueList cannot be used together for Attribute: %s", lc.Attr)
		case op == "" && lc.Exists != nil && !*lc.Exists && lc.Value != nil:
			return nil, errorf(invalidParameter+"Value cannot be used when Exists is false for Attribute: %s", lc.Attr)
		case op == "" && lc.Exists != nil && !*lc.Exists:
			return &legacyCondition{attr: lc.Attr, op: "NULL"}, nil
		case op == "" && lc.Value == nil && lc.Exists != nil:
			return nil, errorf(invalidParameter+"Value must be provided when Exists is true for Attribute: %s", lc.Attr)
		case op == "" && lc.Value == nil:
			return nil, errorf(invalidParameter+"Value must be provided when Exists is null for Attribute: %s", lc.Attr)
		case op == "":
			return &legacyCondition{attr: lc.Attr, op: "EQ", values: []*types.Item{lc.Value}}, nil
		case lc.Exists != nil:
			return nil, errorf(invalidParameter+"Exists and ComparisonOperator cannot be used together for Attribute: %s", lc.Attr)
		case lc.Value != nil && !lc.HasList:
			lc.Values = []*types.Item{lc.Value}
		}
	}

	arity, ok := legacyArity[op]
	if !ok {
		return nil, errorf("1 validation error detected: Value '%s' at 'comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]", op)
	}

	if len(lc.Values) < arity[0] || len(lc.Values) > arity[1] {
		return nil, errorf(invalidParameter+"Invalid number of argument(s) for the %s ComparisonOperator", op)
	}

	for _, v := range lc.Values {
		t := types.TypeOf(v)

		switch op {
		case "LE", "LT", "GE", "GT", "BETWEEN", "IN", "CONTAINS", "NOT_CONTAINS":
			if !types.IsScalarKeyType(t) {
				return nil, errorf(invalidParameter+"ComparisonOperator %s is not valid for %s AttributeValue type", op, t)
			}
		case "BEGINS_WITH":
			if t != types.TypeS && t != types.TypeB {
				return nil, errorf(invalidParameter+"ComparisonOperator %s is not valid for %s AttributeValue type", op, t)
			}
		}
	}

	if op == "BETWEEN" || op == "IN" {
		for _, v := range lc.Values[1:] {
			if types.TypeOf(v) != types.TypeOf(lc.Values[0]) {
				return nil, errorf(invalidParameter + "AttributeValues inside AttributeValueList must be of same type")
			}
		}
	}

	if op == "BETWEEN" {
		if c, _ := types.Compare(lc.Values[0], lc.Values[1]); c > 0 {
			return nil, errorf("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}

	return &legacyCondition{attr: lc.Attr, op: op, values: lc.Values}, nil
}

// BuildLegacyCondition joins legacy conditions with ConditionalOperator
// (AND, the default, or OR). Conditions are taken in attribute name order.
func BuildLegacyCondition(conds []LegacyCondition, operator string) (*Condition, error) {
	if operator != "" && operator != "AND" && operator != "OR" {
		return nil, errorf("1 validation error detected: Value '%s' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]", operator)
	}

	slices.SortFunc(conds, func(a, b LegacyCondition) int { return strings.Compare(a.Attr, b.Attr) })

	var out condition

	for _, lc := range conds {
		c, err := lc.build()
		if err != nil {
			return nil, err
		}

		switch {
		case out == nil:
			out = c
		case operator == "OR":
			out = &orCondition{l: out, r: c}
		default:
			out = &andCondition{l: out, r: c}
		}
	}

	if out == nil {
		return nil, nil
	}

	return &Condition{c: out, kind: ConditionExpression}, nil
}

func evalLegacy(c *legacyCondition, item map[string]*types.Item) bool {
	v, ok := item[c.attr]

	switch c.op {
	case "NULL":
		return !ok
	case "NOT_NULL":
		return ok
	case "NE":
		return !ok || !types.Equal(v, c.values[0])
	}

	if !ok {
		return false
	}

	switch c.op {
	case "EQ":
		return types.Equal(v, c.values[0])
	case "LE", "LT", "GE", "GT":
		n, ok := types.Compare(v, c.values[0])
		if !ok {
			return false
		}

		switch c.op {
		case "LE":
			return n <= 0
		case "LT":
			return n < 0
		case "GE":
			return n >= 0
		}

		return n > 0
	case "CONTAINS":
		return contains(v, c.values[0])
	case "NOT_CONTAINS":
		return !contains(v, c.values[0])
	case "BEGINS_WITH":
		a, b := v, c.values[0]
		switch {
		case types.TypeOf(a) == types.TypeS && types.TypeOf(b) == types.TypeS:
			return strings.HasPrefix(*a.S, *b.S)
		case types.TypeOf(a) == types.TypeB && types.TypeOf(b) == types.TypeB:
			return bytes.HasPrefix(a.B, b.B)
		}

		return false
	case "IN":
		return slices.ContainsFunc(c.values, func(x *types.Item) bool { return types.Equal(v, x) })
	case "BETWEEN":
		a, ok1 := types.Compare(c.values[0], v)
		b, ok2 := types.Compare(v, c.values[1])

		return ok1 && ok2 && a <= 0 && b <= 0
	}

	return false
}

// LegacyKeyCondition reduces KeyConditions to a KeyCondition on ks.
func LegacyKeyCondition(conds []LegacyCondition, ks KeySchema) (*KeyCondition, error) {
	for _, lc := range conds {
		if !ks.IsKey(lc.Attr) {
			return nil, errorf("Query key condition not supported: %s is not a key attribute", lc.Attr)
		}
	}

	terms := map[string]keyTerm{}

	for _, lc := range conds {
		c, err := lc.build()
		if err != nil {
			return nil, err
		}

		l := c.(*legacyCondition)

		switch l.op {
		case "EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN":
		default:
			return nil, errorf("Attempted conditional constraint is not an indexable operation")
		}

		for _, v := range l.values {
			if types.TypeOf(v) != ks.Types[lc.Attr] {
				return nil, errorf(invalidParameter + "Condition parameter type does not match schema type")
			}
		}

		if slices.Contains(ks.Hash, lc.Attr) && l.op != "EQ" {
			return nil, ks.hashNotEqual(lc.Attr)
		}

		op := map[string]string{"EQ": "=", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">", "BEGINS_WITH": "begins_with", "BETWEEN": "BETWEEN"}[l.op]
		t := keyTerm{op: op, lo: l.values[0]}

		if l.op == "BETWEEN" {
			t.hi = l.values[1]
		}

		terms[lc.Attr] = t
	}

	return ks.reduce(terms)
}

// LegacyUpdate is one attribute's action in AttributeUpdates.
type LegacyUpdate struct {
	Attr   string
	Action string // PUT (default), ADD, DELETE
	Value  *types.Item
}

// BuildLegacyUpdate checks AttributeUpdates and returns the update it
// makes.
func BuildLegacyUpdate(updates []LegacyUpdate) (*Update, error) {
	slices.SortFunc(updates, func(a, b LegacyUpdate) int { return strings.Compare(a.Attr, b.Attr) })

	u := &Update{}

	for _, lu := range updates {
		path := Path{{Name: lu.Attr, Index: -1}}
		t := types.TypeOf(lu.Value)

		act := lu.Action
		if act == "" {
			act = "PUT"
		}

		if lu.Value == nil && act != "DELETE" {
			return nil, errorf(invalidParameter + "Only DELETE action is allowed when no attribute value is specified")
		}

		switch act {
		case "PUT":
			u.actions = append(u.actions, action{kind: actionSet, path: path, value: &valueOperand{v: lu.Value}})
		case "DELETE":
			if lu.Value == nil {
				u.actions = append(u.actions, action{kind: actionRemove, path: path})
				continue
			}

			if t != types.TypeSS && t != types.TypeNS && t != types.TypeBS {
				return nil, errorf(invalidParameter+"DELETE action with value is not supported for the type %s", longTypeName(t))
			}

			u.actions = append(u.actions, action{kind: actionDelete, path: path, value: &valueOperand{v: lu.Value}, legacy: true})
		case "ADD":
			switch t {
			case types.TypeN, types.TypeSS, types.TypeNS, types.TypeBS:
				u.actions = append(u.actions, action{kind: actionAdd, path: path, value: &valueOperand{v: lu.Value}, legacy: true})
			case types.TypeL:
				// ADD to a list appends (a missing list is created).
				u.actions = append(u.actions, action{kind: actionSet, path: path, value: &callOperand{fn: "list_append", args: []operand{
					&callOperand{fn: "if_not_exists", args: []operand{&pathOperand{path: path}, &valueOperand{v: &types.Item{L: []*types.Item{}}}}},
					&valueOperand{v: lu.Value},
				}}, legacy: true})
			default:
				return nil, errorf(invalidParameter+"ADD action is not supported for the type %s", longTypeName(t))
			}
		default:
			return nil, errorf("1 validation error detected: Value '%s' at 'attributeUpdates.%s.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, DELETE, PUT]", act, lu.Attr)
		}
	}

	return u, nil
}

// ProjectAttributes is the projection of AttributesToGet.
func ProjectAttributes(names []string) (*Projection, error) {
	if len(names) == 0 {
		return nil, errorf("1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}

	pr := &Projection{}
	seen := map[string]bool{}

	for _, n := range names {
		if seen[n] {
			return nil, errorf("One or more parameter values were invalid: Duplicate value in attribute name: %s", n)
		}

		seen[n] = true
		pr.Paths = append(pr.Paths, Path{{Name: n, Index: -1}})
	}

	return pr, nil
}
