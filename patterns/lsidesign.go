package patterns

import (
	"fmt"
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// A design's LSIs in its JSON form and when it is read back: they follow
// the GSIs in indexes, each with kind "local" (a lock an earlier keyplan
// wrote has none, and reads unchanged), and are checked against the
// table's key as DynamoDB would (the partition key is the table's, the
// sort key the index's own) before any plan is served from them.

// joinIndexes is the design's fields as its JSON writes them: the LSIs
// after the GSIs in indexes.
func joinIndexes(d *Design) *designFields {
	if len(d.LocalIndexes) == 0 {
		return (*designFields)(d)
	}
	c := *(*designFields)(d)
	c.Indexes = append(slices.Clip(d.Indexes), d.LocalIndexes...)
	return &c
}

// splitIndexes moves the LSIs a design's JSON lists in indexes to
// LocalIndexes (in their order).
func splitIndexes(d *Design) {
	var gsis, lsis []*Index
	for _, ix := range d.Indexes {
		if ix != nil && ix.Kind == IndexLocal {
			lsis = append(lsis, ix)
		} else {
			gsis = append(gsis, ix)
		}
	}
	if len(lsis) == 0 {
		return
	}
	if gsis == nil {
		gsis = []*Index{}
	}
	d.Indexes, d.LocalIndexes = gsis, lsis
}

// rederiveLocal checks a design's LSIs as read back and puts them on the
// layout the plans are served from, after the table and before the GSIs
// (the order the planner serves them in).
func rederiveLocal(d *Design, ly *layout) error {
	if len(d.LocalIndexes) > model.MaxLSIs {
		return fmt.Errorf("%d local secondary indexes; DynamoDB allows %d", len(d.LocalIndexes), model.MaxLSIs)
	}
	var names []string
	for _, ix := range d.LocalIndexes {
		if !model.ValidTableName(ix.Name) || ix.Name == model.BaseIndex || slices.Contains(ly.indexes, ix.Name) || slices.Contains(names, ix.Name) {
			return fmt.Errorf("index %s: expected a unique name of %s", ix.Name, model.NameRule)
		}
		if ix.Native() || len(ix.SortKeys) > 0 {
			return fmt.Errorf("local index %s is keyed natively; an LSI is keyed by the table's partition key and a sort key string", ix.Name)
		}
		if pk, sk := LocalKeyNames(ix.Name); ix.PK != pk || ix.SK != sk {
			return fmt.Errorf("local index %s is keyed %s/%s; keyplan keys it %s/%s (the table's partition key and its own sort key)", ix.Name, ix.PK, ix.SK, pk, sk)
		}
		names = append(names, ix.Name)
	}
	if len(names) == 0 {
		return nil
	}
	ly.indexes = append(append([]string{model.BaseIndex}, names...), ly.indexes[1:]...)
	ly.local = map[string]bool{}
	for _, n := range names {
		ly.local[n] = true
	}
	return nil
}

// checkLocalKeys refuses an entity key on an LSI whose partition key is
// not the entity's base key (an LSI's partition key is the table's: the
// item is in its base partition there too).
func checkLocalKeys(d *Design, ek *EntityKeys) error {
	base := ek.Key(model.BaseIndex)
	for _, k := range ek.Keys {
		if ix := d.Index(k.Index); ix != nil && ix.Local() && !k.PK.Equal(base.PK) {
			return fmt.Errorf("entity %s: its key on local index %s has partition key %s, not its base key's %s", ek.Name, k.Index, k.PK, base.PK)
		}
	}
	return nil
}
