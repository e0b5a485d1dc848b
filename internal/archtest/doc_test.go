package archtest

import (
	"strings"
	"testing"
)

// Every package has a doc.go whose comment starts by saying what the
// package (or command) is for.
func TestEveryPackageHasDoc(t *testing.T) {
	docs := map[string]*goFile{}
	for _, f := range repoFiles(t) {
		if _, ok := docs[f.dir]; !ok {
			docs[f.dir] = nil
		}
		if strings.HasSuffix(f.rel, "/doc.go") || f.rel == "doc.go" {
			docs[f.dir] = f
		}
	}
	for dir, f := range docs {
		if f == nil {
			t.Errorf("%s: no doc.go", dir)
			continue
		}
		doc := f.ast.Doc.Text()
		if !strings.HasPrefix(doc, "Package "+f.ast.Name.Name+" ") && !strings.HasPrefix(doc, "Command ") {
			t.Errorf("%s: the comment starts %q, not with what the package is for", f.rel, strings.SplitN(doc, "\n", 2)[0])
		}
	}
}
