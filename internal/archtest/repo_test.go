package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// module is keyplan's module path (patterns.Module; archtest reads the
// source, not the package, so that it can judge patterns too).
const module = "github.com/keyplan/keyplan"

// minPackages is fewer packages than the repository has: a walk that
// finds fewer missed it.
const minPackages = 25

// goFile is one Go file of the repository, parsed with its comments.
type goFile struct {
	rel  string // slash-separated, from the repository root
	dir  string // its package's directory, from the root ("." for the root)
	test bool
	fset *token.FileSet
	ast  *ast.File
	src  []byte
}

// imports lists the file's import paths.
func (f *goFile) imports() []string {
	var out []string
	for _, s := range f.ast.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		out = append(out, p)
	}
	return out
}

var (
	loadOnce sync.Once
	loaded   []*goFile
	loadErr  error
)

// repoFiles parses every Go file of the repository once (not node_modules,
// cdk.out, testdata or hidden directories). A walk or parse error fails
// the test, and so does finding fewer than minPackages packages.
func repoFiles(t *testing.T) []*goFile {
	t.Helper()
	loadOnce.Do(func() {
		root, err := filepath.Abs("../..")
		if err != nil {
			loadErr = err
			return
		}
		loadErr = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != root && (name == "node_modules" || name == "testdata" || name == "cdk.out" || strings.HasPrefix(name, ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(name, ".go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			loaded = append(loaded, &goFile{rel: rel, dir: filepath.ToSlash(filepath.Dir(rel)), test: strings.HasSuffix(name, "_test.go"), fset: fset, ast: f, src: src})
			return nil
		})
	})
	if loadErr != nil {
		t.Fatalf("reading the repository: %v", loadErr)
	}
	dirs := map[string]bool{}
	for _, f := range loaded {
		dirs[f.dir] = true
	}
	if len(dirs) < minPackages {
		t.Fatalf("found %d packages, fewer than %d: the walk missed the repository", len(dirs), minPackages)
	}
	return loaded
}

// importPath is the import path of the package in dir.
func importPath(dir string) string {
	if dir == "." {
		return module
	}
	return module + "/" + dir
}

// under reports whether the repository path p is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// std reports whether an import path is the standard library's.
func std(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
