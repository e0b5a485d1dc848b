package partiql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// MaxStatement is the longest statement DynamoDB takes (8 KB).
const MaxStatement = 8192

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tQuoted // "name"
	tString // 'text'
	tNumber
	tPunct
	tParam
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func lex(s string) ([]token, error) {
	var out []token

	for i := 0; i < len(s); {
		c := s[i]

		switch {
		case unicode.IsSpace(rune(c)):
			i++
		case c == '\'' || c == '"':
			var b strings.Builder

			j := i + 1

			for ; ; j++ {
				if j >= len(s) {
					return nil, &Error{Msg: "unterminated " + map[byte]string{'\'': "string", '"': "quoted name"}[c], Pos: i}
				}

				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j++

						continue
					}

					break
				}

				b.WriteByte(s[j])
			}

			k := tString
			if c == '"' {
				k = tQuoted
			}

			out = append(out, token{kind: k, text: b.String(), pos: i})
			i = j + 1
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}

			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				j++
				if j < len(s) && (s[j] == '+' || s[j] == '-') {
					j++
				}

				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}

			out = append(out, token{kind: tNumber, text: s[i:j], pos: i})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= '0' && s[j] <= '9' || unicode.IsLetter(rune(s[j]))) {
				j++
			}

			out = append(out, token{kind: tIdent, text: s[i:j], pos: i})
			i = j
		case c == '?':
			out = append(out, token{kind: tParam, text: "?", pos: i})
			i++
		default:
			for _, p := range []string{"<<", ">>", "<>", "!=", "<=", ">=", "=", "<", ">", ",", ".", "(", ")", "[", "]", "{", "}", ":", ";", "*", "+", "-"} {
				if strings.HasPrefix(s[i:], p) {
					out = append(out, token{kind: tPunct, text: p, pos: i})
					i += len(p)

					goto next
				}
			}

			return nil, &Error{Msg: fmt.Sprintf("unexpected character %q", c), Pos: i}
		next:
		}
	}

	return append(out, token{kind: tEOF, pos: len(s)}), nil
}

type parser struct {
	toks   []token
	i      int
	params int
}

// Parse parses one statement.
func Parse(s string) (*Statement, error) {
	if len(s) > MaxStatement {
		return nil, &Error{Msg: fmt.Sprintf("the statement is longer than %d bytes", MaxStatement)}
	}

	toks, err := lex(s)
	if err != nil {
		return nil, err
	}

	p := &parser{toks: toks}

	st, err := p.statement()
	if err != nil {
		return nil, err
	}

	p.accept(";")

	if t := p.peek(); t.kind != tEOF {
		return nil, p.unexpected(t)
	}

	st.Params = p.params

	return st, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}

	return t
}

// is says whether the next token is the keyword or punctuation s.
func (p *parser) is(s string) bool {
	t := p.peek()
	return (t.kind == tIdent || t.kind == tPunct) && strings.EqualFold(t.text, s)
}

func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.i++
		return true
	}

	return false
}

func (p *parser) expect(s string) error {
	if !p.accept(s) {
		return &Error{Msg: fmt.Sprintf("expected %s, found %s", s, describe(p.peek())), Pos: p.peek().pos}
	}

	return nil
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the statement"
	case tString:
		return "'" + t.text + "'"
	case tQuoted:
		return `"` + t.text + `"`
	}

	return t.text
}

func (p *parser) unexpected(t token) error {
	return &Error{Msg: "unexpected " + describe(t), Pos: t.pos}
}

func (p *parser) statement() (*Statement, error) {
	switch {
	case p.accept("SELECT"):
		return p.selectStmt()
	case p.accept("INSERT"):
		return p.insertStmt()
	case p.accept("UPDATE"):
		return p.updateStmt()
	case p.accept("DELETE"):
		return p.deleteStmt()
	}

	return nil, &Error{Msg: "expected SELECT, INSERT, UPDATE or DELETE, found " + describe(p.peek()), Pos: p.peek().pos}
}

// name is a table, index or attribute name: bare or "quoted".
func (p *parser) name() (string, error) {
	t := p.peek()
	if t.kind == tIdent || t.kind == tQuoted {
		p.i++
		return t.text, nil
	}

	return "", &Error{Msg: "expected a name, found " + describe(t), Pos: t.pos}
}

func (p *parser) selectStmt() (*Statement, error) {
	st := &Statement{Kind: Select}

	if !p.accept("*") {
		for {
			path, err := p.path()
			if err != nil {
				return nil, err
			}

			st.Projection = append(st.Projection, path)

			if !p.accept(",") {
				break
			}
		}
	}

	if err := p.expect("FROM"); err != nil {
		return nil, err
	}

	var err error
	if st.Table, err = p.name(); err != nil {
		return nil, err
	}

	if p.accept(".") {
		if st.Index, err = p.name(); err != nil {
			return nil, err
		}
	}

	if p.accept("WHERE") {
		if st.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}

	if p.accept("ORDER") {
		if err := p.expect("BY"); err != nil {
			return nil, err
		}

		if st.OrderBy, err = p.path(); err != nil {
			return nil, err
		}

		st.Ordered = true

		if p.accept("DESC") {
			st.OrderDesc = true
		} else {
			p.accept("ASC")
		}
	}

	return st, nil
}

