package archtest

import (
	"go/ast"
	"slices"
	"strings"
	"testing"
)

// The scalar attribute types have one table (patterns/model/scalars.go): a
// package that tells one from another reads it. A case of a switch naming
// a scalar type (case patterns.TypeBool:, case a.Type == TypeTime:) is a
// second table growing outside it, which a new type would have to find
// and extend. Outside the descriptor's files only the reference evaluator
// (its own semantics, tested against the same list) and the cases below
// keep one, each for its reason; one that no longer has its case is
// reported too, so the list stays true.
var scalarCaseFiles = []string{
	"patterns/model/scalars.go", // the table
	"patterns/model/binary.go",  // binary's encoder
	"patterns/oracle",           // the reference's own semantics (oracle's scalars_test.go holds it to the table)
}

var scalarCaseAllowed = map[string]string{
	"patterns/model/kinds.go elementValue":            "a set's, list's or map's elements (string, number, bool), no scalar attribute",
	"patterns/dynamo/kinds.go typedList":              "a list's elements as a Go slice",
	"patterns/dynamo/kinds.go typedMap":               "a map's entries as a Go map",
	"patterns/gen/gen.go elementType":                 "the Go type of a collection's elements",
	"patterns/model/validatekinds.go validateDerived": "a derived attribute is a string or a number",
	"patterns/writeplan.go ruleVersion":               "an entity's version attribute is a number",
}

func TestScalarTypesHaveOneTable(t *testing.T) {
	files := repoFiles(t)
	names := scalarTypeNames(t, files)
	seen := map[string]bool{}
	for _, f := range files {
		if f.test || slices.ContainsFunc(scalarCaseFiles, func(d string) bool { return under(f.rel, d) }) {
			continue
		}
		inPatterns := f.dir == "patterns" || f.dir == "patterns/model"
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			where := f.rel + " " + fn.Name.Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				cc, ok := n.(*ast.CaseClause)
				if !ok {
					return true
				}
				for _, e := range cc.List {
					if name := namesScalar(e, names, inPatterns); name != "" {
						seen[where] = true
						if _, ok := scalarCaseAllowed[where]; !ok {
							t.Errorf("%s:%d: a case on %s in %s: read the scalar type's entry in patterns/scalars.go (add what you need to it) instead of switching on the type",
								f.rel, f.fset.Position(cc.Pos()).Line, name, fn.Name.Name)
						}
						return true
					}
				}
				return true
			})
		}
	}
	for where := range scalarCaseAllowed {
		if !seen[where] {
			t.Errorf("%s is allowed a case on a scalar type but has none: drop it from scalarCaseAllowed", where)
		}
	}
}

// scalarTypeNames are the constants the table's entries name (Type:
// TypeString, ...), read from patterns/model/scalars.go.
func scalarTypeNames(t *testing.T, files []*goFile) map[string]bool {
	names := map[string]bool{}
	for _, f := range files {
		if f.rel != "patterns/model/scalars.go" {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			if k, isIdent := kv.Key.(*ast.Ident); isIdent && k.Name == "Type" {
				if v, ok := kv.Value.(*ast.Ident); ok && strings.HasPrefix(v.Name, "Type") {
					names[v.Name] = true
				}
			}
			return true
		})
	}
	if len(names) < 5 {
		t.Fatalf("read %d scalar types from patterns/model/scalars.go, expected at least 5: has the table moved?", len(names))
	}
	return names
}

// namesScalar is the scalar type constant e names, if it names one
// (patterns.TypeX, or TypeX inside patterns), anywhere in it.
func namesScalar(e ast.Expr, names map[string]bool, inPatterns bool) string {
	found := ""
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if p, ok := x.X.(*ast.Ident); ok && (p.Name == "patterns" || p.Name == "model") && names[x.Sel.Name] {
				found = "patterns." + x.Sel.Name
			}
			return false
		case *ast.Ident:
			if inPatterns && names[x.Name] && x.Obj == nil {
				found = x.Name
			}
		}
		return found == ""
	})
	return found
}
