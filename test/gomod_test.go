package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A Go module with the CDK CLI installed in its root (npm i aws-cdk):
// the package's cdk init templates (%name%.template.go, not Go) break go
// build ./... and go vet ./..., unless go.mod ignores ./node_modules, as
// keyplan's does and its README tells users to.
func TestNodeModulesIgnored(t *testing.T) {
	out, err := exec.Command("go", "mod", "edit", "-json", "../go.mod").Output()
	if err != nil {
		t.Fatal(err)
	}
	var mod struct{ Ignore []struct{ Path string } }
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(mod.Ignore, func(i struct{ Path string }) bool { return i.Path == "./node_modules" }) {
		t.Errorf("go.mod ignores %v, not ./node_modules", mod.Ignore)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", "package main\n\nfunc main() {}\n")
	// As the aws-cdk package ships them: names and identifiers cdk init fills in.
	write("node_modules/aws-cdk/lib/init-templates/app/go/%name%.template.go", "package main\n\ntype %name.PascalCased%Stack struct{}\n")
	build := func() (string, error) {
		for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
			cmd := exec.Command("go", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
			if out, err := cmd.CombinedOutput(); err != nil {
				return string(out), err
			}
		}
		return "", nil
	}
	write("go.mod", "module example.com/app\n\ngo 1.26\n")
	if out, err := build(); err == nil || !strings.Contains(out, "%name%.template.go") {
		t.Errorf("without ignore: %v\n%s (the templates no longer break the build: is this test still needed?)", err, out)
	}
	write("go.mod", "module example.com/app\n\ngo 1.26\n\nignore ./node_modules\n")
	if out, err := build(); err != nil {
		t.Errorf("with ignore ./node_modules: %v\n%s", err, out)
	}
}
