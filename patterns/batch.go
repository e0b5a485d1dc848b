package patterns

import (
	"fmt"

	"github.com/keyplan/keyplan/patterns/model"
)

// Batch reads: a get by id with batch: true reads many items in one call,
// BatchGetItem of their base-table keys (at most MaxBatchGetKeys a
// request, the rest in more requests; keys DynamoDB leaves unprocessed
// asked again). Each id is one GetItem's key: the pattern is planned as
// the get it batches (Operation GetItem, on the base table: KP108), its
// action is BatchGetItem, and its cost is each item's read rounded up to
// a read unit on its own, for limit ids a call (DefaultPage without one).
//
//	GetProducts: {get: Product, batch: true, limit: 50}

// Action is the IAM action a served pattern's reads need:
// dynamodb:BatchGetItem for a batch, else its operation's.
func (pp *PatternPlan) Action() string {
	if pp.Batch {
		return "dynamodb:BatchGetItem"
	}
	return "dynamodb:" + string(pp.Operation)
}

// KP108: a batch is BatchGetItem of base-table keys: its get must be a
// GetItem on the table.
func ruleBatchOnTable(d *Design) []finding {
	var out []finding
	for _, pp := range d.Patterns {
		p := d.model.Pattern(pp.Name)
		if !p.Batch || !pp.Served() || pp.Batch {
			continue
		}
		out = append(out, finding{pattern(p), p.PosOf("batch"),
			fmt.Sprintf("is batch: true, but its get is a %s on %s: BatchGetItem reads items by their base-table key, which must hold the id alone", pp.Operation, pp.Index),
			"keep the entity's base key to its id (or its immutable attributes the caller has), or drop batch"})
	}
	return out
}

// batchReadUnits are the read units one call of a batch pattern takes:
// each item's read rounded up on its own, halved when eventually
// consistent.
func batchReadUnits(ids, itemBytes int, consistent bool) float64 {
	u := float64(ids) * units(itemBytes, model.ReadUnitBytes)
	if !consistent {
		u /= 2
	}
	return u
}
