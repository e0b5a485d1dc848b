package archtest

import (
	"strings"
	"testing"
)

// The model (patterns/model: its types, the loader, validation, the
// attribute types and their encoding) knows nothing of the planner, as
// go/ast and go/parser know nothing of go/types: its code and its tests
// reach no package of keyplan (not patterns, whose planner, checks and
// lock read the model, nor any of patterns' subpackages), and of the world
// only the standard library and the YAML parser.
func TestModelKnowsNoPlanner(t *testing.T) {
	p := packages(t)
	const dir = "patterns/model"
	if _, ok := p.code[dir]; !ok {
		t.Fatalf("no package %s", dir)
	}
	for _, direct := range [][]string{p.code[dir], p.tests[dir]} {
		for imp, chain := range p.reach(dir, direct) {
			switch {
			case strings.HasPrefix(imp, module+"/"):
				t.Errorf("%s reaches %s: the model imports nothing of keyplan (%s)", dir, imp, strings.Join(chain, " → "))
			case !std(imp) && imp != "go.yaml.in/yaml/v3":
				t.Errorf("%s reaches %s: the model imports the standard library and go.yaml.in/yaml/v3 only (%s)", dir, imp, strings.Join(chain, " → "))
			}
		}
	}
}
