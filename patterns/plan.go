package patterns

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Plan derives the design of a valid model: base keys, the fewest
// overloaded GSIs the search finds (with the lower bounds beside the
// count), sparse keys, projections, and how each pattern is served. A
// model with hand-made keys is checked instead of designed. Findings
// (unservable patterns, limits) are Diagnostics, not errors; the error is
// for an unusable model and matches [ErrInvalidModel].
func Plan(m *model.Model) (*Design, error) { return PlanWith(m, Options{}) }

// Options tune planning.
type Options struct {
	// Budget bounds the search's steps (fits and verifications).
	// Default: DefaultBudget.
	Budget int
	// Lock is the design the table is deployed with (Lock.Latest of the
	// model's lock): the plan keeps what it can of it (stable planning).
	// Default: none, plan from scratch.
	Lock *Design
	// IndexKeys overrides the model's indexKeys (native.go): a test of
	// the synthetic keys' machinery plans synthetic, and keyplan plans
	// synthetic for an engine without native keys. Default: the model's.
	IndexKeys model.IndexKeys
}

// PlanWith is Plan with options.
func PlanWith(m *model.Model, o Options) (*Design, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if len(m.Tables) > 0 {
		return nil, &model.Error{File: m.Source, Pos: m.PosOf("tables"), Field: "tables", Msg: fmt.Sprintf("the model declares %d tables (%s): plan each of Model.Tables, or OpenTables its file", len(m.Tables), strings.Join(m.TableNames(), ", "))}
	}
	memoize(m)
	var pn *pins
	if o.Lock != nil && o.Lock.Model() != nil && !m.Explicit() {
		// Pins change the model (encodings, tags): plan a copy.
		m = m.Clone()
		pn = pin(m, o.Lock)
		if err := m.Validate(); err != nil {
			return nil, err
		}
		memoize(m)
	}
	d := &Design{Format: DesignFormat, Table: m.Table, Source: m.Source, Explicit: m.Explicit(), PK: model.TablePK, SK: model.TableSK, model: m,
		Indexes: []*Index{}, Diagnostics: []Diagnostic{}, deployed: o.Lock}
	pl := newPlanner(m, o)
	pl.pins = pn
	d.Bounds = lowerBounds(m, distinct(pl.reqs, false))
	d.LowerBound = d.Bounds.Cool
	var ly *layout
	var keying map[string]*keyChoice
	if d.Explicit {
		ly = explicitLayout(m)
	} else {
		ly = pl.design()
		mode := m.Keying()
		if o.IndexKeys != "" {
			mode = o.IndexKeys
		}
		keying = nativize(m, ly, pn, mode)
		d.indexKeys = mode
		d.Search = SearchComplete
		if pl.cut {
			d.Search = SearchCut
		}
	}
	for _, name := range entityNames(m) {
		e := m.Entity(name)
		keys := ly.keys[e.Name]
		sort.SliceStable(keys, func(i, j int) bool {
			return slices.Index(ly.indexes, keys[i].Index) < slices.Index(ly.indexes, keys[j].Index)
		})
		d.Entities = append(d.Entities, &EntityKeys{Name: e.Name, Tag: model.TagOf(e), Keys: keys, Counters: counterKeys(e)})
		if a := e.TTLAttr(); a != nil && d.TTL == "" {
			d.TTL = a.Name
		}
	}
	for _, p := range patternsByName(m) {
		d.Patterns = append(d.Patterns, ly.serve(p))
	}
	for _, name := range ly.indexes[1:] {
		ix := &Index{Name: name}
		ix.PK, ix.SK = model.IndexKeyNames(name)
		if ly.local[name] {
			ix.Kind = IndexLocal
			ix.PK, ix.SK = LocalKeyNames(name)
		}
		for _, e := range d.Entities {
			if ly.key(e.Name, name) != nil {
				ix.Entities = append(ix.Entities, e.Name)
			}
		}
		if ix.Local() {
			d.LocalIndexes = append(d.LocalIndexes, ix)
		} else {
			d.Indexes = append(d.Indexes, ix)
		}
	}
	d.index()
	applyKeying(d, keying)
	d.LocalChoices = localChoices(d, ly, pn)
	for _, ix := range append(slices.Clip(d.Indexes), d.LocalIndexes...) {
		if locked := pn.projectionOf(ix.Name); locked != nil {
			ix.Projection, ix.NonKeyAttributes = locked.Projection, locked.NonKeyAttributes
			continue
		}
		ix.Projection, ix.NonKeyAttributes = projection(d, ix)
	}
	d.Cost = EstimateCost(d) // before the checks: KP407 reads it
	d.Diagnostics = append(d.Diagnostics, Check(d)...)
	return d, nil
}

