package archtest

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// cdk are the import paths of the CDK and jsii: only the constructs, the
// stacks and the template tests (test/) may reach them.
var cdk = []string{"github.com/aws/aws-cdk-go/", "github.com/aws/jsii-runtime-go", "github.com/aws/constructs-go/", "github.com/cdklabs/cdk-nag-go/"}

func isCDK(path string) bool {
	return slices.ContainsFunc(cdk, func(p string) bool { return strings.HasPrefix(path, p) })
}

// pkgImports are each package's imports, by repository directory: of its
// code, and of its tests (in-package and external).
type pkgImports struct {
	code, tests map[string][]string
}

func packages(t *testing.T) pkgImports {
	p := pkgImports{code: map[string][]string{}, tests: map[string][]string{}}
	for _, f := range repoFiles(t) {
		m := p.code
		if f.test {
			m = p.tests
		}
		for _, imp := range f.imports() {
			if !slices.Contains(m[f.dir], imp) {
				m[f.dir] = append(m[f.dir], imp)
			}
		}
		if _, ok := p.code[f.dir]; !ok {
			p.code[f.dir] = nil
		}
	}
	return p
}

// reach is every import path the code of the package in dir reaches:
// its imports, and through the repository's packages theirs (their code,
// never their tests), with the chain that first reaches each.
func (p pkgImports) reach(dir string, direct []string) map[string][]string {
	out := map[string][]string{}
	var walk func(imps []string, chain []string)
	walk = func(imps []string, chain []string) {
		for _, imp := range imps {
			if _, seen := out[imp]; seen {
				continue
			}
			out[imp] = append(slices.Clone(chain), imp)
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				walk(p.code[rest], out[imp])
			}
		}
	}
	walk(direct, []string{importPath(dir)})
	return out
}

// The "never" rules of ARCHITECTURE.md, on every package's imports.
func TestNeverRules(t *testing.T) {
	p := packages(t)
	var dirs []string
	for d := range p.code {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		// No CDK or jsii below constructs/ and stacks/: not in the core,
		// the runtime, the handlers (a handler binary stays small), the CLI
		// or the engines; template tests (test/) synthesize apps.
		cdkOK := under(dir, "constructs") || under(dir, "stacks")
		for imp, chain := range p.reach(dir, p.code[dir]) {
			if isCDK(imp) && !cdkOK {
				t.Errorf("%s reaches the CDK: %s", dir, strings.Join(chain, " → "))
			}
		}
		for imp, chain := range p.reach(dir, p.tests[dir]) {
			if isCDK(imp) && !cdkOK && dir != "test" {
				t.Errorf("%s's tests reach the CDK: %s", dir, strings.Join(chain, " → "))
			}
		}
		all := append(slices.Clone(p.code[dir]), p.tests[dir]...)
		for _, imp := range all {
			rel, ours := strings.CutPrefix(imp, module+"/")
			switch {
			// Nothing imports a command.
			case ours && under(rel, "cmd") && !under(dir, rel):
				t.Errorf("%s imports %s: nothing imports cmd/", dir, imp)
			// The minidyn fork is reached only through internal/engine.
			case ours && under(rel, "internal/engine/minidyn") && !under(dir, "internal/engine/minidyn") && dir != "internal/engine":
				t.Errorf("%s imports %s: the fork is used only through internal/engine", dir, imp)
			}
		}
	}
	// The core imports nothing of the project, and of the world only a
	// YAML parser; the reports import only the core and the model (whose
	// types the core's are made of). The one exception
	// is internal/atomicfile (how the lock file is replaced), a leaf of the
	// standard library. internal/cli, which runs the CLI's commands,
	// imports only the standard library: no keyplan logic hides there.
	allowed := map[string][]string{
		"internal/cli":        nil,
		"patterns":            {"go.yaml.in/yaml/v3", module + "/internal/atomicfile", module + "/patterns/model"},
		"patterns/model":      {"go.yaml.in/yaml/v3"},
		"patterns/report":     {module + "/patterns", module + "/patterns/model"},
		"internal/atomicfile": nil,
	}
	for dir, ok := range allowed {
		if _, found := p.code[dir]; !found {
			t.Fatalf("no package %s", dir)
		}
		for _, imp := range p.code[dir] {
			if !std(imp) && !slices.Contains(ok, imp) {
				t.Errorf("%s imports %s: it may import the standard library and %v only", dir, imp, ok)
			}
		}
	}
}
