package gen

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// exported are the packages generated code imports.
var exported = []string{"context", "fmt", "iter", "strings", "sync", "time",
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types",
	"github.com/keyplan/keyplan/patterns",
	"github.com/keyplan/keyplan/patterns/dynamo"}

// The packages generated code imports, with their export data (go list
// -export builds them into the cache once per test process), so a
// generated file is type-checked in-process as the compiler would.
var exports = sync.OnceValues(func() (map[string]string, error) {
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}"}, exported...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v\n%s", err, stderr.String())
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, ok := strings.Cut(sc.Text(), " ")
		if ok && file != "" {
			m[path] = file
		}
	}
	return m, nil
})

// readyChecker makes the checker's importer (checker held), once per
// process: go list -export, then every package generated code imports
// read from its export data. That takes seconds on a loaded machine,
// and a fuzz worker that spends more than 10 s on one input is taken
// for deadlocked and killed (internal/fuzz): FuzzGenCompiles makes it
// ready before it fuzzes, not in its first input.
func readyChecker(t testing.TB) {
	t.Helper()
	if checker.imp != nil {
		return
	}
	files, err := exports()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	for _, path := range exported {
		if _, err := imp.Import(path); err != nil {
			t.Fatal(err)
		}
	}
	checker.fset, checker.imp = fset, imp
}

// checker type-checks generated files against the export data, its
// importer shared (each package is read once per test process).
var checker struct {
	sync.Mutex
	fset *token.FileSet
	imp  types.Importer
}

// typeCheck reports what the compiler would of src as package pkg.
func typeCheck(t testing.TB, pkg string, src []byte) error {
	t.Helper()
	checker.Lock()
	defer checker.Unlock()
	readyChecker(t)
	f, err := parser.ParseFile(checker.fset, "keyplan.gen.go", src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	var errs []string
	conf := types.Config{Importer: checker.imp, Error: func(err error) { errs = append(errs, err.Error()) }}
	conf.Check(pkg, checker.fset, []*ast.File{f}, nil)
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}
