package model

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The YAML parser's syntax errors say only "line N: problem", where N is
// the line of the construct being parsed (the mapping, the "{"), not of
// the problem, and, for the parser's own errors, counted from 0 (one line
// early). locateSyntax re-reads the source to find where a person would
// point: the unclosed "{", the mis-indented key, the tab, the opening
// quote of an unterminated string, with its column and field path.

// parserProblems are the problems the YAML parser (not its scanner)
// reports: their line is the 0-based line of the construct's start.
var parserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// maxOpeners bounds the flow openers a scan records (a 4 MB line of
// "[" is a syntax error too).
const maxOpeners = 100_000

// srcOpener is a "{", "[" or quote in the source and whether it closed.
type srcOpener struct {
	ch     byte
	at     Pos
	field  string
	closed bool
}

// srcLevel is an open block mapping or list: its column (0-based) and
// the field path of its content.
type srcLevel struct {
	indent int
	seq    bool
	path   string
	items  int    // a list's items so far
	key    string // a mapping's last key so far
}

// srcScan is what a pass over the source found: the flow openers and
// quotes (closed or not), the first line indented where no enclosing
// level is, the first tab in an indentation, and each line's field path.
type srcScan struct {
	lines   []string
	openers []srcOpener // "{" and "[", in source order
	quote   *srcOpener  // a quoted scalar never closed
	badAt   Pos         // the first mis-indented line
	badWhy  string
	badPath string
	stray   Pos      // the first "]" or "}" that closes nothing
	empty   Pos      // the first empty flow entry (the second comma of ", ,")
	tabAt   []Pos    // lines whose indentation holds a tab
	paths   []string // the field path on each line (index line-1)
}

