package patterns

import (
	"fmt"
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// The stream rules (KP5xx): what the stream handlers keep (copies,
// counters) is in no key, and a counter counts what reads return.

// KP501: the stream handlers update copies and counters in place
// (UpdateItem), which cannot change a key: such an attribute must not be in
// any of its entity's keys.
func ruleMaintainedInKey(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		var maintained []struct {
			attr, kind string
			pos        model.Pos
		}
		for _, c := range e.Copies {
			maintained = append(maintained, struct {
				attr, kind string
				pos        model.Pos
			}{c.Attr, "copy", c.Pos})
		}
		for _, c := range e.Counters {
			maintained = append(maintained, struct {
				attr, kind string
				pos        model.Pos
			}{c.Attr, "counter", c.Pos})
		}
		for _, m := range maintained {
			for _, k := range d.Entity(e.Name).Keys {
				if slices.Contains(k.PK.Attrs(), m.attr) || slices.Contains(k.SK.Attrs(), m.attr) {
					out = append(out, finding{entity(e), m.pos,
						fmt.Sprintf("%s.%s is a %s kept by a stream handler, but it is in the key %s / %s on %s: an update in place cannot move the item", e.Name, m.attr, m.kind, k.PK, k.SK, k.Index),
						"keep the attribute out of patterns' where and sort, or maintain it in the application"})
					break
				}
			}
		}
	}
	return out
}

// KP502: a counter of a child whose items expire counts an expired child
// down only when DynamoDB deletes it, days after reads stopped returning
// it (they hide expired items): the two disagree meanwhile.
func ruleCounterExpiry(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		for _, c := range e.Counters {
			child := d.model.Entity(c.Child)
			if child == nil || child.TTLAttr() == nil || c.KeepExpired || c.CountExpired {
				continue
			}
			out = append(out, finding{entity(e), c.Pos,
				fmt.Sprintf("%s.%s counts %s items, which expire by %s: reads hide an expired %s at once, but the counter counts it down only when DynamoDB deletes it (up to days later)",
					e.Name, c.Attr, child.Name, child.TTLAttr().Name, child.Name),
				"say expiries: keep (the counter counts every child ever made), or expiries: count to accept the lag"})
		}
	}
	return out
}
