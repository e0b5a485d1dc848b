package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Operation is the DynamoDB request (API action) a pattern compiles to; what
// the model asks for is its ReadOp.
type Operation string

// Operations a pattern compiles to.
const (
	GetItem Operation = "GetItem"
	Query   Operation = "Query"
	// Scan marks a pattern no index serves (an error: keyplan never
	// plans a Scan).
	Scan Operation = "Scan"
)

// Projection is what a GSI copies of each item besides its keys.
type Projection string

// Projection types.
const (
	ProjectAll      Projection = "ALL"
	ProjectInclude  Projection = "INCLUDE"
	ProjectKeysOnly Projection = "KEYS_ONLY"
)

// SKOp is the sort-key part of a key condition.
type SKOp string

// Sort-key conditions.
const (
	// SKNone: the partition key alone.
	SKNone       SKOp = ""
	SKEqual      SKOp = "="
	SKBeginsWith SKOp = "begins_with"
	SKBetween    SKOp = "between"
)

// Design is the planner's result: everything constructs, the runtime and the
// report need, so nothing downstream re-derives keys. A lock records the
// fields not tagged lock:"-" (what is deployed, not what was said about it).
type Design struct {
	// Format is the version of the JSON form (DesignFormat).
	Format int    `json:"format"`
	Table  string `json:"table"`
	// Source is the model file the design was planned from.
	Source string `json:"source,omitempty" lock:"-"`
	// Explicit is true when the layout was hand-made (the model's keys) and
	// only checked.
	Explicit bool `json:"explicit"`
	// PK and SK name the base table's key attributes (strings).
	PK string `json:"partitionKey"`
	SK string `json:"sortKey"`
	// TTL names the table's time-to-live attribute ("" for none).
	TTL string `json:"ttl,omitempty"`
	// Indexes are the global secondary indexes.
	Indexes []*Index `json:"indexes"`
	// LocalIndexes are the local secondary indexes (lsi.go): in the JSON
	// they follow the GSIs in indexes, each with kind "local".
	LocalIndexes []*Index `json:"-"`
	// Entities hold each entity's key templates per index.
	Entities []*EntityKeys `json:"entities"`
	// Patterns hold how each pattern is served.
	Patterns []*PatternPlan `json:"patterns"`
	// LowerBound is the fewest GSIs any layout can have that serves every
	// pattern without putting one on a partition hotter than its where
	// needs (every designed plan is such a layout): Bounds.Cool.
	LowerBound int `json:"lowerBound" lock:"-"`
	// Bounds holds both lower bounds: over every layout the checks accept
	// (Any), and over those without an introduced hot partition (Cool).
	Bounds Bounds `json:"lowerBounds" lock:"-"`
	// Search says whether the planner tried every layout it builds
	// (designed layouts; "" for a hand-made one): with more GSIs than the
	// bound, SearchComplete means the bound is not tight for this model,
	// SearchCut that a layout with fewer may exist.
	Search Search `json:"search,omitempty" lock:"-"`
	// Diagnostics are the checks' findings.
	Diagnostics []Diagnostic `json:"diagnostics" lock:"-"`
	// Cost is the estimate from declared rates and sizes.
	Cost *Cost `json:"cost" lock:"-"`
	// Keying says, per GSI, how it is keyed and why (indexKeys: auto picks
	// per index).
	Keying []*KeyChoice `json:"indexKeys,omitempty" lock:"-"`
	// LocalChoices say, for each pattern an LSI serves or could serve, why
	// the plan put it on an LSI or not (lsiplan.go).
	LocalChoices []*LocalChoice `json:"localIndexChoices,omitempty" lock:"-"`

	model *model.Model
	// recorded are the plans the file a design was read from states
	// otherwise than its keys give (RecordedPlans).
	recorded []*PatternPlan
	// deployed is the design the table is deployed with, when the design
	// was planned with a lock (Options.Lock): what KP109 calls deployed.
	deployed *Design
	// indexKeys is how the plan keyed new GSIs (the model's indexKeys or
	// Options.IndexKeys; "" for a design read from a file).
	indexKeys model.IndexKeys
	// byName indexes entities, patterns and indexes by name (built by
	// index() for the slices as planned; lookups in other slices scan).
	byName *designIndex
}

type designIndex struct {
	entities map[string]*EntityKeys
	patterns map[string]*PatternPlan
	indexes  map[string]*Index
	// The slices indexed: a lookup uses the maps only while the design
	// still holds these.
	ents   []*EntityKeys
	pats   []*PatternPlan
	ixs    []*Index
	locals []*Index
}

