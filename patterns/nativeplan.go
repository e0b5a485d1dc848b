package patterns

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Keying the GSIs (native.go). The search designs synthetic keys; then
// each GSI is keyed natively when that serves every pattern the same way
// (same index, operation and requests) with the same number of GSIs and
// fewer bytes written per item, which is always so when it can be done:
// the objective's order (docs/planner.md) is kept. A locked GSI stays as
// deployed. A GSI stays synthetic, and the plan says why, when:
//   - a key on it is sparse on a constant, or sharded (a native key holds
//     neither);
//   - a collection read uses it, or its entities key it on different
//     attributes (a native index has one key schema);
//   - a key attribute is not a string, number or time, or entities of the
//     table store one name as different DynamoDB types (DynamoDB refuses
//     every item whose attribute has another type than the index's);
//   - it would need more than MaxKeyAttributes on a side.

// keyChoice is the keying of one GSI: native (with its attributes) or not,
// and why.
type keyChoice struct {
	native      bool
	part, sorts []string // the index's attributes, discriminator first
	why         string
	limit       nativeLimit
}

// nativeLimit is the kind of reason a GSI could not be keyed natively:
// the check rule that says so when indexKeys is native.
type nativeLimit int

// The reasons a GSI stays synthetic.
const (
	nativeOK       nativeLimit = iota
	nativeTooWide              // more than MaxKeyAttributes on a side (KP210)
	nativeBadType              // a key attribute of no scalar type, or of two (KP211)
	nativeBadShape             // patterns a native key condition cannot serve as they are (KP212)
)

// nativize keys natively every GSI of ly that can be (with mode auto or
// native) and returns the choices by index. Keys on converted GSIs are
// replaced by their canonical form; the layout is re-served after each
// conversion and a conversion that changes how any pattern is served is
// undone.
func nativize(m *model.Model, ly *layout, pn *pins, mode model.IndexKeys) map[string]*keyChoice {
	out := map[string]*keyChoice{}
	before := map[string]*PatternPlan{}
	for _, p := range m.Patterns {
		before[p.Name] = ly.serve(p)
	}
	for _, ix := range ly.indexes[1:] {
		if ly.local[ix] {
			out[ix] = &keyChoice{why: localKeying}
			continue
		}
		if locked := pn.projectionOf(ix); locked != nil {
			if locked.Native() {
				out[ix] = &keyChoice{native: true, part: locked.PartitionKeys, sorts: locked.SortKeys,
					why: "native, as deployed (the lock)"}
			} else {
				out[ix] = &keyChoice{why: "synthetic, as deployed (the lock): keying it natively is a new index"}
			}
			continue
		}
		if mode == model.IndexKeysSynthetic {
			out[ix] = &keyChoice{why: "synthetic: indexKeys: synthetic"}
			continue
		}
		c, keys := nativeKeys(m, ly, ix, before)
		if c.native {
			saved := ly.keys
			ly.keys = keys
			ly.on, ly.keysOn, ly.byPK = nil, nil, nil
			if p := changedPattern(m, ly, before); p != "" {
				ly.keys = saved
				ly.on, ly.keysOn, ly.byPK = nil, nil, nil
				c = &keyChoice{why: fmt.Sprintf("synthetic: a native key would not serve pattern %s as the synthetic one does", p), limit: nativeBadShape}
			}
		}
		out[ix] = c
	}
	return out
}

// changedPattern names a pattern ly serves otherwise than before ("" when
// none).
func changedPattern(m *model.Model, ly *layout, before map[string]*PatternPlan) string {
	for _, p := range patternsByName(m) {
		got, was := ly.serve(p), before[p.Name]
		if got.Operation != was.Operation || got.Index != was.Index || got.Requests != was.Requests {
			return p.Name
		}
	}
	return ""
}

