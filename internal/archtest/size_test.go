package archtest

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// Bounds that keep the house livable: no file of the core is longer than
// maxCoreFileLines (one concept per file), and the CLI parses flags and
// prints: no function of it more complex than maxCLIComplexity (its logic
// lives in the libraries), and fewer than maxCLILines in all (issue 24).
// The commands' runner is internal/cli, which imports only the standard
// library (TestNeverRules).
const (
	maxCoreFileLines = 600
	maxCLILines      = 600
	maxCLIComplexity = 15
)

func lines(src []byte) int { return bytes.Count(src, []byte("\n")) }

func TestCoreFilesStaySmall(t *testing.T) {
	n := 0
	for _, f := range repoFiles(t) {
		if (f.dir != "patterns" && f.dir != "patterns/model") || f.test {
			continue
		}
		n++
		if l := lines(f.src); l > maxCoreFileLines {
			t.Errorf("%s has %d lines, more than %d: split it by concept", f.rel, l, maxCoreFileLines)
		}
	}
	if n < 20 {
		t.Fatalf("found %d files of the core", n)
	}
}

func TestCLIIsThin(t *testing.T) {
	total := 0
	for _, f := range repoFiles(t) {
		if !under(f.dir, "cmd/keyplan") || f.test {
			continue
		}
		total += lines(f.src)
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if c := complexity(fn); c > maxCLIComplexity {
				t.Errorf("%s:%d: %s has cyclomatic complexity %d, more than %d: move its logic into the library it belongs to, or split it",
					f.rel, f.fset.Position(fn.Pos()).Line, fn.Name.Name, c, maxCLIComplexity)
			}
		}
	}
	if total == 0 {
		t.Fatal("found no code of cmd/keyplan")
	}
	if total >= maxCLILines {
		t.Errorf("cmd/keyplan has %d lines of code, not fewer than %d: it parses flags and prints; the rest belongs in the libraries", total, maxCLILines)
	}
}

// complexity is a function's cyclomatic complexity as gocyclo counts it:
// 1, plus one per if, for, range, case (not default), select case (not
// default), && and || (function literals inside count toward it).
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// complexity counts as gocyclo v0.6.0 does (it printed 10 for f).
func TestComplexityCounts(t *testing.T) {
	const src = `package p
func f(a, b bool, xs []int, ch chan int) int {
	if a && b || !a { // if, &&, ||
		return 1
	}
	for i := 0; i < 3; i++ { // for
	}
	for range xs { // range
	}
	switch {
	case a: // case
	case b: // case
	default:
	}
	select {
	case <-ch: // select case
	default:
	}
	g := func() bool { return a || b } // ||, in a function literal
	_ = g
	return 0
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c := complexity(f.Decls[0].(*ast.FuncDecl)); c != 10 {
		t.Errorf("complexity = %d, gocyclo says 10", c)
	}
}
