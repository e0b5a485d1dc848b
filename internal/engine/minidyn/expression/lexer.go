package expression

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

type tokenKind int

const (
	tokEOF    tokenKind = iota
	tokIdent            // an attribute name or a keyword (AND, SET, ...)
	tokName             // #name
	tokValue            // :value
	tokNumber           // a list index
	tokPunct            // ( ) [ ] , . = <> < <= > >= + -
)

type token struct {
	kind tokenKind
	text string
	pos  int // byte offset in the expression
}

// MaxExpressionBytes is the longest expression DynamoDB accepts (4 KB).
const MaxExpressionBytes = 4096

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWord(c byte) bool   { return isLetter(c) || isDigit(c) || c == '_' }

// lex splits an expression into tokens; a character no token starts with
// is a syntax error.
func lex(src string) ([]token, error) {
	var toks []token

	for i := 0; i < len(src); {
		c := src[i]

		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isLetter(c):
			j := i + 1
			for j < len(src) && isWord(src[j]) {
				j++
			}

			toks = append(toks, token{tokIdent, src[i:j], i})
			i = j
		case isDigit(c):
			j := i + 1
			for j < len(src) && isDigit(src[j]) {
				j++
			}

			toks = append(toks, token{tokNumber, src[i:j], i})
			i = j
		case c == '#' || c == ':':
			j := i + 1
			for j < len(src) && isWord(src[j]) {
				j++
			}

			kind := tokName
			if c == ':' {
				kind = tokValue
			}

			if j == i+1 {
				return nil, syntaxErrorAt(src, toks, token{tokPunct, src[i : i+1], i})
			}

			toks = append(toks, token{kind, src[i:j], i})
			i = j
		case strings.HasPrefix(src[i:], "<>") || strings.HasPrefix(src[i:], "<=") || strings.HasPrefix(src[i:], ">="):
			toks = append(toks, token{tokPunct, src[i : i+2], i})
			i += 2
		case strings.IndexByte("()[],.=<>+-_", c) >= 0:
			// "_" starts no token: a name starts with a letter.
			toks = append(toks, token{tokPunct, src[i : i+1], i})
			i++
		default:
			// A character no token starts with: the parser reports a
			// syntax error at it.
			_, n := utf8.DecodeRuneInString(src[i:])
			toks = append(toks, token{tokPunct, src[i : i+n], i})
			i += n
		}
	}

	return toks, nil
}

// syntaxErrorAt is DynamoDB's syntax error at token at (the tokens before
// it are toks): the offending token and the text around it.
func syntaxErrorAt(src string, toks []token, at token) error {
	start := at.pos
	if len(toks) > 0 {
		start = toks[len(toks)-1].pos
	}

	return fmt.Errorf("Syntax error; token: %q, near: %q", at.text, nearText(src, start, at))
}

func nearText(src string, start int, at token) string {
	// At the end: the last token and the spaces after it, as DynamoDB
	// quotes them.
	if at.kind == tokEOF {
		return src[start:]
	}

	// The text from the token before to the end of the token after.
	end := at.pos + len(at.text)
	rest, err := lex(src[end:])

	if err == nil && len(rest) > 0 {
		end += rest[0].pos + len(rest[0].text)
	}

	return src[start:end]
}
