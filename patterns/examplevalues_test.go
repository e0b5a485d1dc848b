package patterns

import (
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// keyplan check types example items: each value against its attribute's
// type and constraints (a number, a time, an enum, min/max, maxLength),
// each error at the value's own field (file:line:col), not the item's.
func TestExampleValuesAreChecked(t *testing.T) {
	src := `table: Tasks
entities:
  Task:
    id: [taskId]
    attributes:
      taskId: {type: string, maxLength: 20}
      priority: {type: number, min: 0, max: 5000}
      createdAt: time
      status: {type: string, values: [open, done]}
      code: {type: string, maxLength: 5, optional: true}
      tags: {type: set, of: string, maxItems: 2, optional: true}
patterns:
  GetTask: {get: Task}
examples:
  items:
    t1: {Task: {taskId: a, priority: high, createdAt: "2026-13-01T13:00:00Z", status: open}}
    t2:
      Task:
        taskId: b
        priority: 5001
        createdAt: "2026-01-01T13:00:00Z"
        status: closed
        code: ABCDEF
        tags: [x, y, z]
    ok: {Task: {taskId: "a#b", priority: 5000, createdAt: "2026-01-01T13:00:00Z", status: done, code: "%%"}}
  expect:
    - {pattern: GetTask, params: {taskId: a}, items: [t1]}
`
	_, err := model.Parse("tasks.yaml", []byte(src))
	if err == nil {
		t.Fatal("a model whose examples hold values their attributes refuse loaded")
	}
	want := []string{
		"tasks.yaml:16:28: examples.items.t1.Task.priority: value high: expected a whole number",
		"tasks.yaml:16:44: examples.items.t1.Task.createdAt: value 2026-13-01T13:00:00Z: expected an RFC 3339 time",
		"tasks.yaml:20:9: examples.items.t2.Task.priority: value 5001: out of the declared range 0..5000",
		"tasks.yaml:22:9: examples.items.t2.Task.status: value closed: expected one of open, done",
		"tasks.yaml:23:9: examples.items.t2.Task.code: value ABCDEF: longer than maxLength 5",
		"tasks.yaml:24:9: examples.items.t2.Task.tags: ",
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the errors lack %q:\n%v", w, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != len(want) {
		t.Errorf("%d errors, want %d (the valid item ok has none):\n%v", n, len(want), err)
	}
}
