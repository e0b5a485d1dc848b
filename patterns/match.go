package patterns

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// layout is a set of entity keys over indexes: what the matcher proves
// patterns against, both for designed and for hand-made layouts.
type layout struct {
	m       *model.Model
	indexes []string // Table first, then GSIs
	keys    map[string][]*EntityKey
	// on caches, per index and per the literal partition keys start with,
	// the entities with a key there (model order), and keysOn each
	// entity's keys per index; reset both (nil) after changing keys.
	on     map[string]map[string][]*model.Entity
	keysOn map[string]map[string][]*EntityKey
	// byPK caches, per entity and the sorted attributes of a partition
	// key, the positions of the indexes where the entity has such a key
	// (a pattern is looked for only where its equality attributes fill
	// the partition key); reset with keysOn.
	byPK map[string][]int
	// quiet skips writing why an index does not serve a pattern (the
	// search asks only whether it does).
	quiet bool
	// proj holds the GSIs whose projection is fixed (a lock's): a pattern
	// is served there only if the projection holds what it returns.
	proj map[string]*Index
	// local names the indexes that are LSIs (keyed by the table's PK and
	// their own sort key); the others after the table are GSIs.
	local map[string]bool
}

// projects reports whether a fixed projection holds what a plan's pattern
// returns (and verifies): whole items need ALL; named attributes need
// INCLUDE them, unless the keys the read sees hold them.
func (ly *layout) projects(p *model.Pattern, plan *PatternPlan) bool {
	ix := ly.proj[plan.Index]
	if ix == nil || ix.Projection == ProjectAll {
		return true
	}
	if len(p.Returns) == 0 && !p.Count {
		return false
	}
	for _, name := range p.Entities {
		e := ly.m.Entity(name)
		var keyed []string
		for _, k := range []*EntityKey{ly.key(name, model.BaseIndex), ly.key(name, plan.Index)} {
			if k != nil {
				keyed = append(append(keyed, k.PK.Attrs()...), k.SK.Attrs()...)
			}
		}
		for _, a := range ReadNeeds(p, plan) {
			if e.Attr(a) == nil || slices.Contains(keyed, a) || ix.Projection == ProjectInclude && slices.Contains(ix.NonKeyAttributes, a) {
				continue
			}
			return false
		}
	}
	return true
}

// render is a key condition's text: none when quiet (a search's
// candidate plans are never shown).
func (ly *layout) render(kc *KeyCondition, pk, sk string) string {
	if ly.quiet {
		return ""
	}
	return kc.Render(pk, sk)
}

// why says why an index does not serve a pattern: "-" when quiet.
func (ly *layout) why(format string, args ...any) string {
	if ly.quiet {
		return "-"
	}
	return fmt.Sprintf(format, args...)
}

// leadOf is the literal a partition key starts with, up to the first
// separator ("" when it starts with a value): keys with different leads
// never render equal.
func leadOf(t model.Template) string {
	if len(t) == 0 || t[0].Lit == "" {
		return ""
	}
	lit := t[0].Lit
	if i := strings.IndexByte(lit, model.Sep); i >= 0 {
		return lit[:i]
	}
	if len(t) > 1 {
		return "" // a literal glued to a value: no sure lead
	}
	return lit
}

// entitiesOn lists, in model order, the entities with a key on index
// whose partition key may equal pk.
func (ly *layout) entitiesOn(index string, pk model.Template) []*model.Entity {
	if ly.on == nil {
		ly.on = map[string]map[string][]*model.Entity{}
		for _, e := range ly.m.Entities {
			seen := map[string]bool{}
			for _, k := range ly.keys[e.Name] {
				lead := leadOf(k.PK)
				if seen[k.Index+"\x00"+lead] {
					continue
				}
				seen[k.Index+"\x00"+lead] = true
				if ly.on[k.Index] == nil {
					ly.on[k.Index] = map[string][]*model.Entity{}
				}
				ly.on[k.Index][lead] = append(ly.on[k.Index][lead], e)
			}
		}
	}
	byLead := ly.on[index]
	lead := leadOf(pk)
	if lead == "" {
		// A partition key that starts with a value may meet any.
		var all []*model.Entity
		for _, e := range ly.m.Entities {
			for _, es := range byLead {
				if slices.Contains(es, e) {
					all = append(all, e)
					break
				}
			}
		}
		return all
	}
	if len(byLead[""]) == 0 {
		return byLead[lead]
	}
	var out []*model.Entity
	for _, e := range ly.m.Entities {
		if slices.Contains(byLead[lead], e) || slices.Contains(byLead[""], e) {
			out = append(out, e)
		}
	}
	return out
}

