package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// KP310: entities of one table that want different table settings are
// proposed a table of their own (tables:), with the cost of each choice:
// the seed guide's "use separate tables when entities have different TTL
// needs, backup requirements, consistency or throughput". The settings
// the model declares per entity are told apart here: a TTL attribute
// other than the table's (KP305 refuses it in one table), and, in a
// strongly consistent table, entities whose writes need transactions
// (KP307 refuses them), and the needs entities state (Entity.Needs):
// point-in-time recovery, backup plan, billing mode, replica Regions.
func ruleSplitTables(d *Design) []finding {
	m := d.model
	var out []finding
	ttl := ""
	var expiring, others []string
	for _, e := range m.Entities {
		switch a := e.TTLAttr(); {
		case a == nil:
		case ttl == "" || a.Name == ttl:
			ttl = a.Name
			expiring = append(expiring, e.Name)
		default:
			others = append(others, e.Name)
		}
	}
	if len(others) > 0 {
		e := m.Entity(others[0])
		out = append(out, finding{entity(e), e.TTLAttr().Pos,
			fmt.Sprintf("%s expire(s) by %s, %s by another attribute: a table has one TTL attribute, so these want separate tables",
				strings.Join(expiring, ", "), ttl, strings.Join(others, ", ")),
			fmt.Sprintf("either keep one table: rename the ttl attribute of %s to %s (costs nothing); or split: %s", strings.Join(others, ", "), ttl, splitCost(m, others, "Expiring"))})
	}
	if m.Strong() {
		if tx := transactional(m); len(tx) > 0 && len(tx) < len(m.Entities) {
			e := m.Entity(tx[0])
			out = append(out, finding{entity(e), m.PosOf("consistency"),
				fmt.Sprintf("%s need(s) transactions (a transact write, unique guard items or counters), which the strongly consistent table refuses (KP307); the rest of the table does not", strings.Join(tx, ", ")),
				fmt.Sprintf("either keep one table: consistency eventual for all (no multi-Region strong reads), or no transactions; or split: %s", splitCost(m, tx, "Transactional"))})
		}
	}
	return append(out, splitNeeds(d)...)
}

// need is one of an entity's needs as splitNeeds compares them: its field
// under needs:, what it says of a table, and what keeping one table costs.
type need struct {
	field, what string
	value       func(*model.Needs) (string, bool)
	one         func(d *Design, values []string) string
}

var needs = []need{
	{"pointInTimeRecovery", "point-in-time recovery", func(n *model.Needs) (string, bool) {
		if n.PointInTimeRecovery == nil {
			return "", false
		}
		return onOff(*n.PointInTimeRecovery), true
	}, func(*Design, []string) string {
		return "point-in-time recovery on for the whole table (its continuous backups are priced per GB-month of the table's size: the items of the entities that do not need it are paid for too)"
	}},
	{"backup", "backup plan", func(n *model.Needs) (string, bool) { return n.Backup, n.Backup != "" }, func(_ *Design, vs []string) string {
		return fmt.Sprintf("the table in every plan (%s: each backs up all its items, priced per GB-month of each plan's backups)", strings.Join(vs, ", "))
	}},
	{"billing", "billing mode", func(n *model.Needs) (string, bool) { return n.Billing, n.Billing != "" }, func(d *Design, _ []string) string {
		if d.Cost == nil {
			return "one billing mode for the whole table"
		}
		return fmt.Sprintf("one billing mode for the whole table (at the declared rates: on demand $%.2f/month, provisioned $%.2f/month)", d.Cost.OnDemand, d.Cost.Provisioned)
	}},
	{"replicas", "replica Regions", func(n *model.Needs) (string, bool) {
		if !n.Replicated {
			return "", false
		}
		if len(n.Replicas) == 0 {
			return "none", true
		}
		return strings.Join(n.Replicas, "+"), true
	}, func(d *Design, vs []string) string {
		regions := map[string]bool{}
		for _, v := range vs {
			for r := range strings.SplitSeq(v, "+") {
				if r != "none" {
					regions[r] = true
				}
			}
		}
		s := fmt.Sprintf("every Region any entity needs (%d) for the whole table", len(regions))
		if d.Cost != nil {
			// replicated writes cost what the writes cost, per replica
			s += fmt.Sprintf(" (each replica costs the table's writes again: $%.2f/month per Region on demand at the declared rates, and its storage)", d.Cost.WriteUnits*PriceWRU*3600*HoursPerMonth)
		}
		return s
	}},
}

