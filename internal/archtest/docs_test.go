package archtest

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The two pages for whoever changes keyplan say where things are; a page
// that names a file or package that moved sends the next reader astray.
var contributorDocs = []string{"ARCHITECTURE.md", "CONTRIBUTING.md"}

// A span in backticks is a path when it has a slash and its first
// segment reads as a directory (internal/cli, .ci/run, lambdas/<name>,
// internal/engine/minidyn/...), and a file name when it has no slash and
// ends in a file extension (load.go). errors.Is/As and cli.Program are
// neither.
var (
	docPath = regexp.MustCompile(`^(\.?[a-z0-9_-]+|<[a-z]+>)(/[A-Za-z0-9_.<>-]+)*/?$`)
	docFile = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.(go|md|txt|sh|json|yaml|mod|py)$`)
	span    = regexp.MustCompile("`([^`\n]+)`")
)

// genericFiles are file names the pages use for every package's file of
// that name, not one file.
var genericFiles = []string{"doc.go"}

// docRef is one path or file name a page names, with where.
type docRef struct {
	page string
	line int
	text string // as written
	dir  string // the directory it is read against ("" for a root path)
}

// docRefs are the paths and file names a page names outside code
// fences. A bare file name is read against the directory of the path
// named last before it in the same paragraph or table row
// (`patterns/dynamo/table.go`, `read.go`); one with no path before it is
// unplaced, and must be a file at the repository's root (go.mod).
func docRefs(t *testing.T, page string) (refs []docRef, unplaced []docRef) {
	b, err := os.ReadFile(filepath.Join("../..", page))
	if err != nil {
		t.Fatal(err)
	}
	fence := ""
	dir := ""
	for i, line := range strings.Split(string(b), "\n") {
		trim := strings.TrimSpace(line)
		if m := fenceOpen.FindString(trim); m != "" && (fence == "" || strings.HasPrefix(m, fence)) {
			if fence == "" {
				fence = m
			} else {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if trim == "" || strings.HasPrefix(trim, "|") || strings.HasPrefix(trim, "#") {
			dir = "" // a paragraph, table row or heading starts afresh
		}
		for _, m := range span.FindAllStringSubmatch(line, -1) {
			s := strings.TrimPrefix(m[1], "./")
			r := docRef{page: page, line: i + 1, text: m[1]}
			switch {
			case strings.Contains(s, "/") && docPath.MatchString(strings.TrimSuffix(s, "/...")):
				r.text = s
				refs = append(refs, r)
				if docFile.MatchString(path.Base(s)) {
					dir = path.Dir(s)
				} else {
					dir = strings.TrimSuffix(strings.TrimSuffix(s, "/..."), "/")
				}
			case docFile.MatchString(s) && !slices.Contains(genericFiles, s):
				if dir == "" {
					unplaced = append(unplaced, r)
					continue
				}
				r.dir = dir
				refs = append(refs, r)
			}
		}
	}
	return refs, unplaced
}

var fenceOpen = regexp.MustCompile("^(```+|~~~+)")

// exists reports whether a named path exists: a <name> segment stands for
// any one directory entry, a trailing /... for the directory.
func exists(root, rel string) bool {
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, "/..."), "/")
	pattern := regexp.MustCompile(`<[a-z]+>`).ReplaceAllString(rel, "*")
	m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
	return err == nil && len(m) > 0
}

// Every file and package ARCHITECTURE.md or CONTRIBUTING.md names exists
// (a renamed or moved file fails it, with the page and line).
func TestDocsNameFilesThatExist(t *testing.T) {
	root := "../.."
	n := 0
	for _, page := range contributorDocs {
		refs, unplaced := docRefs(t, page)
		for _, r := range unplaced {
			if !exists(root, r.text) {
				t.Errorf("%s:%d: `%s` names a file without its directory, and there is none at the root: name its path, or a path before it in the paragraph", r.page, r.line, r.text)
			}
			n++
		}
		for _, r := range refs {
			n++
			if !exists(root, path.Join(r.dir, r.text)) {
				t.Errorf("%s:%d: `%s` (%s) does not exist: the page names a file or package that moved or was renamed", r.page, r.line, r.text, path.Join(r.dir, r.text))
			}
		}
	}
	if n < 50 {
		t.Fatalf("found %d file and package names in %v: the reading missed them", n, contributorDocs)
	}
}

// layerPackages are the packages ARCHITECTURE.md's layer table names in
// its "where" column, as written (with <name> and /... patterns).
func layerPackages(t *testing.T) []docRef {
	b, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## The layers\n")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "## The layers" section`)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	var out []docRef
	start := strings.Count(string(b[:len(b)-len(rest)]), "\n") + 1
	for i, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[2]) == "where" {
			continue
		}
		// The where column: its packages, each before any parenthesis.
		where := cells[2]
		depth := 0
		var top strings.Builder
		for _, c := range where {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			default:
				if depth == 0 {
					top.WriteRune(c)
				}
			}
		}
		for _, m := range span.FindAllStringSubmatch(top.String(), -1) {
			out = append(out, docRef{page: "ARCHITECTURE.md", line: start + i, text: strings.TrimSuffix(m[1], "/")})
		}
	}
	if len(out) < 10 {
		t.Fatalf("read %d packages from ARCHITECTURE.md's layer table: has it changed form?", len(out))
	}
	return out
}

