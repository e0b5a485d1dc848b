package expression

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Kind names an expression parameter, as DynamoDB's messages do.
type Kind string

// The expression parameters of DynamoDB's API.
const (
	ConditionExpression    Kind = "ConditionExpression"
	FilterExpression       Kind = "FilterExpression"
	KeyConditionExpression Kind = "KeyConditionExpression"
	ProjectionExpression   Kind = "ProjectionExpression"
	UpdateExpression       Kind = "UpdateExpression"
)

// Error is an expression DynamoDB refuses (a ValidationException).
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func errorf(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

// MaxPathDepth is how deep a document path may go (32 levels, as items
// nest).
const MaxPathDepth = 32

// MaxOperators is the most operators and functions one expression may
// hold.
const MaxOperators = 300

// MaxDepth bounds the nesting of an expression (parentheses, NOT, nested
// functions): the parser's recursion, and so its memory, stays bounded
// whatever the request.
const MaxDepth = 256

// Request holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues; each expression parsed with it marks the ones
// it uses, and CheckUnused then refuses the others as DynamoDB does.
type Request struct {
	Names  map[string]string
	Values map[string]*types.Item

	usedNames, usedValues map[string]bool
}

// NewRequest checks the placeholders' syntax and returns the request
// context the request's expressions are parsed with.
func NewRequest(names map[string]string, values map[string]*types.Item) (*Request, error) {
	if names != nil && len(names) == 0 {
		return nil, errorf("ExpressionAttributeNames must not be empty")
	}

	if values != nil && len(values) == 0 {
		return nil, errorf("ExpressionAttributeValues must not be empty")
	}

	for _, k := range slices.Sorted(maps.Keys(names)) {
		if len(k) < 2 || k[0] != '#' || strings.IndexFunc(k[1:], func(r rune) bool { return r > 127 || !isWord(byte(r)) }) >= 0 {
			return nil, errorf("ExpressionAttributeNames contains invalid key: Syntax error; key: %q", k)
		}
	}

	for _, k := range slices.Sorted(maps.Keys(values)) {
		if len(k) < 2 || k[0] != ':' || strings.IndexFunc(k[1:], func(r rune) bool { return r > 127 || !isWord(byte(r)) }) >= 0 {
			return nil, errorf("ExpressionAttributeValues contains invalid key: Syntax error; key: %q", k)
		}
	}

	return &Request{Names: names, Values: values, usedNames: map[string]bool{}, usedValues: map[string]bool{}}, nil
}

// CheckUnused refuses names and values no expression of the request used.
func (r *Request) CheckUnused() error {
	var names, values []string

	for k := range r.Names {
		if !r.usedNames[k] {
			names = append(names, k)
		}
	}

	for k := range r.Values {
		if !r.usedValues[k] {
			values = append(values, k)
		}
	}

	if len(names) > 0 {
		slices.Sort(names)
		return errorf("Value provided in ExpressionAttributeNames unused in expressions: keys: {%s}", strings.Join(names, ", "))
	}

	if len(values) > 0 {
		slices.Sort(values)
		return errorf("Value provided in ExpressionAttributeValues unused in expressions: keys: {%s}", strings.Join(values, ", "))
	}

	return nil
}

type parser struct {
	src   string
	toks  []token
	i     int
	kind  Kind
	req   *Request
	depth int
	// update is true while parsing an UpdateExpression (its functions).
	update bool
	// inCall counts the function calls being parsed around the current
	// token; ops counts operators and functions.
	inCall, ops int
	// match is the index of each parenthesis's partner (-1: none).
	match []int
}

// parseError is an error found at token index at (the furthest one wins
// when the parser tries two readings of a parenthesis).
type parseError struct {
	at  int
	err *Error
}

func (e *parseError) Error() string { return e.err.Message }

func newParser(kind Kind, src string, req *Request) (*parser, error) {
	if req == nil {
		req, _ = NewRequest(nil, nil)
	}

	if strings.TrimSpace(src) == "" {
		return nil, errorf("Invalid %s: The expression can not be empty;", kind)
	}

	if len(src) > MaxExpressionBytes {
		return nil, errorf("Invalid %s: Expression size has exceeded the maximum allowed size; expression size: %d", kind, len(src))
	}

	toks, err := lex(src)
	if err != nil {
		return nil, errorf("Invalid %s: %s", kind, err.Error())
	}

	p := &parser{src: src, toks: toks, kind: kind, req: req, match: make([]int, len(toks))}

	var open []int

	for i, t := range toks {
		p.match[i] = -1

		if t.kind != tokPunct {
			continue
		}

		switch t.text {
		case "(":
			open = append(open, i)
		case ")":
			if len(open) > 0 {
				j := open[len(open)-1]
				open = open[:len(open)-1]
				p.match[i], p.match[j] = j, i
			}
		}
	}

	return p, nil
}

// checkRedundant refuses "((x))": a parenthesis (at the current token)
// whose whole content is another parenthesized group.
func (p *parser) checkRedundant() error {
	end := p.match[p.i]
	if end < 0 || p.i+1 >= len(p.toks) {
		return nil
	}

	if t := p.toks[p.i+1]; t.kind == tokPunct && t.text == "(" && p.match[p.i+1] == end-1 {
		return p.fail("The expression has redundant parentheses;")
	}

	return nil
}

// checkOperators refuses an expression with more than MaxOperators.
func (p *parser) checkOperators() error {
	if p.ops > MaxOperators {
		// DynamoDB stops counting at the first operator too many.
		return &parseError{at: p.i, err: errorf("Invalid %s: The expression contains too many operators; operator count: %d", p.kind, MaxOperators+1)}
	}

	return nil
}

func (p *parser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}

	return token{kind: tokEOF, text: "<EOF>", pos: len(p.src)}
}

