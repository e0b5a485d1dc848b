package patterns

import (
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Serving a collection read: several entities on one partition, their
// sort keys one contiguous key range that holds no other entity's items.

// overlap names an entity outside self whose items on index the condition
// could also read.
func (ly *layout) overlap(index string, pk model.Template, kc *KeyCondition, self []string) string {
	for _, e := range ly.entitiesOn(index, pk) {
		if slices.Contains(self, e.Name) {
			continue
		}
		ek := ly.key(e.Name, index)
		if ek == nil || !ek.PK.MayEqual(pk) {
			continue
		}
		switch kc.SKOp {
		case "", "begins_with":
			if ek.SK.MayStartWith(kc.SK) {
				return e.Name
			}
		case SKEqual:
			if ek.SK.MayEqual(kc.SK) {
				return e.Name
			}
		}
	}
	return ""
}

// multi serves an item-collection query: all entities share the partition
// key, and their sort keys form one contiguous range holding no other
// entity's items.
func (ly *layout) multi(p *model.Pattern, index string) (*PatternPlan, string) {
	k := derive(ly.m, p).known
	var pk, base model.Template
	var first *model.Entity
	var consumed attrSet
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
			consumed.add(c.Attr)
		}
		epk := ly.subst(ek.PK, e, k)
		for _, a := range epk.Attrs() {
			if !k.has(a) {
				return nil, ly.why("the partition key %s needs %s in where", ek.PK, a)
			}
			consumed.add(a)
		}
		var walked attrSet
		_, keyed, _ := skWalk(ek.SK, k, &walked)
		eb := ly.subst(ek.SK[:keyed], e, k)
		if i == 0 {
			pk, base, first = epk, eb, e
			continue
		}
		if !epk.Equal(pk) {
			return nil, ly.why("%s and %s do not share a partition (%s vs %s)", first.Name, name, pk, epk)
		}
		// The members' sort keys share what they start with: a partition
		// of the collection's entities alone needs no sort-key condition
		// (GAME#{gameId} holding #METADATA#{gameId} and USER#{username}).
		base = base.CommonPrefix(eb)
	}
	// The condition applies the known attributes of the shared prefix
	// only: one a member's key holds past it would need a filter.
	for _, a := range base.Attrs() {
		consumed.add(a)
	}
	if r := ly.leftover(k, consumed, &EntityKey{PK: pk, SK: base}); r != "" {
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
		rest model.Template
	}
	var visible []member
	outside := false
	for _, e := range ly.entitiesOn(index, pk) {
		ek := ly.key(e.Name, index)
		if ek == nil || !ek.PK.MayEqual(pk) || !ek.SK.MayStartWith(base) {
			continue
		}
		v := member{name: e.Name, in: slices.Contains(p.Entities, e.Name)}
		outside = outside || !v.in
		if rest, ok := ly.subst(ek.SK, e, k).Cut(base); ok {
			v.rest = rest
			v.r, v.ok = regionOf(rest)
		}
		visible = append(visible, v)
	}
	ownerAbove := false
	if sorted := ly.m.SortedMember(p); sorted != "" {
		// The sorted member's items in the order of its sort attributes,
		// every other member's before them or after them.
		var s *member
		for i := range visible {
			if visible[i].name == sorted {
				s = &visible[i]
			}
		}
		if s == nil || !s.ok || s.r.point || len(s.rest.Attrs()) < len(p.Sort) || !slices.Equal(s.rest.Attrs()[:len(p.Sort)], p.Sort) {
			return nil, ly.why("%s's sort key does not order it by %s after a constant", sorted, strings.Join(p.Sort, ", "))
		}
		// The owner at either end: below every sorted item, or above
		// them all (SITE# above POST#: read descending, the owner first).
		for _, v := range visible {
			if !v.in || v.name == sorted {
				continue
			}
			switch {
			case v.ok && v.r.hi < s.r.lo:
			case v.ok && v.r.lo > s.r.hi:
				ownerAbove = true
			default:
				return nil, ly.why("%s's items do not sort before or after all of %s's (a sorted collection reads its owner at one end)", v.name, sorted)
			}
		}
	}
	// A prefix that ends in a value (FOLDER#{folderId}) also starts the
	// keys of a longer value (folder ab's for a): the members' keys must
	// go on with the separator, and the condition stops there.
	value := len(base) > 0 && base[len(base)-1].Attr != ""
	if !outside && !value {
		if len(base) > 0 {
			kc.SKOp, kc.SK = SKBeginsWith, base
		}
		pl := ly.multiPlan(p, index, kc, pk)
		pl.ownerAbove = ownerAbove
		return pl, ""
	}
	var leads []string
	lo, hi, any := "", "", false
	for _, v := range visible {
		if !v.ok {
			return nil, ly.why("%s's sort key does not start with a constant ending in '#', so its items cannot be told apart by range", v.name)
		}
		if value && v.r.lead != "" && v.r.lead[0] != model.Sep {
			return nil, ly.why("%s's sort key goes on after %s with %q, not the separator '#': the keys of a longer %s that starts the same sort among the collection's", v.name, base, v.r.lead, base[len(base)-1].Attr)
		}
		if v.in {
			leads = append(leads, v.r.lead)
			if !any || v.r.lo < lo {
				lo, any = v.r.lo, true // a member ending at the prefix has lo ""
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
		kc.SKOp, kc.SK = SKBeginsWith, base.Lit(prefix)
	case between:
		kc.SKOp, kc.SK, kc.Upper = SKBetween, base.Lit(lo), base.Lit(hi)
	default:
		var others []string
		for _, v := range visible {
			if !v.in {
				others = append(others, v.name)
			}
		}
		return nil, ly.why("%s items sort among the collection's in this partition; no one key range reads the collection without them", strings.Join(others, ", "))
	}
	pl := ly.multiPlan(p, index, kc, pk)
	pl.ownerAbove = ownerAbove
	return pl, ""
}

// region is the range of sort-key text an entity's items take: one point
// (a constant sort key), or every key starting with lead (a constant ending
// in the separator, then values), which all lie in [lead, lead-with-'$').
type region struct {
	lead, lo, hi string
	point        bool
}

func regionOf(rest model.Template) (region, bool) {
	lead := ""
	for i, s := range rest {
		if s.Lit == "" {
			if !strings.HasSuffix(lead, string(model.Sep)) {
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
func (ly *layout) multiPlan(p *model.Pattern, index string, kc *KeyCondition, pk model.Template) *PatternPlan {
	plan := ly.plan(p, index, kc, pk)
	for _, name := range p.Entities {
		plan.keys = append(plan.keys, ly.key(name, index))
	}
	return plan
}