func (p *parser) insertStmt() (*Statement, error) {
	st := &Statement{Kind: Insert}

	if err := p.expect("INTO"); err != nil {
		return nil, err
	}

	var err error
	if st.Table, err = p.name(); err != nil {
		return nil, err
	}

	if err := p.expect("VALUE"); err != nil {
		return nil, err
	}

	if st.Value, err = p.primary(); err != nil {
		return nil, err
	}

	return st, nil
}

func (p *parser) updateStmt() (*Statement, error) {
	st := &Statement{Kind: Update}

	var err error
	if st.Table, err = p.name(); err != nil {
		return nil, err
	}

	for {
		switch {
		case p.accept("SET"):
			for {
				path, err := p.path()
				if err != nil {
					return nil, err
				}

				if err := p.expect("="); err != nil {
					return nil, err
				}

				v, err := p.additive()
				if err != nil {
					return nil, err
				}

				st.Sets = append(st.Sets, Assign{Path: path, Value: v})

				if !p.accept(",") {
					break
				}
			}

			continue
		case p.accept("REMOVE"):
			for {
				path, err := p.path()
				if err != nil {
					return nil, err
				}

				st.Removes = append(st.Removes, path)

				if !p.accept(",") {
					break
				}
			}

			continue
		}

		break
	}

	if len(st.Sets)+len(st.Removes) == 0 {
		return nil, &Error{Msg: "expected SET or REMOVE, found " + describe(p.peek()), Pos: p.peek().pos}
	}

	return p.whereReturning(st)
}

func (p *parser) deleteStmt() (*Statement, error) {
	st := &Statement{Kind: Delete}

	if err := p.expect("FROM"); err != nil {
		return nil, err
	}

	var err error
	if st.Table, err = p.name(); err != nil {
		return nil, err
	}

	return p.whereReturning(st)
}

// whereReturning reads UPDATE's and DELETE's WHERE (required) and
// RETURNING.
func (p *parser) whereReturning(st *Statement) (*Statement, error) {
	if err := p.expect("WHERE"); err != nil {
		return nil, err
	}

	var err error
	if st.Where, err = p.expr(); err != nil {
		return nil, err
	}

	if p.accept("RETURNING") {
		var which, when string

		switch {
		case p.accept("ALL"):
			which = "ALL"
		case p.accept("MODIFIED"):
			which = "MODIFIED"
		default:
			return nil, &Error{Msg: "expected ALL or MODIFIED after RETURNING, found " + describe(p.peek()), Pos: p.peek().pos}
		}

		switch {
		case p.accept("OLD"):
			when = "OLD"
		case p.accept("NEW"):
			when = "NEW"
		default:
			return nil, &Error{Msg: "expected OLD or NEW, found " + describe(p.peek()), Pos: p.peek().pos}
		}

		if err := p.expect("*"); err != nil {
			return nil, err
		}

		st.Returning = which + " " + when
	}

	return st, nil
}

// path is a name, then .name and [N] parts.
func (p *parser) path() (Path, error) {
	n, err := p.name()
	if err != nil {
		return nil, err
	}

	out := Path{{Name: n, Index: -1}}

	for {
		switch {
		case p.accept("."):
			n, err := p.name()
			if err != nil {
				return nil, err
			}

			out = append(out, PathPart{Name: n, Index: -1})
		case p.is("["):
			p.i++

			t := p.next()

			idx, err := strconv.Atoi(t.text)
			if t.kind != tNumber || err != nil || idx < 0 {
				return nil, &Error{Msg: "expected a list index, found " + describe(t), Pos: t.pos}
			}

			if err := p.expect("]"); err != nil {
				return nil, err
			}

			out = append(out, PathPart{Index: idx})
		default:
			return out, nil
		}
	}
}

func (p *parser) expr() (Expr, error) { return p.or() }

func (p *parser) or() (Expr, error) {
	l, err := p.and()
	for err == nil && p.accept("OR") {
		var r Expr
		if r, err = p.and(); err == nil {
			l = &Binary{Op: "OR", L: l, R: r}
		}
	}

	return l, err
}

func (p *parser) and() (Expr, error) {
	l, err := p.not()
	for err == nil && p.accept("AND") {
		var r Expr
		if r, err = p.not(); err == nil {
			l = &Binary{Op: "AND", L: l, R: r}
		}
	}

	return l, err
}

