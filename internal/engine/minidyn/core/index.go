package core

import (
	"maps"
	"slices"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

type indexType string

const (
	indexTypeGlobal indexType = "global"
	indexTypeLocal  indexType = "local"
)

// Projection types of a secondary index.
const (
	ProjectionAll      = "ALL"
	ProjectionKeysOnly = "KEYS_ONLY"
	ProjectionInclude  = "INCLUDE"
)

// index is a secondary index: its entries, in index key order, point at
// the items that hold its key attributes (an item without them, or with
// one of another type, is not in the index: a sparse index).
type index struct {
	name       string
	keySchema  keySchema
	typ        indexType
	projection *types.Projection
	Table      *Table
	// entries maps an entry key (index key, entrySeparator, primary key)
	// to the item's primary key; byItem maps a primary key to its entry.
	entries orderedMap[string]
	byItem  map[string]string
}

func newIndex(t *Table, name string, typ indexType, ks keySchema, projection *types.Projection) *index {
	return &index{
		name:       name,
		keySchema:  ks,
		typ:        typ,
		projection: projection,
		Table:      t,
		byItem:     map[string]string{},
	}
}

// entryKey is the item's entry in the index, ok false when the item is not
// in it.
func (i *index) entryKey(pk string, item map[string]*types.Item) (string, bool) {
	if item == nil {
		return "", false
	}

	ik, ok := i.keySchema.encode(i.Table.AttributesDef, item)
	if !ok {
		return "", false
	}

	return ik + entrySeparator + pk, true
}

// put indexes the item stored under pk (nil: deleted), replacing its
// previous entry.
func (i *index) put(pk string, item map[string]*types.Item) {
	ek, ok := i.entryKey(pk, item)

	old, had := i.byItem[pk]
	if had && ok && old == ek {
		// An item rewritten with the same index key keeps its entry.
		return
	}

	if had {
		i.entries.Delete(old)
		delete(i.byItem, pk)
	}

	if ok {
		i.entries.Set(ek, pk)
		i.byItem[pk] = ek
	}
}

func (i *index) clear() {
	i.entries = orderedMap[string]{}
	i.byItem = map[string]string{}
}

func (i *index) count() int64 { return int64(i.entries.Len()) }

func (i *index) projectionType() string {
	if i.projection == nil || i.projection.ProjectionType == nil {
		return ProjectionAll
	}

	return *i.projection.ProjectionType
}

// Projects reports whether the index holds attribute name of its items.
func (i *index) Projects(name string) bool {
	switch i.projectionType() {
	case ProjectionAll:
		return true
	case ProjectionInclude:
		if slices.ContainsFunc(i.projection.NonKeyAttributes, func(a *string) bool { return a != nil && *a == name }) {
			return true
		}
	}

	return slices.Contains(i.Table.KeySchema.attributes(), name) || slices.Contains(i.keySchema.attributes(), name)
}

// project is the part of item the index holds.
func (i *index) project(item map[string]*types.Item) map[string]*types.Item {
	if i.projectionType() == ProjectionAll {
		return item
	}

	out := map[string]*types.Item{}

	for name, v := range item {
		if i.Projects(name) {
			out[name] = v
		}
	}

	return out
}

// ProjectsAll reports whether the index holds its items whole.
func (i *index) ProjectsAll() bool { return i.projectionType() == ProjectionAll }

// KeyNames are the index's partition and sort key attributes, in order.
func (i *index) KeyNames() (hash, rng []string) { return i.keySchema.Hash, i.keySchema.Range }

// indexable reports whether item's values can be the index's keys: each
// of its key attributes of the defined type, not empty, within the key
// size limits (an item lacking one is left out anyway).
func (i *index) indexable(item map[string]*types.Item) bool {
	for _, a := range i.keySchema.attributes() {
		v, ok := item[a]
		if !ok {
			continue
		}

		if types.TypeOf(v) != i.Table.AttributesDef[a] {
			return false
		}

		n := keyValueBytes(v)
		if n == 0 && types.TypeOf(v) != types.TypeN || checkKeySize(i.keySchema.isRange(a), n) != nil {
			return false
		}
	}

	return true
}

// IndexWrite is what a write costs one secondary index: a unit per KB of
// each entry it puts or removes.
type IndexWrite struct {
	Name   string
	Global bool
	Units  int
}

// IndexWrites is what the write costs each secondary index, in index name
// order, as DynamoDB charges it: an entry added or removed is a unit per
// KB of it, a changed index key both (removed and added), a changed
// projection of the same key one, an index whose entry neither had nor
// gets, or whose entry does not change, nothing.
func (w *Write) IndexWrites() []IndexWrite {
	var out []IndexWrite

	for _, name := range slices.Sorted(maps.Keys(w.Table.Indexes)) {
		i := w.Table.Indexes[name]
		oldKey, hadOld := i.entryKey(w.Key, w.Old)
		newKey, hasNew := i.entryKey(w.Key, w.New)

		var oldEntry, newEntry map[string]*types.Item
		if hadOld {
			oldEntry = i.project(w.Old)
		}

		if hasNew {
			newEntry = i.project(w.New)
		}

		units := 0

		switch {
		case hadOld && hasNew && oldKey == newKey:
			if !types.Equal(&types.Item{M: oldEntry}, &types.Item{M: newEntry}) {
				units = entryUnits(newEntry)
			}
		default:
			if hadOld {
				units += entryUnits(oldEntry)
			}

			if hasNew {
				units += entryUnits(newEntry)
			}
		}

		if units > 0 {
			out = append(out, IndexWrite{Name: name, Global: i.typ == indexTypeGlobal, Units: units})
		}
	}

	return out
}

func entryUnits(entry map[string]*types.Item) int {
	return max(1, (types.ItemSize(entry)+1023)/1024)
}
