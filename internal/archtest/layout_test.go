package archtest

import (
	"path"
	"sort"
	"strings"
	"testing"
)

// internal/ is laid out by who imports a package (ARCHITECTURE.md, "The
// layers"): the engines keyplan ships and what only they use under
// internal/engine/, what other product code uses directly under
// internal/, and what only tests use under internal/testkit/.
const (
	engineDir  = "internal/engine"
	testkitDir = "internal/testkit"
	forkDir    = "internal/engine/minidyn"
)

// isTestKit reports whether the package in dir is a test kit: it is under
// internal/testkit/, or it sits beside the package it serves with a name
// ending in "test" (patterns/dynamo/dynamotest, as net/http/httptest).
func isTestKit(dir string) bool {
	return under(dir, testkitDir) || (strings.HasSuffix(path.Base(dir), "test") && dir != "test")
}

// Product code (a command, a library, a handler: what a user runs or
// imports) never imports a test kit, not even through another package:
// a kit is test code (fault proxies, fixture models, engines started for
// a test), and what it pulls in would ship. And the converse, so that the
// layout stays true: a package under internal/ outside internal/testkit/
// is imported by product code; one only tests import is a test kit and
// moves to internal/testkit/. The fork (outside code: upstream's own test
// helpers) and archtest (the rules, no code) are not judged by it.
func TestTestKitsStayOutOfProducts(t *testing.T) {
	p := packages(t)
	var dirs []string
	for d := range p.code {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	usedByProduct := map[string]bool{}
	kits := 0
	for _, dir := range dirs {
		if isTestKit(dir) {
			kits++
			continue
		}
		for imp, chain := range p.reach(dir, p.code[dir]) {
			rel, ours := strings.CutPrefix(imp, module+"/")
			if !ours {
				continue
			}
			if len(chain) == 2 {
				usedByProduct[rel] = true
			}
			if isTestKit(rel) {
				t.Errorf("%s (product code) reaches the test kit %s: %s; a kit is for tests only", dir, rel, strings.Join(chain, " → "))
			}
		}
	}
	if kits < 5 {
		t.Fatalf("found %d test kits, expected those under %s and the *test packages: has the layout moved?", kits, testkitDir)
	}
	for _, dir := range dirs {
		if !under(dir, "internal") || under(dir, testkitDir) || under(dir, forkDir) || dir == "internal/archtest" {
			continue
		}
		if under(path.Dir(dir), "internal") && path.Base(path.Dir(dir)) == "cmd" {
			continue // a command: imported by nothing
		}
		if !usedByProduct[dir] {
			t.Errorf("%s is imported by no product code, only by tests: it is a test kit; move it to %s/", dir, testkitDir)
		}
	}
	if _, ok := p.code[engineDir]; !ok {
		t.Fatalf("no package %s", engineDir)
	}
}