func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}

	return token{kind: tokEOF, text: "<EOF>", pos: len(p.src)}
}

func (p *parser) next() token {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}

	return t
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tokPunct && t.text == s
}

func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

// fail is an error about the expression found at the current token.
func (p *parser) fail(format string, args ...any) error {
	return &parseError{at: p.i, err: errorf("Invalid %s: %s", p.kind, fmt.Sprintf(format, args...))}
}

func (p *parser) syntaxError() error {
	err := syntaxErrorAt(p.src, p.toks[:p.i], p.peek())
	return &parseError{at: p.i, err: errorf("Invalid %s: %s", p.kind, err.Error())}
}

func (p *parser) expectPunct(s string) error {
	if !p.isPunct(s) {
		return p.syntaxError()
	}

	p.next()

	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.fail("The expression has too many levels of nesting; maximum: %d", MaxDepth)
	}

	return nil
}

func (p *parser) leave() { p.depth-- }

// publicError turns a parse error into the Error the caller returns.
func publicError(err error) error {
	if pe, ok := err.(*parseError); ok {
		return pe.err
	}

	return err
}

// parsePath reads a document path: name(.name | [n])*.
func (p *parser) parsePath() (Path, error) {
	first, err := p.pathName()
	if err != nil {
		return nil, err
	}

	path := Path{{Name: first, Index: -1}}

	for {
		switch {
		case p.isPunct("."):
			p.next()

			name, err := p.pathName()
			if err != nil {
				return nil, err
			}

			path = append(path, PathElem{Name: name, Index: -1})
		case p.isPunct("["):
			p.next()

			t := p.peek()
			if t.kind != tokNumber {
				return nil, p.syntaxError()
			}

			n, err := strconv.ParseInt(t.text, 10, 32)
			if err != nil {
				return nil, p.fail("List index is not within the allowable range; index: [%s]", t.text)
			}

			p.next()

			if err := p.expectPunct("]"); err != nil {
				return nil, err
			}

			path = append(path, PathElem{Index: int(n)})
		default:
			if len(path) > MaxPathDepth {
				return nil, p.fail("The document path has too many nesting levels; nesting levels: %d", len(path))
			}

			return path, nil
		}
	}
}

func (p *parser) pathName() (string, error) {
	t := p.peek()

	switch t.kind {
	case tokIdent:
		if reservedWords[strings.ToUpper(t.text)] {
			if isKeyword(t.text) {
				return "", p.syntaxError()
			}

			return "", p.fail("Attribute name is a reserved keyword; reserved keyword: %s", t.text)
		}

		p.next()

		return t.text, nil
	case tokName:
		name, ok := p.req.Names[t.text]
		if !ok {
			return "", p.fail("An expression attribute name used in the document path is not defined; attribute name: %s", t.text)
		}

		p.req.usedNames[t.text] = true
		p.next()

		return name, nil
	}

	return "", p.syntaxError()
}

