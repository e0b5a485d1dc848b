package dynamo

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Identify tells which entity an item is by its base table keys alone
// (every stream record and every index carries them) and returns the
// values those keys hold. Nothing else of the item is read: an attribute
// stored as NULL, of another type or in another format does not matter.
// Keys of no entity of the design are ErrNotKeyplan.
func (t *Table) Identify(item map[string]types.AttributeValue) (string, Values, error) {
	ek, _, v, err := t.identify(item)
	if err != nil {
		return "", nil, err
	}
	return ek.Name, v, nil
}

// DecodeAttrs adds to v (an item's values, as Identify returns them) the
// attributes named, from the index keys the item carries and its stored
// attributes: an attribute the item lacks is left out, one that does not
// decode is an error naming it. The others are not read.
func (t *Table) DecodeAttrs(entity string, item map[string]types.AttributeValue, v Values, attrs ...string) error {
	e, ek, err := t.entity(entity)
	if err != nil {
		return wrap("DecodeAttrs", entity, err)
	}
	want := make(map[string]bool, len(attrs))
	for _, a := range attrs {
		want[a] = true
	}
	return t.decodeRest(ek, e, item, v, want)
}

// identify finds the entity whose base key templates an item's keys
// match, and the values they hold.
func (t *Table) identify(item map[string]types.AttributeValue) (*patterns.EntityKeys, *model.Entity, Values, error) {
	pk, _ := item[t.d.PK].(*types.AttributeValueMemberS)
	sk, _ := item[t.d.SK].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return nil, nil, nil, wrap("Decode", "item", fmt.Errorf("%w: no %s/%s string keys", ErrNotKeyplan, t.d.PK, t.d.SK))
	}
	if kind, ok := ReservedKind(item, t.d.PK); ok {
		return nil, nil, nil, wrap("Decode", "item", &reservedError{kind: kind, pk: pk.Value})
	}
	for _, ek := range t.d.Entities {
		k := ek.Key(model.BaseIndex)
		e := t.m.Entity(ek.Name)
		v := Values{}
		if parse(e, k.PK, pk.Value, v) && parse(e, k.SK, sk.Value, v) {
			return ek, e, v, nil
		}
	}
	return nil, nil, nil, wrap("Decode", "item", fmt.Errorf("%w: %s=%q %s=%q", ErrNotKeyplan, t.d.PK, pk.Value, t.d.SK, sk.Value))
}

// decodeRest adds to v what an identified item's index keys hold and its
// stored attributes (those want names; nil: all).
func (t *Table) decodeRest(ek *patterns.EntityKeys, e *model.Entity, item map[string]types.AttributeValue, v Values, want map[string]bool) error {
	// Index keys hold more attributes (a KEYS_ONLY or INCLUDE index
	// projects them only there): parse those the item carries.
	for _, ik := range ek.Keys[1:] {
		ipk, isk := t.d.KeyNames(ik.Index)
		p, _ := item[ipk].(*types.AttributeValueMemberS)
		s, _ := item[isk].(*types.AttributeValueMemberS)
		if p != nil && s != nil {
			iv := Values{}
			if parse(e, ik.PK, p.Value, iv) && parse(e, ik.SK, s.Value, iv) {
				for a, x := range iv {
					if want == nil || want[a] {
						v[a] = x
					}
				}
			}
		}
	}
	for _, a := range e.Attributes {
		if want != nil && !want[a.Name] {
			continue
		}
		av, ok := item[a.Name]
		if !ok && a.RenamedFrom != "" {
			// Not yet backfilled to its new name.
			av, ok = item[a.RenamedFrom]
		}
		if !ok {
			continue
		}
		x, err := fromStored(a, av)
		if err != nil {
			return wrap("Decode", ek.Name, err)
		}
		v[a.Name] = x
	}
	return nil
}
