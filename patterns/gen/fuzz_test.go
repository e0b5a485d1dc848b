package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// adversarial are names a model may use that the generated code also
// needs (its imports, helpers, locals and API), Go's keywords and
// predeclared identifiers, and names Go spells alike.
var adversarial = func() []string {
	names := slices.Clone(bodyNames)
	names = append(names, "decodeDoc", "decodeItem", "decodeItemsItem", "DB", "Open", "Design", "TableName", "Options", "Page", "Runtime",
		"Values", "values", "values_", "Values_", "from", "From", "Index", "IndexGSI1", "GSI1", "Params", "All", "Item",
		"ab", "aB", "AB", "a_b", "it_", "err_", "id", "Id", "ID", "ids", "_", "_x", "x_", "url", "Url", "X2fa", "x2fa", "ctx_", "main", "init")
	names = append(names, types.Universe.Names()...)
	for t := token.BREAK; t <= token.VAR; t++ {
		if t.IsKeyword() {
			names = append(names, t.String())
		}
	}
	return names
}()

// chooser reads choices from fuzz input (zeros when it runs out).
type chooser struct{ b []byte }

func (c *chooser) n(k int) int {
	if len(c.b) == 0 || k <= 1 {
		return 0
	}
	v := int(c.b[0])
	c.b = c.b[1:]
	return v % k
}

// name is an adversarial name, or one spelled from the input (letters,
// digits and _, as model names are).
func (c *chooser) name() string {
	if c.n(4) > 0 {
		return adversarial[c.n(len(adversarial))]
	}
	const chars = "abAB_x1"
	s := string("aAbx_"[c.n(5)])
	for range c.n(4) {
		s += string(chars[c.n(len(chars))])
	}
	return s
}

// randomModel is a model whose names come from c: entities (one possibly
// within another), attributes of every type (optional, enums with odd
// values), reads by id, by attribute, sorted, unique and of an item
// collection, and writes of each kind with parameters.
func randomModel(c *chooser) string {
	var b strings.Builder
	b.WriteString("table: Things\nentities:\n")
	types := []string{"string", "number", "{type: number, min: 0, max: 99}", "time", "bool", "ttl", "{type: string, values: [a, B, a-b, \"x y\", \"\"]}", "{type: string, values: [on, off]}", "{type: string, optional: true}", "{type: number, min: 1, optional: true}",
		"{type: set, of: number}", "{type: list, of: bool}", "{type: map, of: string}", "{type: counter, shards: 3}"}
	entities := []string{"Doc", c.name()}
	if c.n(2) == 0 {
		entities = entities[:1]
	}
	type ent struct {
		name, id string
		attrs    []string
	}
	var ents []ent
	for i, en := range entities {
		e := ent{name: en}
		n := 1 + c.n(6)
		for range n {
			a := c.name()
			if !slices.Contains(e.attrs, a) {
				e.attrs = append(e.attrs, a)
			}
		}
		e.id = e.attrs[0]
		fmt.Fprintf(&b, "  %s:\n", en)
		if i == 1 && c.n(2) == 0 && !slices.Contains(e.attrs, ents[0].id) {
			// an item collection: the child's id starts with its parent's
			fmt.Fprintf(&b, "    within: %s\n    id: [%s, %s]\n", ents[0].name, ents[0].id, e.id)
			e.attrs = append(e.attrs, ents[0].id)
		} else {
			fmt.Fprintf(&b, "    id: [%s]\n", e.id)
		}
		b.WriteString("    attributes:\n")
		for j, a := range e.attrs {
			t := "string"
			if j > 0 && !(i == 1 && a == ents[0].id) {
				t = types[c.n(len(types))]
			}
			fmt.Fprintf(&b, "      %s: %s\n", a, t)
		}
		ents = append(ents, e)
	}
	b.WriteString("patterns:\n")
	pat := 0
	pname := func() string {
		pat++
		if c.n(3) == 0 {
			return c.name()
		}
		return fmt.Sprintf("P%d", pat)
	}
	for _, e := range ents {
		fmt.Fprintf(&b, "  %s: {get: %s}\n", pname(), e.name)
		if len(e.attrs) > 1 {
			a := e.attrs[1+c.n(len(e.attrs)-1)]
			switch c.n(3) {
			case 0:
				fmt.Fprintf(&b, "  %s: {get: %s, where: [%s], unique: true}\n", pname(), e.name, a)
			case 1:
				fmt.Fprintf(&b, "  %s: {query: %s, where: [%s]}\n", pname(), e.name, a)
			default:
				s := e.attrs[c.n(len(e.attrs))]
				fmt.Fprintf(&b, "  %s: {query: %s, where: [%s], sort: %s desc}\n", pname(), e.name, a, s)
			}
		}
		if len(e.attrs) > 2 {
			fmt.Fprintf(&b, "  %s: {query: %s, where: [%s, %s]}\n", pname(), e.name, e.attrs[1], e.attrs[2])
		}
	}
	if len(ents) == 2 {
		fmt.Fprintf(&b, "  %s: {query: [%s, %s], where: [%s]}\n", pname(), ents[0].name, ents[1].name, ents[0].id)
	}
	b.WriteString("writes:\n")
	e := ents[c.n(len(ents))]
	fmt.Fprintf(&b, "  %s: {put: %s, if: absent}\n", pname(), e.name)
	fmt.Fprintf(&b, "  %s: {delete: %s}\n", pname(), e.name)
	if len(e.attrs) > 1 {
		a := e.attrs[len(e.attrs)-1]
		fmt.Fprintf(&b, "  %s: {update: %s, set: [%s], condition: {%s: {eq: $%s}}}\n", pname(), e.name, a, a, c.name())
	}
	fmt.Fprintf(&b, "  %s: {batch: {put: %s}}\n", pname(), e.name)
	return b.String()
}

