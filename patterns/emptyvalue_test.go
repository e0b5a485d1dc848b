package patterns

import (
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// An empty required string that is no key says what the rule is (a
// required string cannot be empty) and what to do (optional: true), and
// shows the value as "" (issue 35: it said `value : a key value cannot be
// empty` of a ticket's subject).
func TestEmptyStringSaysTheRule(t *testing.T) {
	src := `table: Desk
entities:
  Ticket:
    id: [ticketId]
    attributes:
      ticketId: string
      subject: string
      note: {type: string, optional: true}
patterns:
  GetTicket: {get: Ticket}
examples:
  items:
    t1: {Ticket: {ticketId: t1, subject: "", note: ""}}
`
	_, err := model.Parse("desk.yaml", []byte(src))
	if err == nil {
		t.Fatal("an empty subject and note: no error")
	}
	for _, want := range []string{
		`desk.yaml:13:33: examples.items.t1.Ticket.subject: value "": a required string cannot be empty: give it a value, or declare the attribute optional: true and leave it out`,
		`examples.items.t1.Ticket.note: value "": an empty string is no value: leave the attribute out`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "a key value") {
		t.Errorf("subject is no key: %v", err)
	}
}
