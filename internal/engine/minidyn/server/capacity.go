package server

// Consumed capacity, as DynamoDB reports it (ReturnConsumedCapacity TOTAL
// or INDEXES; AWS's "Capacity unit consumption" rules):
//
//   - A GetItem reads a unit per 4 KB of the item (a missing one counts
//     as one unit), half a unit per 4 KB when eventually consistent; a
//     BatchGetItem reads each item so, summed per table; a
//     TransactGetItems reads two units per 4 KB of each item.
//   - A Query or Scan reads the size of every item it evaluates (before
//     its filter), summed and rounded up to 4 KB once, half when
//     eventually consistent (always, on a GSI); an index read is charged
//     to the index, not the table.
//   - A write costs a unit per 1 KB of the larger of the item before and
//     after it (a unit for a delete of nothing), and each secondary index
//     whose entry it puts or removes a unit per 1 KB of that entry (a
//     change of the index key both removes and puts); a
//     TransactWriteItems costs each twice.
//
// TOTAL reports the sum; INDEXES also the table's share (Table) and each
// index's (GlobalSecondaryIndexes, LocalSecondaryIndexes).

import (
	"maps"
	"math"
	"slices"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// The units of capacity: a read per 4 KB, a write per 1 KB.
const (
	readUnitBytes  = 4096
	writeUnitBytes = 1024
)

// unitsJSON is DynamoDB's Capacity.
type unitsJSON struct {
	CapacityUnits      float64  `json:"CapacityUnits"`
	ReadCapacityUnits  *float64 `json:"ReadCapacityUnits,omitempty"`
	WriteCapacityUnits *float64 `json:"WriteCapacityUnits,omitempty"`
}

// consumedJSON is DynamoDB's ConsumedCapacity.
type consumedJSON struct {
	TableName              string               `json:"TableName"`
	CapacityUnits          float64              `json:"CapacityUnits"`
	ReadCapacityUnits      *float64             `json:"ReadCapacityUnits,omitempty"`
	WriteCapacityUnits     *float64             `json:"WriteCapacityUnits,omitempty"`
	Table                  *unitsJSON           `json:"Table,omitempty"`
	GlobalSecondaryIndexes map[string]unitsJSON `json:"GlobalSecondaryIndexes,omitempty"`
	LocalSecondaryIndexes  map[string]unitsJSON `json:"LocalSecondaryIndexes,omitempty"`
}

// checkCapacityMode refuses a ReturnConsumedCapacity DynamoDB does not
// know.
func checkCapacityMode(mode ddbtypes.ReturnConsumedCapacity) error {
	switch mode {
	case "", ddbtypes.ReturnConsumedCapacityNone, ddbtypes.ReturnConsumedCapacityTotal, ddbtypes.ReturnConsumedCapacityIndexes:
		return nil
	}

	return validation("1 validation error detected: Value '%s' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]", mode)
}

// consumption accumulates what one request consumes of one table and its
// indexes.
type consumption struct {
	table      string
	write      bool
	units      float64
	gsis, lsis map[string]float64
}

func newConsumption(table string, write bool) *consumption {
	return &consumption{table: table, write: write, gsis: map[string]float64{}, lsis: map[string]float64{}}
}

func unitsOf(bytes int64, per int64) float64 {
	return math.Max(1, math.Ceil(float64(bytes)/float64(per)))
}

// addItemRead charges a read of one item (GetItem, BatchGetItem,
// TransactGetItems: factor 2).
func (c *consumption) addItemRead(item map[string]*types.Item, consistent bool, factor float64) {
	u := unitsOf(int64(types.ItemSize(item)), readUnitBytes) * factor
	if !consistent {
		u /= 2
	}

	c.units += u
}

// addSearch charges a Query's or Scan's page, read from index ("" for
// the table).
func (c *consumption) addSearch(t *core.Table, index string, bytes int64, consistent bool) {
	u := unitsOf(bytes, readUnitBytes)
	if !consistent || t.IsGlobal(index) {
		u /= 2
	}

	switch {
	case index == "":
		c.units += u
	case t.IsGlobal(index):
		c.gsis[index] += u
	default:
		c.lsis[index] += u
	}
}

// addWrite charges a committed (or prepared) write to the table and the
// indexes it changes; factor is 2 in a transaction.
func (c *consumption) addWrite(w *core.Write, factor float64) {
	c.units += unitsOf(int64(max(types.ItemSize(w.Old), types.ItemSize(w.New))), writeUnitBytes) * factor

	for _, iw := range w.IndexWrites() {
		u := float64(iw.Units) * factor
		if iw.Global {
			c.gsis[iw.Name] += u
		} else {
			c.lsis[iw.Name] += u
		}
	}
}

func (c *consumption) units1(u float64) unitsJSON {
	out := unitsJSON{CapacityUnits: u}
	if c.write {
		out.WriteCapacityUnits = &u
	} else {
		out.ReadCapacityUnits = &u
	}

	return out
}

// report is the ConsumedCapacity mode asks for (nil: none).
func (c *consumption) report(mode ddbtypes.ReturnConsumedCapacity) *consumedJSON {
	if mode != ddbtypes.ReturnConsumedCapacityTotal && mode != ddbtypes.ReturnConsumedCapacityIndexes {
		return nil
	}

	total := c.units

	for _, u := range c.gsis {
		total += u
	}

	for _, u := range c.lsis {
		total += u
	}

	all := c.units1(total)
	out := &consumedJSON{TableName: c.table, CapacityUnits: total, ReadCapacityUnits: all.ReadCapacityUnits, WriteCapacityUnits: all.WriteCapacityUnits}

	if mode == ddbtypes.ReturnConsumedCapacityIndexes {
		// A read of an index alone is the index's: no Table share then.
		if c.units > 0 || len(c.gsis)+len(c.lsis) == 0 {
			t := c.units1(c.units)
			out.Table = &t
		}

		out.GlobalSecondaryIndexes = c.indexUnits(c.gsis)
		out.LocalSecondaryIndexes = c.indexUnits(c.lsis)
	}

	return out
}

func (c *consumption) indexUnits(m map[string]float64) map[string]unitsJSON {
	if len(m) == 0 {
		return nil
	}

	out := map[string]unitsJSON{}
	for name, u := range m {
		out[name] = c.units1(u)
	}

	return out
}

// consumptions are a multi-table request's, per table.
type consumptions map[string]*consumption

func (cs consumptions) of(table string, write bool) *consumption {
	c := cs[table]
	if c == nil {
		c = newConsumption(table, write)
		cs[table] = c
	}

	return c
}

// report is the list mode asks for, in table name order (nil: none).
func (cs consumptions) report(mode ddbtypes.ReturnConsumedCapacity) []consumedJSON {
	if mode != ddbtypes.ReturnConsumedCapacityTotal && mode != ddbtypes.ReturnConsumedCapacityIndexes {
		return nil
	}

	out := []consumedJSON{}

	for _, name := range slices.Sorted(maps.Keys(cs)) {
		out = append(out, *cs[name].report(mode))
	}

	return out
}
