package partiql

import (
	"fmt"
	"strings"
)

// Statement kinds.
const (
	Select = "SELECT"
	Insert = "INSERT"
	Update = "UPDATE"
	Delete = "DELETE"
)

// Statement is one parsed statement.
type Statement struct {
	Kind  string
	Table string
	// Index is SELECT's FROM "table"."index" ("" for the table).
	Index string
	// Projection is SELECT's paths (nil for *).
	Projection []Path
	Where      Expr
	// OrderDesc is ORDER BY ... DESC; Ordered says there is an ORDER BY,
	// on OrderBy.
	Ordered   bool
	OrderBy   Path
	OrderDesc bool
	// Value is INSERT's item.
	Value Expr
	// Sets and Removes are UPDATE's actions, in order.
	Sets    []Assign
	Removes []Path
	// Returning is RETURNING's ALL OLD, MODIFIED OLD, ALL NEW or
	// MODIFIED NEW ("" when none).
	Returning string
	// Params is how many ? the statement holds.
	Params int
}

// Assign is SET path = value.
type Assign struct {
	Path  Path
	Value Expr
}

// Expr is an expression: *Binary, *Not, *Between, *In, *Is, *Call, Path,
// *Lit or Param.
type Expr interface{ expr() }

type (
	// Binary is L Op R: AND, OR, =, <>, <, <=, >, >=, +, -.
	Binary struct {
		Op   string
		L, R Expr
	}
	// Not is NOT X.
	Not struct{ X Expr }
	// Between is X BETWEEN Lo AND Hi.
	Between struct{ X, Lo, Hi Expr }
	// In is X IN [List...].
	In struct {
		X    Expr
		List []Expr
	}
	// Is is X IS [NOT] MISSING|NULL.
	Is struct {
		X    Expr
		What string
		Not  bool
	}
	// Call is a function call; Name is lower case.
	Call struct {
		Name string
		Args []Expr
	}
	// Path is a document path.
	Path []PathPart
	// PathPart is a name, or a list index (Index >= 0).
	PathPart struct {
		Name  string
		Index int
	}
	// Lit is a literal.
	Lit struct {
		Kind LitKind
		// Text is a string's value or a number's digits.
		Text string
		Bool bool
		// Elems are a list's or a set's elements; Fields a map's.
		Elems  []Expr
		Fields []Field
	}
	// Field is one key of a map literal.
	Field struct {
		Key   string
		Value Expr
	}
	// Param is the N-th ? (from 0).
	Param int
)

// LitKind is a literal's type.
type LitKind int

// The kinds of literal.
const (
	LitString LitKind = iota
	LitNumber
	LitBool
	LitNull
	LitMissing
	LitList
	LitMap
	LitSet
)

func (*Binary) expr()  {}
func (*Not) expr()     {}
func (*Between) expr() {}
func (*In) expr()      {}
func (*Is) expr()      {}
func (*Call) expr()    {}
func (Path) expr()     {}
func (*Lit) expr()     {}
func (Param) expr()    {}

// String is the path as DynamoDB's expressions write it.
func (p Path) String() string {
	var b strings.Builder

	for i, part := range p {
		switch {
		case part.Index >= 0:
			fmt.Fprintf(&b, "[%d]", part.Index)
		case i > 0:
			b.WriteString("." + part.Name)
		default:
			b.WriteString(part.Name)
		}
	}

	return b.String()
}

// Error is a statement DynamoDB would refuse as not well formed.
type Error struct {
	Msg string
	Pos int
}

func (e *Error) Error() string {
	return "Statement wasn't well formed, can't be processed: " + e.Msg
}