func scanSource(data []byte) *srcScan {
	s := &srcScan{lines: strings.Split(string(data), "\n")}
	s.paths = make([]string, len(s.lines))
	var (
		stack      []srcLevel
		flow       []int // indexes into s.openers still open
		quote      *srcOpener
		opening    bool // the line before ended a key or "-" with no value
		blockAt    = -1 // the column a block scalar's lines must pass
		lastIndent = -1 // the column of the last content line's start
		lastKey    string
	)
	top := func() *srcLevel {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	pathOf := func() string {
		if t := top(); t != nil {
			return t.path
		}
		return ""
	}
	join := func(p, k string) string {
		if p == "" {
			return k
		}
		return p + "." + k
	}
	for ln, text := range s.lines {
		line := ln + 1
		text = strings.TrimSuffix(text, "\r")
		indent := len(text) - len(strings.TrimLeft(text, " "))
		lead := len(text) - len(strings.TrimLeft(text, " \t"))
		content := strings.TrimLeft(text, " \t")
		blank := content == "" || content[0] == '#'
		i := 0
		if quote == nil && len(flow) == 0 {
			if blockAt >= 0 {
				if blank || indent > blockAt {
					s.paths[ln] = pathOf()
					continue
				}
				blockAt = -1
			}
			if blank {
				s.paths[ln] = pathOf()
				continue
			}
			if t := strings.IndexByte(text[:lead], '\t'); t >= 0 {
				s.tabAt = append(s.tabAt, Pos{Line: line, Col: t + 1})
				indent = lead // as the parser counts it: a tab is a column
			}
			// The line's block structure: close the levels it is left of.
			left := -1 // the column of the innermost level the line is left of
			for len(stack) > 0 && top().indent > indent {
				left = top().indent
				stack = stack[:len(stack)-1]
			}
			dash := strings.HasPrefix(content, "-") && (len(content) == 1 || content[1] == ' ')
			if t := top(); t != nil && t.indent == indent && t.seq && !dash {
				left = t.indent
				stack = stack[:len(stack)-1] // a list at its key's column ends
			}
			_, hasKey := keyOn(content)
			switch t := top(); {
			case t == nil:
				stack = append(stack, srcLevel{indent: indent, seq: dash})
			case t.indent == indent:
				if dash && !t.seq && opening { // a list at its key's column
					stack = append(stack, srcLevel{indent: indent, seq: true, path: t.path + "." + lastKey})
				}
			case opening:
				p := t.path
				if lastKey != "" && !t.seq {
					p = join(p, lastKey)
				}
				stack = append(stack, srcLevel{indent: indent, seq: dash, path: p})
			case !hasKey && !dash && indent > lastIndent:
				// a plain scalar going on over lines
				s.paths[ln] = pathOf()
				continue
			default:
				if s.badAt.Line == 0 {
					s.badAt = Pos{Line: line, Col: utf8.RuneCountInString(text[:indent]) + 1}
					s.badPath, s.badWhy = t.path, fmt.Sprintf("this line is indented deeper (column %d) than the line before (column %d), which already has a value", indent+1, lastIndent+1)
					if left == indent { // a list's column, and no "- "
						s.badPath = join(t.path, t.key)
						s.badWhy = fmt.Sprintf("this line is at the column of the list before it (column %d) but is not a \"- \" item", indent+1)
					} else if indent <= lastIndent {
						s.badPath = join(t.path, t.key)
						s.badWhy = fmt.Sprintf("this line starts at column %d, between column %d (of the lines before it) and column %d (of the mapping enclosing them); indent it as one of them", indent+1, left+1, t.indent+1)
					}
				}
			}
			// "- " items: each opens a list (after the first) and an item.
			i = indent
			for strings.HasPrefix(text[i:], "-") && (i+1 == len(text) || text[i+1] == ' ') {
				t := top()
				if !t.seq || t.indent != i {
					stack = append(stack, srcLevel{indent: i, seq: true, path: t.path})
					t = top()
				}
				t.items++
				item := fmt.Sprintf("%s[%d]", strings.TrimPrefix(t.path, "."), t.items-1)
				j := i + 1
				for j < len(text) && text[j] == ' ' {
					j++
				}
				if j == len(text) || text[j] == '#' {
					stack = append(stack, srcLevel{indent: i + 1, path: item}) // content on the next lines
					i = j
					break
				}
				stack = append(stack, srcLevel{indent: j, path: item})
				i = j
			}
			lastIndent = indent
			lastKey = ""
			opening = false
			if k, ok := keyOn(text[i:]); ok {
				lastKey = k
				top().key = k
				s.paths[ln] = join(pathOf(), k)
				rest := strings.TrimSpace(stripComment(text[i+strings.Index(text[i:], ":")+1:]))
				rest = strings.TrimSpace(stripProps(rest))
				switch {
				case rest == "":
					opening = true
				case rest[0] == '|' || rest[0] == '>':
					blockAt = top().indent
				}
			} else {
				s.paths[ln] = pathOf()
				rest := strings.TrimSpace(stripProps(stripComment(text[i:])))
				if rest == "" && i > indent {
					opening = true // "- " alone
				} else if rest != "" && (rest[0] == '|' || rest[0] == '>') {
					blockAt = top().indent
				}
			}
		} else {
			s.paths[ln] = pathOf()
		}
		// The rest of the line, character by character: quotes and flow.
		prev := byte(' ')
		if i > 0 {
			prev = text[i-1]
		}
		for ; i < len(text); i++ {
			c := text[i]
			if quote != nil {
				switch {
				case c == '\\' && quote.ch == '"':
					i++
				case c == '\'' && quote.ch == '\'' && i+1 < len(text) && text[i+1] == '\'':
					i++
				case c == quote.ch:
					quote = nil
				}
				prev = c
				continue
			}
			tokenStart := prev == ' ' || prev == '\t' || prev == '{' || prev == '[' || prev == ','
			switch {
			case c == '#' && (prev == ' ' || prev == '\t'):
				i = len(text)
				continue
			case (c == '"' || c == '\'') && tokenStart:
				quote = &srcOpener{ch: c, at: Pos{Line: line, Col: utf8.RuneCountInString(text[:i]) + 1}, field: s.paths[ln]}
			case (c == '{' || c == '[') && tokenStart && len(s.openers) >= maxOpeners:
				flow = append(flow, -1) // bounded memory: counted, not recorded
			case (c == '{' || c == '[') && tokenStart:
				flow = append(flow, len(s.openers))
				s.openers = append(s.openers, srcOpener{ch: c, at: Pos{Line: line, Col: utf8.RuneCountInString(text[:i]) + 1}, field: s.paths[ln]})
			case (c == '}' || c == ']') && len(flow) == 0:
				if s.stray.Line == 0 {
					s.stray = Pos{Line: line, Col: utf8.RuneCountInString(text[:i]) + 1}
				}
			case c == ',' && len(flow) > 0 && strings.ContainsRune("[{,", rune(lastNonBlank(text[:i]))) && strings.TrimSpace(text[:i]) != "":
				if s.empty.Line == 0 {
					s.empty = Pos{Line: line, Col: utf8.RuneCountInString(text[:i]) + 1}
				}
			case (c == '}' || c == ']') && len(flow) > 0:
				// A "}" where a "[" is open leaves the "[" unclosed and
				// closes the "{" around it, if there is one.
				open := flow[len(flow)-1]
				flow = flow[:len(flow)-1]
				if open < 0 {
					break
				}
				if s.openers[open].ch+2 == c { // '{'+2 == '}', '['+2 == ']'
					s.openers[open].closed = true
				} else if len(flow) > 0 && flow[len(flow)-1] >= 0 && s.openers[flow[len(flow)-1]].ch+2 == c {
					s.openers[flow[len(flow)-1]].closed = true
					flow = flow[:len(flow)-1]
				} else if s.stray.Line == 0 { // it matches no opener
					s.stray = Pos{Line: line, Col: utf8.RuneCountInString(text[:i]) + 1}
				}
			}
			prev = c
		}
	}
	s.quote = quote
	return s
}

// keyOn returns the block mapping key a line's content starts with
// ("name:" followed by a space or the end), quoted or plain.
func keyOn(content string) (string, bool) {
	if content == "" || strings.ContainsRune("#{[-|>", rune(content[0])) && !(content[0] == '-' && len(content) > 1 && content[1] != ' ') {
		return "", false
	}
	if q := content[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(content[1:], q)
		if end < 0 || !strings.HasPrefix(strings.TrimLeft(content[end+2:], " "), ":") {
			return "", false
		}
		return content[1 : end+1], true
	}
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case ':':
			if i+1 == len(content) || content[i+1] == ' ' || content[i+1] == '\t' {
				return strings.TrimSpace(content[:i]), true
			}
		case '#':
			if i > 0 && content[i-1] == ' ' {
				return "", false
			}
		}
	}
	return "", false
}

