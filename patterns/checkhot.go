package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Traffic rules (KP4xx) of partitions and counters: a partition key with
// few values, a pattern placed on a partition hotter than its where needs,
// a count of what a counter keeps, sharded counters too few for their
// writes. (The throughput rules are in checkthroughput.go, the item
// collections' bound in checkcollections.go.)

// cardinality is the number of distinct values an attribute takes, or 0
// when unknown (assumed high).
func cardinality(a *model.Attribute) int {
	switch {
	case len(a.Values) > 0:
		return len(a.Values)
	case a.ScalarType() != nil && a.ScalarType().Cardinality > 0:
		return a.ScalarType().Cardinality
	}
	return a.Cardinality
}

// KP401: a partition key that is constant or takes few values
// concentrates a pattern's traffic on few partitions.
func ruleHotPartition(d *Design) []finding {
	var out []finding
	for _, pp := range d.Patterns {
		if !pp.Served() || pp.KeyCondition.PK.Shards() > 0 {
			continue
		}
		p := d.model.Pattern(pp.Name)
		e := d.model.Entity(pp.Entities[0])
		if len(pp.keys) > 0 && introducesHot(e, derive(d.model, p).req, pp.keys[0].PK.Attrs(), pp.keys[0].PK.Shards()) {
			continue // the layout's doing, not the pattern's: KP403
		}
		attrs := pp.KeyCondition.PK.Attrs()
		values, why := 1, ""
		for _, a := range attrs {
			c := cardinality(e.Attr(a))
			if c == 0 {
				values = 0
				break
			}
			values *= c
		}
		switch {
		case len(attrs) == 0:
			why = fmt.Sprintf("its partition key %s is a constant: every read and write of it hits one partition", pp.KeyCondition.PK)
		case values > 0 && values < LowCardinality:
			why = fmt.Sprintf("its partition key %s takes at most %d values (%s): traffic concentrates on few partitions", pp.KeyCondition.PK, values, strings.Join(attrs, ", "))
		default:
			continue
		}
		out = append(out, finding{pattern(p), p.Pos, why,
			"add shards: N (N ≥ 2) to write-shard the key and read it by scatter-gather, or partition by an attribute with more values"})
	}
	return out
}

// KP403: a layout that serves a pattern from a constant or low-cardinality
// partition when the pattern's own equality attributes would spread it
// (a hot key introduced to save an index). Designed plans never do.
func ruleIntroducedHot(d *Design) []finding {
	var out []finding
	for _, pp := range d.Patterns {
		if !pp.Served() || len(pp.keys) == 0 {
			continue
		}
		p := d.model.Pattern(pp.Name)
		r := derive(d.model, p).req
		e := d.model.Entity(pp.Entities[0])
		k := pp.keys[0]
		if !introducesHot(e, r, k.PK.Attrs(), k.PK.Shards()) {
			continue
		}
		out = append(out, finding{pattern(p), p.Pos,
			fmt.Sprintf("it is served from the partition %s on %s, which takes few values, though its where (%s) would spread it", k.PK, pp.Index, strings.Join(r.eq, ", ")),
			fmt.Sprintf("give it a key whose partition holds %s", strings.Join(minus(r.eq, k.PK.Attrs()), ", "))})
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
func countUnits(d *Design, p *model.Pattern) string {
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
				wcu := w.Rate * units(z.shard(fx.e, ck), model.WriteUnitBytes)
				if w.Op == model.WriteTransact {
					wcu *= 2
				}
				if wcu/float64(ck.Shards) <= model.PartitionWCU {
					continue
				}
				need := int(wcu/model.PartitionWCU) + 1
				out = append(out, finding{write(w), w.PosOf("rate"),
					fmt.Sprintf("adds to %s.%s at %g/s: about %.0f WCU/s on each of its %d shards; an item takes %d", fx.e.Name, i.Attr, w.Rate, wcu/float64(ck.Shards), ck.Shards, model.PartitionWCU),
					fmt.Sprintf("give the counter shards: %d or more (a read sums them in one Query whatever their number)", min(need, model.MaxCounterShards))})
			}
		}
	}
	return out
}
