package prove

import (
	"errors"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// WriteText writes a line per outcome, a failure led by its place in the
// model, and counts the failures.
func TestReportWriteText(t *testing.T) {
	rep := &Report{
		LoadErrors: []error{errors.New("item x: no entity Y")},
		Steps: []*StepResult{
			{Write: "AddLine", Params: dynamo.Params{"id": "a"}, Pos: model.Pos{Line: 9, Col: 3}},
			{Write: "AddLine", Params: dynamo.Params{"id": "b"}, Err: errors.New("boom"), Pos: model.Pos{Line: 10, Col: 3}},
		},
		Results: []*Result{
			{Pattern: "Get", Expected: []string{"r1"}, Actual: []string{"r1"}, Requests: 1, Planned: 1, Pos: model.Pos{Line: 20, Col: 5}},
			{Pattern: "Top", Expected: []string{"r1", "r2"}, Actual: []string{"r2", "r1"}, Ordered: true, Requests: 1, Planned: 1, Pos: model.Pos{Line: 22, Col: 5}},
		},
	}
	var b strings.Builder
	failed, err := rep.WriteText(&b, "m.yaml")
	if err != nil || failed != 3 {
		t.Fatalf("WriteText = %d, %v; want 3 failures", failed, err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i, want := range []string{"FAIL item x", "ok   write AddLine", "m.yaml:10:3: FAIL", "ok", "m.yaml:22:5: FAIL"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], want)
		}
	}
	if strings.HasPrefix(lines[1], "m.yaml") || strings.HasPrefix(lines[3], "m.yaml") {
		t.Errorf("an outcome that held is placed like a failure:\n%s", b.String())
	}
}