// patternsByName lists the patterns sorted by name: the order of the
// model file never changes a plan.
func patternsByName(m *model.Model) []*model.Pattern {
	out := slices.Clone(m.Patterns)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func newPlanner(m *model.Model, o Options) *planner {
	pl := &planner{m: m, steps: o.Budget, single: map[string][]*req{}, fits: map[fitKey]fitResult{}, updates: updateSteps(m)}
	if pl.steps <= 0 {
		pl.steps = DefaultBudget
	}
	for _, p := range patternsByName(m) {
		if m.CounterRead(p) != "" {
			continue // its counter's shard items, not a key of the layout
		}
		r := newReq(m, p)
		r.id = len(pl.reqs)
		pl.reqs = append(pl.reqs, r)
	}
	// The search looks at one requirement of each kind: the others are
	// served by the same keys.
	pl.search1 = distinct(pl.reqs, true)
	for _, r := range pl.search1 {
		if !r.multi {
			pl.single[r.ents[0]] = append(pl.single[r.ents[0]], r)
		}
	}
	return pl
}

// design searches every group, then lays their GSIs side by side: the
// i-th GSI of each group shares one overloaded GSI (groups never share an
// entity). GSIs are named by their content in canonical order, and keys
// no pattern reads are dropped.
func (pl *planner) design() *layout {
	m := pl.m
	ly := &layout{m: m, indexes: []string{model.BaseIndex}, keys: map[string][]*EntityKey{}}
	// The lock's GSIs keep their names, keys and projections; new shapes
	// of entities there join them.
	nl := pl.locked()
	if pl.pins != nil {
		ly.proj = map[string]*Index{}
		for _, ix := range pl.pins.gsis {
			ly.indexes = append(ly.indexes, ix.Name)
			ly.proj[ix.Name] = ix
			for _, e := range entityNames(m) {
				ly.keys[e] = append(ly.keys[e], pl.pins.keys[ix.Name][e]...)
			}
		}
	}
	pl.pinLocal(ly)
	var merged, mergedLocal []map[string][]*EntityKey
	for _, gp := range pl.searchAll(pl.groups()) {
		if gp == nil {
			continue
		}
		pl.cut = pl.cut || gp.cut
		for e, k := range gp.base {
			ly.keys[e] = append([]*EntityKey{k}, ly.keys[e]...)
		}
		mergedLocal = pl.mergeLocal(ly, gp, mergedLocal)
		for gi := range min(nl, len(gp.gsis)) {
			for e, ks := range gp.gsis[gi] {
				ly.keys[e] = append(ly.keys[e], ks...)
			}
		}
		var fresh []map[string][]*EntityKey
		if len(gp.gsis) > nl {
			fresh = gp.gsis[nl:]
		}
		for i, keys := range heaviestFirst(m, fresh) {
			if i == len(merged) {
				merged = append(merged, map[string][]*EntityKey{})
			}
			for e, ks := range keys {
				merged[i][e] = append(merged[i][e], ks...)
			}
		}
	}
	// Canonical order: by the GSI's keys as text.
	sig := func(keys map[string][]*EntityKey) string {
		var parts []string
		for _, e := range slices.Sorted(maps.Keys(keys)) {
			for _, k := range keys[e] {
				parts = append(parts, e+":"+k.PK.String()+"/"+k.SK.String())
			}
		}
		return strings.Join(parts, "|")
	}
	sort.SliceStable(merged, func(i, j int) bool { return sig(merged[i]) < sig(merged[j]) })
	sort.SliceStable(mergedLocal, func(i, j int) bool { return sig(mergedLocal[i]) < sig(mergedLocal[j]) })
	pl.nameLocal(ly, mergedLocal)
	names := pl.pins.nextGSINames(len(merged))
	for i, keys := range merged {
		name := names[i]
		ly.indexes = append(ly.indexes, name)
		for _, e := range slices.Sorted(maps.Keys(keys)) {
			for _, k := range keys[e] {
				c := *k
				c.Index = name
				ly.keys[e] = append(ly.keys[e], &c)
			}
		}
	}
	return pl.prune(ly)
}

// heaviestFirst orders a group's GSIs by the projection their patterns
// need (whole items first), so that GSIs laid side by side across groups
// tend to need the same projection.
func heaviestFirst(m *model.Model, gsis []map[string][]*EntityKey) []map[string][]*EntityKey {
	whole := map[string]int{} // entity -> patterns reading its whole items
	for _, p := range m.Patterns {
		if len(p.Returns) == 0 {
			for _, e := range p.Entities {
				whole[e]++
			}
		}
	}
	type weighted struct {
		keys map[string][]*EntityKey
		w    int
	}
	ws := make([]weighted, len(gsis))
	for i, keys := range gsis {
		ws[i].keys = keys
		for e := range keys {
			ws[i].w += whole[e]
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].w > ws[j].w })
	out := make([]map[string][]*EntityKey, len(ws))
	for i, x := range ws {
		out[i] = x.keys
	}
	return out
}