// splitNeeds: entities of one table that state a need differently (each
// need on its own) are proposed a table of their own.
func splitNeeds(d *Design) []finding {
	m := d.model
	var out []finding
	for _, nd := range needs {
		var values []string         // the values stated, in the order first stated
		by := map[string][]string{} // value → entities
		for _, e := range m.Entities {
			if e.Needs == nil {
				continue
			}
			v, stated := nd.value(e.Needs)
			if !stated {
				continue
			}
			if by[v] == nil {
				values = append(values, v)
			}
			by[v] = append(by[v], e.Name)
		}
		if len(values) < 2 {
			continue
		}
		var said []string
		for _, v := range values {
			said = append(said, fmt.Sprintf("%s: %s", strings.Join(by[v], ", "), v))
		}
		moved := by[values[1]]
		for _, v := range values[2:] {
			moved = append(moved, by[v]...)
		}
		e := m.Entity(moved[0])
		out = append(out, finding{entity(e), e.Needs.Pos[nd.field],
			fmt.Sprintf("the entities of table %s need different %s (%s): a table has one, so these want separate tables", m.Table, nd.what, strings.Join(said, "; ")),
			fmt.Sprintf("either keep one table: %s; or split: %s", nd.one(d, values), splitCost(m, moved, strings.ToUpper(nd.field[:1])+nd.field[1:]))})
	}
	return out
}

// transactional are the entities whose writes need a transaction.
func transactional(m *model.Model) []string {
	var out []string
	add := func(name string) {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, w := range m.Writes {
		if w.Op == model.WriteTransact {
			for _, s := range w.Steps {
				add(s.Entity)
			}
		}
	}
	for _, e := range m.Entities {
		if len(m.UniquePatterns(e)) > 0 || len(e.Counters) > 0 {
			add(e.Name)
		}
	}
	return out
}

// splitCost says what moving the entities moved to a table of their own
// (named like suffix) costs, and what of the model it breaks.
func splitCost(m *model.Model, moved []string, suffix string) string {
	in := func(name string) bool { return slices.Contains(moved, name) }
	var broken []string
	for _, p := range m.Patterns {
		a, b := 0, 0
		for _, en := range p.Entities {
			if in(en) {
				a++
			} else {
				b++
			}
		}
		if a > 0 && b > 0 {
			broken = append(broken, fmt.Sprintf("pattern %s (reads %s in one Query)", p.Name, strings.Join(p.Entities, " and ")))
		}
	}
	for _, w := range m.Writes {
		a, b := 0, 0
		for _, s := range w.Steps {
			if in(s.Entity) {
				a++
			} else {
				b++
			}
		}
		if a > 0 && b > 0 {
			broken = append(broken, fmt.Sprintf("write %s (a write pattern across the two: write each table's part with a pattern of its own, together with dynamo.TransactTables)", w.Name))
		}
	}
	for _, e := range m.Entities {
		link := func(other, how string) {
			if other != "" && in(other) != in(e.Name) {
				broken = append(broken, fmt.Sprintf("%s %s %s", e.Name, how, other))
			}
		}
		link(e.Within, "within")
		for _, c := range e.Copies {
			link(c.FromEntity, "copies from")
		}
		for _, c := range e.Counters {
			link(c.Child, "counts")
		}
	}
	s := fmt.Sprintf("tables: {%s: {}, %s%s: {}} and table: %s%s on %s; the second table costs its own stream and stream handlers, alarms, dashboard, backups and throughput settings, a lock (MODEL.%s%s.lock.json) and a construct",
		m.Table, m.Table, suffix, m.Table, suffix, strings.Join(moved, ", "), m.Table, suffix)
	if len(broken) == 0 {
		return s + "; it breaks no pattern, write or link of the model"
	}
	return s + "; it breaks " + strings.Join(broken, "; ") + " (each must change first)"
}