// matches reports whether the package in dir is the one a layer table
// entry names: the same, the entry's /... covers it, or <name> stands
// for its segment.
func matches(entry, dir string) bool {
	if sub, ok := strings.CutSuffix(entry, "/..."); ok {
		return under(dir, sub)
	}
	if !strings.Contains(entry, "<") {
		return entry == dir
	}
	re, ok := entryPatterns[entry]
	if !ok {
		re = regexp.MustCompile("^" + regexp.MustCompile(`<[a-z]+>`).ReplaceAllString(regexp.QuoteMeta(entry), "[^/]+") + "$")
		entryPatterns[entry] = re
	}
	return re.MatchString(dir)
}

// entryPatterns are the layer table's <name> entries, compiled once.
var entryPatterns = map[string]*regexp.Regexp{}

// ARCHITECTURE.md's layer table names every package of the repository (in
// its "where" column), and every package it names exists.
func TestLayerTableListsEveryPackage(t *testing.T) {
	entries := layerPackages(t)
	dirs := map[string]bool{}
	for _, f := range repoFiles(t) {
		dirs[f.dir] = true
	}
	used := make([]bool, len(entries))
	var missing []string
	for dir := range dirs {
		found := false
		for i, e := range entries {
			if matches(e.text, dir) {
				found, used[i] = true, true
			}
		}
		if !found {
			missing = append(missing, dir)
		}
	}
	sort.Strings(missing)
	for _, dir := range missing {
		t.Errorf("ARCHITECTURE.md's layer table does not name %s: add it to its layer's row", dir)
	}
	for i, e := range entries {
		if !used[i] {
			t.Errorf("%s:%d: the layer table names `%s`, which is no package (moved, renamed or removed?)", e.page, e.line, e.text)
		}
	}
}

// ARCHITECTURE.md's table of internal/ by role names, for each package,
// the product packages whose code imports it (test kits and tests are
// said in words): it is held to the imports, so that it stays true as
// code moves.
func TestInternalTableNamesImporters(t *testing.T) {
	b, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## internal/ by role\n")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "## internal/ by role" section`)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	p := packages(t)
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		rows++
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`")
		var want []string
		for _, m := range span.FindAllStringSubmatch(cells[3], -1) {
			want = append(want, m[1])
		}
		sort.Strings(want)
		var got []string
		for dir, imps := range p.code {
			if isTestKit(dir) || matches(pkg, dir) {
				continue
			}
			for _, imp := range imps {
				if rel, ours := strings.CutPrefix(imp, module+"/"); ours && matches(pkg, rel) && !slices.Contains(got, dir) {
					got = append(got, dir)
				}
			}
		}
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("ARCHITECTURE.md, internal/ by role: `%s` is imported by the product code of %v, the table says %v", pkg, got, want)
		}
	}
	if rows < 10 {
		t.Fatalf("read %d rows of ARCHITECTURE.md's internal/ table: has it changed form?", rows)
	}
}
