package patterns

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// layout is a set of entity keys over indexes: what the matcher proves
// patterns against, both for designed and for hand-made layouts.
type layout struct {
	m       *Model
	indexes []string // Table first, then GSIs
	keys    map[string][]*EntityKey
}

// keyNames are an index's key attribute names.
func (ly *layout) keyNames(index string) (pk, sk string) {
	if index == Table {
		return TablePK, TableSK
	}
	return IndexKeyNames(index)
}

func (ly *layout) key(entity, index string) *EntityKey {
	for _, k := range ly.keys[entity] {
		if k.Index == index {
			return k
		}
	}
	return nil
}

// whereOf returns the pattern's equality attributes.
func whereOf(m *Model, p *Pattern) []string { return m.Where(p) }

// serve finds the first index (base table first) that serves p in one
// request, or says for each index why it does not.
func (ly *layout) serve(p *Pattern) *PatternPlan {
	var reasons []string
	for _, ix := range ly.indexes {
		plan, reason := ly.serveOn(p, ix)
		if plan != nil {
			return plan
		}
		if reason != "" {
			reasons = append(reasons, ix+": "+reason)
		}
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "no index holds keys for "+strings.Join(p.Entities, ", "))
	}
	return &PatternPlan{Name: p.Name, Entities: p.Entities, Operation: Scan, Index: Table, Limit: p.Limit,
		Consistent: p.Consistent, Reason: strings.Join(reasons, "; "), scan: !ly.addressable(p)}
}

