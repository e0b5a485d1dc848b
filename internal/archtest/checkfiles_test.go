package archtest

import (
	"go/ast"
	"go/token"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// CONTRIBUTING.md's list of check files ("Adding a check rule", step 1)
// says, for each rule of the catalog (rules in patterns/checks.go), the
// file its function is in: each rule with a function is listed under
// that file and no other, and every id listed is a rule of the catalog.
// (A rule without a function, KP205, which the planner reports, is in
// no file's list.)
func TestContributingListsEachCheckFile(t *testing.T) {
	// The catalog: each rule's id and function, and each function's file.
	consts := map[string]string{}
	funcFile := map[string]string{}
	var catalog *ast.CompositeLit
	for _, f := range repoFiles(t) {
		if f.dir != "patterns" || f.test {
			continue
		}
		for _, d := range f.ast.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					funcFile[d.Name.Name] = path.Base(f.rel)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					v, ok := s.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for i, n := range v.Names {
						if i >= len(v.Values) {
							continue
						}
						if b, ok := v.Values[i].(*ast.BasicLit); ok && b.Kind == token.STRING && d.Tok == token.CONST {
							consts[n.Name], _ = strconv.Unquote(b.Value)
						}
						if c, ok := v.Values[i].(*ast.CompositeLit); ok && n.Name == "rules" {
							catalog = c
						}
					}
				}
			}
		}
	}
	if catalog == nil {
		t.Fatal("no var rules in patterns: where is the catalog?")
	}
	ruleFile := map[string]string{} // id → the file of its function
	ids := map[string]bool{}
	for _, e := range catalog.Elts {
		r, ok := e.(*ast.CompositeLit)
		if !ok || len(r.Elts) != 4 {
			t.Fatalf("a catalog entry is not {id, severity, title, function}: %T", e)
		}
		var id string
		switch x := r.Elts[0].(type) {
		case *ast.BasicLit:
			id, _ = strconv.Unquote(x.Value)
		case *ast.Ident:
			id = consts[x.Name]
		}
		if id == "" {
			t.Fatalf("a catalog entry's id is not a string or a string constant")
		}
		ids[id] = true
		fn, ok := r.Elts[3].(*ast.Ident)
		if !ok || fn.Name == "nil" {
			continue
		}
		file, ok := funcFile[fn.Name]
		if !ok {
			t.Fatalf("%s's function %s is in no file of patterns", id, fn.Name)
		}
		ruleFile[id] = file
	}
	if len(ruleFile) < 30 {
		t.Fatalf("read %d rules with functions from the catalog: has it changed form?", len(ruleFile))
	}

	// The list: `file.go` (ids) ... in step 1.
	b, err := os.ReadFile("../../CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, step, ok := strings.Cut(string(b), "\n## Adding a check rule\n")
	if ok {
		step, _, ok = strings.Cut(step, "\n2. ")
	}
	_, step, found := strings.Cut(step, "The files:")
	if !ok || !found {
		t.Fatal(`CONTRIBUTING.md has no "## Adding a check rule" section whose step 1 says "The files:"`)
	}
	listed := map[string]string{} // id → the file the list names
	entry := regexp.MustCompile("`([^`]+\\.go)` \\(([^)]*)\\)")
	id := regexp.MustCompile(`KP(\d{3})(?:–(\d{3}))?`)
	for _, m := range entry.FindAllStringSubmatch(step, -1) {
		file := path.Base(m[1])
		for _, r := range id.FindAllStringSubmatch(m[2], -1) {
			from, _ := strconv.Atoi(r[1])
			to := from
			if r[2] != "" {
				to, _ = strconv.Atoi(r[2])
			}
			for n := from; n <= to; n++ {
				k := "KP" + strconv.Itoa(n)
				if other, dup := listed[k]; dup {
					t.Errorf("CONTRIBUTING.md lists %s under %s and %s", k, other, file)
				}
				listed[k] = file
			}
		}
	}
	var problems []string
	for k, file := range ruleFile {
		switch got, ok := listed[k]; {
		case !ok:
			problems = append(problems, k+" (in "+file+") is in no file's list: add it under `"+file+"`")
		case got != file:
			problems = append(problems, k+" is listed under `"+got+"`, but its function is in "+file)
		}
	}
	for k, file := range listed {
		if !ids[k] {
			problems = append(problems, k+" is listed under `"+file+"` but is no rule of the catalog")
		} else if _, ok := ruleFile[k]; !ok {
			problems = append(problems, k+" is listed under `"+file+"` but has no function in the catalog")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Errorf("CONTRIBUTING.md's list of check files: %s", p)
	}
}
