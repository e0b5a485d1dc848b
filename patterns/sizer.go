package patterns

import (
	"fmt"
	"maps"
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// sizer estimates item sizes and records where it assumed.
type sizer struct {
	// typical takes a value at its size when the model gives one (the
	// cost and the traffic estimates); otherwise (the limits) at its
	// bound.
	typical bool
	assumed map[string]bool
	items   map[string]int // item sizes by entity
	// bounded collects, for the figure being computed, the attributes
	// taken at their maxLength or maxItems (no size given): an upper
	// bound; itemBounded is the same per entity for the cached sizes.
	bounded     map[string]bool
	itemBounded map[string][]string
	// all is every attribute any figure took at its bound.
	all map[string]int
}

// figure starts a figure: what it takes at a bound is collected afresh.
func (z *sizer) figure() { z.bounded = map[string]bool{} }

// bounds are the attributes the figure took at a bound, in order.
func (z *sizer) bounds() []string {
	if len(z.bounded) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(z.bounded))
}

// atBound notes an attribute taken at its bound of n bytes.
func (z *sizer) atBound(e *model.Entity, a *model.Attribute, n int) {
	name := a.Name
	if e != nil {
		name = e.Name + "." + a.Name
	}
	if z.bounded != nil {
		z.bounded[name] = true
	}
	if z.all != nil {
		z.all[name] = n
	}
}

func (z *sizer) value(e *model.Entity, a *model.Attribute) int {
	if a.InS3() && e != nil {
		return model.ObjectKeyBytes(e.Name, a.Name) // the item holds the object's key
	}
	if a.Size > 0 && z.typical {
		return a.Size // typical, as the model says
	}
	switch a.Type {
	case model.TypeSet, model.TypeList, model.TypeMap:
		n := a.MaxItems
		if n == 0 {
			n = model.DefaultElements
			z.assumed[fmt.Sprintf("sets, lists and maps without maxItems hold %d elements", model.DefaultElements)] = true
		}
		el := z.value(nil, a.Element())
		if a.Type == model.TypeMap {
			el += model.DefaultStringBytes // its key
		}
		if a.MaxItems > 0 {
			z.atBound(e, a, 3+n*(el+1))
		}
		return 3 + n*(el+1)
	case model.TypeCounter:
		return 0 // its shard items hold it
	}
	s := a.ScalarType()
	if s == nil {
		s = model.Scalar(model.TypeString) // no type: sized as a string
	}
	return z.scalarSize(e, a, s)
}

func (z *sizer) key(e *model.Entity, t model.Template) int {
	n := 0
	for _, s := range t {
		switch {
		case s.Attr != "":
			n += z.value(e, e.Attr(s.Attr))
		case s.Shards > 0:
			n += model.DecimalLen(int64(s.Shards - 1))
		default:
			n += len(s.Lit)
		}
	}
	return n
}

// item is the size of an entity's item as stored in the base table,
// attributes and every key attribute it carries.
func (z *sizer) item(d *Design, e *model.Entity) int {
	n, ok := z.items[e.Name]
	if !ok {
		outer := z.bounded
		z.bounded = map[string]bool{}
		n = z.itemSize(d, e)
		z.items[e.Name] = n
		if z.itemBounded != nil {
			z.itemBounded[e.Name] = z.bounds()
		}
		z.bounded = outer
	}
	for _, a := range z.itemBounded[e.Name] {
		if z.bounded != nil {
			z.bounded[a] = true
		}
	}
	return n
}

func (z *sizer) itemSize(d *Design, e *model.Entity) int {
	n := 0
	for _, a := range e.Attributes {
		n += len(a.Name) + z.value(e, a)
	}
	for _, k := range d.Entity(e.Name).Keys {
		n += z.keyAttrs(d, e, k, false)
	}
	return n
}

// keyAttrs is the size of the attributes keyplan writes for an entity's
// key: the base table's or a synthetic GSI's key strings, or a native
// index's discriminator (its other key attributes are the item's own,
// counted once; with own, as an index item holds them).
func (z *sizer) keyAttrs(d *Design, e *model.Entity, k *EntityKey, own bool) int {
	ix := d.Index(k.Index)
	if ix != nil && ix.Local() {
		_, sk := d.KeyNames(k.Index) // its partition key is the table's
		return len(sk) + z.key(e, k.SK)
	}
	if ix == nil || !ix.Native() {
		pk, sk := d.KeyNames(k.Index)
		return len(pk) + z.key(e, k.PK) + len(sk) + z.key(e, k.SK)
	}
	n := 0
	for i, a := range ix.KeyAttributes() {
		switch {
		case i == 0 && ix.Discriminated():
			n += len(a) + len(model.TagOf(e))
		case own && e.Attr(a) != nil:
			n += len(a) + z.value(e, e.Attr(a))
		}
	}
	return n
}

// projected is the size of an entity's item in an index: the index keys,
// the table keys, and the projected attributes.
func (z *sizer) projected(d *Design, e *model.Entity, index string) int {
	if index == model.BaseIndex {
		return z.item(d, e)
	}
	ix := d.Index(index)
	if ix.Projection == ProjectAll {
		return z.item(d, e)
	}
	n := 0
	for _, name := range []string{model.BaseIndex, index} {
		if k := d.Entity(e.Name).Key(name); k != nil {
			n += z.keyAttrs(d, e, k, true)
		}
	}
	for _, a := range ix.NonKeyAttributes {
		if attr := e.Attr(a); attr != nil {
			n += len(a) + z.value(e, attr)
		}
	}
	return n
}

// projects reports whether an index copies one of the attributes.
func projects(ix *Index, attrs map[string]bool) bool {
	if ix.Projection == ProjectAll {
		return len(attrs) > 0
	}
	return slices.ContainsFunc(ix.NonKeyAttributes, func(a string) bool { return attrs[a] })
}

// shard is the size of a counter's shard item: its keys and the number.
func (z *sizer) shard(e *model.Entity, ck *CounterKeys) int {
	return len(model.TablePK) + z.key(e, ck.PK) + len(model.TableSK) + model.DecimalLen(int64(ck.Shards)) + len(ck.Attr) + model.DefaultNumberBytes
}

// scalarSize is a scalar's size for the sizer (sizer.go).
func (z *sizer) scalarSize(e *model.Entity, a *model.Attribute, s *model.ScalarType) int {
	n, bound, assumed := s.Size(e, a)
	if assumed != "" {
		z.assumed[assumed] = true
	}
	if bound {
		z.atBound(e, a, n)
	}
	return n
}
