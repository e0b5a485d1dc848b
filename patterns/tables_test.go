package patterns

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

const twoTables = `tables:
  Orders: {headroom: 2}
  Sessions:
entities:
  Order:
    table: Orders
    id: [orderId]
    attributes:
      orderId: string
      status: {type: string, values: [OPEN, SHIPPED]}
  Session:
    table: Sessions
    id: [sessionId]
    attributes:
      sessionId: string
      userId: string
      expiresAt: ttl
patterns:
  GetOrder: {get: Order}
  GetSession: {get: Session}
  UserSessions: {query: Session, where: [userId]}
writes:
  PutSession: {put: Session}
examples:
  items:
    o1: {Order: {orderId: o1, status: OPEN}}
    s1: {Session: {sessionId: s1, userId: ann, expiresAt: 4102531200}}
  expect:
    - {pattern: GetOrder, params: {orderId: o1}, items: [o1]}
    - {pattern: UserSessions, params: {userId: ann}, items: [s1]}
`

// A model of two tables is split into one model per table, each with
// its settings, entities, patterns, writes and examples, planned as a
// model of one table is.
func TestTablesSplit(t *testing.T) {
	m, err := model.Parse("shop.yaml", []byte(twoTables))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.TableNames(), ","); got != "Orders,Sessions" {
		t.Fatalf("tables %s", got)
	}
	orders, sessions := m.Tables[0], m.Tables[1]
	if orders.Headroom != 2 || sessions.Headroom != 0 {
		t.Errorf("headroom: Orders %v, Sessions %v", orders.Headroom, sessions.Headroom)
	}
	if len(orders.Entities) != 1 || orders.Entities[0].Name != "Order" || len(sessions.Entities) != 1 || sessions.Entities[0].Name != "Session" {
		t.Fatalf("entities: %v / %v", orders.Entities, sessions.Entities)
	}
	if len(orders.Patterns) != 1 || len(sessions.Patterns) != 2 || len(orders.Writes) != 0 || len(sessions.Writes) != 1 {
		t.Errorf("patterns %d/%d, writes %d/%d", len(orders.Patterns), len(sessions.Patterns), len(orders.Writes), len(sessions.Writes))
	}
	if len(orders.Examples.Items) != 1 || len(orders.Examples.Expect) != 1 || len(sessions.Examples.Items) != 1 || len(sessions.Examples.Expect) != 1 {
		t.Errorf("examples: %+v / %+v", orders.Examples, sessions.Examples)
	}
	if _, err := Plan(m); err == nil || !strings.Contains(err.Error(), "declares 2 tables (Orders, Sessions)") {
		t.Errorf("Plan of the whole model: %v", err)
	}
	do, err := Plan(orders)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := Plan(sessions)
	if err != nil {
		t.Fatal(err)
	}
	if do.Table != "Orders" || ds.Table != "Sessions" || do.TTL != "" || ds.TTL != "expiresAt" {
		t.Errorf("designs: %s ttl %q, %s ttl %q", do.Table, do.TTL, ds.Table, ds.TTL)
	}
	// Each table's design is the design of the same entities declared as a
	// model of one table: the split adds nothing and loses nothing.
	one := strings.Replace(strings.Replace(twoTables, "tables:\n  Orders: {headroom: 2}\n  Sessions:\n", "table: Sessions\n", 1), "    table: Sessions\n", "", 1)
	one = one[:strings.Index(one, "  Order:")] + one[strings.Index(one, "  Session:"):]
	one = strings.NewReplacer("  GetOrder: {get: Order}\n", "", "    o1: {Order: {orderId: o1, status: OPEN}}\n", "", "    - {pattern: GetOrder, params: {orderId: o1}, items: [o1]}\n", "").Replace(one)
	mo, err := model.Parse("shop.yaml", []byte(one))
	if err != nil {
		t.Fatalf("%v\n%s", err, one)
	}
	d1, err := Plan(mo)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewLock(d1).MarshalJSON()
	b, _ := NewLock(ds).MarshalJSON()
	if string(a) != string(b) {
		t.Errorf("the Sessions table's lock differs from the one-table model's:\n%s\n%s", a, b)
	}
}

