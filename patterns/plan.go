package patterns

import (
	"fmt"
	"slices"
	"sort"
)

// Plan derives the design of a valid model: base keys from ids and item
// collections, the fewest overloaded GSIs it can find (with the lower bound
// beside the count), sparse keys, projections, and how each pattern is
// served. A model with hand-made keys is checked instead of designed.
// Findings (unservable patterns, limits) are Diagnostics, not errors; the
// error is for an unusable model and matches [ErrInvalidModel].
func Plan(m *Model) (*Design, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	d := &Design{Table: m.Table, Source: m.Source, Explicit: m.Explicit(), PK: TablePK, SK: TableSK, model: m,
		Indexes: []*Index{}, Diagnostics: []Diagnostic{}}
	var ly *layout
	if d.Explicit {
		ly = explicitLayout(m)
		d.LowerBound = lowerBound(m, planShapes(m, ly, m.Patterns))
	} else {
		ly = designLayout(m)
		shapes := planShapes(m, ly, m.Patterns)
		d.LowerBound = lowerBound(m, shapes)
		n := color(shapes, d.LowerBound)
		for i := range n {
			ly.indexes = append(ly.indexes, gsiName(i))
		}
		for _, s := range shapes {
			for _, e := range s.entities {
				ly.keys[e] = append(ly.keys[e], s.key(m, e, gsiName(s.index)))
			}
		}
	}
	for _, e := range m.Entities {
		keys := ly.keys[e.Name]
		sort.SliceStable(keys, func(i, j int) bool {
			return slices.Index(ly.indexes, keys[i].Index) < slices.Index(ly.indexes, keys[j].Index)
		})
		d.Entities = append(d.Entities, &EntityKeys{Name: e.Name, Tag: Tag(e.Name), Keys: keys})
		if a := e.TTLAttr(); a != nil && d.TTL == "" {
			d.TTL = a.Name
		}
	}
	for _, p := range m.Patterns {
		d.Patterns = append(d.Patterns, ly.serve(p))
	}
	for _, name := range ly.indexes[1:] {
		ix := &Index{Name: name}
		ix.PK, ix.SK = IndexKeyNames(name)
		for _, e := range m.Entities {
			if ly.key(e.Name, name) != nil {
				ix.Entities = append(ix.Entities, e.Name)
			}
		}
		ix.Projection, ix.NonKeyAttributes = projection(d, ix)
		d.Indexes = append(d.Indexes, ix)
	}
	d.Diagnostics = append(d.Diagnostics, Check(d)...)
	d.Cost = EstimateCost(d)
	return d, nil
}

func gsiName(i int) string { return fmt.Sprintf("GSI%d", i+1) }

// planShapes lists the GSI shapes that those of pats the base table cannot
// serve need, given the layout's base keys.
func planShapes(m *Model, ly *layout, pats []*Pattern) []*shape {
	base := &layout{m: m, indexes: []string{Table}, keys: map[string][]*EntityKey{}}
	for e, keys := range ly.keys {
		for _, k := range keys {
			if k.Index == Table {
				base.keys[e] = []*EntityKey{k}
			}
		}
	}
	single := map[string][]*requirement{}
	var coupled []*requirement
	for _, p := range pats {
		if plan := base.serve(p); plan.Served() {
			continue
		}
		r := newRequirement(m, p)
		if len(p.Entities) == 1 {
			single[p.Entities[0]] = append(single[p.Entities[0]], r)
		} else {
			coupled = append(coupled, r)
		}
	}
	var shapes []*shape
	for _, e := range m.Entities {
		shapes = append(shapes, singleShapes(single[e.Name])...)
	}
	shapes = append(shapes, coupledShapes(m, coupled)...)
	// Order shapes by their first pattern, so GSI numbering follows the model.
	first := func(s *shape) int {
		i := len(m.Patterns)
		for _, r := range s.reqs {
			i = min(i, slices.Index(m.Patterns, r.pattern))
		}
		return i
	}
	sort.SliceStable(shapes, func(i, j int) bool { return first(shapes[i]) < first(shapes[j]) })
	return shapes
}