// isKeyword reports whether a word is one of the expression language's
// own keywords (a syntax error where a name is expected).
func isKeyword(w string) bool {
	switch strings.ToUpper(w) {
	case "AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE":
		return true
	}

	return false
}

func (p *parser) parseValue() (*valueOperand, error) {
	t := p.peek()
	if t.kind != tokValue {
		return nil, p.syntaxError()
	}

	v, ok := p.req.Values[t.text]
	if !ok {
		return nil, p.fail("An expression attribute value used in expression is not defined; attribute value: %s", t.text)
	}

	p.req.usedValues[t.text] = true
	p.next()

	return &valueOperand{name: t.text, v: v}, nil
}

// parseOperand reads a path, a value, a function call or a parenthesized
// operand; in an update, a sum or difference of two of them.
func (p *parser) parseOperand() (operand, error) {
	l, err := p.parseTerm()
	if err != nil || !p.update {
		return l, err
	}

	if p.isPunct("+") || p.isPunct("-") {
		op := p.next().text
		p.ops++

		r, err := p.parseTerm()
		if err != nil {
			return nil, err
		}

		return &arithOperand{op: op, l: l, r: r}, nil
	}

	return l, nil
}

func (p *parser) parseTerm() (operand, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()

	t := p.peek()

	switch {
	case t.kind == tokValue:
		return p.parseValue()
	case t.kind == tokName:
		path, err := p.parsePath()
		if err != nil {
			return nil, err
		}

		return &pathOperand{path: path}, nil
	case t.kind == tokIdent && p.peekAt(1).kind == tokPunct && p.peekAt(1).text == "(":
		return p.parseCall()
	case t.kind == tokIdent:
		path, err := p.parsePath()
		if err != nil {
			return nil, err
		}

		return &pathOperand{path: path}, nil
	case t.kind == tokPunct && t.text == "(":
		if err := p.checkRedundant(); err != nil {
			return nil, err
		}

		p.next()

		o, err := p.parseOperand()
		if err != nil {
			return nil, err
		}

		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}

		return o, nil
	}

	return nil, p.syntaxError()
}

// parseArgs reads a function's parenthesized arguments.
func (p *parser) parseArgs() ([]operand, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}

	p.inCall++
	defer func() { p.inCall-- }()

	var args []operand

	for {
		// A function's arguments are single operands: no + or -.
		a, err := p.parseTerm()
		if err != nil {
			return nil, err
		}

		args = append(args, a)

		if p.isPunct(",") {
			p.next()
			continue
		}

		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}

		return args, nil
	}
}

// parseCall reads a function call in an operand's place: size() in a
// condition, if_not_exists() and list_append() in an update.
func (p *parser) parseCall() (operand, error) {
	name := p.next().text

	_, isCond := conditionFunctions[name]
	_, isUpdate := updateFunctions[name]

	switch {
	case p.update && (isCond || name == "size"):
		return nil, p.fail("The function is not allowed in an update expression; function: %s", name)
	case !p.update && isUpdate:
		return nil, p.fail("The function is not allowed in a condition expression; function: %s", name)
	case !p.update && isCond:
		return nil, p.fail("The function is not allowed to be used this way in an expression; function: %s", name)
	case !isCond && !isUpdate && name != "size":
		return nil, p.fail("Invalid function name; function: %s", name)
	case name == "list_append" && p.inCall > 0:
		return nil, p.fail("The function is not allowed to be used this way in an expression; function: %s", name)
	}

	p.ops++

	args, err := p.parseArgs()
	if err != nil {
		return nil, err
	}

	call := &callOperand{fn: name, args: args}

	want := 1
	if isUpdate {
		want = updateFunctions[name]
	}

	if len(args) != want {
		return nil, p.fail("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", name, len(args))
	}

	if err := p.checkCall(call); err != nil {
		return nil, err
	}

	return call, nil
}