// addressable reports whether some index's partition key, for every entity
// the pattern reads, is given by the pattern: otherwise only a Scan finds
// the items.
func (ly *layout) addressable(p *Pattern) bool {
	k := knownOf(ly.m, p)
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

func knownOf(m *Model, p *Pattern) known {
	k := known{eq: map[string]bool{}, consts: map[string]string{}}
	for _, a := range whereOf(m, p) {
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
func (ly *layout) subst(t Template, e *Entity, k known) Template {
	var out Template
	for _, s := range t {
		if v, ok := k.consts[s.Attr]; ok && s.Attr != "" {
			if a := e.Attr(s.Attr); a != nil {
				if enc, err := a.EncodeKey(v); err == nil {
					out = out.lit(enc)
					continue
				}
			}
		}
		if s.Lit != "" {
			out = out.lit(s.Lit)
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
func skWalk(sk Template, k known, consumed map[string]bool) (prefix Template, keyed int, next string) {
	for i, s := range sk {
		if s.Attr != "" && !k.has(s.Attr) {
			return sk[:i], keyed, s.Attr
		}
		if s.Attr != "" {
			consumed[s.Attr] = true
			keyed = i + 1
		}
	}
	return sk, keyed, ""
}

func (ly *layout) serveOn(p *Pattern, index string) (*PatternPlan, string) {
	if len(p.Entities) == 1 {
		return ly.single(p, index)
	}
	return ly.multi(p, index)
}

func (ly *layout) checkWhen(ek *EntityKey, k known) string {
	for _, c := range ek.When {
		if v, ok := k.consts[c.Attr]; !ok || v != c.Value {
			return fmt.Sprintf("it holds only items with %s=%s; add filter {%s: %s} to read it", c.Attr, c.Value, c.Attr, c.Value)
		}
	}
	return ""
}

// single serves a one-entity pattern with the entity's key on index (of
// several sparse keys on exclusive constants, the one it reads).
func (ly *layout) single(p *Pattern, index string) (*PatternPlan, string) {
	var reasons []string
	for _, ek := range ly.keys[p.Entities[0]] {
		if ek.Index != index {
			continue
		}
		plan, reason := ly.singleKey(p, index, ek)
		if plan != nil {
			return plan, ""
		}
		reasons = append(reasons, reason)
	}
	return nil, strings.Join(reasons, "; ")
}

func (ly *layout) singleKey(p *Pattern, index string, ek *EntityKey) (*PatternPlan, string) {
	e := ly.m.Entity(p.Entities[0])
	k := knownOf(ly.m, p)
	if r := ly.checkWhen(ek, k); r != "" {
		return nil, r
	}
	consumed := map[string]bool{}
	for _, c := range ek.When {
		consumed[c.Attr] = true
	}
	for _, a := range ek.PK.Attrs() {
		if !k.has(a) {
			return nil, fmt.Sprintf("its partition key %s needs %s in where", ek.PK, a)
		}
		consumed[a] = true
	}
	prefix, _, next := skWalk(ek.SK, k, consumed)
	var verify []string
	if r := leftover(k, consumed, ek); r != "" {
		// A get that knows the whole key, and the key holds the whole id,
		// reads at most one item: its other attributes are verified on it.
		if p.Op != OpGet || next != "" || !subset(e.ID, append(ek.PK.Attrs(), ek.SK.Attrs()...)) {
			return nil, r
		}
		verify = unconsumed(k, consumed)
	}
	if len(p.Sort) > 0 {
		after := ek.SK[len(prefix):].Attrs()
		if len(after) < len(p.Sort) || !slices.Equal(after[:len(p.Sort)], p.Sort) {
			return nil, fmt.Sprintf("its sort key %s does not order by %s after the equality attributes", ek.SK, strings.Join(p.Sort, ", "))
		}
	}
	full := next == ""
	if index == Table && p.Op == OpGet && !full {
		return nil, fmt.Sprintf("GetItem needs the whole sort key %s, but %s is not in where", ek.SK, next)
	}
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
		return nil, fmt.Sprintf("the key condition %s would also read %s items", kc.Render(ly.keyNames(index)), other)
	}
	// A prefix that is only the entity's tag adds nothing when no other
	// entity can share the partition: drop it (SK stays, for range bounds).
	if kc.SKOp == SKBeginsWith && len(kc.SK.Attrs()) == 0 && ly.overlap(index, kc.PK, &KeyCondition{PK: kc.PK}, []string{e.Name}) == "" {
		kc.SKOp = SKNone
	}
	plan := ly.plan(p, index, kc, ek.PK)
	plan.Verify = verify
	plan.keys = []*EntityKey{ek}
	return plan, ""
}

// unconsumed lists the known attributes a key does not hold, sorted.
func unconsumed(k known, consumed map[string]bool) []string {
	var out []string
	for a := range k.eq {
		if !consumed[a] {
			out = append(out, a)
		}
	}
	for a := range k.consts {
		if !consumed[a] && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// leftover reports equality attributes or constants the key cannot apply.
func leftover(k known, consumed map[string]bool, ek *EntityKey) string {
	extra := unconsumed(k, consumed)
	if len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf("%s would need a FilterExpression: key %s / %s does not lead with it", strings.Join(extra, ", "), ek.PK, ek.SK)
}

func (ly *layout) plan(p *Pattern, index string, kc *KeyCondition, pk Template) *PatternPlan {
	// A get served by the base table has its whole key (single refuses it
	// otherwise): GetItem. Everything else is one Query.
	op := Query
	if index == Table && p.Op == OpGet {
		op = GetItem
	}
	requests := 1
	if n := pk.Shards(); n > 0 {
		requests = n
	}
	pn, sn := ly.keyNames(index)
	return &PatternPlan{
		Name: p.Name, Entities: p.Entities, Operation: op, Index: index, KeyCondition: kc,
		Text: kc.Render(pn, sn), Desc: p.Desc, Limit: p.Limit, Consistent: p.Consistent, Requests: requests,
	}
}

// overlap names an entity outside self whose items on index the condition
// could also read.
func (ly *layout) overlap(index string, pk Template, kc *KeyCondition, self []string) string {
	for _, e := range ly.m.Entities {
		if slices.Contains(self, e.Name) || len(ly.keys[e.Name]) == 0 {
			continue
		}
		ek := ly.key(e.Name, index)
		if ek == nil || !ek.PK.mayEqual(pk) {
			continue
		}
		switch kc.SKOp {
		case "", "begins_with":
			if ek.SK.mayStartWith(kc.SK) {
				return e.Name
			}
		case SKEqual:
			if ek.SK.mayEqual(kc.SK) {
				return e.Name
			}
		}
	}
	return ""
}

// multi serves an item-collection query: all entities share the partition
// key, and their sort keys form one contiguous range holding no other
// entity's items.
func (ly *layout) multi(p *Pattern, index string) (*PatternPlan, string) {
	k := knownOf(ly.m, p)
	var pk, base Template
	var first *Entity
	consumed := map[string]bool{}
	for i, name := range p.Entities {
		e := ly.m.Entity(name)
		ek := ly.key(name, index)
		if ek == nil {
			return nil, ""
		}
		if r := ly.checkWhen(ek, k); r != "" {
			return nil, name + ": " + r
		}
		for _, c := range ek.When {
			consumed[c.Attr] = true
		}
		epk := ly.subst(ek.PK, e, k)
		for _, a := range epk.Attrs() {
			if !k.has(a) {
				return nil, fmt.Sprintf("the partition key %s needs %s in where", ek.PK, a)
			}
			consumed[a] = true
		}
		c := map[string]bool{}
		_, keyed, _ := skWalk(ek.SK, k, c)
		eb := ly.subst(ek.SK[:keyed], e, k)
		for a := range c {
			consumed[a] = true
		}
		if i == 0 {
			pk, base, first = epk, eb, e
			continue
		}
		if !epk.Equal(pk) {
			return nil, fmt.Sprintf("%s and %s do not share a partition (%s vs %s)", first.Name, name, pk, epk)
		}
		if !eb.Equal(base) {
			return nil, fmt.Sprintf("%s and %s sort keys do not share the prefix %s", first.Name, name, base)
		}
	}
	if r := leftover(k, consumed, &EntityKey{PK: pk, SK: base}); r != "" {
		return nil, r
	}
	kc := &KeyCondition{PK: pk}
	// Every entity whose items the partition and the base prefix can hold,
	// with the range of sort-key text (after the prefix) its items take.
	type member struct {
		name string
		in   bool
		r    region
		ok   bool
	}
	var visible []member
	outside := false
	for _, e := range ly.m.Entities {
		ek := ly.key(e.Name, index)
		if ek == nil || !ek.PK.mayEqual(pk) || !ek.SK.mayStartWith(base) {
			continue
		}
		v := member{name: e.Name, in: slices.Contains(p.Entities, e.Name)}
		outside = outside || !v.in
		if sk := ly.subst(ek.SK, e, k); len(sk) >= len(base) && sk[:len(base)].Equal(base) {
			v.r, v.ok = regionOf(sk[len(base):])
		}
		visible = append(visible, v)
	}
	if !outside {
		if len(base) > 0 {
			kc.SKOp, kc.SK = SKBeginsWith, base
		}
		return ly.multiPlan(p, index, kc, pk), ""
	}
	var leads []string
	lo, hi := "", ""
	for _, v := range visible {
		if !v.ok {
			return nil, fmt.Sprintf("%s's sort key does not start with a constant ending in '#', so its items cannot be told apart by range", v.name)
		}
		if v.in {
			leads = append(leads, v.r.lead)
			if lo == "" || v.r.lo < lo {
				lo = v.r.lo
			}
			hi = max(hi, v.r.hi)
		}
	}
	// Prefer begins_with(common prefix); else BETWEEN the members' extremes.
	prefix := commonPrefix(leads)
	clean, between := prefix != "", true
	for _, v := range visible {
		if v.in {
			continue
		}
		if v.r.hasPrefixOverlap(prefix) {
			clean = false
		}
		if !(v.r.hi < lo || v.r.lo > hi) {
			between = false
		}
	}
	switch {
	case clean:
		kc.SKOp, kc.SK = SKBeginsWith, base.lit(prefix)
	case between:
		kc.SKOp, kc.SK, kc.Upper = SKBetween, base.lit(lo), base.lit(hi)
	default:
		var others []string
		for _, v := range visible {
			if !v.in {
				others = append(others, v.name)
			}
		}
		return nil, fmt.Sprintf("%s items sort among the collection's in this partition; no one key range reads the collection without them", strings.Join(others, ", "))
	}
	return ly.multiPlan(p, index, kc, pk), ""
}

// region is the range of sort-key text an entity's items take: one point
// (a constant sort key), or every key starting with lead (a constant ending
// in the separator, then values), which all lie in [lead, lead-with-'$').
type region struct {
	lead, lo, hi string
	point        bool
}

func regionOf(rest Template) (region, bool) {
	lead := ""
	for i, s := range rest {
		if s.Lit == "" {
			if !strings.HasSuffix(lead, string(Sep)) {
				return region{}, false
			}
			return region{lead: lead, lo: lead, hi: lead[:len(lead)-1] + "$"}, i > 0
		}
		lead += s.Lit
	}
	return region{lead: lead, lo: lead, hi: lead, point: true}, true
}

// hasPrefixOverlap reports whether begins_with(prefix) could read the region.
func (r region) hasPrefixOverlap(prefix string) bool {
	if r.point {
		return strings.HasPrefix(r.lead, prefix)
	}
	return strings.HasPrefix(r.lead, prefix) || strings.HasPrefix(prefix, r.lead)
}

func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// multiPlan is a collection's plan, with the keys it reads.
func (ly *layout) multiPlan(p *Pattern, index string, kc *KeyCondition, pk Template) *PatternPlan {
	plan := ly.plan(p, index, kc, pk)
	for _, name := range p.Entities {
		plan.keys = append(plan.keys, ly.key(name, index))
	}
	return plan
}
