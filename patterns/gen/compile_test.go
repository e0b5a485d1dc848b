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

// The packages generated code imports, with their export data (go list
// -export builds them into the cache once per test process), so a
// generated file is type-checked in-process as the compiler would.
var exports = sync.OnceValues(func() (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}",
		"context", "fmt", "iter", "strings", "sync", "time",
		"github.com/aws/aws-sdk-go-v2/service/dynamodb/types",
		"github.com/keyplan/keyplan/patterns",
		"github.com/keyplan/keyplan/patterns/dynamo")
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
	files, err := exports()
	if err != nil {
		t.Fatal(err)
	}
	checker.Lock()
	defer checker.Unlock()
	if checker.imp == nil {
		checker.fset = token.NewFileSet()
		checker.imp = importer.ForCompiler(checker.fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := files[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(file)
		})
	}
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
