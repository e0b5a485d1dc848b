package archtest

import (
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sharedRun is how many lines two test models share before one is a copy
// of the other: the run `duplicates` reports (six lines, white space
// folded, blank lines passed over).
const sharedRun = 6

// modelLiteral is a model file written as a Go raw string.
type modelLiteral struct {
	f     *goFile
	line  int
	lines []string
}

// A test model that a second package's tests need is not pasted there: it
// has one name in internal/testkit/testmodel (issue 37: 27 models stood in
// two or three packages each). Two raw strings of model text (entities:,
// patterns:, attributes:) in different packages that share sharedRun
// lines are reported, with both places.
func TestTestModelsAreNotPasted(t *testing.T) {
	var lits []*modelLiteral
	for _, f := range repoFiles(t) {
		if under(f.dir, forkDir) {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			b, ok := n.(*ast.BasicLit)
			if !ok || b.Kind != token.STRING || !strings.HasPrefix(b.Value, "`") {
				return true
			}
			s, err := strconv.Unquote(b.Value)
			if err != nil || !(strings.Contains(s, "entities:") || strings.Contains(s, "patterns:") || strings.Contains(s, "attributes:")) {
				return true
			}
			var ls []string
			for _, l := range strings.Split(s, "\n") {
				if l = strings.Join(strings.Fields(l), " "); l != "" {
					ls = append(ls, l)
				}
			}
			if len(ls) >= sharedRun {
				lits = append(lits, &modelLiteral{f: f, line: f.fset.Position(b.Pos()).Line, lines: ls})
			}
			return true
		})
	}
	if len(lits) < 50 {
		t.Fatalf("found %d test models written as Go strings: the reading missed them", len(lits))
	}
	// The first literal of another package each run was seen in.
	seen := map[string][]*modelLiteral{}
	reported := map[[2]*modelLiteral]bool{}
	var problems []string
	for _, l := range lits {
		for i := 0; i+sharedRun <= len(l.lines); i++ {
			run := strings.Join(l.lines[i:i+sharedRun], "\n")
			for _, o := range seen[run] {
				if o.f.dir != l.f.dir && !reported[[2]*modelLiteral{o, l}] {
					reported[[2]*modelLiteral{o, l}] = true
					problems = append(problems, o.f.rel+":"+strconv.Itoa(o.line)+" and "+l.f.rel+":"+strconv.Itoa(l.line)+" share the lines "+strconv.Quote(run))
				}
			}
			seen[run] = append(seen[run], l)
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Errorf("a test model pasted into two packages: %s; give it one name in internal/testkit/testmodel and use that in both", p)
	}
}
