package patterns

import (
	"runtime/debug"
	"strings"
	"testing"
)

// KeyplanVersion is keyplan's module version wherever keyplan is in the
// build: the program itself (go install), a dependency (go tool
// keyplan, a CDK app, an application using the runtime), replaced by
// another version or by a directory.
func TestModuleVersion(t *testing.T) {
	dep := func(v string, r *debug.Module) *debug.Module {
		return &debug.Module{Path: Module, Version: v, Replace: r}
	}
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go install keyplan@v1.2.0", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.0"}}, "v1.2.0"},
		{"a checkout", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}}, "(devel)"},
		{"go tool keyplan", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: "other", Version: "v9"}, dep("v0.3.1", nil)}}, "v0.3.1"},
		{"replaced by a version", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{dep("v0.3.1", &debug.Module{Path: "fork.example/keyplan", Version: "v0.3.2-fix"})}}, "v0.3.2-fix"},
		{"replaced by a directory", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{dep("v0.3.1", &debug.Module{Path: "../keyplan"})}}, "(devel)"},
		{"not in the build", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}}, "(devel)"},
	}
	for _, c := range cases {
		if got := moduleVersion(&c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if v := VersionText(); !strings.HasPrefix(v, "keyplan (devel)\nlock formats read: 1, 2\nlock format written: 2\ndesign format: 1\n") {
		t.Errorf("VersionText:\n%s", v)
	}
}
