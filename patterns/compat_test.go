package patterns_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// docs/compatibility.md is true where a test can tell: keyplan version
// prints what it shows; the lock formats its table lists are those
// keyplan reads, and each is read (and passes Check) from a lock of that
// format in the corpus or the examples; its upgrade rules are change
// rules; and every artifact of the corpus is in the corpus's README.
func TestCompatibilityDoc(t *testing.T) {
	src, err := os.ReadFile("../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	block := regexp.MustCompile("(?s)```\n\\$ keyplan version\n(.*?)```").FindStringSubmatch(doc)
	if block == nil || block[1] != patterns.VersionText() {
		t.Errorf("keyplan version prints\n%s\nthe doc shows\n%v", patterns.VersionText(), block)
	}
	read, write := patterns.LockFormats()
	var listed []int
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| `).FindAllStringSubmatch(doc, -1) {
		n, _ := strconv.Atoi(m[1])
		listed = append(listed, n)
	}
	if !slices.Equal(listed, read) || !slices.Contains(listed, write) {
		t.Errorf("the doc lists lock formats %v; keyplan reads %v and writes %d", listed, read, write)
	}
	// A lock of each format, read and checked.
	var locks []string
	filepath.WalkDir("../testdata/compat", func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".lock.json") {
			locks = append(locks, path)
		}
		return nil
	})
	examples, _ := filepath.Glob("../examples/*.lock.json")
	locks = append(locks, examples...)
	for _, f := range listed {
		found := false
		for _, path := range locks {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var head struct{ Format int }
			if json.Unmarshal(b, &head) != nil || head.Format != f {
				continue
			}
			l, err := patterns.LoadLock(path)
			if err == nil {
				err = l.Check()
			}
			if err != nil {
				t.Errorf("lock format %d: %s: %v", f, path, err)
			}
			found = true
		}
		if !found {
			t.Errorf("no lock of format %d in the corpus or the examples", f)
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^\| (KP6\d\d) \| `).FindAllStringSubmatch(doc, -1) {
		if !slices.ContainsFunc(patterns.ChangeRules(), func(r patterns.ChangeRule) bool { return r.ID == m[1] }) {
			t.Errorf("the doc's upgrade rule %s is no change rule", m[1])
		}
	}
	readme, err := os.ReadFile("../testdata/compat/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range locks[:len(locks)-len(examples)] {
		dir := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../testdata/compat/")))
		if !strings.Contains(string(readme), "| `"+dir+"/` |") {
			t.Errorf("testdata/compat/README.md does not say who wrote %s", dir)
		}
	}
}
