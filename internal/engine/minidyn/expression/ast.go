package expression

import (
	"strconv"
	"strings"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// PathElem is one step of a document path: an attribute or map key
// (Name), or a list element (Index >= 0).
type PathElem struct {
	Name  string
	Index int
}

// Path is a document path, e.g. a.b[2].c.
type Path []PathElem

// String is the path as DynamoDB writes it in messages: [a, b, [2]].
func (p Path) String() string {
	parts := make([]string, len(p))

	for i, e := range p {
		if e.Index >= 0 {
			parts[i] = "[" + strconv.Itoa(e.Index) + "]"
		} else {
			parts[i] = e.Name
		}
	}

	return "[" + strings.Join(parts, ", ") + "]"
}

// Top is the attribute the path starts at.
func (p Path) Top() string { return p[0].Name }

// operand is a value in an expression: a document path, a placeholder
// (:value), a function call or (in updates) a sum or difference.
type operand interface{ isOperand() }

type pathOperand struct{ path Path }

type valueOperand struct {
	name string
	v    *types.Item
}

// callOperand is size(x) in conditions, if_not_exists(p, v) and
// list_append(a, b) in updates.
type callOperand struct {
	fn   string
	args []operand
}

type arithOperand struct {
	op   string // + or -
	l, r operand
}

func (*pathOperand) isOperand()  {}
func (*valueOperand) isOperand() {}
func (*callOperand) isOperand()  {}
func (*arithOperand) isOperand() {}

// condition is a boolean expression.
type condition interface{ isCondition() }

type andCondition struct{ l, r condition }

type orCondition struct{ l, r condition }

type notCondition struct{ c condition }

type compareCondition struct {
	op   string // = <> < <= > >=
	l, r operand
}

type betweenCondition struct{ v, lo, hi operand }

type inCondition struct {
	v    operand
	list []operand
}

// funcCondition is attribute_exists, attribute_not_exists,
// attribute_type, begins_with or contains.
type funcCondition struct {
	fn   string
	args []operand
}

func (*andCondition) isCondition()     {}
func (*orCondition) isCondition()      {}
func (*notCondition) isCondition()     {}
func (*compareCondition) isCondition() {}
func (*betweenCondition) isCondition() {}
func (*inCondition) isCondition()      {}
func (*funcCondition) isCondition()    {}

// The functions of the expression language, and where they may appear.
var (
	conditionFunctions = map[string]int{ // name: number of arguments
		"attribute_exists":     1,
		"attribute_not_exists": 1,
		"attribute_type":       2,
		"begins_with":          2,
		"contains":             2,
	}
	updateFunctions = map[string]int{
		"if_not_exists": 2,
		"list_append":   2,
	}
)