// checkModel generates code for the model and type-checks it: it
// compiles, or it is refused naming what collides (never a keyplan bug).
func checkModel(t *testing.T, pkg, yaml string) (generated bool) {
	t.Helper()
	m, err := model.Parse("m.yaml", []byte(yaml))
	if err != nil {
		return false // not a model: the loader's fuzz target is FuzzPlan
	}
	d, err := patterns.Plan(m)
	if err != nil {
		return false
	}
	src, err := Go(d, Options{Package: pkg, Source: "m.yaml"})
	if err != nil {
		if strings.Contains(err.Error(), "keyplan bug") || !strings.Contains(err.Error(), "rename") && !strings.Contains(err.Error(), "package") {
			t.Fatalf("%v\nmodel:\n%s", err, yaml)
		}
		return false
	}
	if err := typeCheck(t, pkg, src); err != nil {
		t.Fatalf("the generated code does not compile:\n%v\nmodel:\n%s", err, yaml)
	}
	return true
}

// Code generated for any model compiles (or the model is refused with
// what collides); make fuzz runs it.
func FuzzGenCompiles(f *testing.F) {
	r := rand.New(rand.NewPCG(28, 1))
	for range 8 {
		seed := make([]byte, 64)
		for i := range seed {
			seed[i] = byte(r.IntN(256))
		}
		f.Add(seed)
	}
	checker.Lock()
	readyChecker(f) // in each worker too, before its first input's 10 s
	checker.Unlock()
	f.Fuzz(func(t *testing.T, data []byte) {
		checkModel(t, "db", randomModel(&chooser{b: data}))
	})
}

// The fuzz target's bounded run in make test: 300 random models, most of
// them generated and compiled (so the generator of models is not
// vacuous), none failing.
func TestRandomModelsCompile(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	generated := 0
	const n = 300
	for range n {
		data := make([]byte, 64)
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		if checkModel(t, "db", randomModel(&chooser{b: data})) {
			generated++
		}
	}
	if generated < n/4 {
		t.Fatalf("only %d of %d random models generated code", generated, n)
	}
	t.Logf("%d of %d random models generated and compiled", generated, n)
}

