package patterns

import (
	"strings"
	"testing"

	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

// KP408 fires on a hand-made collection nothing bounds, on the base table
// and on a GSI, and not where the count is declared, the items expire, or
// the partition key is a time bucket; a designed layout is not checked.
func TestUnboundedCollections(t *testing.T) {
	model := func(attrs, pk, extra string) string {
		return `table: Events
entities:
  Event:
    id: [ownerId, eventId]
    attributes: {ownerId: {type: string, maxLength: 20}, eventId: {type: string, maxLength: 26}, kind: {type: string, maxLength: 10}` + attrs + `}
    keys: {table: {pk: "` + pk + `", sk: "EVENT#{eventId}"}` + extra + `}
patterns:
  OwnerEvents: {query: Event, where: [ownerId], sort: eventId}
`
	}
	kp408 := func(d *Design) []string {
		var out []string
		for _, x := range d.Diagnostics {
			if x.ID == "KP408" {
				out = append(out, x.Message)
			}
		}
		return out
	}
	gsi := `, GSI1: {pk: "KIND#{kind}", sk: "EVENT#{eventId}"}`
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"an owner's events", model("", "OWNER#{ownerId}", ""), []string{"one OWNER#{ownerId} partition of the table holds (eventId"}},
		{"and a GSI by kind", model("", "OWNER#{ownerId}", gsi), []string{"partition of the table", "one KIND#{kind} partition of GSI1 holds (ownerId, eventId"}},
		{"a declared count", strings.Replace(model("", "OWNER#{ownerId}", ""), "eventId: {type: string, maxLength: 26}", "eventId: {type: string, maxLength: 26, cardinality: 50}", 1), nil},
		{"events that expire", model(", expiresAt: ttl", "OWNER#{ownerId}", gsi), nil},
		{"a time bucket", strings.NewReplacer("id: [ownerId, eventId]", "id: [ownerId, day, eventId]", "where: [ownerId]", "where: [ownerId, day]").Replace(
			model(", day: time", "OWNER#{ownerId}#{day}", "")), nil},
		{"a bucket that is no time", strings.NewReplacer("id: [ownerId, eventId]", "id: [ownerId, day, eventId]", "where: [ownerId]", "where: [ownerId, day]").Replace(
			model(", day: {type: string, maxLength: 10}", "OWNER#{ownerId}#{day}", "")), []string{"(eventId"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := kpmodel.Parse("model.yaml", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			d, err := Plan(m)
			if err != nil {
				t.Fatal(err)
			}
			got := kp408(d)
			if len(got) != len(c.want) {
				t.Fatalf("KP408 %q, want %d finding(s) %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("KP408 %q, want %q", got[i], w)
				}
			}
		})
	}
	designed := `table: Events
entities:
  Event:
    id: [ownerId, eventId]
    attributes: {ownerId: {type: string, maxLength: 20}, eventId: {type: string, maxLength: 26}}
patterns:
  OwnerEvents: {query: Event, where: [ownerId], sort: eventId}
`
	if got := kp408(planText(t, designed)); len(got) != 0 {
		t.Errorf("a designed layout: %q", got)
	}
}
