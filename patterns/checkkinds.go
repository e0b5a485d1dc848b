package patterns

import (
	"fmt"
	"slices"
	"strings"
)

// The rules of what kinds.go adds: keys hold scalars only, sorted
// collections that a limit cuts before their owner, counts of what a
// counter keeps, sharded counters too few for their writes, counters
// that count what reads hide, and derived attributes an update cannot
// recompute.

// KP206: a key holds one scalar value of its item: not a set, list or
// map (several values), not a sharded counter (its shard items hold it).
func ruleScalarKeys(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		ek := d.Entity(e.Name)
		if ek == nil {
			continue
		}
		for _, k := range ek.Keys {
			for _, a := range uniq(keyReads(k)) {
				if attr := e.Attr(a); attr != nil && !attr.Scalar() {
					at := attr.Pos
					if ks := keySpec(e, k.Index); ks != nil {
						at = ks.Pos
					}
					out = append(out, finding{entity(e), at,
						fmt.Sprintf("%s's key on %s (%s / %s) holds %s, a %s: a key holds one scalar value of the item", e.Name, k.Index, k.PK, k.SK, a, attr.Type),
						scalarFix(attr)})
				}
			}
		}
	}
	for _, p := range d.model.Patterns {
		seen := map[string]bool{}
		for _, name := range p.Entities {
			e := d.model.Entity(name)
			for _, a := range slices.Concat(d.model.Where(p), p.Sort, constAttrs(p.Filter)) {
				attr := e.Attr(a)
				if attr == nil || attr.Scalar() || seen[a] {
					continue
				}
				seen[a] = true
				out = append(out, finding{pattern(p), p.Pos,
					fmt.Sprintf("reads %s by %s, a %s: only a key finds items by a value, and a key holds one scalar value", name, a, attr.Type),
					scalarFix(attr)})
			}
		}
	}
	return out
}

func scalarFix(a *Attribute) string {
	if a.Type == TypeCounter {
		return "read the counter with its own pattern ({get: ENTITY, returns: [" + a.Name + "]}); keys take the attributes the item holds"
	}
	return "key by a scalar attribute; to find items by one element, give each element an item of its own (an entity within this one)"
}

func constAttrs(cs []Const) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Attr
	}
	return out
}

// keySpec is an entity's hand-made key on an index, or nil.
func keySpec(e *Entity, index string) *KeySpec {
	for _, ks := range e.Keys {
		if ks.Index == index {
			return ks
		}
	}
	return nil
}

// KP107: a collection read in descending order with a limit returns its
// owner only after all the items it orders: a page of limit items holds
// the owner only when there are fewer of them.
func ruleSortedLimit(d *Design) []finding {
	var out []finding
	for _, p := range d.model.Patterns {
		sorted := d.model.SortedMember(p)
		pp := d.Pattern(p.Name)
		if sorted == "" || pp == nil || !pp.ownerReadLast(p) {
			continue // no limit, or the owner read first: above, read descending; below, ascending
		}
		owner := d.model.CollectionOwner(p)
		order, first, other := "newest first", "oldest first", "ascending"
		if !p.Desc {
			order, first, other = "oldest first", "newest first", "descending"
		}
		out = append(out, finding{pattern(p), p.PosOf("limit"),
			fmt.Sprintf("reads %s %s and %s at the end: with limit %d, the %s comes back only when there are fewer than %d %s items (the first page holds the %s %d)",
				sorted, order, owner, p.Limit, owner, p.Limit, sorted, strings.Fields(order)[0], p.Limit),
			fmt.Sprintf("drop limit and page with All, read %s %s (%s, %s first), key %s to sort at the other end of %s's items, or read %s with a get of its own", sorted, other, first, owner, owner, sorted, owner)})
	}
	return out
}