// explicitLayout reads the model's hand-made keys (validated already).
func explicitLayout(m *Model) *layout {
	ly := &layout{m: m, indexes: []string{Table}, keys: map[string][]*EntityKey{}}
	for _, e := range m.Entities {
		for _, ks := range e.Keys {
			pk, _ := ParseTemplate(ks.PK)
			var sk Template
			if ks.SK != "" {
				sk, _ = ParseTemplate(ks.SK)
			}
			ly.keys[e.Name] = append(ly.keys[e.Name], &EntityKey{Index: ks.Index, PK: pk, SK: sk})
			if !slices.Contains(ly.indexes, ks.Index) {
				ly.indexes = append(ly.indexes, ks.Index)
			}
		}
	}
	sort.SliceStable(ly.indexes[1:], func(i, j int) bool { return ly.indexes[1+i] < ly.indexes[1+j] })
	return ly
}

// designLayout chooses every entity's base key. Each item collection (a
// root entity and everything within it) shares the root's partition key,
// a prefix of the root's id; each entity's sort key is its tag followed by
// the rest of its id in the order that serves most of its patterns. Among
// the partition choices it keeps the one needing the fewest GSI shapes,
// then the finest partition.
func designLayout(m *Model) *layout {
	ly := &layout{m: m, indexes: []string{Table}, keys: map[string][]*EntityKey{}}
	root := map[string]string{}
	for _, e := range m.Entities {
		r := e
		for r.Within != "" {
			r = m.Entity(r.Within)
		}
		root[e.Name] = r.Name
	}
	for _, r := range m.Entities {
		if r.Within != "" {
			continue
		}
		var tree []*Entity
		for _, e := range m.Entities {
			if root[e.Name] == r.Name {
				tree = append(tree, e)
			}
		}
		var best map[string]*EntityKey
		var bestScore [2]int
		for k := len(r.ID); k >= 1; k-- {
			pkAttrs := r.ID[:k]
			ok := true
			for _, e := range tree {
				ok = ok && subset(pkAttrs, attrNamesOf(e))
			}
			if !ok {
				continue
			}
			pk := Template{}.lit(Tag(r.Name))
			for _, a := range pkAttrs {
				pk = pk.lit(string(Sep)).attr(a)
			}
			for _, nest := range []bool{false, true} {
				keys := treeKeys(m, tree, pk, pkAttrs, nest)
				if keys == nil {
					continue
				}
				trial := &layout{m: m, indexes: []string{Table}, keys: map[string][]*EntityKey{}}
				for n, k := range keys {
					trial.keys[n] = []*EntityKey{k}
				}
				score := treeScore(m, trial, tree, touching(m, tree))
				if best == nil || score[0] < bestScore[0] || score[0] == bestScore[0] && score[1] < bestScore[1] {
					best, bestScore = keys, score
				}
			}
		}
		for n, k := range best {
			ly.keys[n] = []*EntityKey{k}
		}
	}
	return ly
}

func attrNamesOf(e *Entity) []string {
	out := make([]string, len(e.Attributes))
	for i, a := range e.Attributes {
		out[i] = a.Name
	}
	return out
}

