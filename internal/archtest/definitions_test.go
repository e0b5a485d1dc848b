package archtest

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The limits file and the GSI naming: each fact has one definition.
const (
	limitsFile = "patterns/model/limits.go"
	gsiFile    = "patterns/model/keynames.go"
)

// gsiSpelling matches a string literal that spells the planner's GSI names
// itself: "GSI", a format such as "GSI%d", or a pattern such as GSI[0-9]+.
var gsiSpelling = regexp.MustCompile(`^GSI$|GSI%|GSI\[0-9\]|GSI\\d`)

// DynamoDB's limits are defined in patterns/model/limits.go alone: no other file
// declares a constant or variable of the same name (a second
// MaxTransactItems drifts). The GSI name is written (GSIName) and read
// (GSINumber) in one place: no other code spells "GSI%d" or GSI[0-9]
// (tests may, to state what they expect).
func TestSingleDefinitions(t *testing.T) {
	files := repoFiles(t)
	limits := map[string]string{} // name → value literal
	for _, f := range files {
		if f.rel != limitsFile {
			continue
		}
		for _, d := range f.ast.Decls {
			forEachValue(d, func(name *ast.Ident, v ast.Expr) {
				limits[name.Name] = literal(f, v)
			})
		}
	}
	if len(limits) < 10 {
		t.Fatalf("%s declares %d limits; expected DynamoDB's (MaxGSIs, MaxTransactItems, …)", limitsFile, len(limits))
	}
	for _, f := range files {
		if f.rel == limitsFile || under(f.dir, "internal/engine/minidyn") || f.dir == "internal/archtest" {
			continue
		}
		for _, d := range f.ast.Decls {
			forEachValue(d, func(name *ast.Ident, v ast.Expr) {
				at := f.fset.Position(name.Pos())
				if sel, ok := v.(*ast.SelectorExpr); ok && sel.Sel.Name == name.Name {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "model" {
						return // patterns' alias of the model's limit (aliases.go), not a second value
					}
				}
				if _, ok := limits[name.Name]; ok {
					t.Errorf("%s:%d: %s is declared again; it is model.%s (%s)", f.rel, at.Line, name.Name, name.Name, limitsFile)
				}
			})
		}
		if f.rel == gsiFile || f.test {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && gsiSpelling.MatchString(s) {
				t.Errorf("%s:%d: %s spells the GSI name; GSIName and GSINumber (%s) write and read it", f.rel, f.fset.Position(lit.Pos()).Line, lit.Value, gsiFile)
			}
			return true
		})
	}
}

// forEachValue calls fn for each name a const or var declaration declares,
// with its value (nil when it has none).
func forEachValue(d ast.Decl, fn func(*ast.Ident, ast.Expr)) {
	g, ok := d.(*ast.GenDecl)
	if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
		return
	}
	for _, s := range g.Specs {
		vs := s.(*ast.ValueSpec)
		for i, n := range vs.Names {
			var v ast.Expr
			if i < len(vs.Values) {
				v = vs.Values[i]
			}
			fn(n, v)
		}
	}
}

// literal is an expression's source text, spaces removed ("400*1024").
func literal(f *goFile, e ast.Expr) string {
	if e == nil {
		return ""
	}
	start, end := f.fset.Position(e.Pos()).Offset, f.fset.Position(e.End()).Offset
	return strings.Join(strings.Fields(string(f.src[start:end])), "")
}
