package patterns

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The contract is defined once: no Go file in the repository other than
// contract.go spells one of its values as a string literal (a second copy
// would drift silently). Handler names are also the model's field names
// (copies, counters, archive), so those are looked for outside patterns/.
func TestContractHasNoSecondCopy(t *testing.T) {
	exact := map[string]string{
		TableNameEnv: "TableNameEnv", LockEnv: "LockEnv", ArchiveBucketEnv: "ArchiveBucketEnv",
		DesignPath: "DesignPath", TTLPrincipal: "TTLPrincipal", Module: "Module", BackfillWorker: "BackfillWorker", BackfillMaxWCUEnv: "BackfillMaxWCUEnv",
	}
	prefixes := map[string]string{GuardTag: "GuardTag", MarkerTag: "MarkerTag", FanoutTag: "FanoutTag", "/opt/" + LayerDir: "DesignPath"}
	handlers := map[string]string{}
	for _, h := range Handlers() {
		handlers[string(h)] = "Handler" + strings.ToUpper(string(h[:1])) + string(h[1:])
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "cdk.out" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && rel == filepath.Join("internal", "minidyn") {
			return filepath.SkipDir // a fork of outside code: it knows nothing of keyplan's contract
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || rel == filepath.Join("patterns", "contract.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		inCore := filepath.Dir(rel) == "patterns"
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			name := exact[s]
			for p, c := range prefixes {
				if strings.HasPrefix(s, p) {
					name = c
				}
			}
			if h, ok := handlers[s]; ok && !inCore {
				name = h
			}
			if name != "" {
				t.Errorf("%s:%d: %s spells patterns.%s again; use the constant", rel, fset.Position(lit.Pos()).Line, lit.Value, name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("looked at %d Go files; the walk missed the repository", files)
	}
}

// Every package has a doc.go whose comment starts by saying what the
// package (or command) is for.
func TestEveryPackageHasDoc(t *testing.T) {
	root, _ := filepath.Abs("..")
	dirs := map[string]bool{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || d.Name() == "cdk.out" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	for dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Errorf("%s: no doc.go: %v", rel, err)
			continue
		}
		doc := f.Doc.Text()
		if !strings.HasPrefix(doc, "Package "+f.Name.Name+" ") && !strings.HasPrefix(doc, "Command ") {
			t.Errorf("%s/doc.go: the comment starts %q, not with what the package is for", rel, strings.SplitN(doc, "\n", 2)[0])
		}
	}
}

// The state machine reads BackfillTask's fields by these names.
func TestBackfillTaskFieldNames(t *testing.T) {
	b, err := json.Marshal(BackfillTask{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, f := range []string{BackfillTaskDone, BackfillTaskFailed} {
		if _, ok := m[f]; !ok {
			t.Errorf("BackfillTask has no JSON field %q: %s", f, b)
		}
	}
}
