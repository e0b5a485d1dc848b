package patterns

import (
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// The native checks on a design's own native indexes (a design read back
// from a lock or edited can break what the planner never does): each
// fault, made on the tracker's plan, is found, and the plan as made has
// none.
func TestNativeChecksOnTheDesign(t *testing.T) {
	plan := func(t *testing.T) *Design {
		t.Helper()
		m, err := model.Load("../examples/tracker.yaml")
		if err != nil {
			t.Fatal(err)
		}
		d, err := Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	rules := map[string]func(*Design) []finding{"KP210": ruleNativeWidth, "KP211": ruleNativeTypes, "KP212": ruleNativeConditions}
	d := plan(t)
	for id, r := range rules {
		if f := r(d); len(f) > 0 {
			t.Errorf("%s on the tracker as planned: %+v", id, f)
		}
	}
	tests := []struct {
		rule, want string
		fault      func(d *Design)
	}{
		{"KP210", "partition key has 5 attributes", func(d *Design) {
			ix := d.Index(d.Pattern("TasksByStatus").Index)
			ix.PartitionKeys = append(ix.PartitionKeys, "title", "priority", "dueDate")
		}},
		{"KP210", "sort key has 5 attributes", func(d *Design) {
			ix := d.Index(d.Pattern("TasksByStatus").Index)
			ix.SortKeys = append(ix.SortKeys, "title", "priority", "dueDate")
		}},
		{"KP211", "keyed on status, which is a bool on Task", func(d *Design) {
			d.model.Entity("Task").Attr("status").Type = model.TypeBool
		}},
		{"KP211", "a number on Tenant but a string on Task", func(d *Design) {
			d.model.Entity("Tenant").Attr("name").Name = "status"
			d.model.Entity("Tenant").Attr("status").Type = model.TypeNumber
		}},
		{"KP212", "it ranges over dueDate, but after the equalities given the next sort attribute is createdAt", func(d *Design) {
			d.model.Pattern("TasksByStatus").Sort = []string{"dueDate"}
		}},
		{"KP212", "its partition attribute status is not given", func(d *Design) {
			p := d.model.Pattern("TasksByStatus")
			p.Where = []string{"tenantId"}
			forget(d.model)
		}},
		{"KP212", "reads Tenant, Task together from native index", func(d *Design) {
			d.Pattern("TasksByStatus").Entities = []string{"Tenant", "Task"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.rule+"/"+tt.want, func(t *testing.T) {
			d := plan(t)
			tt.fault(d)
			var msgs []string
			for _, f := range rules[tt.rule](d) {
				msgs = append(msgs, f.msg)
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tt.want) {
				t.Errorf("%s found %q, want %q", tt.rule, msgs, tt.want)
			}
		})
	}
}
