package patterns

import (
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// Local secondary indexes. An LSI shares the base table's partition key
// (PK) and sorts each partition by another attribute (LSInSK, a string
// keyplan writes like a GSI's key): the planner's third place to serve a
// pattern, after the base table and before a new GSI. It is the only
// index that serves a strongly consistent read in another order than the
// base table's. What it costs: its writes and reads are in the table's
// capacity (no capacity of its own), its entries count toward the item
// collection of their partition key value, which a table with any LSI
// limits to 10 GB (MaxItemCollectionBytes, KP308); a table has at most 5
// (MaxLSIs), created with the table and never added or removed later
// (KP623); native multi-attribute keys are GSIs' only, so an LSI is always
// keyed by LSInSK.

// IndexKind tells a local secondary index from a global one in a design's
// JSON (Index.Kind): "" for a GSI (every index of an earlier keyplan's
// lock), IndexLocal for an LSI.
type IndexKind string

// Index kinds.
const (
	IndexGlobal IndexKind = ""
	IndexLocal  IndexKind = "local"
)

// LocalKeyNames are the key attribute names of an LSI: the table's
// partition key and the index's own sort key (LSI1 → PK, LSI1SK).
func LocalKeyNames(index string) (pk, sk string) {
	_, sk = model.IndexKeyNames(index)
	return model.TablePK, sk
}

// Local reports whether the index is a local secondary index.
func (ix *Index) Local() bool { return ix.Kind == IndexLocal }

// newLSIPrefix marks the new LSIs of a search until design() names them.
const newLSIPrefix = "new.lsi."

// localKeying is why an LSI is keyed as it is (the plan's indexKeys).
const localKeying = "synthetic: an LSI is keyed by the table's partition key and one sort key attribute (LSInSK); multi-attribute keys are for GSIs only"

// SecondaryIndexes lists the design's LSIs, then its GSIs: the order
// plans are served in after the table.
func (d *Design) SecondaryIndexes() []*Index {
	return append(slices.Clip(d.LocalIndexes), d.Indexes...)
}
