package patterns

import (
	"slices"
	"sort"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Rendering shapes as key templates. A partition key starts with its
// owner's tag, then each partition attribute: an attribute of the owner's
// id as #{a}, any other labelled #A#{a} (ORDER#STATUS#{status}), a filter
// constant that every requirement on the key fixes to one value as its
// encoded value (ORDER#STATUS#PENDING, and the key is sparse on it), and
// the shard last. A sort key starts with the entity's tag (after a nesting
// prefix), then the sort attributes, then the rest of the id.

// pkOrder puts partition attributes in canonical order: the owner's id
// attributes in id order, then the others by name.
func pkOrder(owner *model.Entity, pk []string) []string {
	var out []string
	for _, a := range owner.ID {
		if slices.Contains(pk, a) {
			out = append(out, a)
		}
	}
	rest := minus(pk, owner.ID)
	sort.Strings(rest)
	return append(out, rest...)
}

// sparseConsts are the partition attributes every requirement on a key
// fixes to the same constant (and none asks for by where): the key renders
// them as values and holds only such items.
func sparseConsts(pk []string, rs []*req) []model.Const {
	var out []model.Const
	for _, a := range pk {
		v, ok := "", true
		for i, r := range rs {
			c, fixed := r.consts[a]
			if !fixed || i > 0 && c != v {
				ok = false
				break
			}
			v = c
		}
		if ok && len(rs) > 0 {
			out = append(out, model.Const{Attr: a, Value: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Attr < out[j].Attr })
	return out
}

// renderPK is a partition key template.
func renderPK(owner, e *model.Entity, pk []string, sparse []model.Const, shards int) model.Template {
	t := model.Template{}.Lit(model.TagOf(owner))
	for _, a := range pkOrder(owner, pk) {
		if slices.ContainsFunc(sparse, func(c model.Const) bool { return c.Attr == a }) {
			continue
		}
		if owner.IsID(a) {
			t = t.Lit(string(model.Sep)).Attr(a)
		} else {
			t = t.Lit(string(model.Sep) + strings.ToUpper(a) + string(model.Sep)).Attr(a)
		}
	}
	for _, c := range sparse {
		enc, _ := e.Attr(c.Attr).EncodeKey(c.Value)
		t = t.Lit(string(model.Sep) + strings.ToUpper(c.Attr) + string(model.Sep) + enc)
	}
	if shards > 1 {
		t = append(t.Lit(string(model.Sep)), model.Segment{Shards: shards})
	}
	return t
}

// renderSK is a sort key template: prefix (a parent's sort key and the
// separator, for a nested child), the entity's tag, the sort attributes,
// the rest of the id.
func renderSK(e *model.Entity, prefix model.Template, pk, sk []string) model.Template {
	t := prefix.Lit(model.TagOf(e))
	for _, a := range sk {
		t = t.Lit(string(model.Sep)).Attr(a)
	}
	for _, id := range e.ID {
		if !slices.Contains(pk, id) && !slices.Contains(sk, id) && !slices.Contains(prefix.Attrs(), id) {
			t = t.Lit(string(model.Sep)).Attr(id)
		}
	}
	return t
}

// renderKey renders a shape for entity e on an index, sparse on what the
// requirements it serves all fix; below keeps a sorted collection's owner
// below its items whatever the reads' order (sortedPrefix).
func renderKey(m *model.Model, e *model.Entity, k akey, rs []*req, index string, below bool) *EntityKey {
	owner := m.Entity(k.owner)
	sparse := sparseConsts(k.pk, rs)
	return &EntityKey{Index: index, PK: renderPK(owner, e, k.pk, sparse, k.shards), SK: renderSK(e, sortedPrefix(owner, e, rs, below), k.pk, k.sk), When: sparse}
}

// sortedPrefix is what leads the sort key of a sorted collection's
// ordered member. Nested under its owner's tag (POST#COMMENT#{createdAt}…,
// the post's POST), the owner sorts before every one of its items,
// whatever the tags: read ascending, it comes first. When more of the
// limited reads the shape serves are descending (ownerFirst), the member
// sorts below its owner instead (underOwner), so that they read it first
// too; below keeps the nested form regardless.
func sortedPrefix(owner, e *model.Entity, rs []*req, below bool) model.Template {
	if owner == nil || owner == e || !slices.ContainsFunc(rs, func(r *req) bool { return r.multi && r.sorted == e.Name }) {
		return nil
	}
	if !below && ownerFirst(e, rs) {
		if pre, ok := underOwner(model.TagOf(owner), e); ok {
			return pre
		}
	}
	return model.Template{}.Lit(model.TagOf(owner) + string(model.Sep))
}
