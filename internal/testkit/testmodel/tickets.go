package testmodel

// DeskFailsEveryStep is a model whose every step is refused, each by one
// kind of condition: a create of an item there (absent), a stale version,
// a declared condition, a unique value taken, a delete of an item not
// there (exists). Each step's fails: is a %s the test fills in.
const DeskFailsEveryStep = `
indexKeys: synthetic
table: Desk
entities:
  Ticket:
    id: [ticketId]
    version: revision
    attributes:
      ticketId: {type: string, maxLength: 40}
      status: {type: string, values: [OPEN, CLOSED]}
      handle: {type: string, maxLength: 40}
      email: {type: string, maxLength: 80}
      revision: {type: number, min: 1}
patterns:
  GetTicket: {get: Ticket}
  TicketByHandle: {get: Ticket, where: [handle], unique: true}
  TicketByEmail: {get: Ticket, where: [email], unique: true}
writes:
  OpenTicket: {put: Ticket, if: absent}
  CloseTicket: {update: Ticket, set: [status], condition: {status: OPEN}}
  DropTicket: {delete: Ticket}
examples:
  items:
    t1: {Ticket: {ticketId: t1, status: OPEN, handle: h1, email: e1}}
    t2: {Ticket: {ticketId: t2, status: CLOSED, handle: h2, email: e2}}
  steps:
    - {write: OpenTicket, params: {ticketId: t1, status: OPEN, handle: h9, email: e9}, fails: %s}
    - {write: CloseTicket, params: {ticketId: t1, status: CLOSED, revision: 5}, fails: %s}
    - {write: CloseTicket, params: {ticketId: t2, status: CLOSED, revision: 1}, fails: %s}
    - {write: OpenTicket, params: {ticketId: t3, status: OPEN, handle: h1, email: e9}, fails: %s}
    - {write: DropTicket, params: {ticketId: t9, revision: 1}, fails: %s}
`

// HelpTickets is a help desk's tickets, versioned, read by customer; its
// write moves a ticket to another customer.
const HelpTickets = `
table: Help
entities:
  Ticket:
    id: [ticketId]
    version: revision
    attributes:
      ticketId: {type: string, maxLength: 40}
      customerId: {type: string, maxLength: 40}
      subject: {type: string, maxLength: 200}
      status: {type: string, values: [OPEN, CLOSED]}
      openedAt: time
      revision: {type: number, min: 1}
patterns:
  GetTicket: {get: Ticket}
  CustomerTickets: {query: Ticket, where: [customerId], sort: openedAt desc, returns: [subject]}
writes:
  Move: {update: Ticket, set: [customerId], with: [openedAt]}
`