func (p *parser) not() (Expr, error) {
	if p.accept("NOT") {
		x, err := p.not()
		if err != nil {
			return nil, err
		}

		return &Not{X: x}, nil
	}

	return p.comparison()
}

func (p *parser) comparison() (Expr, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}

	for _, op := range []string{"=", "<>", "!=", "<=", ">=", "<", ">"} {
		if p.accept(op) {
			r, err := p.additive()
			if err != nil {
				return nil, err
			}

			if op == "!=" {
				op = "<>"
			}

			return &Binary{Op: op, L: l, R: r}, nil
		}
	}

	switch {
	case p.accept("BETWEEN"):
		lo, err := p.additive()
		if err != nil {
			return nil, err
		}

		if err := p.expect("AND"); err != nil {
			return nil, err
		}

		hi, err := p.additive()
		if err != nil {
			return nil, err
		}

		return &Between{X: l, Lo: lo, Hi: hi}, nil
	case p.accept("IN"):
		open, closing := "[", "]"
		if p.is("(") {
			open, closing = "(", ")"
		}

		if err := p.expect(open); err != nil {
			return nil, err
		}

		in := &In{X: l}

		for !p.accept(closing) {
			if len(in.List) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}

			e, err := p.additive()
			if err != nil {
				return nil, err
			}

			in.List = append(in.List, e)
		}

		return in, nil
	case p.accept("IS"):
		is := &Is{X: l, Not: p.accept("NOT")}

		switch {
		case p.accept("MISSING"):
			is.What = "MISSING"
		case p.accept("NULL"):
			is.What = "NULL"
		default:
			return nil, &Error{Msg: "expected MISSING or NULL after IS, found " + describe(p.peek()), Pos: p.peek().pos}
		}

		return is, nil
	}

	return l, nil
}

func (p *parser) additive() (Expr, error) {
	l, err := p.primary()
	for err == nil && (p.is("+") || p.is("-")) {
		op := p.next().text

		var r Expr
		if r, err = p.primary(); err == nil {
			l = &Binary{Op: op, L: l, R: r}
		}
	}

	return l, err
}

func (p *parser) primary() (Expr, error) {
	t := p.peek()

	switch {
	case t.kind == tParam:
		p.i++
		p.params++

		return Param(p.params - 1), nil
	case t.kind == tString:
		p.i++
		return &Lit{Kind: LitString, Text: t.text}, nil
	case t.kind == tNumber:
		p.i++
		return &Lit{Kind: LitNumber, Text: t.text}, nil
	case p.is("-"):
		p.i++

		n := p.next()
		if n.kind != tNumber {
			return nil, p.unexpected(n)
		}

		return &Lit{Kind: LitNumber, Text: "-" + n.text}, nil
	case p.accept("("):
		e, err := p.expr()
		if err != nil {
			return nil, err
		}

		return e, p.expect(")")
	case p.accept("["):
		return p.elems(&Lit{Kind: LitList}, "]")
	case p.accept("<<"):
		return p.elems(&Lit{Kind: LitSet}, ">>")
	case p.accept("{"):
		m := &Lit{Kind: LitMap}

		for !p.accept("}") {
			if len(m.Fields) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}

			k := p.next()
			if k.kind != tString && k.kind != tQuoted {
				return nil, &Error{Msg: "expected a quoted key, found " + describe(k), Pos: k.pos}
			}

			if err := p.expect(":"); err != nil {
				return nil, err
			}

			v, err := p.additive()
			if err != nil {
				return nil, err
			}

			m.Fields = append(m.Fields, Field{Key: k.text, Value: v})
		}

		return m, nil
	case t.kind == tIdent:
		switch strings.ToUpper(t.text) {
		case "TRUE", "FALSE":
			p.i++
			return &Lit{Kind: LitBool, Bool: strings.EqualFold(t.text, "TRUE")}, nil
		case "NULL":
			p.i++
			return &Lit{Kind: LitNull}, nil
		case "MISSING":
			p.i++
			return &Lit{Kind: LitMissing}, nil
		}

		if p.toks[p.i+1].kind == tPunct && p.toks[p.i+1].text == "(" {
			p.i += 2
			call := &Call{Name: strings.ToLower(t.text)}

			for !p.accept(")") {
				if len(call.Args) > 0 {
					if err := p.expect(","); err != nil {
						return nil, err
					}
				}

				a, err := p.additive()
				if err != nil {
					return nil, err
				}

				call.Args = append(call.Args, a)
			}

			return call, nil
		}

		return p.path()
	case t.kind == tQuoted:
		return p.path()
	}

	return nil, p.unexpected(t)
}

func (p *parser) elems(l *Lit, closing string) (Expr, error) {
	for !p.accept(closing) {
		if len(l.Elems) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}

		e, err := p.additive()
		if err != nil {
			return nil, err
		}

		l.Elems = append(l.Elems, e)
	}

	return l, nil
}
