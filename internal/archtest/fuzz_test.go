package archtest

import (
	"go/ast"
	"os"
	"slices"
	"strings"
	"testing"
)

// make fuzz fuzzes every fuzz target of the repository: a Fuzz function
// the Makefile's FUZZ_TARGETS does not list runs its seeds in make test
// and is never fuzzed (FuzzHTML, FuzzImport and FuzzLocalBound were not,
// for weeks), and a listed one that is gone fails make fuzz only when it
// gets there.
func TestMakeFuzzRunsEveryFuzzTarget(t *testing.T) {
	listed := fuzzTargets(t)
	var found []string
	for _, f := range repoFiles(t) {
		if !f.test {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || !takesF(fn) {
				continue
			}
			target := "./" + f.dir + ":" + fn.Name.Name
			found = append(found, target)
			if !slices.Contains(listed, target) {
				t.Errorf("%s:%d: %s is not in the Makefile's FUZZ_TARGETS: make fuzz never fuzzes it (add %s)", f.rel, f.fset.Position(fn.Pos()).Line, fn.Name.Name, target)
			}
		}
	}
	for _, target := range listed {
		if !slices.Contains(found, target) {
			t.Errorf("the Makefile's FUZZ_TARGETS lists %s, which is no fuzz target (a package directory and a Fuzz function of its tests)", target)
		}
	}
	if len(found) == 0 {
		t.Error("no fuzz target found: is the walk reading the tests?")
	}
}

// fuzzTargets are the words of the Makefile's FUZZ_TARGETS (./dir:FuzzName).
func fuzzTargets(t *testing.T) []string {
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "FUZZ_TARGETS :="); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatal("the Makefile has no line FUZZ_TARGETS := ...")
	return nil
}

// takesF reports whether fn's one parameter is a *testing.F.
func takesF(fn *ast.FuncDecl) bool {
	ps := fn.Type.Params.List
	if len(ps) != 1 || len(ps[0].Names) > 1 {
		return false
	}
	star, ok := ps[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "F" && isIdent(sel.X, "testing")
}
