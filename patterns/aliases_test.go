//lint:file-ignore SA1019 this file is the aliases' own test: it uses the deprecated names on purpose, as code written against patterns before the move does.

package patterns_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Code written against patterns before the model moved still compiles
// and means the same: the loader's aliases load a model that is the
// model's own type, the planner takes it unconverted, its errors match
// the model's sentinel and type, and the constants, variables and
// functions are the model's.
func TestDeprecatedAliasesStillWork(t *testing.T) {
	var m *patterns.Model
	m, err := patterns.Load("../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var same *model.Model = m // a type alias: no conversion
	d, err := patterns.Plan(same)
	if err != nil {
		t.Fatal(err)
	}
	var player *patterns.Entity = d.Model().Entity("Player")
	if player == nil || player != same.Entity("Player") {
		t.Fatalf("the design's Player is %v; the model's %v", player, same.Entity("Player"))
	}
	if a := player.Attr("playerId"); a == nil || a.Type != patterns.TypeString {
		t.Errorf("Player.playerId is %+v; want a %s", a, patterns.TypeString)
	}
	if patterns.Scalar(patterns.TypeString) != model.Scalar(model.TypeString) || len(patterns.ScalarTypes()) != len(model.ScalarTypes()) {
		t.Error("patterns.Scalar and ScalarTypes are not the model's")
	}
	if patterns.MaxGSIs != model.MaxGSIs || patterns.Sep != model.Sep || patterns.NameRule != model.NameRule {
		t.Error("patterns' constants and variables are not the model's")
	}

	_, err = patterns.Parse("bad.yaml", []byte("table: T\nentities:\n  E:\n    id: [x]\n"))
	var perr *patterns.Error
	if !errors.Is(err, patterns.ErrInvalidModel) || !errors.Is(err, model.ErrInvalidModel) || !errors.As(err, &perr) {
		t.Fatalf("a bad model's error %v matches neither patterns.ErrInvalidModel nor *patterns.Error", err)
	}
	var merr *model.Error = perr
	if merr.File != "bad.yaml" || merr.Pos.Line == 0 {
		t.Errorf("the error names %s:%d; want bad.yaml and a line", merr.File, merr.Pos.Line)
	}
	tpl, err := patterns.ParseTemplate("PLAYER#{playerId}")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := model.ParseTemplate("PLAYER#{playerId}"); tpl.String() != want.String() {
		t.Errorf("patterns.ParseTemplate gives %s; model.ParseTemplate %s", tpl, want)
	}
}

// Every name of aliases.go is the model's name of the same spelling
// (a type alias, a constant or variable of its value, a function that
// forwards its arguments in order), marked Deprecated with the name to
// use, and docs/compatibility.md counts them right.
func TestAliasesForwardToTheModel(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "aliases.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	isModel := func(e ast.Expr, name string) bool {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := s.X.(*ast.Ident)
		return ok && x.Name == "model" && s.Sel.Name == name
	}
	deprecated := func(doc *ast.CommentGroup, name string) bool {
		return doc != nil && strings.Contains("\n"+doc.Text(), "\nDeprecated: use model."+name+".")
	}
	n := 0
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					n++
					if !s.Assign.IsValid() || !isModel(s.Type, s.Name.Name) {
						t.Errorf("%s: type %s is no alias of model.%[2]s", fset.Position(s.Pos()), s.Name.Name)
					}
					if !deprecated(s.Doc, s.Name.Name) {
						t.Errorf("%s: %s is not marked Deprecated: use model.%[2]s.", fset.Position(s.Pos()), s.Name.Name)
					}
				case *ast.ValueSpec:
					n += len(s.Names)
					if len(s.Names) != 1 || len(s.Values) != 1 || !isModel(s.Values[0], s.Names[0].Name) {
						t.Errorf("%s: %s is not model.%[2]s", fset.Position(s.Pos()), s.Names[0].Name)
					}
					if !deprecated(s.Doc, s.Names[0].Name) {
						t.Errorf("%s: %s is not marked Deprecated: use model.%[2]s.", fset.Position(s.Pos()), s.Names[0].Name)
					}
				}
			}
		case *ast.FuncDecl:
			n++
			name := decl.Name.Name
			if !forwards(decl, isModel) {
				t.Errorf("%s: func %s does not return model.%[2]s of its parameters in order", fset.Position(decl.Pos()), name)
			}
			if !deprecated(decl.Doc, name) {
				t.Errorf("%s: %s is not marked Deprecated: use model.%[2]s.", fset.Position(decl.Pos()), name)
			}
		}
	}
	doc, err := os.ReadFile("../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	said := regexp.MustCompile(`Every exported name that moved \((\d+)\)`).FindSubmatch(doc)
	if said == nil {
		t.Fatal(`docs/compatibility.md no longer says "Every exported name that moved (N)"`)
	}
	if c, _ := strconv.Atoi(string(said[1])); c != n {
		t.Errorf("docs/compatibility.md counts %d names that moved; aliases.go has %d", c, n)
	}
}

// forwards is true of a function whose body is return model.<its name>
// of its parameters, in order.
func forwards(fn *ast.FuncDecl, isModel func(ast.Expr, string) bool) bool {
	if len(fn.Body.List) != 1 {
		return false
	}
	ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || !isModel(call.Fun, fn.Name.Name) {
		return false
	}
	var params []string
	for _, p := range fn.Type.Params.List {
		for _, n := range p.Names {
			params = append(params, n.Name)
		}
	}
	if len(call.Args) != len(params) {
		return false
	}
	for i, a := range call.Args {
		if id, ok := a.(*ast.Ident); !ok || id.Name != params[i] {
			return false
		}
	}
	return true
}