// checkCall refuses what DynamoDB refuses before reading any item: a
// function that needs a path given something else, a constant of a type
// the function cannot take.
func (p *parser) checkCall(c *callOperand) error {
	switch c.fn {
	case "if_not_exists":
		if _, ok := c.args[0].(*pathOperand); !ok {
			return p.fail("Operator or function requires a document path; operator or function: %s", c.fn)
		}

		if err := p.checkDistinct(c.fn, c.args[0], c.args[1:]); err != nil {
			return err
		}
	case "size":
		if inner, ok := c.args[0].(*callOperand); ok && inner.fn == "size" {
			return p.fail("Incorrect operand type for operator or function; operator or function: %s, operand type: N", c.fn)
		}

		if v, ok := c.args[0].(*valueOperand); ok {
			switch types.TypeOf(v.v) {
			case types.TypeS, types.TypeB, types.TypeSS, types.TypeNS, types.TypeBS, types.TypeL, types.TypeM:
			default:
				return p.fail("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", c.fn, types.TypeOf(v.v))
			}
		}
	case "list_append":
		for _, a := range c.args {
			if v, ok := a.(*valueOperand); ok && types.TypeOf(v.v) != types.TypeL {
				return p.fail("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", c.fn, types.TypeOf(v.v))
			}
		}
	}

	return nil
}

// ParseCondition parses a ConditionExpression, FilterExpression or
// KeyConditionExpression.
func ParseCondition(kind Kind, src string, req *Request) (*Condition, error) {
	p, err := newParser(kind, src, req)
	if err != nil {
		return nil, err
	}

	c, err := p.parseOr()
	if err != nil {
		return nil, publicError(err)
	}

	if p.peek().kind != tokEOF {
		return nil, publicError(p.syntaxError())
	}

	if err := p.checkOperators(); err != nil {
		return nil, publicError(err)
	}

	return &Condition{c: c, kind: kind}, nil
}

func (p *parser) parseOr() (condition, error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}

	for p.isKeyword("OR") {
		p.next()
		p.ops++

		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}

		l = &orCondition{l: l, r: r}
	}

	return l, nil
}

func (p *parser) parseAnd() (condition, error) {
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}

	for p.isKeyword("AND") {
		p.next()
		p.ops++

		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}

		l = &andCondition{l: l, r: r}
	}

	return l, nil
}

func (p *parser) parseNot() (condition, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()

	if p.isKeyword("NOT") {
		p.next()
		p.ops++

		c, err := p.parseNot()
		if err != nil {
			return nil, err
		}

		return &notCondition{c: c}, nil
	}

	return p.parsePrimary()
}

func (p *parser) parsePrimary() (condition, error) {
	if p.isPunct("(") {
		if err := p.checkRedundant(); err != nil {
			return nil, err
		}

		// A parenthesis opens a condition, or an operand: "(a) = :v".
		start := p.i
		p.next()

		c, err := p.parseOr()
		if err == nil {
			if err = p.expectPunct(")"); err == nil {
				return c, nil
			}
		}

		condErr := err
		p.i = start

		c, err = p.parseComparison()
		if err == nil {
			return c, nil
		}

		if ce, ok := condErr.(*parseError); ok {
			if oe, ok := err.(*parseError); ok && oe.at > ce.at {
				return nil, err
			}
		}

		return nil, condErr
	}

	t := p.peek()
	if t.kind == tokIdent && p.peekAt(1).kind == tokPunct && p.peekAt(1).text == "(" {
		if _, ok := conditionFunctions[t.text]; ok {
			return p.parseFunctionCondition()
		}
	}

	return p.parseComparison()
}

func (p *parser) parseFunctionCondition() (condition, error) {
	name := p.next().text
	p.ops++

	args, err := p.parseArgs()
	if err != nil {
		return nil, err
	}

	if len(args) != conditionFunctions[name] {
		return nil, p.fail("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", name, len(args))
	}

	switch name {
	case "attribute_exists", "attribute_not_exists":
		if _, ok := args[0].(*pathOperand); !ok {
			return nil, p.fail("Operator or function requires a document path; operator or function: %s", name)
		}
	}

	if len(args) == 2 {
		if err := p.checkDistinct(name, args[0], args[1:]); err != nil {
			return nil, err
		}
	}

	switch name {
	case "attribute_type":
		v, ok := args[1].(*valueOperand)
		if !ok {
			return nil, p.fail("Incorrect operand type for operator or function; operator or function: %s, operand type: document path", name)
		}

		if types.TypeOf(v.v) != types.TypeS {
			return nil, p.fail("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", name, types.TypeOf(v.v))
		}

		if !validTypeName(*v.v.S) {
			return nil, p.fail("Invalid attribute type name found; type: %s, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}", *v.v.S)
		}
	case "begins_with":
		for _, a := range args {
			if v, ok := a.(*valueOperand); ok && types.TypeOf(v.v) != types.TypeS && types.TypeOf(v.v) != types.TypeB {
				return nil, p.fail("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", name, types.TypeOf(v.v))
			}
		}
	}

	if p.isComparator() {
		return nil, p.fail("The function is not allowed to be used this way in an expression; function: %s", name)
	}

	return &funcCondition{fn: name, args: args}, nil
}