// touching lists the patterns that read any of the entities.
func touching(m *Model, tree []*Entity) []*Pattern {
	var out []*Pattern
	for _, p := range m.Patterns {
		for _, e := range tree {
			if slices.Contains(p.Entities, e.Name) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// treeScore is (the most shapes one tree entity needs, the total).
func treeScore(m *Model, ly *layout, tree []*Entity, pats []*Pattern) [2]int {
	shapes := planShapes(m, ly, pats)
	var score [2]int
	for _, e := range tree {
		n := 0
		for _, s := range shapes {
			if slices.Contains(s.entities, e.Name) {
				n++
			}
		}
		score[0] = max(score[0], n)
		score[1] += n
	}
	return score
}

// treeKeys gives every entity of an item collection its base key. Flat:
// each sort key is the entity's tag and the rest of its id. Nested: a child
// that a collection pattern reads together with its parent extends the
// parent's sort key, so the parent and its children form one key range
// (Room ROOM, Member ROOM#MEMBER#{userId}); nil when nesting changes nothing.
func treeKeys(m *Model, tree []*Entity, pk Template, pkAttrs []string, nest bool) map[string]*EntityKey {
	keys := map[string]*EntityKey{}
	nested := false
	var place func(e *Entity) *EntityKey
	place = func(e *Entity) *EntityKey {
		if k, ok := keys[e.Name]; ok {
			return k
		}
		var prefix Template
		used := pkAttrs
		if parent := m.Entity(e.Within); nest && parent != nil && readTogether(m, e.Name, parent.Name) {
			pkey := place(parent)
			if subset(pkey.SK.Attrs(), e.ID) {
				prefix = pkey.SK.lit(string(Sep))
				used = append(append([]string(nil), pkAttrs...), pkey.SK.Attrs()...)
				nested = true
			}
		}
		keys[e.Name] = bestSortKey(m, e, pk, used, prefix)
		return keys[e.Name]
	}
	for _, e := range tree {
		place(e)
	}
	if nest && !nested {
		return nil
	}
	return keys
}

// readTogether reports whether a collection pattern reads both entities.
func readTogether(m *Model, a, b string) bool {
	for _, p := range m.Patterns {
		if len(p.Entities) > 1 && slices.Contains(p.Entities, a) && slices.Contains(p.Entities, b) {
			return true
		}
	}
	return false
}

// bestSortKey orders the rest of the entity's id in its sort key, after
// prefix and its tag, so that the base table serves as many of its
// single-entity patterns as it can.
func bestSortKey(m *Model, e *Entity, pk Template, used []string, prefix Template) *EntityKey {
	rest := minus(e.ID, used)
	orders := [][]string{rest}
	if len(rest) > 1 && len(rest) <= 4 {
		orders = permutations(rest)
	}
	var best *EntityKey
	bestServed := -1
	for _, order := range orders {
		sk := prefix.lit(Tag(e.Name))
		for _, a := range order {
			sk = sk.lit(string(Sep)).attr(a)
		}
		k := &EntityKey{Index: Table, PK: pk, SK: sk}
		ly := &layout{m: m, indexes: []string{Table}, keys: map[string][]*EntityKey{e.Name: {k}}}
		served := 0
		for _, p := range m.Patterns {
			if len(p.Entities) == 1 && p.Entities[0] == e.Name && ly.serve(p).Served() {
				served++
			}
		}
		if served > bestServed {
			best, bestServed = k, served
		}
	}
	return best
}

func permutations(s []string) [][]string {
	if len(s) <= 1 {
		return [][]string{append([]string(nil), s...)}
	}
	var out [][]string
	for i := range s {
		rest := append(append([]string(nil), s[:i]...), s[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{s[i]}, p...))
		}
	}
	return out
}

// projection is KEYS_ONLY when no pattern on the index needs more than its
// keys, INCLUDE with the union of what patterns return, ALL when a pattern
// needs whole items. Attributes that keys hold decode from the keys.
func projection(d *Design, ix *Index) (Projection, []string) {
	var include []string
	for _, pp := range d.Patterns {
		if pp.Index != ix.Name {
			continue
		}
		p := d.model.Pattern(pp.Name)
		if len(p.Returns) == 0 {
			return ProjectAll, nil
		}
		for _, name := range pp.Entities {
			ek := d.Entity(name)
			var keyed []string
			for _, k := range []*EntityKey{ek.Key(Table), ek.Key(ix.Name)} {
				if k != nil {
					keyed = append(append(keyed, k.PK.Attrs()...), k.SK.Attrs()...)
				}
			}
			e := d.model.Entity(name)
			for _, a := range p.Returns {
				if e.Attr(a) != nil && !slices.Contains(keyed, a) && !slices.Contains(include, a) {
					include = append(include, a)
				}
			}
		}
	}
	if len(include) == 0 {
		return ProjectKeysOnly, nil
	}
	sort.Strings(include)
	return ProjectInclude, include
}