// prune drops GSI keys no pattern is served by, and GSIs left empty
// (renaming the rest in order): a key nobody reads costs a write on every
// item.
func (pl *planner) prune(ly *layout) *layout {
	for {
		used := map[*EntityKey]bool{}
		for _, p := range pl.m.Patterns {
			for _, k := range ly.serve(p).keys {
				used[k] = true
			}
		}
		dropped := false
		for e, ks := range ly.keys {
			var keep []*EntityKey
			for _, k := range ks {
				if k.Index == model.BaseIndex || used[k] || pl.pins.lockedLocalKey(e, k) {
					keep = append(keep, k)
				} else {
					dropped = true
				}
			}
			ly.keys[e] = keep
		}
		ly.on, ly.keysOn, ly.byPK = nil, nil, nil
		if !dropped {
			break
		}
	}
	// Drop empty GSIs and rename the rest GSI1…GSIn in order.
	var live []string
	for _, ix := range ly.indexes[1:] {
		if pl.pins.lockedLocal(ix) {
			live = append(live, ix) // an LSI stays with the table
			continue
		}
		for _, ks := range ly.keys {
			if slices.ContainsFunc(ks, func(k *EntityKey) bool { return k.Index == ix }) {
				live = append(live, ix)
				break
			}
		}
	}
	// GSIs are named GSI1…GSIn in order; a lock's keep their names, and
	// new ones come after them.
	rename := map[string]string{}
	fresh, freshLocal := 0, 0
	for _, ix := range live {
		switch {
		case pl.pins.lockedIndex(ix) || pl.pins.lockedLocal(ix):
			rename[ix] = ix
		case ly.local[ix]:
			freshLocal++
		default:
			fresh++
		}
	}
	next, nextLocal := pl.pins.nextGSINames(fresh), pl.nextLSINames(freshLocal)
	for _, ix := range live {
		if _, ok := rename[ix]; ok {
			continue
		}
		if ly.local[ix] {
			rename[ix], nextLocal = nextLocal[0], nextLocal[1:]
		} else {
			rename[ix], next = next[0], next[1:]
		}
	}
	out := &layout{m: ly.m, indexes: []string{model.BaseIndex}, keys: map[string][]*EntityKey{}, proj: ly.proj}
	for _, ix := range live {
		out.indexes = append(out.indexes, rename[ix])
		if ly.local[ix] {
			if out.local == nil {
				out.local = map[string]bool{}
			}
			out.local[rename[ix]] = true
		}
	}
	for e, ks := range ly.keys {
		for _, k := range ks {
			c := *k
			if k.Index != model.BaseIndex {
				c.Index = rename[k.Index]
			}
			out.keys[e] = append(out.keys[e], &c)
		}
	}
	return out
}

// explicitLayout reads the model's hand-made keys (validated already).
func explicitLayout(m *model.Model) *layout {
	ly := &layout{m: m, indexes: []string{model.BaseIndex}, keys: map[string][]*EntityKey{}, local: explicitLocal(m)}
	for _, e := range m.Entities {
		var table string
		for _, ks := range e.Keys {
			if ks.Index == model.BaseIndex {
				table = ks.PK
			}
		}
		for _, ks := range e.Keys {
			text := ks.PK
			if ks.Local && text == "" {
				text = table // an LSI's partition key is the table's
			}
			pk, _ := model.ParseTemplate(text)
			var sk model.Template
			if ks.SK != "" {
				sk, _ = model.ParseTemplate(ks.SK)
			}
			ly.keys[e.Name] = append(ly.keys[e.Name], &EntityKey{Index: ks.Index, PK: pk, SK: sk, When: slices.Clone(ks.When)})
			if !slices.Contains(ly.indexes, ks.Index) {
				ly.indexes = append(ly.indexes, ks.Index)
			}
		}
	}
	orderIndexes(ly)
	return ly
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
		if len(p.Returns) == 0 && !p.Count {
			return ProjectAll, nil
		}
		for _, name := range pp.Entities {
			ek := d.Entity(name)
			var keyed []string
			for _, k := range []*EntityKey{ek.Key(model.BaseIndex), ek.Key(ix.Name)} {
				if k != nil {
					keyed = append(append(keyed, k.PK.Attrs()...), k.SK.Attrs()...)
				}
			}
			e := d.model.Entity(name)
			for _, a := range ReadNeeds(p, pp) {
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
