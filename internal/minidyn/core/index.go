package core

import (
	"slices"
	"time"

	"github.com/keyplan/keyplan/internal/minidyn/types"
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
	createdAt  time.Time
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
		createdAt:  time.Now(),
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