// KP404: a count of a child's items by its parent's id, when the
// counters stream handler keeps that count on the parent already: one
// GetItem instead of reading every item counted.
func ruleCountKept(d *Design) []finding {
	var out []finding
	for _, p := range d.model.Patterns {
		if !p.Count || len(p.Entities) != 1 || len(p.Filter) > 0 {
			continue
		}
		for _, parent := range d.model.Entities {
			if !slices.Equal(sortedCopy(parent.ID), sortedCopy(d.model.Where(p))) {
				continue
			}
			for _, c := range parent.Counters {
				if c.Child == p.Entities[0] && c.Sum == "" && len(c.Where) == 0 {
					out = append(out, finding{pattern(p), p.PosOf("count"),
						fmt.Sprintf("counts %s items by %s, which %s.%s keeps already (the counters handler): a count reads every item it counts (%s read units a call)",
							p.Entities[0], strings.Join(d.model.Where(p), ", "), parent.Name, c.Attr, countUnits(d, p)),
						fmt.Sprintf("read %s.%s with a get of %s (one item); count only where no counter is kept", parent.Name, c.Attr, parent.Name)})
				}
			}
		}
	}
	return out
}

// countUnits is what the cost estimate says one call of a count reads.
func countUnits(d *Design, p *Pattern) string {
	if d.Cost != nil {
		for _, pc := range d.Cost.Patterns {
			if pc.Name == p.Name {
				return fmt.Sprintf("%g", pc.ReadUnits)
			}
		}
	}
	return "its items'"
}

// KP405: a sharded counter whose writes, spread over its shards, still
// put more on one shard item than DynamoDB takes (1,000 WCU an item; and
// one partition key's until DynamoDB splits its shards apart).
func ruleCounterShards(d *Design) []finding {
	var out []finding
	z := &sizer{assumed: map[string]bool{}, items: map[string]int{}}
	for _, w := range d.model.Writes {
		if w.Rate <= 0 {
			continue
		}
		for _, fx := range d.effects(w) {
			if !fx.counter {
				continue
			}
			for _, i := range fx.s.Add {
				ck := d.Entity(fx.e.Name).Counter(i.Attr)
				if ck == nil {
					continue
				}
				wcu := w.Rate * units(z.shard(fx.e, ck), WriteUnitBytes)
				if w.Op == WriteTransact {
					wcu *= 2
				}
				if wcu/float64(ck.Shards) <= PartitionWCU {
					continue
				}
				need := int(wcu/PartitionWCU) + 1
				out = append(out, finding{write(w), w.PosOf("rate"),
					fmt.Sprintf("adds to %s.%s at %g/s: about %.0f WCU/s on each of its %d shards; an item takes %d", fx.e.Name, i.Attr, w.Rate, wcu/float64(ck.Shards), ck.Shards, PartitionWCU),
					fmt.Sprintf("give the counter shards: %d or more (a read sums them in one Query whatever their number)", min(need, MaxCounterShards))})
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

// KP707: an update that changes a source of a derived attribute must know
// its other sources (set, passed with with, or the id) to compute the new
// value; otherwise the value, and every key that reads it, would go stale.
func ruleDerivedStale(d *Design) []finding {
	var out []finding
	for _, w := range d.model.Writes {
		for i, fx := range d.effects(w) {
			s := fx.s
			if s.Op != WriteUpdate || fx.counter {
				continue
			}
			known := map[string]bool{}
			for _, a := range slices.Concat(s.Set, s.Remove, s.With, fx.e.ID) {
				known[a] = true
			}
			for _, a := range fx.e.Attributes {
				if a.Derived == nil || !fx.changed[a.Name] {
					continue
				}
				var missing []string
				for _, src := range a.Derived.Sources() {
					if !known[src] {
						missing = append(missing, src)
					}
				}
				if len(missing) > 0 {
					out = append(out, finding{write(w), w.Pos,
						fmt.Sprintf("%s changes a source of %s.%s (derived from %s) without %s: the new value cannot be computed, so it (and every key it feeds) would go stale",
							stepName(w, i), fx.e.Name, a.Name, strings.Join(a.Derived.Sources(), ", "), strings.Join(missing, ", ")),
						fmt.Sprintf("add with: [%s] (the caller passes them as the item holds them; the write holds only if they still are)", strings.Join(missing, ", "))})
				}
			}
		}
	}
	return out
}