func validTypeName(t string) bool {
	switch t {
	case types.TypeS, types.TypeN, types.TypeB, types.TypeBOOL, types.TypeNULL,
		types.TypeSS, types.TypeNS, types.TypeBS, types.TypeL, types.TypeM:
		return true
	}

	return false
}

func (p *parser) isComparator() bool {
	t := p.peek()
	if t.kind != tokPunct {
		return false
	}

	switch t.text {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}

	return false
}

func (p *parser) parseComparison() (condition, error) {
	l, err := p.parseOperand()
	if err != nil {
		return nil, err
	}

	switch {
	case p.isComparator():
		op := p.next().text
		p.ops++

		r, err := p.parseOperand()
		if err != nil {
			return nil, err
		}

		c := &compareCondition{op: op, l: l, r: r}

		return c, p.checkComparison(op, l, r)
	case p.isKeyword("BETWEEN"):
		p.next()
		p.ops++

		lo, err := p.parseOperand()
		if err != nil {
			return nil, err
		}

		if !p.isKeyword("AND") {
			return nil, p.syntaxError()
		}

		p.next()

		hi, err := p.parseOperand()
		if err != nil {
			return nil, err
		}

		if err := p.checkDistinct("BETWEEN", l, []operand{lo, hi}); err != nil {
			return nil, err
		}

		return &betweenCondition{v: l, lo: lo, hi: hi}, p.checkBetween(l, lo, hi)
	case p.isKeyword("IN"):
		p.next()
		p.ops++

		list, err := p.parseArgs()
		if err != nil {
			return nil, err
		}

		if len(list) > 100 {
			return nil, p.fail("The IN operator is provided with too many operands; number of operands: %d", len(list))
		}

		if err := p.checkDistinct("IN", l, list); err != nil {
			return nil, err
		}

		return &inCondition{v: l, list: list}, nil
	}

	if c, ok := l.(*callOperand); ok {
		return nil, p.fail("The function is not allowed to be used this way in an expression; function: %s", c.fn)
	}

	return nil, p.syntaxError()
}

func (p *parser) checkComparison(op string, l, r operand) error {
	if op != "=" && op != "<>" {
		for _, o := range []operand{l, r} {
			if v, ok := o.(*valueOperand); ok && !types.IsScalarKeyType(types.TypeOf(v.v)) {
				return p.fail("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, types.TypeOf(v.v))
			}
		}
	}

	return p.checkDistinct(op, l, []operand{r})
}

// checkDistinct refuses a comparison of a path with itself.
func (p *parser) checkDistinct(op string, first operand, rest []operand) error {
	fp, ok := first.(*pathOperand)
	if !ok {
		return nil
	}

	for _, o := range rest {
		if rp, ok := o.(*pathOperand); ok && slices.Equal(fp.path, rp.path) {
			return p.fail("The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s", op, fp.path)
		}
	}

	return nil
}

func (p *parser) checkBetween(v, lo, hi operand) error {
	for _, o := range []operand{v, lo, hi} {
		if c, ok := o.(*valueOperand); ok && !types.IsScalarKeyType(types.TypeOf(c.v)) {
			return p.fail("Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: %s", types.TypeOf(c.v))
		}
	}

	l, ok1 := lo.(*valueOperand)
	h, ok2 := hi.(*valueOperand)

	if !ok1 || !ok2 {
		return nil
	}

	if types.TypeOf(l.v) != types.TypeOf(h.v) {
		return p.fail("The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}", describe(l.v), describe(h.v))
	}

	if c, _ := types.Compare(l.v, h.v); c > 0 {
		return p.fail("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}", describe(l.v), describe(h.v))
	}

	return nil
}

// describe writes a scalar as DynamoDB's messages do: N:2, S:abc.
func describe(v *types.Item) string {
	switch types.TypeOf(v) {
	case types.TypeS:
		return "S:" + *v.S
	case types.TypeN:
		return "N:" + *v.N
	case types.TypeB:
		return "B:" + string(v.B)
	}

	return types.TypeOf(v)
}
