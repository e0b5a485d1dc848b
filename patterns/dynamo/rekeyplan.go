package dynamo

import (
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns/model"
)

// What a migration (patterns/dynamo/migrate) reads of the runtime: the
// keys the rollout runtime gives an item under both designs, and what
// each key is computed from. The backfill makes an item carry what this
// runtime would write for it, so it asks the runtime, never re-derives a
// key.

// KeysOf is every key either design gives an item of entity (the
// target's names) holding v, the target's first: on a table without a
// migration, the design's keys.
func (t *Table) KeysOf(entity string, v Values) (map[string]types.AttributeValue, error) {
	keys, err := t.keysOf(entity, v, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", entity, err)
	}
	if ro := t.rollout; ro != nil {
		if old, ok := ro.entity[entity]; ok {
			prev, err := ro.prev.keysOf(old, Values(ro.toPrev(entity, v)), keys)
			if err != nil {
				return nil, fmt.Errorf("%s (as %s): %w", entity, old, err)
			}
			maps.Copy(keys, prev)
		}
	}
	return keys, nil
}

// Rekeying is how the runtime of a table deployed from a lock keys each
// entity's items under both designs (Table.Rekeying): entities by the
// target's names.
type Rekeying struct {
	// Sources are, per entity and GSI key attribute, the attributes (as
	// an item may name them) its value is computed from, those the item's
	// base key pins left out.
	Sources map[string]map[string][]string
	// Was names, per entity the accepted design also has, its name there.
	Was map[string]string
	// Renamed are, per entity, an attribute's new name → its old name.
	Renamed map[string]map[string]string
	// Keyed are the attributes some key of either design is built from,
	// under either name.
	Keyed []string
}

// Rekeying says how the table's runtime keys each entity's items.
func (t *Table) Rekeying() *Rekeying {
	k := &Rekeying{Sources: map[string]map[string][]string{}, Was: map[string]string{}, Renamed: map[string]map[string]string{}}
	ro := t.rollout
	for _, e := range t.m.Entities {
		src := map[string][]string{}
		// reads adds the attributes (as an item may name them) a key
		// plan's attributes are read from.
		// Attributes the item's base key holds need no condition: the
		// key pins them. Every other one does, immutable ones too: a
		// delete and create, or a Put, changes them under the same key.
		reads := func(p *entityPlan, kp keyPlan, names func(a *model.Attribute) []string) {
			pinned := map[int]bool{}
			for _, b := range p.keys {
				if b.table {
					for _, i := range b.needs {
						pinned[i] = true
					}
				}
			}
			var attrs []string
			for _, i := range kp.needs {
				if !pinned[i] {
					attrs = append(attrs, names(p.e.Attributes[i])...)
				}
			}
			for _, w := range kp.when {
				if !pinned[w.attr] {
					attrs = append(attrs, names(p.e.Attributes[w.attr])...)
				}
			}
			for _, key := range []string{kp.pkName, kp.skName} {
				if key == "" {
					continue // an LSI's partition key: the base key's
				}
				for _, a := range attrs {
					if !slices.Contains(src[key], a) {
						src[key] = append(src[key], a)
					}
				}
			}
		}
		if p := t.plans[e.Name]; p != nil {
			for _, kp := range p.keys {
				if !kp.table {
					reads(p, kp, func(a *model.Attribute) []string {
						if a.RenamedFrom != "" {
							return []string{a.Name, a.RenamedFrom}
						}
						return []string{a.Name}
					})
				}
			}
		}
		if ro != nil {
			if old, ok := ro.entity[e.Name]; ok {
				k.Was[e.Name] = old
				pp := ro.prev.plans[old]
				for _, kp := range pp.keys {
					if !kp.table {
						reads(pp, kp, func(a *model.Attribute) []string { return []string{a.Name} })
					}
				}
				k.Renamed[e.Name] = map[string]string{}
				for n, was := range ro.attrs[e.Name] {
					if n != was {
						k.Renamed[e.Name][n] = was
					}
				}
			}
		}
		k.Sources[e.Name] = src
	}
	tables := []*Table{t}
	if ro != nil {
		tables = append(tables, ro.prev)
	}
	for _, tt := range tables {
		for _, p := range tt.plans {
			for i, a := range p.e.Attributes {
				if p.keyed[i] {
					k.Keyed = append(k.Keyed, a.Name)
					if a.RenamedFrom != "" {
						k.Keyed = append(k.Keyed, a.RenamedFrom)
					}
				}
			}
		}
	}
	return k
}

// ObjectKey is a new key of an object holding entity's attr (store: s3).
func ObjectKey(entity, attr string) string { return newObjectKey(entity, attr) }

// IsObjectKey reports whether s is a key ObjectKey makes for entity's
// attr: a value that is an object's key, not the value itself.
func IsObjectKey(entity, attr, s string) bool { return isObjectKey(entity, attr, s) }

// ObjectBytes is what av holds as bytes (a value or an object's key): an
// S's text or a B's bytes; ok false for another type.
func ObjectBytes(av types.AttributeValue) ([]byte, bool) { return objectBytes(av) }

// HeldKey is the object key av holds for entity's attr (store: s3), or
// "" when it holds a value.
func HeldKey(entity, attr string, av types.AttributeValue) string { return heldKey(entity, attr, av) }

// ObjectMember is b (a value, or an object's key) in a's DynamoDB type:
// B for a binary, S for a string.
func ObjectMember(a *model.Attribute, b []byte) types.AttributeValue { return asMember(a, b) }