// keyNames are an index's key attribute names.
func (ly *layout) keyNames(index string) (pk, sk string) {
	if index == model.BaseIndex {
		return model.TablePK, model.TableSK
	}
	if ly.local[index] {
		return LocalKeyNames(index)
	}
	return model.IndexKeyNames(index)
}

func (ly *layout) key(entity, index string) *EntityKey {
	if ks := ly.keysAt(entity, index); len(ks) > 0 {
		return ks[0]
	}
	return nil
}

// keysAt lists an entity's keys on an index.
func (ly *layout) keysAt(entity, index string) []*EntityKey {
	if ly.keysOn == nil {
		ly.keysOn = map[string]map[string][]*EntityKey{}
		for e, ks := range ly.keys {
			for _, k := range ks {
				if ly.keysOn[k.Index] == nil {
					ly.keysOn[k.Index] = map[string][]*EntityKey{}
				}
				ly.keysOn[k.Index][e] = append(ly.keysOn[k.Index][e], k)
			}
		}
	}
	return ly.keysOn[index][entity]
}

// maxKnownForCandidates bounds the subsets candidates enumerates.
const maxKnownForCandidates = 10

// candidates lists, in index order, the indexes where a one-entity
// pattern's entity has a key whose partition attributes the pattern's
// equality attributes and constants all give: the only ones that can
// serve it.
func (ly *layout) candidates(p *model.Pattern) []string {
	k := derive(ly.m, p).known
	var attrs []string
	for a := range k.eq {
		attrs = append(attrs, a)
	}
	for a := range k.consts {
		if !k.eq[a] {
			attrs = append(attrs, a)
		}
	}
	if len(attrs) > maxKnownForCandidates {
		return ly.indexes
	}
	sort.Strings(attrs)
	if ly.byPK == nil {
		ly.byPK = map[string][]int{}
		for i, ix := range ly.indexes {
			for e, ks := range ly.keysOnIndex(ix) {
				for _, ek := range ks {
					pk := ek.PK.Attrs()
					sort.Strings(pk)
					id := e + "\x00" + strings.Join(pk, "\x00")
					if l := ly.byPK[id]; len(l) == 0 || l[len(l)-1] != i {
						ly.byPK[id] = append(l, i)
					}
				}
			}
		}
	}
	var at []int
	for mask := 0; mask < 1<<len(attrs); mask++ {
		var sub []string
		for j, a := range attrs {
			if mask&(1<<j) != 0 {
				sub = append(sub, a)
			}
		}
		at = append(at, ly.byPK[p.Entities[0]+"\x00"+strings.Join(sub, "\x00")]...)
	}
	sort.Ints(at)
	out := make([]string, 0, len(at))
	for j, i := range at {
		if j == 0 || at[j-1] != i {
			out = append(out, ly.indexes[i])
		}
	}
	return out
}

// keysOnIndex lists each entity's keys on an index.
func (ly *layout) keysOnIndex(index string) map[string][]*EntityKey {
	ly.keysAt("", index) // builds the cache
	return ly.keysOn[index]
}

// serve finds the first index (base table first) that serves p in one
// request, or says for each index why it does not.
//
// Of the indexes that serve it, the first that reads it from a partition
// as spread as its where allows wins; else the first.
func (ly *layout) serve(p *model.Pattern) *PatternPlan {
	if attr := ly.m.CounterRead(p); attr != "" {
		return ly.counterPlan(p, attr)
	}
	if !ly.quiet {
		// Reasons are for patterns nothing serves: look quietly first.
		ly.quiet = true
		plan := ly.serve(p)
		ly.quiet = false
		if plan.Served() {
			pk, sk := ly.keyNames(plan.Index)
			plan.Text = plan.KeyCondition.Render(pk, sk)
			return plan
		}
	}
	var reasons []string
	var first *PatternPlan
	indexes := ly.indexes
	if ly.quiet && len(p.Entities) == 1 && len(indexes) > 4 {
		indexes = ly.candidates(p) // a bounded look among many indexes
	}
	for _, ix := range indexes {
		plan, reason := ly.serveOn(p, ix)
		if plan != nil && !ly.projects(p, plan) {
			plan, reason = nil, ly.why("its projection %s does not hold what the pattern returns", ly.proj[ix].ProjectionText())
		}
		if plan != nil {
			if !ly.hot(p, plan) {
				return plan
			}
			if first == nil {
				first = plan
			}
			continue
		}
		if reason != "" {
			reasons = append(reasons, ix+": "+reason)
		}
	}
	if first != nil {
		return first
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "no index holds keys for "+strings.Join(p.Entities, ", "))
	}
	return &PatternPlan{Name: p.Name, Entities: p.Entities, Operation: Scan, Index: model.BaseIndex, Limit: p.Limit,
		Consistent: p.Consistent, Reason: strings.Join(reasons, "; "), scan: !ly.addressable(p)}
}

