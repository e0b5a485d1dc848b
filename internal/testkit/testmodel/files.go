package testmodel

import (
	"os"
	"path/filepath"
	"testing"
)

// Files are the model files a test plans each of: the examples
// (examples/*.yaml), then the planner's test models
// (patterns/testdata/models/*.yaml), each as a path from the test's
// package directory (where go test runs it), so that what a test prints
// or records of a file's name is what it was when each package globbed
// its own list. Fewer than four fails t: the list was not found.
func Files(t testing.TB) []string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			t.Fatalf("no go.mod in %s or above it", wd)
		}
		root = up
	}
	var files []string
	for _, glob := range []string{"examples/*.yaml", "patterns/testdata/models/*.yaml"} {
		found, _ := filepath.Glob(filepath.Join(root, glob))
		for _, f := range found {
			rel, err := filepath.Rel(wd, f)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, rel)
		}
	}
	if len(files) < 4 {
		t.Fatalf("found %d model files under %s", len(files), root)
	}
	return files
}
