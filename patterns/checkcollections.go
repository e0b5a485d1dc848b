package patterns

import (
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// KP408: a hand-made layout's item collection that nothing bounds. An
// entity's items in one partition of an index (the base table's or a
// GSI's) are as many as the distinct values of its id attributes the
// partition key leaves; when one of them has no declared bound (no
// cardinality, values or range), the items do not expire (no ttl
// attribute) and the partition key holds no time attribute (a time
// bucket, which stops a partition's growth when it ends), the partition
// grows without limit: one partition key value's reads and writes share
// one partition's throughput (3,000 read and 1,000 write units a
// second), and a read of the whole collection pages on without end.
// The base table's collections of a table with LSIs are KP308's (the
// 10 GB limit). Designed layouts are not checked: the planner's keys
// follow the model, whose cardinalities it reads.
func ruleUnboundedCollection(d *Design) []finding {
	if !d.Explicit {
		return nil
	}
	var out []finding
	for _, e := range d.model.Entities {
		ek := d.Entity(e.Name)
		if ek == nil || e.TTLAttr() != nil {
			continue
		}
		for _, k := range ek.Keys {
			ix := d.Index(k.Index)
			switch {
			case k.Index != model.BaseIndex && (ix == nil || ix.Local()):
				continue // an LSI's partition is the table's
			case k.Index == model.BaseIndex && len(d.LocalIndexes) > 0:
				continue // KP308
			case timeBucketed(e, k.PK):
				continue
			}
			if _, open := itemsPerPartition(e, k); len(open) > 0 {
				out = append(out, unboundedFinding(e, k, open))
			}
		}
	}
	return out
}

// timeBucketed reports whether a partition key template holds a time
// attribute: each partition gathers the items of one bucket of time.
func timeBucketed(e *model.Entity, pk model.Template) bool {
	for _, a := range pk.Attrs() {
		if at := e.Attr(a); at != nil && (at.Type == model.TypeTime || at.Type == model.TypeTTL) {
			return true
		}
	}
	return false
}

func unboundedFinding(e *model.Entity, k *EntityKey, open []string) finding {
	on := "the table"
	if k.Index != model.BaseIndex {
		on = k.Index
	}
	return finding{entity(e), e.Pos,
		fmt.Sprintf("nothing bounds how many %s items one %s partition of %s holds (%s: no cardinality, values or range), and they do not expire: the collection grows without limit, one partition key value's reads and writes sharing one partition's throughput, and a read of all of it pages on without end",
			e.Name, k.PK, on, strings.Join(open, ", ")),
		fmt.Sprintf("if the collection is bounded, declare it: cardinality: N on %s (the most one %s partition holds); if it grows with time, add a time bucket to the partition key (%s#{month}, a time attribute), or a ttl attribute so that old items expire",
			strings.Join(open, ", "), k.PK, k.PK)}
}