// hot reports whether a plan reads the pattern from a partition hotter
// than its own equality attributes need (KP403).
func (ly *layout) hot(p *model.Pattern, plan *PatternPlan) bool {
	if len(plan.keys) == 0 {
		return false
	}
	k := plan.keys[0]
	return introducesHot(ly.m.Entity(p.Entities[0]), derive(ly.m, p).req, k.PK.Attrs(), k.PK.Shards())
}

// addressable reports whether some index's partition key, for every entity
// the pattern reads, is given by the pattern: otherwise only a Scan finds
// the items.
func (ly *layout) addressable(p *model.Pattern) bool {
	k := derive(ly.m, p).known
next:
	for _, ix := range ly.indexes {
		for _, name := range p.Entities {
			ek := ly.key(name, ix)
			if ek == nil {
				continue next
			}
			for _, a := range ek.PK.Attrs() {
				if !k.has(a) {
					continue next
				}
			}
		}
		return true
	}
	return false
}

// known is what a pattern's caller supplies: equality attributes, and
// filter constants with their values.
type known struct {
	eq     map[string]bool
	consts map[string]string
}

func knownOf(m *model.Model, p *model.Pattern) known {
	k := known{eq: map[string]bool{}, consts: map[string]string{}}
	for _, a := range m.Where(p) {
		k.eq[a] = true
	}
	for _, c := range p.Filter {
		k.consts[c.Attr] = c.Value
	}
	return k
}

func (k known) has(a string) bool {
	_, c := k.consts[a]
	return k.eq[a] || c
}

