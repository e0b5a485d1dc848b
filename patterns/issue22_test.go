package patterns

import (
	"os"
	"strings"
	"testing"
)

// Issue 22's wrong results and false refusals, held at the plan (the proof
// by generated data, patterns/dynamo's TestProveIssue22, holds the same
// models to their answers).

func issueModel(t *testing.T, name string) *Design {
	t.Helper()
	data, err := os.ReadFile("dynamo/testdata/issue22/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return planText(t, string(data))
}

// 1. A filter constant that a shared key holds stays in the condition: the
// prefix TICKET#OPEN# was taken for the entity's tag and dropped, so
// OpenByAssignee read the closed tickets too.
func TestFilterConstantStaysInTheCondition(t *testing.T) {
	for _, f := range []string{"filter-shared-key.yaml", "filter-shared-key-hand.yaml"} {
		d := issueModel(t, f)
		pp := d.Pattern("OpenByAssignee")
		if pp.KeyCondition.SKOp != SKBeginsWith || !strings.Contains(pp.KeyCondition.SK.String(), "#OPEN#") {
			t.Errorf("%s: OpenByAssignee is %s; want begins_with a prefix holding OPEN", f, pp.Text)
		}
	}
}
