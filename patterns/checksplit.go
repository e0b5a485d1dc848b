package patterns

import (
	"fmt"
	"slices"
	"strings"
)

// KP310: entities of one table that want different table settings are
// proposed a table of their own (tables:), with the cost of each choice:
// the seed guide's "use separate tables when entities have different TTL
// needs, backup requirements, consistency or throughput". The settings
// the model declares per entity are told apart here: a TTL attribute
// other than the table's (KP305 refuses it in one table), and, in a
// strongly consistent table, entities whose writes need transactions
// (KP307 refuses them). Billing, point-in-time recovery and replicas
// are the construct's props of a table, not the model's: a model that
// wants them to differ declares tables for it.
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
	return out
}

// transactional are the entities whose writes need a transaction.
func transactional(m *Model) []string {
	var out []string
	add := func(name string) {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, w := range m.Writes {
		if w.Op == WriteTransact {
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
func splitCost(m *Model, moved []string, suffix string) string {
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
			broken = append(broken, fmt.Sprintf("write %s (a transaction across the two: keyplan writes a transaction on one table)", w.Name))
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