// nativeKeys works out whether GSI ix can be keyed natively; when it can,
// it returns the choice and the layout's keys with ix's in canonical form.
func nativeKeys(m *model.Model, ly *layout, ix string, before map[string]*PatternPlan) (*keyChoice, map[string][]*EntityKey) {
	no := func(limit nativeLimit, format string, args ...any) (*keyChoice, map[string][]*EntityKey) {
		return &keyChoice{why: "synthetic: " + fmt.Sprintf(format, args...), limit: limit}, nil
	}
	for _, p := range patternsByName(m) {
		if pl := before[p.Name]; pl.Index == ix && len(pl.Entities) > 1 {
			return no(nativeBadShape, "collection read %s reads %s together in one sort order", p.Name, strings.Join(pl.Entities, ", "))
		}
	}
	var ents []string
	var part, sorts []string
	for _, e := range entityNames(m) {
		ks := ly.keysAt(e, ix)
		if len(ks) == 0 {
			continue
		}
		if len(ks) > 1 {
			return no(nativeBadShape, "%s has %d keys on it, sparse on exclusive constants", e, len(ks))
		}
		k := ks[0]
		if len(k.When) > 0 {
			return no(nativeBadShape, "%s's key is sparse on %s=%s (a native key cannot hold a constant)", e, k.When[0].Attr, k.When[0].Value)
		}
		if k.PK.Shards() > 0 || k.SK.Shards() > 0 {
			return no(nativeBadShape, "%s's key is write-sharded", e)
		}
		p, s := k.PK.Attrs(), k.SK.Attrs()
		if len(ents) > 0 && (!slices.Equal(p, part) || !slices.Equal(s, sorts)) {
			return no(nativeBadShape, "%s keys it on (%s / %s) and %s on (%s / %s): a native index has one key schema",
				ents[0], strings.Join(part, ", "), strings.Join(sorts, ", "), e, strings.Join(p, ", "), strings.Join(s, ", "))
		}
		ents, part, sorts = append(ents, e), p, s
	}
	if len(ents) == 0 {
		return no(nativeBadShape, "no entity has a key on it")
	}
	for _, a := range append(slices.Clone(part), sorts...) {
		types := keyTypes(m, a)
		if len(types) > 1 {
			var parts []string
			for _, t := range slices.Sorted(maps.Keys(types)) {
				parts = append(parts, fmt.Sprintf("%s on %s", model.DynamoNoun(t), strings.Join(types[t], ", ")))
			}
			return no(nativeBadType, "attribute %s is stored as %s: a key attribute has one DynamoDB type in the whole table", a, strings.Join(parts, " but "))
		}
		for t := range types {
			if t != "S" && t != "N" && t != "B" {
				return no(nativeBadType, "attribute %s is stored as %s; a key attribute is a string, number or binary", a, model.DynamoNoun(t))
			}
		}
	}
	disc := len(ents) > 1 || len(part) == 0
	var carrier string
	if !disc {
		carrier = carries(m, ents[0], append(slices.Clone(part), sorts...))
		disc = carrier != ""
	}
	full := slices.Clone(part)
	if disc {
		full = append([]string{IndexEntityName(ix)}, part...)
	}
	switch {
	case len(full) > model.MaxKeyAttributes:
		return no(nativeTooWide, "its partition key would take %d attributes (%s); a native key holds at most %d", len(full), strings.Join(full, ", "), model.MaxKeyAttributes)
	case len(sorts) > model.MaxKeyAttributes:
		return no(nativeTooWide, "its sort key would take %d attributes (%s); a native key holds at most %d", len(sorts), strings.Join(sorts, ", "), model.MaxKeyAttributes)
	}
	keys := map[string][]*EntityKey{}
	for e, ks := range ly.keys {
		keys[e] = ks
		if !slices.Contains(ents, e) {
			continue
		}
		keys[e] = nil
		for _, k := range ks {
			if k.Index == ix {
				c := *k
				c.PK, c.SK = nativeTemplates(model.TagOf(m.Entity(e)), disc, part, sorts)
				k = &c
			}
			keys[e] = append(keys[e], k)
		}
	}
	why := fmt.Sprintf("native: keyed on %s's own attributes (%s): no key attribute written per item, and a new index over them needs no backfill",
		strings.Join(ents, ", "), strings.Join(append(slices.Clone(part), sorts...), ", "))
	switch {
	case len(ents) > 1:
		why += fmt.Sprintf("; %s tells %s apart", full[0], strings.Join(ents, " from "))
	case len(part) == 0:
		why += fmt.Sprintf("; %s (the entity's tag) is its partition", full[0])
	case carrier != "":
		why += fmt.Sprintf("; %s keeps out %s, which can carry the same attributes", full[0], carrier)
	}
	return &keyChoice{native: true, part: full, sorts: sorts, why: why}, keys
}

// carries names the entities other than entity that declare every one of
// attrs: their items would land on a native index keyed on attrs alone
// ("" when none).
func carries(m *model.Model, entity string, attrs []string) string {
	var out []string
next:
	for _, e := range m.Entities {
		if e.Name == entity {
			continue
		}
		for _, a := range attrs {
			if e.Attr(a) == nil {
				continue next
			}
		}
		out = append(out, e.Name)
	}
	return strings.Join(out, ", ")
}

// applyKeying records the choices in the design: a native index's
// attributes (and no GSIxPK/GSIxSK), the per-index why, and the native
// text of the patterns native indexes serve.
func applyKeying(d *Design, choices map[string]*keyChoice) {
	for _, ix := range append(slices.Clip(d.Indexes), d.LocalIndexes...) {
		c := choices[ix.Name]
		if c == nil {
			continue
		}
		d.Keying = append(d.Keying, &KeyChoice{Index: ix.Name, Native: c.native, Why: c.why, limit: c.limit})
		if c.native {
			ix.PK, ix.SK = "", ""
			ix.PartitionKeys, ix.SortKeys = c.part, c.sorts
		}
	}
	nativeTexts(d)
}

// nativeTexts renders the key conditions of the patterns native indexes
// serve.
func nativeTexts(d *Design) {
	for _, pp := range d.Patterns {
		if c := d.NativeCondition(pp.Name); c != nil {
			pp.Text = c.Render()
		}
	}
}
