package expression

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Condition is a parsed ConditionExpression, FilterExpression or
// KeyConditionExpression.
type Condition struct {
	c    condition
	kind Kind
}

// Eval reports whether item satisfies the condition. A comparison of
// values of different types, or of a missing attribute, is false, as on
// DynamoDB (only <> is true then).
func (c *Condition) Eval(item map[string]*types.Item) bool {
	return evalCondition(c.c, item)
}

func evalCondition(c condition, item map[string]*types.Item) bool {
	switch c := c.(type) {
	case *andCondition:
		return evalCondition(c.l, item) && evalCondition(c.r, item)
	case *orCondition:
		return evalCondition(c.l, item) || evalCondition(c.r, item)
	case *notCondition:
		return !evalCondition(c.c, item)
	case *compareCondition:
		l, r := evalOperand(c.l, item), evalOperand(c.r, item)
		if l == nil || r == nil {
			return c.op == "<>"
		}

		switch c.op {
		case "=":
			return types.Equal(l, r)
		case "<>":
			return !types.Equal(l, r)
		}

		n, ok := types.Compare(l, r)
		if !ok {
			return false
		}

		switch c.op {
		case "<":
			return n < 0
		case "<=":
			return n <= 0
		case ">":
			return n > 0
		default:
			return n >= 0
		}
	case *betweenCondition:
		v, lo, hi := evalOperand(c.v, item), evalOperand(c.lo, item), evalOperand(c.hi, item)
		if v == nil || lo == nil || hi == nil {
			return false
		}

		a, ok1 := types.Compare(lo, v)
		b, ok2 := types.Compare(v, hi)

		return ok1 && ok2 && a <= 0 && b <= 0
	case *inCondition:
		v := evalOperand(c.v, item)
		if v == nil {
			return false
		}

		return slices.ContainsFunc(c.list, func(o operand) bool { return types.Equal(v, evalOperand(o, item)) })
	case *funcCondition:
		return evalFunction(c, item)
	case *legacyCondition:
		return evalLegacy(c, item)
	}

	return false
}

func evalFunction(c *funcCondition, item map[string]*types.Item) bool {
	a := evalOperand(c.args[0], item)

	switch c.fn {
	case "attribute_exists":
		return a != nil
	case "attribute_not_exists":
		return a == nil
	}

	b := evalOperand(c.args[1], item)
	if a == nil || b == nil {
		return false
	}

	switch c.fn {
	case "attribute_type":
		return types.TypeOf(b) == types.TypeS && types.TypeOf(a) == *b.S
	case "begins_with":
		switch {
		case types.TypeOf(a) == types.TypeS && types.TypeOf(b) == types.TypeS:
			return strings.HasPrefix(*a.S, *b.S)
		case types.TypeOf(a) == types.TypeB && types.TypeOf(b) == types.TypeB:
			return bytes.HasPrefix(a.B, b.B)
		}

		return false
	case "contains":
		return contains(a, b)
	}

	return false
}

// contains is DynamoDB's contains(a, b): a substring of a string, a
// subsequence of a binary, a member of a set of b's type, an element of a
// list.
func contains(a, b *types.Item) bool {
	switch types.TypeOf(a) {
	case types.TypeS:
		return types.TypeOf(b) == types.TypeS && strings.Contains(*a.S, *b.S)
	case types.TypeB:
		return types.TypeOf(b) == types.TypeB && bytes.Contains(a.B, b.B)
	case types.TypeSS:
		return types.TypeOf(b) == types.TypeS && slices.ContainsFunc(a.SS, func(s *string) bool { return *s == *b.S })
	case types.TypeNS:
		return types.TypeOf(b) == types.TypeN && slices.ContainsFunc(a.NS, func(s *string) bool { return types.Equal(&types.Item{N: s}, b) })
	case types.TypeBS:
		return types.TypeOf(b) == types.TypeB && slices.ContainsFunc(a.BS, func(s []byte) bool { return bytes.Equal(s, b.B) })
	case types.TypeL:
		return slices.ContainsFunc(a.L, func(e *types.Item) bool { return types.Equal(e, b) })
	}

	return false
}

// evalOperand is the operand's value on item; nil when it has none (a
// missing attribute, size() of a number).
func evalOperand(o operand, item map[string]*types.Item) *types.Item {
	switch o := o.(type) {
	case *pathOperand:
		return Resolve(item, o.path)
	case *valueOperand:
		return o.v
	case *callOperand:
		if o.fn == "size" {
			return size(evalOperand(o.args[0], item))
		}
	}

	return nil
}

// size is DynamoDB's size(): the length of a string (in characters) or a
// binary (in bytes), the number of elements of a set, list or map.
func size(v *types.Item) *types.Item {
	n := -1

	switch types.TypeOf(v) {
	case types.TypeS:
		n = utf8.RuneCountInString(*v.S)
	case types.TypeB:
		n = len(v.B)
	case types.TypeSS:
		n = len(v.SS)
	case types.TypeNS:
		n = len(v.NS)
	case types.TypeBS:
		n = len(v.BS)
	case types.TypeL:
		n = len(v.L)
	case types.TypeM:
		n = len(v.M)
	}

	if n < 0 {
		return nil
	}

	s := itoa(n)

	return &types.Item{N: &s}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}

	var b [20]byte

	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}

	return string(b[i:])
}

// Resolve is the value at path in item, or nil.
func Resolve(item map[string]*types.Item, path Path) *types.Item {
	v, ok := item[path[0].Name]
	if !ok {
		return nil
	}

	for _, e := range path[1:] {
		switch {
		case e.Index >= 0:
			if types.TypeOf(v) != types.TypeL || e.Index >= len(v.L) {
				return nil
			}

			v = v.L[e.Index]
		default:
			if types.TypeOf(v) != types.TypeM {
				return nil
			}

			if v, ok = v.M[e.Name]; !ok {
				return nil
			}
		}
	}

	return v
}
