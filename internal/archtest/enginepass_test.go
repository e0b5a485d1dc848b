package archtest

import (
	"go/ast"
	"strings"
	"testing"
)

// A test marked engine-independent (enginepass.Independent: make test's
// dynalite and DynamoDB Local passes skip it) says so first, before it
// does anything: the mark poisons the engine choice for what follows, so
// all of the test is checked to reach no engine by the environment's
// choice. Only a top-level Test function of a _test.go file is marked.
func TestEngineIndependentIsFirst(t *testing.T) {
	marks := 0
	for _, f := range repoFiles(t) {
		first := map[*ast.CallExpr]bool{}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil || len(fn.Body.List) == 0 || !f.test || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			if es, ok := fn.Body.List[0].(*ast.ExprStmt); ok {
				if c, ok := es.X.(*ast.CallExpr); ok && isIndependent(c) && len(c.Args) == 1 && len(fn.Type.Params.List) == 1 &&
					len(fn.Type.Params.List[0].Names) == 1 && isIdent(c.Args[0], fn.Type.Params.List[0].Names[0].Name) {
					first[c] = true
				}
			}
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok || !isIndependent(c) {
				return true
			}
			marks++
			if !first[c] {
				t.Errorf("%s:%d: enginepass.Independent(t) is the first statement of a top-level Test function, on its own t", f.rel, f.fset.Position(c.Pos()).Line)
			}
			return true
		})
	}
	if marks == 0 {
		t.Error("no test is marked engine-independent: is enginepass still used?")
	}
}

func isIndependent(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Independent" && isIdent(sel.X, "enginepass")
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
