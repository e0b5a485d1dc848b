package oracle

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/keyplan/keyplan/patterns/model"
)

// Item is one item: its entity and its attribute values (canonical; an
// optional attribute the item lacks is not in Values).
type Item struct {
	Entity string
	Values Values
}

// String writes the item as Entity{attr=value ...}, attributes by name.
func (it *Item) String() string {
	var b strings.Builder
	b.WriteString(it.Entity + "{")
	for i, k := range slices.Sorted(maps.Keys(it.Values)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + Text(it.Values[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// Plain is the item's values as the runtime takes them (see [Plain]).
func (it *Item) Plain() map[string]any {
	out := make(map[string]any, len(it.Values))
	for k, v := range it.Values {
		out[k] = Plain(v)
	}
	return out
}

func (it *Item) clone() *Item {
	return &Item{Entity: it.Entity, Values: maps.Clone(it.Values)}
}

// State is a set of items: what the table holds, by definition. An item is
// identified by its entity and its id attributes' values, whatever the
// layout; nothing here knows a key.
type State struct {
	m     *model.Model
	items map[string]*Item // identity -> item
	// counters are the sharded counters' values: identity, NUL, attribute
	// to the number (absent: 0).
	counters map[string]CounterValue
	// now is the clock items expire by (zero: none expires).
	now time.Time
	// ownerFirst says, by sorted collection pattern, at which end its
	// owner is read (SetOwnerFirst).
	ownerFirst map[string]bool
}

// NewState returns an empty state of the model's items.
func NewState(m *model.Model) *State {
	return &State{m: m, items: map[string]*Item{}, counters: map[string]CounterValue{}}
}

// Model is the model the state holds items of.
func (s *State) Model() *model.Model { return s.m }

// Clone copies the state (items are copied on write, so this is cheap).
func (s *State) Clone() *State {
	return &State{m: s.m, items: maps.Clone(s.items), counters: maps.Clone(s.counters), now: s.now, ownerFirst: s.ownerFirst}
}

// SetOwnerFirst says at which end a sorted collection read (query: [Post,
// Comment], sort: createdAt desc) returns its owner: before the items it
// orders (first) or after them. The layout decides (the plan says,
// PatternPlan.OwnerFirst); a pattern it is not said of reads it first
// ascending and last descending.
func (s *State) SetOwnerFirst(pattern string, first bool) {
	m := maps.Clone(s.ownerFirst) // clones share the map: copy on write
	if m == nil {
		m = map[string]bool{}
	}
	m[pattern] = first
	s.ownerFirst = m
}

// Len is the number of items.
func (s *State) Len() int { return len(s.items) }

// Items lists the items, ordered by identity.
func (s *State) Items() []*Item {
	keys := slices.Sorted(maps.Keys(s.items))
	out := make([]*Item, len(keys))
	for i, k := range keys {
		out[i] = s.items[k]
	}
	return out
}

// Of lists the items of one entity, ordered by identity.
func (s *State) Of(entity string) []*Item {
	var out []*Item
	for _, it := range s.Items() {
		if it.Entity == entity {
			out = append(out, it)
		}
	}
	return out
}

// Get returns the item of the entity whose id values v gives, or nil.
func (s *State) Get(entity string, v Values) *Item {
	id, err := s.Identity(entity, v)
	if err != nil {
		return nil
	}
	return s.items[id]
}

// Identity is the text that identifies an item of the entity: its name and
// its id values. v needs canonical id values (see Normalize).
func (s *State) Identity(entity string, v Values) (string, error) {
	e := s.m.Entity(entity)
	if e == nil {
		return "", invalid("unknown entity %q", entity)
	}
	return identity(e, v)
}

func identity(e *model.Entity, v Values) (string, error) {
	var b strings.Builder
	b.WriteString(e.Name)
	for _, id := range e.ID {
		x, ok := v[id]
		if !ok || x == nil {
			return "", invalid("%s: id attribute %s missing", e.Name, id)
		}
		b.WriteString("\x00" + Text(x))
	}
	return b.String(), nil
}

// IdentityOf is an item's identity.
func (s *State) IdentityOf(it *Item) string {
	id, _ := s.Identity(it.Entity, it.Values)
	return id
}

// normalizeItem checks a whole item of the entity: every required
// attribute present, every value valid, no other name unless others is
// true (a write's other parameters), and returns its canonical values.
func normalizeItem(e *model.Entity, v map[string]any, others bool) (Values, error) {
	out := Values{}
	for _, a := range e.Attributes {
		x, ok := v[a.Name]
		switch {
		case a.Type == model.TypeCounter:
			if ok && x != nil {
				return nil, invalid("%s.%s is a sharded counter: it is on no item (add to it with a write)", e.Name, a.Name)
			}
			continue
		case a.Derived != nil:
			continue // computed below; a value given must be the same
		}
		if !ok || x == nil {
			if !a.Optional && a.Type != model.TypeSet { // no set is empty
				return nil, invalid("%s.%s is required", e.Name, a.Name)
			}
			continue
		}
		if e.IsID(a.Name) && finerThanMillis(x) {
			return nil, invalid("%s.%s: an id time finer than a millisecond", e.Name, a.Name)
		}
		n, err := Normalize(a, x)
		if err != nil {
			return nil, err
		}
		if n != nil { // an empty set is no value
			out[a.Name] = n
		}
	}
	derive(e, out)
	for _, a := range e.Attributes {
		x, ok := v[a.Name]
		if a.Derived == nil || !ok || x == nil {
			continue
		}
		n, err := Normalize(a, x)
		if err != nil {
			return nil, err
		}
		if !equalValues(n, out[a.Name]) {
			return nil, invalid("%s.%s is derived from %s (%s), not %s", e.Name, a.Name, strings.Join(a.Derived.Sources(), ", "), Text(out[a.Name]), Text(n))
		}
	}
	if !others {
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if e.Attr(k) == nil && v[k] != nil {
				return nil, invalid("%q is no attribute of %s", k, e.Name)
			}
		}
	}
	return out, nil
}

// normalizeID reads the id values of an entity from v.
func normalizeID(e *model.Entity, v map[string]any) (Values, error) {
	out := Values{}
	for _, id := range e.ID {
		x, ok := v[id]
		if !ok || x == nil {
			return nil, invalid("%s: id attribute %s missing", e.Name, id)
		}
		if finerThanMillis(x) {
			return nil, invalid("%s.%s: an id time finer than a millisecond", e.Name, id)
		}
		n, err := Normalize(e.Attr(id), x)
		if err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, nil
}

// Load adds items as they are, without conditions (a table's starting
// content); an invalid item is an error and nothing is added.
func (s *State) Load(items ...*Item) error {
	for _, it := range items {
		e := s.m.Entity(it.Entity)
		if e == nil {
			return invalid("unknown entity %q", it.Entity)
		}
		if _, err := normalizeItem(e, it.Values, false); err != nil {
			return fmt.Errorf("item %s: %w", it, err)
		}
	}
	for _, it := range items {
		e := s.m.Entity(it.Entity)
		v, _ := normalizeItem(e, it.Values, false)
		s.items[s.IdentityOf(&Item{Entity: e.Name, Values: v})] = &Item{Entity: e.Name, Values: v}
	}
	return nil
}
