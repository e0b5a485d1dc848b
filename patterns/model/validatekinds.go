package model

import (
	"fmt"
	"slices"
	"strings"
)

// Validating what kinds.go adds to the model: collections, counters and
// derived attributes; hiding expired items, counts, sorted collections
// and counter reads in patterns; aliases, set, list and map changes in
// writes.

// validateKinds checks an entity's sets, lists, maps, counters and
// derived attributes.
func (m *Model) validateKinds(l *errorList, e *Entity) {
	path := "entities." + e.Name + ".attributes."
	for _, a := range e.Attributes {
		ap := path + a.Name
		switch {
		case a.Collection():
			allowed := otherElements
			if a.Type == TypeSet {
				allowed = setElements
			}
			if a.Of != "" && !slices.Contains(allowed, a.Of) {
				l.add(a.Pos, ap+".of", "a %s holds %s, not %s", a.Type, typeList(allowed), a.Of)
			}
		case a.Of != "":
			l.add(a.Pos, ap+".of", "of gives a set's, list's or map's element type; %s is a %s", a.Name, a.Type)
		}
		if a.MaxItems > 0 && !a.Collection() {
			l.add(a.Pos, ap+".maxItems", "maxItems bounds a set, list or map; %s is a %s", a.Name, a.Type)
		}
		switch {
		case a.Type == TypeCounter && a.Shards == 0:
			l.add(a.Pos, ap+".shards", "missing; a counter is spread over shards items (e.g. shards: 10), each added to at random and read as their sum")
		case a.Type != TypeCounter && a.Shards > 0:
			l.add(a.Pos, ap+".shards", "shards spreads a counter; %s is a %s (a pattern's shards write-shard its key)", a.Name, a.Type)
		}
		if !a.Scalar() {
			for _, bad := range []struct {
				set  bool
				what string
			}{{e.IsID(a.Name), "an id"}, {a.Immutable && a.Type == TypeCounter, "immutable"}, {a.Optional && a.Type == TypeCounter, "optional (a counter without shards is 0)"},
				{a.Name == e.Version, "the version"}, {e.Maintained(a.Name), "kept by a stream handler"}, {a.Derived != nil, "derived"}} {
				if bad.set {
					l.add(a.Pos, ap, "a %s cannot be %s", a.Type, bad.what)
				}
			}
		}
		if a.Derived != nil {
			m.validateDerived(l, e, a, ap+".derived")
		}
	}
}