// same reports whether two slices are one (same array, same length).
func same[T any](a, b []*T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// index builds the name lookups, once the design is complete.
func (d *Design) index() {
	x := &designIndex{entities: map[string]*EntityKeys{}, patterns: map[string]*PatternPlan{}, indexes: map[string]*Index{},
		ents: d.Entities, pats: d.Patterns, ixs: d.Indexes, locals: d.LocalIndexes}
	for _, e := range d.Entities {
		x.entities[e.Name] = e
	}
	for _, p := range d.Patterns {
		x.patterns[p.Name] = p
	}
	for _, ix := range d.Indexes {
		x.indexes[ix.Name] = ix
	}
	for _, ix := range d.LocalIndexes {
		x.indexes[ix.Name] = ix
	}
	d.byName = x
}

// Search is how far the planner's search went.
type Search string

// Search outcomes.
const (
	// SearchComplete: every base placement the planner builds, and every
	// assignment of GSIs for each, was tried: no layout among them has
	// fewer GSIs than the design.
	SearchComplete Search = "complete"
	// SearchCut: the step budget ran out (Options.Budget), or the base
	// placements were too many to try all (coordinate descent): a layout
	// with fewer GSIs may exist.
	SearchCut Search = "cut"
)

// Index is one overloaded global secondary index: keyed by the synthetic
// strings PK/SK, or natively by the items' own attributes (PartitionKeys,
// SortKeys: native.go); or, with Kind IndexLocal, a local secondary index
// keyed by the table's partition key and its own sort key string (lsi.go).
type Index struct {
	Name string `json:"name"`
	// Kind is "" for a GSI, "local" for an LSI.
	Kind IndexKind `json:"kind,omitempty"`
	PK   string    `json:"partitionKey,omitempty"`
	SK   string    `json:"sortKey,omitempty"`
	// PartitionKeys and SortKeys are a native index's key attributes, in
	// order (its discriminator, IndexEntityName, first when it has one).
	PartitionKeys []string `json:"partitionKeys,omitempty"`
	SortKeys      []string `json:"sortKeys,omitempty"`
	// Projection is ALL, INCLUDE or KEYS_ONLY.
	Projection Projection `json:"projection"`
	// NonKeyAttributes are what INCLUDE copies besides the keys.
	NonKeyAttributes []string `json:"nonKeyAttributes,omitempty"`
	// Entities that have keys on this index.
	Entities []string `json:"entities"`
}

// ProjectionText renders the projection as "INCLUDE (a, b)".
func (ix *Index) ProjectionText() string {
	if ix.Projection == ProjectInclude {
		return string(ix.Projection) + " (" + strings.Join(ix.NonKeyAttributes, ", ") + ")"
	}
	return string(ix.Projection)
}

// EntityKeys is an entity's key layout.
type EntityKeys struct {
	Name string `json:"name"`
	// Tag is the constant that marks the entity's items in keys.
	Tag  string       `json:"tag"`
	Keys []*EntityKey `json:"keys"`
	// Counters are the entity's sharded counters: where their shard
	// items are.
	Counters []*CounterKeys `json:"counters,omitempty"`
}

// CounterKeys is where a sharded counter's shard items are: partition key
// PK (CounterKey), sort keys ShardKey(0…Shards-1).
type CounterKeys struct {
	Attr   string         `json:"attr"`
	Shards int            `json:"shards"`
	PK     model.Template `json:"pk"`
}

// Counter returns the entity's counter named attr, or nil.
func (e *EntityKeys) Counter(attr string) *CounterKeys {
	for _, c := range e.Counters {
		if c.Attr == attr {
			return c
		}
	}
	return nil
}

// EntityKey is one entity's key on one index.
type EntityKey struct {
	Index string         `json:"index"`
	PK    model.Template `json:"pk"`
	SK    model.Template `json:"sk"`
	// When lists the constants an item must hold to be on the index
	// (a sparse index); empty: every item that has the key attributes.
	When []model.Const `json:"when,omitempty"`
}

// PatternPlan is how one pattern is served.
type PatternPlan struct {
	Name     string   `json:"name"`
	Entities []string `json:"entities"`
	// Operation is GetItem or Query; Scan when no index serves the pattern
	// (an error: keyplan never plans a Scan).
	Operation Operation `json:"operation"`
	// Index is "table", a GSI's name or an LSI's.
	Index        string        `json:"index"`
	KeyCondition *KeyCondition `json:"keyCondition,omitempty"`
	// Text is the key condition as DynamoDB reads it.
	Text string `json:"condition,omitempty"`
	// Desc means ScanIndexForward=false.
	Desc       bool `json:"descending,omitempty"`
	Limit      int  `json:"limit,omitempty"`
	Consistent bool `json:"consistent,omitempty"`
	// Requests is the number of requests one read takes (shards: one per shard).
	Requests int `json:"requests"`
	// Verify lists equality attributes the key does not hold, checked on
	// the one item the read can return (its key holds the whole id).
	Verify []string `json:"verify,omitempty"`
	// Reason says why no index serves the pattern.
	Reason string `json:"reason,omitempty"`
	// HideExpired names the TTL attribute a read filters on: items whose
	// TTL has passed are not returned ("": the pattern reads no entity
	// with a ttl, or says expired: include).
	HideExpired string `json:"hideExpired,omitempty"`
	// Count: the read returns how many items match (Select COUNT).
	Count bool `json:"count,omitempty"`
	// Batch: the read is a BatchGetItem of many ids (its Operation stays
	// GetItem: each id is one GetItem's key; Requests is per call of up
	// to MaxBatchGetKeys ids).
	Batch bool `json:"batch,omitempty"`
	// Sum names the sharded counter the read sums (its shard items, one
	// Query of CounterKey).
	Sum string `json:"sum,omitempty"`

	// scan is set when no index's partition key is given by the pattern.
	scan bool
	// keys are the entity keys the read uses.
	keys []*EntityKey
	// ownerAbove: a sorted collection read's owner sorts above the sorted
	// member's items on its index (it comes first read descending, last
	// ascending). Planned, not kept in the lock: KP107 reads it.
	ownerAbove bool
}

// ownerReadLast reports a sorted collection read with a limit whose
// owner comes after the sorted member's items in the read's order (above
// them read ascending, below them descending): past the first page.
func (p *PatternPlan) ownerReadLast(pat *model.Pattern) bool {
	return pat.Limit > 0 && len(pat.Entities) == 2 && len(pat.Sort) > 0 && p.Served() && p.ownerAbove != pat.Desc
}

// OwnerFirst reports whether pattern pat (the one p plans), a sorted
// collection read, returns its owner before the items it orders: its
// owner's sort key sorts below them read ascending, above them read
// descending (the owner at the other end: after them). False for any
// other read.
func (p *PatternPlan) OwnerFirst(pat *model.Pattern) bool {
	return len(pat.Entities) == 2 && len(pat.Sort) > 0 && p.Served() && p.ownerAbove == pat.Desc
}

// Served reports whether an index serves the pattern.
func (p *PatternPlan) Served() bool { return p.Operation == GetItem || p.Operation == Query }

// KeyCondition is an index partition key equality plus an optional sort key
// condition, as templates over the pattern's parameters.
type KeyCondition struct {
	PK   model.Template `json:"pk"`
	SKOp SKOp           `json:"skOp,omitempty"`
	// SK is the value for "=", the prefix for "begins_with", the lower
	// bound for "between"; with SortAttr, the fixed part before its value
	// (kept even when SKOp is "" because the partition holds nothing else).
	SK model.Template `json:"sk,omitempty"`
	// Upper is the upper bound for "between".
	Upper model.Template `json:"upper,omitempty"`
	// SortAttr is the attribute whose encoded value follows SK: the caller's
	// range bounds apply to it.
	SortAttr string `json:"sortAttr,omitempty"`
	// SortEnds is true when SortAttr's value ends the sort key (nothing
	// follows it), so a key may equal SK+value exactly.
	SortEnds bool `json:"sortEnds,omitempty"`
}

// Render writes the condition with the index's attribute names.
func (k *KeyCondition) Render(pk, sk string) string {
	s := fmt.Sprintf("%s = %q", pk, k.PK.String())
	switch k.SKOp {
	case SKEqual:
		s += fmt.Sprintf(" AND %s = %q", sk, k.SK.String())
	case SKBeginsWith:
		s += fmt.Sprintf(" AND begins_with(%s, %q)", sk, k.SK.String())
	case SKBetween:
		s += fmt.Sprintf(" AND %s BETWEEN %q AND %q", sk, k.SK.String(), k.Upper.String())
	}
	if k.SortAttr != "" {
		s += fmt.Sprintf(", %s ordered by %s", sk, k.SortAttr)
	}
	return s
}

// Model returns the model the design was planned from.
func (d *Design) Model() *model.Model { return d.model }

// Index returns the named GSI or LSI, or nil.
func (d *Design) Index(name string) *Index {
	if x := d.byName; x != nil && same(x.ixs, d.Indexes) && same(x.locals, d.LocalIndexes) {
		return x.indexes[name]
	}
	for _, ixs := range [][]*Index{d.Indexes, d.LocalIndexes} {
		for _, ix := range ixs {
			if ix.Name == name {
				return ix
			}
		}
	}
	return nil
}

// Entity returns the named entity's keys, or nil.
func (d *Design) Entity(name string) *EntityKeys {
	if x := d.byName; x != nil && same(x.ents, d.Entities) {
		return x.entities[name]
	}
	for _, e := range d.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Pattern returns the named pattern's plan, or nil.
func (d *Design) Pattern(name string) *PatternPlan {
	if x := d.byName; x != nil && same(x.pats, d.Patterns) {
		return x.patterns[name]
	}
	for _, p := range d.Patterns {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Key returns the entity's key on an index, or nil.
func (e *EntityKeys) Key(index string) *EntityKey {
	for _, k := range e.Keys {
		if k.Index == index {
			return k
		}
	}
	return nil
}

// KeyNames returns the key attribute names of an index ("table", a
// synthetic GSI or an LSI: the table's PK and its own sort key); a native
// index has none of its own (KeyAttributes).
func (d *Design) KeyNames(index string) (pk, sk string) {
	if index == model.BaseIndex {
		return d.PK, d.SK
	}
	if ix := d.Index(index); ix != nil {
		return ix.PK, ix.SK
	}
	return model.IndexKeyNames(index)
}

// Errors returns the error diagnostics.
func (d *Design) Errors() []Diagnostic {
	var out []Diagnostic
	for _, x := range d.Diagnostics {
		if x.Severity == SeverityError {
			out = append(out, x)
		}
	}
	return out
}

// Fails reports whether the checks' findings fail the design: an error,
// or with strict any finding (keyplan plan and check exit 1).
func (d *Design) Fails(strict bool) bool {
	return len(d.Errors()) > 0 || strict && len(d.Diagnostics) > 0
}

// Projected is what a read of index returns of an entity's attributes, in
// the model's order: every one on the base table or under ALL; under
// INCLUDE the ones it names and the ones the entity's keys there and on
// the base table hold (the runtime decodes them from the keys); under
// KEYS_ONLY the keys' alone. Nil when the entity has no key on index.
func (d *Design) Projected(entity, index string) []string {
	ek, e := d.Entity(entity), d.model.Entity(entity)
	if ek == nil || e == nil || ek.Key(index) == nil {
		return nil
	}
	ix := d.Index(index)
	var keyed []string
	for _, k := range []*EntityKey{ek.Key(model.BaseIndex), ek.Key(index)} {
		if k != nil {
			keyed = append(append(keyed, k.PK.Attrs()...), k.SK.Attrs()...)
		}
	}
	var out []string
	for _, a := range e.Attributes {
		if ix == nil || ix.Projection == ProjectAll || slices.Contains(keyed, a.Name) || slices.Contains(ix.NonKeyAttributes, a.Name) {
			out = append(out, a.Name)
		}
	}
	return out
}

// RequiredHint says what to do when an item of the entity lacks the
// required attribute attr and a GSI's key reads it: declare it
// optional: true, and an item without it stays out of that index (a
// sparse index). "" when no GSI key reads attr (or attr identifies the
// item, which every key may read).
func (d *Design) RequiredHint(entity, attr string) string {
	ek := d.Entity(entity)
	if ek == nil {
		return ""
	}
	if e := d.Model().Entity(entity); e == nil || e.IsID(attr) {
		return ""
	}
	var idx []string
	for _, k := range ek.Keys {
		if k.Index != model.BaseIndex && (slices.Contains(k.PK.Attrs(), attr) || slices.Contains(k.SK.Attrs(), attr)) {
			idx = append(idx, k.Index)
		}
	}
	if len(idx) == 0 {
		return ""
	}
	var pats []string
	for _, p := range d.Patterns {
		if slices.Contains(idx, p.Index) && slices.Contains(p.Entities, entity) {
			pats = append(pats, p.Name)
		}
	}
	s := fmt.Sprintf("it feeds the key of %s", strings.Join(idx, ", "))
	if len(pats) > 0 {
		s += fmt.Sprintf(" (%s)", strings.Join(pats, ", "))
	}
	return s + fmt.Sprintf("; to store a %s without it, declare %s optional: true: an item without it is left out of that index (a sparse index), which then reads only the items that have it", entity, attr)
}