// bodyNames (with the decoders, keywords and predeclared identifiers)
// covers every unexported name the generated code uses: in code generated
// for a model whose own names all start with zq, every other unexported
// identifier is one a parameter must not take.
func TestBodyNamesCoverTheGeneratedCode(t *testing.T) {
	d := plan(t, `table: Things
entities:
  ZqDoc:
    id: [zqId]
    version: zqRev
    attributes:
      zqId: {type: string, maxLength: 40}
      zqKind: {type: string, values: [a, b]}
      zqMaybe: {type: string, values: [a, b], optional: true}
      zqN: {type: number, min: 0, max: 9}
      zqF: number
      zqAt: time
      zqOn: {type: bool, optional: true}
      zqExp: {type: ttl, optional: true}
      zqRev: {type: number, min: 1}
      zqCount: {type: number, min: 0, optional: true}
    counters:
      zqCount: {count: ZqNote}
  ZqNote:
    id: [zqId, zqNoteId]
    within: ZqDoc
    attributes:
      zqId: {type: string, maxLength: 40}
      zqNoteId: {type: string, maxLength: 40}
      zqBody: {type: string, maxLength: 100, optional: true}
patterns:
  ZqGet: {get: ZqDoc, consistent: true}
  ZqByKind: {query: ZqDoc, where: [zqKind], sort: zqAt desc}
  ZqWith: {query: [ZqDoc, ZqNote], where: [zqId]}
  ZqGetNote: {get: ZqNote}
writes:
  ZqPut: {put: ZqDoc, if: absent}
  ZqSet: {update: ZqDoc, set: [zqKind], with: [zqAt], add: {zqN: $zqBy}, condition: {zqF: {ge: $zqMin}}}
  ZqDrop: {delete: ZqNote, condition: {zqBody: $zqWho}}
  ZqBoth:
    transact:
      - {put: ZqNote, if: absent}
      - {update: ZqDoc, set: [zqF]}
  ZqImport: {batch: {put: ZqNote}}
`)
	src, err := Go(d, Options{Package: "db"})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheck(t, "db", src); err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "keyplan.gen.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := newGen(d)
	seen := 0
	check := func(name, where string) {
		if name == "_" || ast.IsExported(name) || strings.HasPrefix(name, "zq") {
			return
		}
		seen++
		if !g.paramReserved(name) {
			t.Errorf("%s %s is not in bodyNames: a parameter by that name would shadow it", where, name)
		}
	}
	// What a method with parameters from the model sees: the package's
	// names (imports, declarations) and its own body's.
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		check(path[strings.LastIndex(path, "/")+1:], "the import")
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.ValueSpec:
					for _, id := range spec.Names {
						check(id.Name, "the package-level name")
					}
				case *ast.TypeSpec:
					check(spec.Name.Name, "the type")
				}
			}
		case *ast.FuncDecl:
			if decl.Recv == nil {
				check(decl.Name.Name, "the function")
				continue
			}
			if star, ok := decl.Recv.List[0].Type.(*ast.StarExpr); !ok || star.X.(*ast.Ident).Name != "DB" {
				continue
			}
			fromModel := false // a parameter named after an attribute
			for _, fl := range decl.Type.Params.List {
				for _, id := range fl.Names {
					fromModel = fromModel || strings.HasPrefix(id.Name, "zq")
				}
			}
			if !fromModel {
				continue // a write: its parameters are the fields of one struct
			}
			check(decl.Recv.List[0].Names[0].Name, "the receiver")
			skip := map[*ast.Ident]bool{}
			ast.Inspect(decl.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					skip[n.Sel] = true
				case *ast.KeyValueExpr:
					if id, ok := n.Key.(*ast.Ident); ok {
						skip[id] = true
					}
				case *ast.Ident:
					if !skip[n] {
						check(n.Name, "method "+decl.Name.Name+" uses")
					}
				}
				return true
			})
		}
	}
	if seen < 50 {
		t.Fatalf("looked at %d identifiers: the walk missed the code", seen)
	}
}
