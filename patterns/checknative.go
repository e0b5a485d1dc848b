package patterns

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// The checks of native GSI keys (native.go): what DynamoDB takes of a
// multi-attribute key, on the design's native indexes; and, with
// indexKeys: native, each GSI the planner had to leave synthetic, with
// the reason.

// notNative finds the GSIs left synthetic for a reason of the given kind
// although the model asks for native keys.
func notNative(d *Design, limit nativeLimit) []finding {
	if d.indexKeys != model.IndexKeysNative {
		return nil
	}
	var out []finding
	for _, c := range d.Keying {
		if !c.Native && c.limit == limit {
			out = append(out, finding{Subject{SubjectIndex, c.Index}, d.model.IndexKeysPos,
				fmt.Sprintf("indexKeys: native, but %s cannot be: %s", c.Index, strings.TrimPrefix(c.Why, "synthetic: ")),
				"change the patterns it serves, or drop indexKeys: native (auto keys this index with synthetic strings, the others natively)"})
		}
	}
	return out
}

// KP210: DynamoDB takes at most four attributes for a GSI's partition
// key and four for its sort key.
func ruleNativeWidth(d *Design) []finding {
	var out []finding
	for _, ix := range d.Indexes {
		if !ix.Native() {
			continue
		}
		for _, side := range []struct {
			name  string
			attrs []string
		}{{"partition", ix.PartitionKeys}, {"sort", ix.SortKeys}} {
			if len(side.attrs) > model.MaxKeyAttributes {
				out = append(out, finding{Subject{SubjectIndex, ix.Name}, d.model.Pos,
					fmt.Sprintf("native index %s's %s key has %d attributes (%s); DynamoDB takes at most %d", ix.Name, side.name, len(side.attrs), strings.Join(side.attrs, ", "), model.MaxKeyAttributes),
					"key the index on fewer attributes, or synthetic (indexKeys: synthetic)"})
			}
		}
	}
	return append(out, notNative(d, nativeTooWide)...)
}

// KP211: a native key attribute is a string, number or binary, and of one
// type wherever the table's items carry it: DynamoDB refuses the write of
// any item whose attribute has another type than the index's definition.
func ruleNativeTypes(d *Design) []finding {
	var out []finding
	for _, ix := range d.Indexes {
		if !ix.Native() {
			continue
		}
		for i, a := range ix.KeyAttributes() {
			if i == 0 && ix.Discriminated() {
				continue
			}
			types := keyTypes(d.model, a)
			var parts []string
			for _, t := range slices.Sorted(maps.Keys(types)) {
				parts = append(parts, fmt.Sprintf("%s on %s", model.DynamoNoun(t), strings.Join(types[t], ", ")))
			}
			_, s := types["S"]
			_, n := types["N"]
			_, b := types["B"]
			if len(types) == 1 && (s || n || b) {
				continue
			}
			out = append(out, finding{Subject{SubjectIndex, ix.Name}, d.model.Pos,
				fmt.Sprintf("native index %s is keyed on %s, which is %s; a key attribute is one of string, number or binary across the table", ix.Name, a, strings.Join(parts, " but ")),
				fmt.Sprintf("declare %s with one scalar type in every entity, or key the index synthetic (indexKeys: synthetic)", a)})
		}
	}
	return append(out, notNative(d, nativeBadType)...)
}

// KP212: a native index is read with every partition attribute by
// equality, then equalities on its leading sort attributes and a range
// (or the order) on the next one only: nothing the pattern fixes may be
// left out of the key condition, and no collection reads it.
func ruleNativeConditions(d *Design) []finding {
	var out []finding
	for _, pp := range d.Patterns {
		ix := d.Index(pp.Index)
		p := d.model.Pattern(pp.Name)
		if ix == nil || !ix.Native() || !pp.Served() || p == nil {
			continue
		}
		if len(pp.Entities) != 1 {
			out = append(out, finding{pattern(p), p.Pos,
				fmt.Sprintf("it reads %s together from native index %s; a native key holds one entity's attributes, not a collection's order", strings.Join(pp.Entities, ", "), ix.Name),
				"key the index synthetic (indexKeys: synthetic)"})
			continue
		}
		if why := nativeConditionFault(d.model, p, pp, ix); why != "" {
			out = append(out, finding{pattern(p), p.Pos, fmt.Sprintf("native index %s cannot serve it: %s", ix.Name, why),
				"read it from an index whose sort attributes put its equalities first and its sort attribute next"})
		}
	}
	return append(out, notNative(d, nativeBadShape)...)
}

// nativeConditionFault says why a pattern's key condition on a native
// index is not one DynamoDB runs ("" when it is).
func nativeConditionFault(m *model.Model, p *model.Pattern, pp *PatternPlan, ix *Index) string {
	ek := pp.Entities[0]
	c := nativeCondition(m, p, ix, model.TagOf(m.Entity(ek)))
	for _, t := range c.Partition {
		if t.Param == "" && t.Value == "" {
			return fmt.Sprintf("its partition attribute %s is not given (where or filter)", t.Attr)
		}
	}
	if s := p.SortAttr(); s != "" && c.SortAttr != s {
		next := "none"
		if len(c.Sort) < len(ix.SortKeys) {
			next = ix.SortKeys[len(c.Sort)]
		}
		return fmt.Sprintf("it ranges over %s, but after the equalities given the next sort attribute is %s (a range only on the last sort attribute used)", s, next)
	}
	used := map[string]bool{}
	for _, t := range append(slices.Clone(c.Partition), c.Sort...) {
		used[t.Attr] = true
	}
	k := derive(m, p).known
	var left []string
	for _, a := range slices.Sorted(maps.Keys(k.eq)) {
		if !used[a] && !slices.Contains(pp.Verify, a) {
			left = append(left, a)
		}
	}
	for _, a := range slices.Sorted(maps.Keys(k.consts)) {
		if !used[a] && !slices.Contains(pp.Verify, a) {
			left = append(left, a)
		}
	}
	if len(left) > 0 {
		return fmt.Sprintf("it fixes %s, which the key condition cannot hold (sort attributes are matched left to right, by equality before the last one used)", strings.Join(left, ", "))
	}
	return ""
}
