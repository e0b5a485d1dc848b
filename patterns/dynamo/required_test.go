package dynamo

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// An item lacking a required attribute that feeds a GSI's key is refused
// with what to do: declare it optional: true, and an item without it
// stays off that GSI (a sparse index; issue 35: an unassigned ticket could
// not be created, and nothing said why). Declared optional, the ticket is
// created and the pattern reads only assigned tickets.
func TestRequiredKeyAttributeSaysSparse(t *testing.T) {
	for _, keys := range keyings {
		t.Run(string(keys), func(t *testing.T) {
			for _, optional := range []bool{false, true} {
				decl := "string"
				if optional {
					decl = "{type: string, optional: true}"
				}
				d := planned(t, "indexKeys: "+string(keys)+`
table: Desk
entities:
  Ticket:
    id: [tenantId, ticketId]
    attributes:
      tenantId: {type: string, maxLength: 20}
      ticketId: {type: string, maxLength: 20}
      subject: string
      assigneeId: `+decl+`
patterns:
  GetTicket: {get: Ticket}
  TicketsByAssignee: {query: Ticket, where: [tenantId, assigneeId]}
`)
				needsNative(t, d)
				tbl := fresh(t, d)
				ctx := context.Background()
				err := tbl.Create(ctx, "Ticket", Values{"tenantId": "a", "ticketId": "t1", "subject": "printer"})
				if !optional {
					gsi := d.Pattern("TicketsByAssignee").Index
					if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "Ticket.assigneeId is required: it feeds the key of "+gsi+" (TicketsByAssignee); to store a Ticket without it, declare assigneeId optional: true") {
						t.Fatalf("an unassigned ticket: %v", err)
					}
					if err := tbl.Create(ctx, "Ticket", Values{"tenantId": "a", "ticketId": "t1", "assigneeId": "u"}); err == nil || strings.Contains(err.Error(), "optional: true") {
						t.Fatalf("a ticket without its subject (feeds no GSI): %v", err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("optional: an unassigned ticket: %v", err)
				}
				if err := tbl.Create(ctx, "Ticket", Values{"tenantId": "a", "ticketId": "t2", "subject": "desk", "assigneeId": "u"}); err != nil {
					t.Fatal(err)
				}
				page, err := tbl.Read(ctx, "TicketsByAssignee", Request{Params: Params{"tenantId": "a", "assigneeId": "u"}})
				if err != nil || len(page.Items) != 1 || page.Items[0].Values["ticketId"] != "t2" {
					t.Fatalf("assigned tickets: %+v, %v", page, err)
				}
			}
		})
	}
}
