package patterns

import (
	"encoding/json"
	"testing"
)

// The state machine reads BackfillTask's fields by these names.
func TestBackfillTaskFieldNames(t *testing.T) {
	b, err := json.Marshal(BackfillTask{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, f := range []string{BackfillTaskDone, BackfillTaskFailed} {
		if _, ok := m[f]; !ok {
			t.Errorf("BackfillTask has no JSON field %q: %s", f, b)
		}
	}
}
