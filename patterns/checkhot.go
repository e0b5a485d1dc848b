package patterns

import (
	"fmt"
	"strings"
)

// The hot-partition rules: a partition key with few values, and a pattern
// placed on a partition hotter than its where needs.

// cardinality is the number of distinct values an attribute takes, or 0
// when unknown (assumed high).
func cardinality(a *Attribute) int {
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
