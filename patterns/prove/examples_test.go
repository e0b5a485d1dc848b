package prove

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// For each example model, its GSIs keyed synthetic and as the model says:
// write the items through the runtime, run every pattern, compare with
// what the model expects.
func TestExamplesOnEngine(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	more, _ := filepath.Glob("../testdata/models/*.yaml")
	for _, f := range append(files, more...) {
		for _, keys := range keyings {
			t.Run(filepath.Base(f)+"/"+string(keys), func(t *testing.T) {
				examplesOnEngine(t, keyed(t, f, keys))
			})
		}
	}
}

func examplesOnEngine(t *testing.T, d *patterns.Design) {
	needsNative(t, d)
	tbl := fresh(t, d)
	rep := Validate(context.Background(), tbl)
	for _, err := range rep.LoadErrors {
		t.Error(err)
	}
	// Every pattern of the model is proven by at least one expectation.
	proven := map[string]bool{}
	for _, r := range rep.Results {
		proven[r.Pattern] = true
	}
	for _, p := range tbl.Design().Model().Patterns {
		if !proven[p.Name] {
			t.Errorf("pattern %s has no expectation in the model's examples", p.Name)
		}
	}
	for _, r := range rep.Results {
		if !r.OK() {
			t.Errorf("line %d: %s", r.Pos.Line, r)
		}
		if r.Capacity <= 0 && len(r.Actual) > 0 {
			t.Errorf("%s: no consumed capacity reported", r.Pattern)
		}
	}
}

// Expectations that do not hold are reported with both orders.
func TestValidateReportsMismatch(t *testing.T) {
	d := keyplantest.Keyed(t, "../testdata/models/readings.yaml", model.IndexKeysSynthetic)
	d.Model().Examples.Expect[0].Items = []string{"r1", "r3", "r5", "r2", "r4"}
	rep := Validate(context.Background(), fresh(t, d))
	r := rep.Results[0]
	if rep.OK() || r.OK() || !strings.Contains(r.String(), "expected [r1 r3 r5 r2 r4] in order, got [r3 r1 r5 r2 r4]") {
		t.Errorf("report: %s", r)
	}
}