// stripComment drops a trailing " # comment" (outside quotes, roughly).
func stripComment(s string) string {
	if strings.HasPrefix(s, "#") {
		return ""
	}
	if i := strings.Index(s, " #"); i >= 0 && !strings.ContainsAny(s[:i], `"'`) {
		return s[:i]
	}
	return s
}

// stripProps drops a leading anchor (&a) or tag (!!str) from a value.
func stripProps(s string) string {
	for s != "" && (s[0] == '&' || s[0] == '!') {
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			return ""
		}
		s = strings.TrimLeft(s[end:], " \t")
	}
	return s
}

// locateSyntax turns the parser's problem and line (0: none given) into
// where a person would point, the field there, and what to say.
func locateSyntax(problem string, line int, data []byte) (Pos, string, string) {
	s := scanSource(data)
	parserErr := false
	for _, p := range parserProblems {
		parserErr = parserErr || problem == p
	}
	if parserErr && line > 0 {
		line++ // the parser's marks count lines from 0
	}
	if line <= 0 {
		line = 1
	}
	line = min(line, len(s.lines))
	at := func(p Pos) string {
		if p.Line >= 1 && p.Line <= len(s.paths) {
			return s.paths[p.Line-1]
		}
		return ""
	}
	switch {
	case problem == "did not find expected ',' or '}'" || problem == "did not find expected ',' or ']'":
		ch, what := byte('{'), "flow mapping"
		if strings.HasSuffix(problem, "']'") {
			ch, what = '[', "flow list"
		}
		var onLine, unclosed *srcOpener
		for i := range s.openers {
			o := &s.openers[i]
			if o.ch != ch {
				continue
			}
			if o.at.Line == line && (onLine == nil || !o.closed) {
				onLine = o
			}
			if !o.closed && unclosed == nil {
				unclosed = o
			}
		}
		if onLine == nil || onLine.closed && unclosed != nil && unclosed.at.Line <= line {
			if unclosed != nil {
				onLine = unclosed
			}
		}
		if onLine != nil {
			if st := s.stray; st.Line > onLine.at.Line || st.Line == onLine.at.Line && st.Col > onLine.at.Col {
				return st, at(st), fmt.Sprintf("syntax error: this %q closes nothing: the %q at %s is still open (%s)", string(s.lines[st.Line-1][byteCol(s.lines[st.Line-1], st.Col)]), string(ch), onLine.at, problem)
			}
			if !onLine.closed {
				return onLine.at, onLine.field, fmt.Sprintf("syntax error: the %s opened here with %q is never closed (%s)", what, string(ch), problem)
			}
			return onLine.at, onLine.field, fmt.Sprintf("syntax error: in the %s that opens here with %q: %s", what, string(ch), problem)
		}
	case problem == "did not find expected key" || problem == "did not find expected '-' indicator" || problem == "did not find expected node content" ||
		problem == "mapping values are not allowed in this context" || problem == "block sequence entries are not allowed in this context":
		// The parser stops at the first of these in the file.
		first := func(p, than Pos) bool {
			return p.Line > 0 && (than.Line == 0 || p.Line < than.Line || p.Line == than.Line && p.Col < than.Col)
		}
		switch {
		case first(s.stray, s.badAt) && !first(s.empty, s.stray):
			return s.stray, at(s.stray), fmt.Sprintf("syntax error: this %q closes nothing (%s)", string(s.lines[s.stray.Line-1][byteCol(s.lines[s.stray.Line-1], s.stray.Col)]), problem)
		case first(s.empty, s.badAt):
			return s.empty, at(s.empty), fmt.Sprintf("syntax error: an empty entry: nothing between this comma and the one or the bracket before it (%s)", problem)
		case s.badAt.Line > 0:
			return s.badAt, s.badPath, fmt.Sprintf("syntax error: bad indentation: %s (%s)", s.badWhy, problem)
		}
	case problem == "found a tab character that violates indentation" || problem == "found character that cannot start any token":
		for _, t := range s.tabAt {
			if t.Line >= line {
				return t, "", fmt.Sprintf("syntax error: a tab in the indentation: YAML indents with spaces only (%s)", problem)
			}
		}
	case strings.HasPrefix(problem, "found unexpected end of stream"):
		if q := s.quote; q != nil {
			return q.at, q.field, fmt.Sprintf("syntax error: the string quoted here with %s is never closed (%s)", string(q.ch), problem)
		}
	case problem == "found undefined tag handle":
		text := s.lines[line-1]
		if m := tagHandle.FindStringIndex(text); m != nil {
			p := Pos{Line: line, Col: utf8.RuneCountInString(text[:m[0]]) + 1}
			return p, at(p), fmt.Sprintf("syntax error: the tag handle %s is not declared (%s)", text[m[0]:m[1]], problem)
		}
	case strings.HasPrefix(problem, "unknown anchor '"):
		name := strings.TrimSuffix(strings.TrimPrefix(problem, "unknown anchor '"), "' referenced")
		for n, text := range s.lines {
			if c := aliasIndex(text, name); c >= 0 {
				p := Pos{Line: n + 1, Col: utf8.RuneCountInString(text[:c]) + 1}
				return p, at(p), fmt.Sprintf("the alias *%s names no anchor: an alias repeats a node marked &%s before it", name, name)
			}
		}
	}
	text := strings.TrimSuffix(s.lines[line-1], "\r")
	p := Pos{Line: line, Col: utf8.RuneCountInString(text[:len(text)-len(strings.TrimLeft(text, " \t"))]) + 1}
	return p, at(p), "syntax error: " + problem
}

// tagHandle is a named tag handle (!e!), which a %TAG directive declares.
var tagHandle = regexp.MustCompile(`![A-Za-z0-9-]+!`)

// lastNonBlank is the last character of s that is not a space or tab (0:
// none).
func lastNonBlank(s string) byte {
	s = strings.TrimRight(s, " \t")
	if s == "" {
		return 0
	}
	return s[len(s)-1]
}

// byteCol is the byte offset of column col (from 1, in runes) of text.
func byteCol(text string, col int) int {
	for i := range text {
		if col--; col == 0 {
			return i
		}
	}
	return len(text)
}

// aliasIndex is the byte offset of the alias *name in text, or -1.
func aliasIndex(text, name string) int {
	for off := 0; ; {
		i := strings.Index(text[off:], "*"+name)
		if i < 0 {
			return -1
		}
		i += off
		end := i + 1 + len(name)
		if end == len(text) || strings.ContainsRune(" \t,]}#", rune(text[end])) {
			return i
		}
		off = i + 1
	}
}