func typeList(ts []AttrType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// validateDerived checks a derived attribute's sources and type.
func (m *Model) validateDerived(l *errorList, e *Entity, a *Attribute, path string) {
	srcs := a.Derived.Sources()
	if len(srcs) == 0 {
		return // reported by the loader
	}
	optional := false
	for _, s := range srcs {
		src := e.Attr(s)
		switch {
		case src == nil:
			l.unknown(a.Pos, path, "attribute of "+e.Name, s, e.AttrNames())
			continue
		case s == a.Name:
			l.add(a.Pos, path, "%s cannot derive from itself", a.Name)
		case src.Derived != nil:
			l.add(a.Pos, path, "%s derives from %s, which is derived itself: derive both from the attributes the caller gives", a.Name, s)
		case !src.Scalar():
			l.add(a.Pos, path, "%s derives from %s, a %s: a derived value is made of scalars", a.Name, s, src.Type)
		case a.Immutable && !e.Fixed(s):
			l.add(a.Pos, path, "%s is immutable but derives from %s, which changes", a.Name, s)
		}
		optional = optional || src.Optional
	}
	single := len(srcs) == 1 && a.Derived.Template == ""
	switch {
	case e.IsID(a.Name):
		l.add(a.Pos, path, "%s is an id: an id is given by the caller, not derived", a.Name)
	case a.Type == TypeNumber && !(single && e.Attr(srcs[0]) != nil && e.Attr(srcs[0]).Type == TypeNumber):
		l.add(a.Pos, path, "a derived number is a copy of one number attribute (from: [n]); a template makes a string")
	case a.Type != TypeString && a.Type != TypeNumber:
		l.add(a.Pos, path, "a derived attribute is a string or a number; %s is a %s", a.Name, a.Type)
	case len(a.Values) > 0:
		l.add(a.Pos, path, "a derived string takes whatever its sources make: drop values")
	case optional && !a.Optional:
		l.add(a.Pos, path, "%s derives from an optional attribute: declare it optional too (it is absent when a source is)", a.Name)
	case !optional && a.Optional:
		l.add(a.Pos, path, "%s derives from required attributes only: it is never absent, drop optional", a.Name)
	}
}

// CollectionOwner is the member of a collection read whose tag leads its
// partition key: the one the collection's equality attributes (where and
// filter) identify (an Order for [Order, OrderItem] by orderId), else the
// first listed.
func (m *Model) CollectionOwner(p *Pattern) string {
	eq := slices.Clone(m.Where(p))
	for _, c := range p.Filter {
		eq = append(eq, c.Attr)
	}
	slices.Sort(eq)
	for _, name := range p.Entities {
		if e := m.Entity(name); e != nil && slices.Equal(slices.Sorted(slices.Values(e.ID)), eq) {
			return name
		}
	}
	return p.Entities[0]
}

// SortedMember is the entity a sorted collection read orders (the one
// that is not its owner); "" for any other pattern.
func (m *Model) SortedMember(p *Pattern) string {
	if len(p.Entities) != 2 || len(p.Sort) == 0 {
		return ""
	}
	owner := m.CollectionOwner(p)
	for _, n := range p.Entities {
		if n != owner {
			return n
		}
	}
	return ""
}

// CounterRead is the sharded counter a pattern reads the sum of ("" for
// any other pattern): a get of one entity by its id that returns only the
// counter.
func (m *Model) CounterRead(p *Pattern) string {
	if len(p.Entities) != 1 || len(p.Returns) != 1 {
		return ""
	}
	if e := m.Entity(p.Entities[0]); e != nil && e.Counter(p.Returns[0]) != nil {
		return p.Returns[0]
	}
	return ""
}

// validatePatternKinds checks what a pattern says about expiry, counts,
// counters and sorted collections.
func (m *Model) validatePatternKinds(l *errorList, p *Pattern, ents []*Entity) {
	path := "patterns." + p.Name
	if p.Expired != "" && !slices.ContainsFunc(ents, func(e *Entity) bool { return e.TTLAttr() != nil }) {
		l.add(p.PosOf("expired"), path+".expired", "expired applies to reads of an entity with a ttl attribute; %s has none", strings.Join(p.Entities, ", "))
	}
	if p.Count {
		switch {
		case p.Op == ReadGet:
			l.add(p.PosOf("count"), path+".count", "count applies to a query (a get reads one item)")
		case len(p.Returns) > 0:
			l.add(p.PosOf("count"), path+".returns", "a count returns a number, not attributes: drop returns")
		case p.Limit > 0:
			l.add(p.PosOf("count"), path+".limit", "a count reads every page: drop limit")
		}
	}
	for _, e := range ents {
		for _, a := range p.Returns {
			if e.Counter(a) == nil {
				continue
			}
			if m.CounterRead(p) == "" || p.Op != ReadGet || len(p.Where) > 0 || len(p.Filter) > 0 || p.Limit > 0 || p.Shards > 0 {
				l.add(p.PosOf("returns"), path+".returns",
					"%s.%s is a sharded counter: its shard items hold it, not the item; read it alone by the item's id ({get: %s, returns: [%s]}: one Query summing its shards)", e.Name, a, e.Name, a)
			}
		}
	}
	if len(p.Sort) > 0 && len(ents) > 1 {
		m.validateSortedCollection(l, p, ents)
	}
}

// validateSortedCollection checks a collection read with sort: its owner
// and one entity ordered by sort (the owner at the start, or at the end
// when descending).
func (m *Model) validateSortedCollection(l *errorList, p *Pattern, ents []*Entity) {
	path := "patterns." + p.Name + ".sort"
	if len(ents) != 2 {
		l.add(p.PosOf("sort"), path, "a sorted collection reads its owner and one entity ordered by sort (%d entities here); read the others with patterns of their own", len(ents))
		return
	}
	owner := m.CollectionOwner(p)
	child := m.Entity(m.SortedMember(p))
	if child == nil {
		return
	}
	for _, a := range p.Sort {
		if child.Attr(a) == nil {
			l.unknown(p.PosOf("sort"), path, "attribute of "+child.Name, a, child.AttrNames())
		} else if slices.Contains(p.Where, a) {
			l.add(p.PosOf("sort"), path, "%q is in where already; sort names the attributes the caller ranges over or orders by", a)
		}
	}
	if child.Name == owner {
		l.add(p.PosOf("sort"), path, "%s cannot be both the collection's owner and the entity it orders", owner)
	}
}

// mapEntry checks a map entry a write sets or removes (prefs.theme):
// false when s names a whole attribute.
func (m *Model) mapEntry(l *errorList, e *Entity, w *Write, field, s, path string, changed map[string]string) bool {
	attr, key, ok := MapPath(s)
	if !ok {
		return false
	}
	fp := path + "." + field
	a := e.Attr(attr)
	switch {
	case a == nil:
		l.unknown(w.PosOf(field), fp, "attribute", attr, e.AttrNames())
	case a.Type != TypeMap:
		l.add(w.PosOf(field), fp, "%s names an entry of a map; %s is a %s", s, attr, a.Type)
	case !ValidName(key):
		l.add(w.PosOf(field), fp, "%q is not a map key keyplan can name; expected letters, digits and _ (starting with a letter)", key)
	case field == "set" && a.Optional:
		l.add(w.PosOf(field), fp, "%s is optional: SET %s fails on an item without it (DynamoDB sets no entry of a missing map); declare %s required (create it with {} when empty)", attr, s, attr)
	case changed[attr] != "" || changed[s] != "":
		l.add(w.PosOf(field), fp, "%s is already in %s: an update changes an attribute once", s, changed[attr]+changed[s])
	}
	changed[s] = field
	return true
}

// validateStepKinds checks what a single-item write does to sets, lists,
// maps and counters.
func (m *Model) validateStepKinds(l *errorList, e *Entity, w *Write, path string) {
	param := func(field string, i *Increment) {
		if i.Param == "" {
			l.add(w.PosOf(field), path+"."+field+"."+i.Attr, "%s %s takes the caller's elements: write $param", field, i.Attr)
		}
	}
	for _, i := range w.Add {
		if a := e.Attr(i.Attr); a != nil && a.Type == TypeSet {
			param("add", i)
			if i.Negate {
				l.add(w.PosOf("add"), path+".add."+i.Attr, "-$%s: take elements out of a set with discard: {%s: $%s}", i.Param, i.Attr, i.Param)
			}
		}
	}
	for _, i := range w.Discard {
		param("discard", i)
		if a := e.Attr(i.Attr); a != nil && a.Type != TypeSet {
			l.add(w.PosOf("discard"), path+".discard."+i.Attr, "discard takes elements out of a set; %s is a %s", i.Attr, a.Type)
		}
	}
	for _, i := range w.Append {
		param("append", i)
		if a := e.Attr(i.Attr); a != nil && a.Type != TypeList {
			l.add(w.PosOf("append"), path+".append."+i.Attr, "append adds elements to the end of a list; %s is a %s", i.Attr, a.Type)
		}
	}
	counters := 0
	for _, i := range w.Add {
		if e.Counter(i.Attr) != nil {
			counters++
		}
	}
	if counters > 0 && (counters < len(w.Add) || len(w.Set)+len(w.Remove)+len(w.With)+len(w.Discard)+len(w.Append)+len(w.Condition) > 0) {
		l.add(w.PosOf("add"), path+".add",
			"an add to a sharded counter writes one of its shard items, not the %s item: it adds to counters only, without conditions (change the item in a step of its own)", e.Name)
	}
	for _, a := range w.With {
		if x := e.Attr(a); x != nil && !x.Scalar() {
			l.add(w.PosOf("with"), path+".with", "%s is a %s: with passes the scalars a key is built from", a, x.Type)
		}
	}
	for _, s := range slices.Concat(w.Set, w.Remove) {
		if _, _, entry := MapPath(s); entry {
			continue
		}
		for _, o := range slices.Concat(w.Set, w.Remove) {
			if attr, _, entry := MapPath(o); entry && attr == s {
				l.add(w.Pos, path, "%s and %s overlap: an update changes a map or its entries, not both", s, o)
			}
		}
	}
}

// validateAliases checks the names transaction steps give their items.
func (m *Model) validateAliases(l *errorList, w *Write, path string) {
	if w.Op != WriteTransact {
		if w.As != "" {
			l.add(w.PosOf("as"), path+".as", "as names the item of a transaction's step (transact: [{update: %s, as: %s, ...}])", w.Entity, w.As)
		}
		return
	}
	seen := map[string]int{}
	for i, s := range w.Steps {
		if s.As == "" {
			continue
		}
		if j, dup := seen[s.As]; dup {
			l.add(s.PosOf("as"), fmt.Sprintf("%s.transact[%d].as", path, i), "steps %d and %d are both %q: each step names an item of its own", j+1, i+1, s.As)
		}
		seen[s.As] = i
		if e := m.Entity(s.Entity); e != nil && e.Attr(s.As) != nil {
			l.add(s.PosOf("as"), fmt.Sprintf("%s.transact[%d].as", path, i), "%q is an attribute of %s: %s.x would read as its map entry; name the item otherwise", s.As, e.Name, s.As)
		}
	}
}

// CounterStep reports whether a single-item write adds to sharded
// counters only: it writes their shard items, not its entity's item.
func (m *Model) CounterStep(s *Write) bool {
	e := m.Entity(s.Entity)
	if e == nil || s.Op != WriteUpdate || len(s.Add) == 0 {
		return false
	}
	for _, i := range s.Add {
		if e.Counter(i.Attr) == nil {
			return false
		}
	}
	return true
}