// Bad input: each problem names the file, line, field and what was
// expected.
func TestTablesBadInput(t *testing.T) {
	for _, c := range []struct{ name, edit, want string }{
		{"unknown table on an entity", "    table: Sessions\n    id: [sessionId]", `shop.yaml:12:12: entities.Session.table: unknown table "Sesions"; expected one of: Orders, Sessions (did you mean "Sessions"?)`},
		{"a table with no entity", "  Sessions:\n", "shop.yaml:3:3: tables.Carts: the table holds no entity: give an entity table: Carts, or remove the table"},
		{"two tables with one name", "  Sessions:\n", "shop.yaml:4:3: tables.Sessions: duplicate name \"Sessions\" (first declared at line 3)"},
		{"two tables differing in case", "  Sessions:\n", `shop.yaml:4:3: tables.sessions: two tables with one name: "Sessions" and "sessions" (line 3) differ only in case`},
		{"a pattern across tables", "  UserSessions: {query: Session, where: [userId]}", "shop.yaml:22:17: patterns.Both.query: Both reads tables Orders and Sessions in one query: a Query reads one table"},
		{"a transaction across tables", "  PutSession: {put: Session}", "shop.yaml:24:3: writes.Both: Both writes tables Sessions and Orders in one write pattern: a write pattern is one table's; give each table's part a write pattern of its own and run them as one transaction with dynamo.TransactTables"},
		{"an entity without its table", "    table: Orders\n", `shop.yaml:5:3: entities.Order.table: missing; the model declares tables Orders, Sessions: say which holds Order (table: Orders)`},
		{"table and tables", "tables:", "shop.yaml:1:8: table: give either table (one table) or tables (several), not both"},
		{"settings at the top", "tables:", "shop.yaml:1:11: headroom: with tables, a table's settings are under its name"},
		{"within across tables", "    table: Sessions\n    id: [sessionId]", "shop.yaml:14:13: entities.Session.within: Session (table Sessions) lives within Order (table Orders)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := twoTables
			switch c.name {
			case "unknown table on an entity":
				src = strings.Replace(src, c.edit, "    table: Sesions\n    id: [sessionId]", 1)
			case "a table with no entity":
				src = strings.Replace(src, c.edit, "  Carts: {}\n  Sessions:\n", 1)
			case "two tables with one name":
				src = strings.Replace(src, "  Sessions:\n", "  Sessions:\n  Sessions: {}\n", 1)
			case "two tables differing in case":
				src = strings.Replace(src, "  Sessions:\n", "  Sessions:\n  sessions: {}\n", 1)
			case "a pattern across tables":
				src = strings.Replace(src, c.edit, c.edit+"\n  Both: {query: [Order, Session], where: [orderId]}", 1)
			case "a transaction across tables":
				src = strings.Replace(src, c.edit, c.edit+"\n  Both:\n    transact:\n      - {put: Session}\n      - {put: Order}", 1)
			case "an entity without its table":
				src = strings.Replace(src, c.edit, "", 1)
			case "table and tables":
				src = "table: Shop\n" + src
			case "settings at the top":
				src = "headroom: 2\n" + src
			case "within across tables":
				src = strings.Replace(src, c.edit, c.edit+"\n    within: Order", 1)
			}
			_, err := model.Parse("shop.yaml", []byte(src))
			if err == nil || !errors.Is(err, model.ErrInvalidModel) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// OpenTables plans each table with the lock beside the model named for
// it; a model of one table keeps its one lock, LockPath.
func TestOpenTablesLocks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "shop.yaml")
	if err := os.WriteFile(file, []byte(twoTables), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := OpenTables(file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].LockPath != filepath.Join(dir, "shop.Orders.lock.json") || ts[1].LockPath != filepath.Join(dir, "shop.Sessions.lock.json") || ts[0].Lock != nil {
		t.Fatalf("tables %+v %+v", ts[0], ts[1])
	}
	for _, o := range ts {
		if err := NewLock(o.Design).WriteFile(o.LockPath); err != nil {
			t.Fatal(err)
		}
	}
	ts, err = OpenTables(file, Options{})
	if err != nil || ts[0].Lock == nil || ts[1].Lock == nil || ts[0].Lock.Table != "Orders" || ts[1].Lock.Table != "Sessions" {
		t.Fatalf("reopened: %v", err)
	}
	// A lock of the other table in a table's place is refused, naming it.
	orders, _ := os.ReadFile(ts[0].LockPath)
	if err := os.WriteFile(ts[1].LockPath, orders, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenTables(file, Options{}); err == nil || !strings.Contains(err.Error(), "the lock is for table Orders") {
		t.Errorf("swapped lock: %v", err)
	}
	if _, err := TableOf(ts, "Carts"); err == nil || !strings.Contains(err.Error(), "Orders, Sessions") {
		t.Errorf("TableOf: %v", err)
	}
	one := filepath.Join(dir, "one.yaml")
	if err := os.WriteFile(one, []byte(validModel), 0o644); err != nil {
		t.Fatal(err)
	}
	if ts, err := OpenTables(one, Options{}); err != nil || len(ts) != 1 || ts[0].LockPath != LockPath(one) {
		t.Errorf("one table: %v %+v", err, ts)
	}
}

// KP310 proposes a table of their own for entities that want another TTL
// attribute, or transactions in a strongly consistent table, and names
// what the split breaks.
func TestSplitProposal(t *testing.T) {
	src := `table: Social
consistency: strong
entities:
  User:
    id: [userId]
    attributes:
      userId: {type: string, maxLength: 40}
      name: {type: string, maxLength: 100}
  Session:
    id: [userId, sessionId]
    within: User
    attributes:
      userId: {type: string, maxLength: 40}
      sessionId: {type: string, maxLength: 40}
      expiresAt: ttl
  Invite:
    id: [userId, inviteId]
    within: User
    attributes:
      userId: {type: string, maxLength: 40}
      inviteId: {type: string, maxLength: 40}
      validUntil: ttl
  Audit:
    id: [auditId]
    attributes:
      auditId: {type: string, maxLength: 40}
patterns:
  GetUser: {get: User}
  UserInvites: {query: [User, Invite], where: [userId]}
  GetAudit: {get: Audit}
writes:
  Invite:
    transact:
      - {put: Invite}
      - {put: Audit}
`
	m, err := model.Parse("social.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, dg := range d.Diagnostics {
		if dg.ID == "KP310" {
			got = append(got, dg.Message+" | "+dg.Fix)
		}
	}
	if len(got) != 2 {
		t.Fatalf("KP310: %q", got)
	}
	if !strings.Contains(got[0], "expire(s)") {
		got[0], got[1] = got[1], got[0]
	}
	for _, want := range []string{
		"Session expire(s) by expiresAt, Invite by another attribute",
		"rename the ttl attribute of Invite to expiresAt",
		"tables: {Social: {}, SocialExpiring: {}} and table: SocialExpiring on Invite",
		"it breaks pattern UserInvites (reads User and Invite in one Query); write Invite (a write pattern across the two: write each table's part with a pattern of its own, together with dynamo.TransactTables)",
		"Invite within User",
	} {
		if !strings.Contains(got[0], want) {
			t.Errorf("TTL finding lacks %q:\n%s", want, got[0])
		}
	}
	for _, want := range []string{"Invite, Audit need(s) transactions", "consistency eventual for all", "table: SocialTransactional on Invite, Audit", "pattern UserInvites", "Invite within User"} {
		if !strings.Contains(got[1], want) {
			t.Errorf("consistency finding lacks %q:\n%s", want, got[1])
		}
	}
}
