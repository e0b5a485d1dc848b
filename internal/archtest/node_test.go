package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The Node releases the README and CONTRIBUTING.md ask for are ones the
// pinned jsii runtime (which the CDK's Go bindings run) supports, not
// past their end of life in its own table of Node releases (issue 35:
// the README said Node 20, past its end of life, while 22 and 24 are
// supported).
func TestDocsNameSupportedNode(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/aws/jsii-runtime-go").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Skipf("the jsii runtime's module is not in the module cache (go mod download): %v", err)
	}
	js, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal/embedded/resources/bin/jsii-runtime.js"))
	if err != nil {
		t.Fatal(err)
	}
	eol := map[string]time.Time{}
	for _, m := range regexp.MustCompile(`new NodeRelease\((\d+),\{endOfLife:new Date\("(\d{4}-\d\d-\d\d)"\)`).FindAllStringSubmatch(string(js), -1) {
		d, _ := time.Parse(time.DateOnly, m[2])
		eol[m[1]] = d
	}
	if len(eol) < 5 {
		t.Fatalf("found %d Node releases in the jsii runtime: its table changed form", len(eol))
	}
	asked := regexp.MustCompile(`Node(?:\.js)? (\d+)(?: or (\d+))?[ ,(]`) // the first: what to install
	for _, f := range []string{"../../README.md", "../../CONTRIBUTING.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := asked.FindStringSubmatch(string(b))
		if m == nil {
			t.Errorf("%s names no Node release to install (\"Node N or M\")", filepath.Base(f))
			continue
		}
		for _, v := range m[1:] {
			if v == "" {
				continue
			}
			switch end, ok := eol[v]; {
			case !ok:
				t.Errorf("%s asks for Node %s, which the jsii runtime does not know", filepath.Base(f), v)
			case !time.Now().Before(end):
				t.Errorf("%s asks for Node %s, past its end of life (%s) for the jsii runtime", filepath.Base(f), v, end.Format(time.DateOnly))
			}
		}
	}
}
