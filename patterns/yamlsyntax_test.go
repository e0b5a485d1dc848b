package patterns

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/keyplan/keyplan/patterns/model"
)

// A YAML syntax error is reported where a person would point: the
// unclosed "{" or "[", the mis-indented key, the tab, the opening quote
// of an unterminated string, the duplicate key; with its column and the
// field it is in. The parser itself names the line of the enclosing
// construct, one line early (its marks count from 0), at column 1.
func TestSyntaxErrorPositions(t *testing.T) {
	const head = "table: T\nentities:\n  Player:\n    id: [playerId]\n"
	tests := []struct {
		name, model string
		want        string // the whole first line of the error
	}{
		{"an unclosed flow mapping",
			head + "patterns:\n  GetPlayer: {get: Player\n  Other: {get: Player}\n",
			`m.yaml:6:14: patterns.GetPlayer: syntax error: the flow mapping opened here with "{" is never closed (did not find expected ',' or '}')`},
		{"an unclosed flow mapping on the last line",
			head + "patterns:\n  GetPlayer: {get: Player\n",
			`m.yaml:6:14: patterns.GetPlayer: syntax error: the flow mapping opened here with "{" is never closed (did not find expected ',' or '}')`},
		{"an unclosed flow mapping on line 1",
			"table: {name: T\n",
			`m.yaml:1:8: table: syntax error: the flow mapping opened here with "{" is never closed (did not find expected ',' or '}')`},
		{"an unclosed flow list",
			"table: T\nentities:\n  Player:\n    id: [playerId\n    attributes: {playerId: string}\n",
			`m.yaml:4:9: entities.Player.id: syntax error: the flow list opened here with "[" is never closed (did not find expected ',' or ']')`},
		{"an unclosed list inside a closed mapping",
			"table: T\nentities:\n  Player: {id: [playerId, attributes: {playerId: string}}\n",
			`m.yaml:3:16: entities.Player: syntax error: the flow list opened here with "[" is never closed (did not find expected ',' or ']')`},
		{"a key indented less than its siblings",
			head + "   attributes: {playerId: string}\n",
			`m.yaml:5:4: entities.Player: syntax error: bad indentation: this line starts at column 4, between column 5 (of the lines before it) and column 3 (of the mapping enclosing them); indent it as one of them (did not find expected key)`},
		{"a key indented more than its siblings",
			head + "      attributes: {playerId: string}\n",
			`m.yaml:5:7: entities.Player: syntax error: bad indentation: this line is indented deeper (column 7) than the line before (column 5), which already has a value (did not find expected key)`},
		{"a mis-indented top-level key",
			head + " patterns:\n  GetPlayer: {get: Player}\n",
			`m.yaml:5:2: entities: syntax error: bad indentation: this line starts at column 2, between column 3 (of the lines before it) and column 1 (of the mapping enclosing them); indent it as one of them (did not find expected key)`},
		{"a list item indented less than its list",
			"table: T\nentities:\n  Player:\n    id:\n      - playerId\n     - other\n",
			`m.yaml:6:6: entities.Player.id: syntax error: bad indentation: this line starts at column 6, between column 7 (of the lines before it) and column 5 (of the mapping enclosing them); indent it as one of them (did not find expected key)`},
		{"a plain value going on, indented deeper, holding a key",
			"table: T\nentities:\n  Player:\n    note: some text\n      more: text\n",
			`m.yaml:5:7: entities.Player: syntax error: bad indentation: this line is indented deeper (column 7) than the line before (column 5), which already has a value (mapping values are not allowed in this context)`},
		{"a tab after a plain value",
			"table: T\nentities:\n  Player:\n    note: text\n\tmore: text\n",
			`m.yaml:5:1: syntax error: a tab in the indentation: YAML indents with spaces only (found a tab character that violates indentation)`},
		{"a key after a list at its key's column",
			"table: T\nentities:\n  - Player\n  Other: x\n",
			`m.yaml:4:3: entities: syntax error: bad indentation: this line is at the column of the list before it (column 3) but is not a "- " item (did not find expected '-' indicator)`},
		{"an empty entry in a flow list",
			"table: T\nentities:\n  Player: {id: [playerId, , other]}\n",
			`m.yaml:3:27: entities.Player: syntax error: an empty entry: nothing between this comma and the one or the bracket before it (did not find expected node content)`},
		{"a bracket that closes nothing",
			"table: T\nentities:\n  Player: {id: [playerId]]}\n",
			`m.yaml:3:26: entities.Player: syntax error: this "]" closes nothing: the "{" at 3:11 is still open (did not find expected ',' or '}')`},
		{"a bracket that closes nothing, alone",
			"table: T\nentities: ]\n",
			`m.yaml:2:11: entities: syntax error: this "]" closes nothing (did not find expected node content)`},
		{"an undeclared tag handle",
			"table: T\nentities: !e!x y\n",
			`m.yaml:2:11: entities: syntax error: the tag handle !e! is not declared (found undefined tag handle)`},
		{"a tab indenting a key",
			"table: T\nentities:\n  Player:\n\tid: [playerId]\n",
			`m.yaml:4:1: syntax error: a tab in the indentation: YAML indents with spaces only (found character that cannot start any token)`},
		{"a tab indenting a key after a value",
			head + "\tattributes: {playerId: string}\n",
			`m.yaml:5:1: syntax error: a tab in the indentation: YAML indents with spaces only (found character that cannot start any token)`},
		{"an unterminated double quote",
			"table: T\nentities:\n  Player:\n    id: [\"playerId]\n    attributes: {playerId: string}\n",
			`m.yaml:4:10: entities.Player.id: syntax error: the string quoted here with " is never closed (found unexpected end of stream)`},
		{"an unterminated single quote",
			"table: 'T\nentities: {}\n",
			`m.yaml:1:8: table: syntax error: the string quoted here with ' is never closed (found unexpected end of stream)`},
		{"an apostrophe in a plain value is no quote",
			"table: it's\nentities:\n  Player:\n    id: [playerId]\n   x: 1\n",
			`m.yaml:5:4: entities.Player: syntax error: bad indentation: this line starts at column 4, between column 5 (of the lines before it) and column 3 (of the mapping enclosing them); indent it as one of them (did not find expected key)`},
		{"a duplicate key",
			head + "    id: [other]\n",
			`m.yaml:5:5: entities.Player.id: duplicate name "id" (first declared at line 4)`},
		{"an alias to itself",
			"table: T\nentities: &a [*a]\n",
			`m.yaml:2:15: the alias *a refers to itself: it is inside the node its anchor &a (at 2:11) marks, so it would repeat without end; an alias can only repeat a node that ends before it`},
		{"an alias to a node around it",
			"table: T\nentities: &ents\n  Player:\n    id: [playerId]\n    more: *ents\n",
			`m.yaml:5:11: the alias *ents refers to itself: it is inside the node its anchor &ents (at 2:11) marks, so it would repeat without end; an alias can only repeat a node that ends before it`},
		{"an alias to no anchor",
			"table: T\nentities:\n  Player: *nope\n",
			`m.yaml:3:11: entities.Player: the alias *nope names no anchor: an alias repeats a node marked &nope before it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.Parse("m.yaml", []byte(tt.model))
			if err == nil {
				t.Fatal("accepted")
			}
			if !slices.Contains(strings.Split(err.Error(), "\n"), tt.want) {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// Whatever is broken in a real model (a closing brace dropped, a line
// shifted by a space, a tab or a quote put in), a syntax error names a
// line of the file and a column on it, and the loader does not panic.
func TestSyntaxErrorPositionsInExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	breaks := []func(string) string{
		func(l string) string { return strings.Replace(l, "}", "", 1) },
		func(l string) string { return strings.Replace(l, "]", "", 1) },
		func(l string) string { return " " + l },
		func(l string) string { return strings.TrimPrefix(l, " ") },
		func(l string) string { return "\t" + l },
		func(l string) string { return strings.Replace(l, ": ", `: "`, 1) },
	}
	syntaxErrors := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for n := range lines {
			for b, brk := range breaks {
				broken := slices.Clone(lines)
				broken[n] = brk(broken[n])
				_, err := model.Parse("m.yaml", []byte(strings.Join(broken, "\n")))
				var e *model.Error
				if !errors.As(err, &e) || !strings.Contains(e.Msg, "syntax error") {
					continue
				}
				syntaxErrors++
				if e.Pos.Line < 1 || e.Pos.Line > len(broken) || e.Pos.Col < 1 || e.Pos.Col > utf8.RuneCountInString(broken[e.Pos.Line-1])+1 {
					t.Errorf("%s line %d, break %d: %v: not a place in the file", f, n+1, b, err)
				}
			}
		}
	}
	if syntaxErrors < 100 {
		t.Errorf("only %d syntax errors made", syntaxErrors)
	}
}
