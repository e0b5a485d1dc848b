package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/keyplantest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// models are the example models and the planner's test models.
func models(t testing.TB) []string {
	files, _ := filepath.Glob("../../examples/*.yaml")
	more, _ := filepath.Glob("../testdata/models/*.yaml")
	files = append(files, more...)
	if len(files) < 4 {
		t.Fatalf("found %d models", len(files))
	}
	return files
}

// plan plans a model file, naming it as seen from patterns/, where the
// golden plans began (so their file fields keep their bytes).
func plan(t testing.TB, path string) *patterns.Design {
	t.Helper()
	return keyplantest.DesignNamed(t, path, filepath.ToSlash(strings.TrimPrefix(path, "../")))
}

// The plans of the examples are golden, as JSON and as markdown; rewrite
// with go test ./patterns/report -update.
func TestGoldenPlans(t *testing.T) {
	for _, f := range models(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			d := plan(t, f)
			for _, format := range []report.Format{report.JSON, report.Markdown} {
				var b bytes.Buffer
				if err := report.Write(&b, d, format); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", "plans", name+map[report.Format]string{report.JSON: ".json", report.Markdown: ".md"}[format])
				if *update {
					if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./patterns/report -update)", err)
				}
				if !bytes.Equal(b.Bytes(), want) {
					t.Errorf("%s differs from the plan; rerun with -update if the change is intended\ngot:\n%s", golden, b.String())
				}
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	if f, err := report.ParseFormat("sarif", report.FindingFormats()); err != nil || f != report.SARIF {
		t.Errorf("ParseFormat(sarif) = %q, %v", f, err)
	}
	_, err := report.ParseFormat("sarif", report.PlanFormats())
	if err == nil || err.Error() != `unknown --format "sarif"; expected one of: text, json, markdown` {
		t.Errorf("ParseFormat(sarif) for plans: %v", err)
	}
}
