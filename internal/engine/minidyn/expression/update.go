package expression

import (
	"bytes"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Update is a parsed UpdateExpression.
type Update struct {
	actions []action
}

type actionKind string

const (
	actionSet    actionKind = "SET"
	actionRemove actionKind = "REMOVE"
	actionAdd    actionKind = "ADD"
	actionDelete actionKind = "DELETE"
)

type action struct {
	kind  actionKind
	path  Path
	value operand // SET: the new value; ADD, DELETE: the operand
	// legacy marks an AttributeUpdates action (its own message for a
	// type mismatch).
	legacy bool
}

// OnlyRemoves reports whether the update only removes (REMOVE, DELETE):
// on an item that does not exist it creates nothing.
func (u *Update) OnlyRemoves() bool {
	for _, a := range u.actions {
		if a.kind != actionRemove && a.kind != actionDelete {
			return false
		}
	}

	return len(u.actions) > 0
}

// Paths are the document paths the update writes, in the expression's
// order (ReturnValues UPDATED_OLD and UPDATED_NEW return them).
func (u *Update) Paths() []Path {
	out := make([]Path, len(u.actions))
	for i, a := range u.actions {
		out[i] = a.path
	}

	return out
}

// ValuePaths are the document paths the update's values read.
func (u *Update) ValuePaths() []Path {
	var out []Path
	for _, a := range u.actions {
		if a.value != nil {
			out = operandPaths(out, a.value)
		}
	}

	return out
}

// ParseUpdate parses an UpdateExpression.
func ParseUpdate(src string, req *Request) (*Update, error) {
	p, err := newParser(UpdateExpression, src, req)
	if err != nil {
		return nil, err
	}

	p.update = true

	u, err := p.parseUpdate()
	if err != nil {
		return nil, publicError(err)
	}

	return u, nil
}

func (p *parser) parseUpdate() (*Update, error) {
	u := &Update{}
	seen := map[actionKind]bool{}

	for p.peek().kind != tokEOF {
		t := p.peek()
		kind := actionKind(strings.ToUpper(t.text))

		if t.kind != tokIdent || (kind != actionSet && kind != actionRemove && kind != actionAdd && kind != actionDelete) {
			return nil, p.syntaxError()
		}

		if seen[kind] {
			return nil, p.fail("The %q section can only be used once in an update expression;", string(kind))
		}

		seen[kind] = true

		p.next()

		for {
			a, err := p.parseAction(kind)
			if err != nil {
				return nil, err
			}

			u.actions = append(u.actions, a)

			if !p.isPunct(",") {
				break
			}

			p.next()
		}
	}

	if err := p.checkOperators(); err != nil {
		return nil, err
	}

	return u, p.checkPaths(u)
}

func (p *parser) parseAction(kind actionKind) (action, error) {
	path, err := p.parsePath()
	if err != nil {
		return action{}, err
	}

	a := action{kind: kind, path: path}

	switch kind {
	case actionSet:
		if err := p.expectPunct("="); err != nil {
			return a, err
		}

		if a.value, err = p.parseOperand(); err != nil {
			return a, err
		}

		if err := p.checkSetValue(a.value); err != nil {
			return a, err
		}
	case actionAdd, actionDelete:
		v, err := p.parseValue()
		if err != nil {
			return a, err
		}

		a.value = v

		t := types.TypeOf(v.v)
		switch {
		case kind == actionAdd && t != types.TypeN && t != types.TypeSS && t != types.TypeNS && t != types.TypeBS:
			return a, p.fail("Incorrect operand type for operator or function; operator: ADD, operand type: %s, typeSet: ALLOWED_FOR_ADD_OPERAND", longTypeName(t))
		case kind == actionDelete && t != types.TypeSS && t != types.TypeNS && t != types.TypeBS:
			return a, p.fail("Incorrect operand type for operator or function; operator: DELETE, operand type: %s, typeSet: ALLOWED_FOR_DELETE_OPERAND", longTypeName(t))
		}
	}

	return a, nil
}

// checkSetValue refuses a constant of the wrong type under + or -.
func (p *parser) checkSetValue(o operand) error {
	switch o := o.(type) {
	case *arithOperand:
		for _, x := range []operand{o.l, o.r} {
			if v, ok := x.(*valueOperand); ok && types.TypeOf(v.v) != types.TypeN {
				return p.fail("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", o.op, types.TypeOf(v.v))
			}

			if err := p.checkSetValue(x); err != nil {
				return err
			}
		}
	case *callOperand:
		for _, x := range o.args {
			if err := p.checkSetValue(x); err != nil {
				return err
			}
		}
	}

	return nil
}

func longTypeName(t string) string {
	switch t {
	case types.TypeS:
		return "STRING"
	case types.TypeN:
		return "NUMBER"
	case types.TypeB:
		return "BINARY"
	case types.TypeBOOL:
		return "BOOLEAN"
	case types.TypeNULL:
		return "NULL"
	case types.TypeSS:
		return "STRING_SET"
	case types.TypeNS:
		return "NUMBER_SET"
	case types.TypeBS:
		return "BINARY_SET"
	case types.TypeL:
		return "LIST"
	case types.TypeM:
		return "MAP"
	}

	return t
}

// checkPaths refuses two actions on overlapping paths (one a prefix of
// the other) or conflicting ones (a map key and a list index at the same
// place).
func (p *parser) checkPaths(u *Update) error {
	for i, a := range u.actions {
		for _, b := range u.actions[:i] {
			n := min(len(a.path), len(b.path))
			conflict := false

			for k := range n {
				x, y := b.path[k], a.path[k]
				if (x.Index >= 0) != (y.Index >= 0) {
					conflict = true
					break
				}

				if x != y {
					n = -1
					break
				}
			}

			switch {
			case conflict:
				return p.fail("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", b.path, a.path)
			case n >= 0:
				return p.fail("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", b.path, a.path)
			}
		}
	}

	return nil
}

// Apply runs the update on item (the stored item, or the key of one that
// does not exist yet: created true) and returns the new item; item is not
// changed. Every value is computed from the item as it was before the
// update, as DynamoDB does (SET a = :n, b = a stores the old a in b).
func (u *Update) Apply(item map[string]*types.Item, created bool) (map[string]*types.Item, error) {
	values := make([]*types.Item, len(u.actions))

	for i, a := range u.actions {
		switch a.kind {
		case actionSet:
			v, err := evalSetValue(a.value, item)
			if err != nil && a.legacy {
				return nil, errorf("Type mismatch for attribute to update")
			}

			if err != nil {
				return nil, err
			}

			values[i] = v
		case actionAdd, actionDelete:
			v, err := addOrDelete(a.kind, Resolve(item, a.path), a.value.(*valueOperand).v)
			if err != nil && a.legacy {
				return nil, errorf("Type mismatch for attribute to update")
			}

			if err != nil {
				return nil, err
			}

			values[i] = v
		}
	}

	out := types.CloneMap(item)
	if out == nil {
		out = map[string]*types.Item{}
	}

	// Writes first; then removals, all resolved before any is made, so
	// an index always means what it meant in the old item.
	var (
		removals []Path
		appends  []int
	)

	for i, a := range u.actions {
		if a.kind == actionRemove {
			// On an item that does not exist yet, removing a nested path
			// is silently nothing, as on DynamoDB.
			if created && len(a.path) > 1 {
				continue
			}

			if err := checkRemovable(item, a.path); err != nil {
				return nil, err
			}

			removals = append(removals, a.path)

			continue
		}

		if pastEnd(item, a.path) {
			appends = append(appends, i)
			continue
		}

		if err := setPath(out, item, a.path, values[i]); err != nil {
			return nil, err
		}
	}

	// Elements written past a list's end are appended in index order.
	slices.SortStableFunc(appends, func(x, y int) int {
		px, py := u.actions[x].path, u.actions[y].path
		return px[len(px)-1].Index - py[len(py)-1].Index
	})

	for _, i := range appends {
		if err := setPath(out, item, u.actions[i].path, values[i]); err != nil {
			return nil, err
		}
	}

	removeAll(out, removals)

	return out, nil
}

// Messages of the errors an update finds in the item it runs on.
const (
	msgIncorrectType  = "An operand in the update expression has an incorrect data type"
	msgInvalidPath    = "The document path provided in the update expression is invalid for update"
	msgMissingOperand = "The provided expression refers to an attribute that does not exist in the item"
)

func evalSetValue(o operand, item map[string]*types.Item) (*types.Item, error) {
	switch o := o.(type) {
	case *pathOperand:
		v := Resolve(item, o.path)
		if v == nil {
			return nil, errorf(msgMissingOperand)
		}

		return types.Clone(v), nil
	case *valueOperand:
		return types.Clone(o.v), nil
	case *arithOperand:
		l, err := evalSetValue(o.l, item)
		if err != nil {
			return nil, err
		}

		r, err := evalSetValue(o.r, item)
		if err != nil {
			return nil, err
		}

		if types.TypeOf(l) != types.TypeN || types.TypeOf(r) != types.TypeN {
			return nil, errorf(msgIncorrectType)
		}

		return arith(o.op, *l.N, *r.N)
	case *callOperand:
		switch o.fn {
		case "if_not_exists":
			if v := Resolve(item, o.args[0].(*pathOperand).path); v != nil {
				return types.Clone(v), nil
			}

			return evalSetValue(o.args[1], item)
		case "list_append":
			a, err := evalSetValue(o.args[0], item)
			if err != nil {
				return nil, err
			}

			b, err := evalSetValue(o.args[1], item)
			if err != nil {
				return nil, err
			}

			if types.TypeOf(a) != types.TypeL || types.TypeOf(b) != types.TypeL {
				return nil, errorf(msgIncorrectType)
			}

			return &types.Item{L: append(append([]*types.Item{}, a.L...), b.L...)}, nil
		}
	}

	return nil, errorf(msgIncorrectType)
}

func arith(op, a, b string) (*types.Item, error) {
	x, err := types.ParseNumber(a)
	if err != nil {
		return nil, errorf(msgIncorrectType)
	}

	y, err := types.ParseNumber(b)
	if err != nil {
		return nil, errorf(msgIncorrectType)
	}

	if op == "+" {
		x.Add(x, y)
	} else {
		x.Sub(x, y)
	}

	s := types.FormatNumber(x)
	if err := types.ValidateNumber(s); err != nil {
		return nil, errorf("Number overflow. Attempting to store a number with magnitude larger than supported range")
	}

	return &types.Item{N: &s}, nil
}

// addOrDelete computes ADD (numbers add up, sets unite) and DELETE (set
// difference) of v to the current value cur; nil means the attribute goes.
func addOrDelete(kind actionKind, cur, v *types.Item) (*types.Item, error) {
	if cur == nil {
		if kind == actionDelete {
			return nil, nil
		}

		return types.Clone(v), nil
	}

	tc, tv := types.TypeOf(cur), types.TypeOf(v)

	if kind == actionAdd && tc == types.TypeN && tv == types.TypeN {
		return arith("+", *cur.N, *v.N)
	}

	if tc != tv {
		return nil, errorf(msgIncorrectType)
	}

	out := types.Clone(cur)

	switch tc {
	case types.TypeSS:
		out.SS = setOp(kind, out.SS, v.SS, func(a, b *string) bool { return *a == *b })
	case types.TypeNS:
		out.NS = setOp(kind, out.NS, v.NS, func(a, b *string) bool { return types.Equal(&types.Item{N: a}, &types.Item{N: b}) })
	case types.TypeBS:
		out.BS = setOp(kind, out.BS, v.BS, bytes.Equal)
	default:
		return nil, errorf(msgIncorrectType)
	}

	types.SortSet(out)

	if len(out.SS)+len(out.NS)+len(out.BS) == 0 {
		return nil, nil
	}

	return out, nil
}

func setOp[E any](kind actionKind, cur, v []E, eq func(E, E) bool) []E {
	if kind == actionAdd {
		for _, e := range v {
			if !slices.ContainsFunc(cur, func(c E) bool { return eq(c, e) }) {
				cur = append(cur, e)
			}
		}

		return cur
	}

	return slices.DeleteFunc(cur, func(c E) bool { return slices.ContainsFunc(v, func(e E) bool { return eq(c, e) }) })
}

// pastEnd reports whether path names a list element past the end of a
// list of the old item.
func pastEnd(item map[string]*types.Item, path Path) bool {
	last := path[len(path)-1]
	if last.Index < 0 || len(path) < 2 {
		return false
	}

	parent := Resolve(item, path[:len(path)-1])

	return types.TypeOf(parent) == types.TypeL && last.Index >= len(parent.L)
}

// setPath writes v at path in out (nil: removes it). The path's parent
// must exist in the old item with the right type; a list index past the
// end appends.
func setPath(out, old map[string]*types.Item, path Path, v *types.Item) error {
	if len(path) == 1 {
		if v == nil {
			delete(out, path[0].Name)
		} else {
			out[path[0].Name] = v
		}

		return nil
	}

	if Resolve(old, path[:len(path)-1]) == nil {
		return errorf(msgInvalidPath)
	}

	parent := Resolve(out, path[:len(path)-1])
	last := path[len(path)-1]

	switch {
	case last.Index >= 0:
		if types.TypeOf(parent) != types.TypeL {
			return errorf(msgInvalidPath)
		}

		switch {
		case v == nil && last.Index < len(parent.L):
			parent.L = slices.Delete(parent.L, last.Index, last.Index+1)
		case v == nil:
		case last.Index < len(parent.L):
			parent.L[last.Index] = v
		default:
			parent.L = append(parent.L, v)
		}
	default:
		if types.TypeOf(parent) != types.TypeM {
			return errorf(msgInvalidPath)
		}

		if v == nil {
			delete(parent.M, last.Name)
		} else {
			parent.M[last.Name] = v
		}
	}

	return nil
}

// checkRemovable refuses REMOVE of a path whose parent is missing or of
// another type; removing a missing attribute or element is allowed.
func checkRemovable(item map[string]*types.Item, path Path) error {
	if len(path) == 1 {
		return nil
	}

	parent := Resolve(item, path[:len(path)-1])
	last := path[len(path)-1]

	switch {
	case parent == nil:
		return errorf(msgInvalidPath)
	case last.Index >= 0 && types.TypeOf(parent) != types.TypeL:
		return errorf(msgInvalidPath)
	case last.Index < 0 && types.TypeOf(parent) != types.TypeM:
		return errorf(msgInvalidPath)
	}

	return nil
}

// removeAll removes paths from out: map keys at once, list elements
// from each list's highest index down.
func removeAll(out map[string]*types.Item, paths []Path) {
	lists := map[*types.Item][]int{}

	for _, path := range paths {
		if len(path) == 1 {
			delete(out, path[0].Name)
			continue
		}

		parent := Resolve(out, path[:len(path)-1])
		last := path[len(path)-1]

		switch {
		case last.Index >= 0 && types.TypeOf(parent) == types.TypeL:
			lists[parent] = append(lists[parent], last.Index)
		case last.Index < 0 && types.TypeOf(parent) == types.TypeM:
			delete(parent.M, last.Name)
		}
	}

	for list, idx := range lists {
		slices.Sort(idx)

		for _, i := range slices.Backward(idx) {
			if i < len(list.L) {
				list.L = slices.Delete(list.L, i, i+1)
			}
		}
	}
}