// subst replaces placeholders of filter constants with their encoded values.
func (ly *layout) subst(t model.Template, e *model.Entity, k known) model.Template {
	var out model.Template
	for _, s := range t {
		if v, ok := k.consts[s.Attr]; ok && s.Attr != "" {
			if a := e.Attr(s.Attr); a != nil {
				if enc, err := a.EncodeKey(v); err == nil {
					out = out.Lit(enc)
					continue
				}
			}
		}
		if s.Lit != "" {
			out = out.Lit(s.Lit)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// skWalk consumes the leading sort-key attributes the caller knows. It
// returns the condition prefix (literals up to the first unknown attribute),
// the segment count of the part that holds known attributes, the first
// unknown attribute ("" when the whole key is known) and what was consumed.
func skWalk(sk model.Template, k known, consumed *attrSet) (prefix model.Template, keyed int, next string) {
	for i, s := range sk {
		if s.Attr != "" && !k.has(s.Attr) {
			return sk[:i], keyed, s.Attr
		}
		if s.Attr != "" {
			consumed.add(s.Attr)
			keyed = i + 1
		}
	}
	return sk, keyed, ""
}

func (ly *layout) serveOn(p *model.Pattern, index string) (*PatternPlan, string) {
	if len(p.Entities) == 1 {
		return ly.single(p, index)
	}
	return ly.multi(p, index)
}

func (ly *layout) checkWhen(ek *EntityKey, k known) string {
	for _, c := range ek.When {
		if v, ok := k.consts[c.Attr]; !ok || v != c.Value {
			return ly.why("it holds only items with %s=%s; add filter {%s: %s} to read it", c.Attr, c.Value, c.Attr, c.Value)
		}
	}
	return ""
}

// single serves a one-entity pattern with the entity's key on index (of
// several sparse keys on exclusive constants, the one it reads).
func (ly *layout) single(p *model.Pattern, index string) (*PatternPlan, string) {
	var reasons []string
	for _, ek := range ly.keysAt(p.Entities[0], index) {
		plan, reason := ly.singleKey(p, index, ek)
		if plan != nil {
			return plan, ""
		}
		reasons = append(reasons, reason)
	}
	return nil, strings.Join(reasons, "; ")
}

func (ly *layout) singleKey(p *model.Pattern, index string, ek *EntityKey) (*PatternPlan, string) {
	e := ly.m.Entity(p.Entities[0])
	k := derive(ly.m, p).known
	if r := ly.checkWhen(ek, k); r != "" {
		return nil, r
	}
	var consumed attrSet
	for _, c := range ek.When {
		consumed.add(c.Attr)
	}
	for _, a := range ek.PK.Attrs() {
		if !k.has(a) {
			return nil, ly.why("its partition key %s needs %s in where", ek.PK, a)
		}
		consumed.add(a)
	}
	prefix, _, next := skWalk(ek.SK, k, &consumed)
	var verify []string
	if r := ly.leftover(k, consumed, ek); r != "" {
		// A read that knows the whole key, and the key holds the whole id,
		// reads at most one item: its other attributes are verified on it.
		if len(p.Sort) > 0 || next != "" || !subset(e.ID, append(ek.PK.Attrs(), ek.SK.Attrs()...)) {
			return nil, r
		}
		verify = unconsumed(k, consumed)
	}
	if len(p.Sort) > 0 {
		after := ek.SK[len(prefix):].Attrs()
		if len(after) < len(p.Sort) || !slices.Equal(after[:len(p.Sort)], p.Sort) {
			return nil, ly.why("its sort key %s does not order by %s after the equality attributes", ek.SK, strings.Join(p.Sort, ", "))
		}
	}
	// A get that does not fill the whole key is a Query of the partition
	// (on the base table as on a GSI): one request, its item unique by
	// the pattern's where (KP402 warns when that is not declared).
	full := next == ""
	kc := &KeyCondition{PK: ly.subst(ek.PK, e, k), SortAttr: p.SortAttr()}
	if len(p.Sort) == 1 {
		kc.SortEnds = ek.SK[len(ek.SK)-1].Attr == p.Sort[0]
	}
	switch {
	case full && len(ek.SK) > 0:
		kc.SKOp, kc.SK = SKEqual, ly.subst(prefix, e, k)
	case len(prefix) > 0:
		kc.SKOp, kc.SK = SKBeginsWith, ly.subst(prefix, e, k)
	}
	if other := ly.overlap(index, kc.PK, kc, []string{e.Name}); other != "" {
		return nil, ly.why("the key condition %s would also read %s items", kc.Render(ly.keyNames(index)), other)
	}
	// A prefix that is only the entity's tag adds nothing when no other
	// entity can share the partition: drop it (SK stays, for range bounds).
	if kc.SKOp == SKBeginsWith && len(prefix.Attrs()) == 0 && ly.overlap(index, kc.PK, &KeyCondition{PK: kc.PK}, []string{e.Name}) == "" {
		kc.SKOp = SKNone
	}
	plan := ly.plan(p, index, kc, ek.PK)
	plan.Verify = verify
	plan.keys = []*EntityKey{ek}
	return plan, ""
}

// attrSet is a small set of attribute names (a key holds a few).
type attrSet []string

func (s *attrSet) add(a string) {
	if !slices.Contains(*s, a) {
		*s = append(*s, a)
	}
}

func (s attrSet) has(a string) bool { return slices.Contains(s, a) }

// unconsumed lists the known attributes a key does not hold, sorted.
func unconsumed(k known, consumed attrSet) []string {
	var out []string
	for a := range k.eq {
		if !consumed.has(a) {
			out = append(out, a)
		}
	}
	for a := range k.consts {
		if !consumed.has(a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// leftover reports equality attributes or constants the key cannot apply.
func (ly *layout) leftover(k known, consumed attrSet, ek *EntityKey) string {
	extra := unconsumed(k, consumed)
	if len(extra) == 0 {
		return ""
	}
	return ly.why("%s would need a FilterExpression: key %s / %s does not lead with it", strings.Join(extra, ", "), ek.PK, ek.SK)
}

func (ly *layout) plan(p *model.Pattern, index string, kc *KeyCondition, pk model.Template) *PatternPlan {
	// A get that fills the base table's whole key is a GetItem.
	// Everything else is one Query (a get on part of a key reads the one
	// partition its item is in).
	op := Query
	if index == model.BaseIndex && p.Op == model.ReadGet && kc.SKOp == SKEqual {
		op = GetItem
	}
	requests := 1
	if n := pk.Shards(); n > 0 {
		requests = n
	}
	pn, sn := ly.keyNames(index)
	return &PatternPlan{
		Name: p.Name, Entities: p.Entities, Operation: op, Index: index, KeyCondition: kc,
		Text: ly.render(kc, pn, sn), Desc: p.Desc, Limit: p.Limit, Consistent: p.Consistent, Requests: requests,
		HideExpired: hides(ly.m, p), Count: p.Count, Batch: p.Batch && op == GetItem,
	}
}
