package patterns

import (
	"fmt"
	"math"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// The LSI rules: at most five per table (KP307), and each item collection
// of a table with an LSI within 10 GB (KP308), estimated from the
// declared sizes and cardinalities.

// KP307: DynamoDB's limit on LSIs (a hand-made layout can pass it; the
// planner never does).
func ruleLSILimit(d *Design) []finding {
	if len(d.LocalIndexes) <= model.MaxLSIs {
		return nil
	}
	return []finding{{table(d), d.model.Pos,
		fmt.Sprintf("the design has %d local secondary indexes; DynamoDB allows %d per table", len(d.LocalIndexes), model.MaxLSIs),
		"serve the eventually consistent patterns from GSIs, or order strong reads alike so that they share an LSI"}}
}

// collection is one base partition key template's item collection, as
// KP308 estimates it.
type collection struct {
	pk    model.Template
	ents  []*model.Entity
	bytes float64
	// parts says what each entity adds; open names what bounds nothing.
	parts, open []string
	// largest is the entity that adds the most (or first leaves it open).
	largest *model.Entity
	most    float64
}

// KP308: a table with an LSI holds at most 10 GB per partition key value
// (its items and their LSI entries); a write past it fails.
func ruleItemCollection(d *Design) []finding {
	if len(d.LocalIndexes) == 0 {
		return nil
	}
	var out []finding
	for _, c := range itemCollections(d) {
		locals := localNames(d)
		switch {
		case len(c.open) > 0:
			out = append(out, finding{entity(c.largest), c.largest.Pos,
				fmt.Sprintf("the table has local secondary indexes (%s), which limit each item collection to 10 GB, and nothing bounds a %s collection: %s",
					locals, c.pk, strings.Join(c.open, "; ")),
				fmt.Sprintf("declare cardinality: N (the most one %s partition holds) on those attributes, so that keyplan can check the 10 GB; or serve the strong reads without an LSI (eventually consistent from a GSI, which has no such limit)", c.pk)})
		case c.bytes > model.MaxItemCollectionBytes:
			out = append(out, finding{entity(c.largest), c.largest.Pos,
				fmt.Sprintf("a %s item collection can hold %s (%s): more than the 10 GB a table with local secondary indexes (%s) allows per partition key value; writes to a full one fail (ItemCollectionSizeLimitExceededException)",
					c.pk, byteText(c.bytes), strings.Join(c.parts, "; "), locals),
				"bound the items one partition holds (a lower cardinality), spread them over more partitions (another id or within), project less into the LSIs, or serve the strong reads without an LSI (eventually consistent from a GSI)"})
		}
	}
	return out
}

// localNames lists the design's LSIs for messages.
func localNames(d *Design) string {
	var names []string
	for _, ix := range d.LocalIndexes {
		names = append(names, ix.Name)
	}
	return strings.Join(names, ", ")
}

// itemCollections estimates each base partition key template's largest
// item collection: per entity whose base key has that partition key, the
// most items one partition holds (the distinct values of the id
// attributes the partition key leaves) times the item's size (the cost
// estimate's: declared bounds, defaults otherwise) with its LSI entries.
func itemCollections(d *Design) []*collection {
	z := &sizer{assumed: map[string]bool{}, items: map[string]int{}}
	var out []*collection
	byPK := map[string]*collection{}
	for _, e := range d.model.Entities {
		ek := d.Entity(e.Name)
		if ek == nil || ek.Key(model.BaseIndex) == nil {
			continue
		}
		base := ek.Key(model.BaseIndex)
		c := byPK[base.PK.String()]
		if c == nil {
			c = &collection{pk: base.PK}
			byPK[base.PK.String()] = c
			out = append(out, c)
		}
		c.ents = append(c.ents, e)
		size := float64(z.item(d, e))
		var on []string
		for _, k := range ek.Keys {
			if ix := d.Index(k.Index); ix != nil && ix.Local() {
				size += float64(z.projected(d, e, k.Index) + model.IndexEntryOverheadBytes)
				on = append(on, k.Index)
			}
		}
		n, open := itemsPerPartition(e, base)
		if len(open) > 0 {
			c.open = append(c.open, fmt.Sprintf("how many %s items one holds (%s: no cardinality, values or range)", e.Name, strings.Join(open, ", ")))
			if c.largest == nil || c.most < math.Inf(1) {
				c.largest, c.most = e, math.Inf(1)
			}
			continue
		}
		bytes := n * size
		c.bytes += bytes
		with := ""
		if len(on) > 0 {
			with = " with their " + strings.Join(on, ", ") + " entries"
		}
		c.parts = append(c.parts, fmt.Sprintf("%s: %s item(s) of %s%s", e.Name, countText(n), byteText(size), with))
		if c.largest == nil || bytes > c.most {
			c.largest, c.most = e, bytes
		}
	}
	return out
}

// itemsPerPartition is the most items of e one partition of its base key
// holds: the product of the distinct values of the id attributes its
// partition key leaves; open lists those with no declared bound.
func itemsPerPartition(e *model.Entity, base *EntityKey) (float64, []string) {
	n := 1.0
	var open []string
	for _, a := range minus(e.ID, base.PK.Attrs()) {
		v := distinctValues(e.Attr(a))
		if v == 0 {
			open = append(open, a)
			continue
		}
		n *= v
	}
	return n, open
}

// distinctValues is how many values an attribute can take as declared (0:
// no bound): its enum, a bool's two, its cardinality, or an integer's
// range.
func distinctValues(a *model.Attribute) float64 {
	if a == nil {
		return 0
	}
	if c := cardinality(a); c > 0 {
		return float64(c)
	}
	if a.Type == model.TypeNumber || a.Type == model.TypeTTL {
		if lo, hi, ok := a.Bounds(); ok {
			return float64(hi) - float64(lo) + 1
		}
	}
	return 0
}

// byteText writes a size for messages: 12.5 GB, 3.1 MB, 412 B.
func byteText(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

// countText writes an item count for messages.
func countText(n float64) string {
	if n >= 1e15 {
		return fmt.Sprintf("%.3g", n)
	}
	return fmt.Sprintf("%.0f", n)
}
