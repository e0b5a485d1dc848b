package model

import (
	"fmt"
	"slices"
)

// Model is an access-pattern definition: the table, its entities and the
// questions asked of them. Load one with [Load] or [Parse], or build it in Go
// and call [Model.Validate]. Names keep the order they were declared in, so
// every output derived from a model is deterministic.
type Model struct {
	// Table is the logical table name (NameRule).
	Table string `json:"table"`
	// Entities in declaration order.
	Entities []*Entity `json:"entities"`
	// Patterns in declaration order.
	Patterns []*Pattern `json:"patterns"`
	// Writes are the declared write patterns, in declaration order.
	Writes []*Write `json:"writes,omitempty"`
	// Examples holds sample items and expected results, for `keyplan validate`.
	Examples *Examples `json:"examples,omitempty"`
	// IndexKeys says how the GSIs are keyed: IndexKeysAuto (""), native
	// or synthetic (native.go).
	IndexKeys IndexKeys `json:"indexKeys,omitempty"`
	// Headroom bounds each index's throughput at this multiple of the
	// load its patterns declare (rates, or peaks where given): the
	// on-demand maximum throughput, provisioned auto-scaling's default
	// most capacity (throughput.go). 0: no bound.
	Headroom float64 `json:"headroom,omitempty"`
	// Consistency is a global table's multi-Region consistency:
	// ConsistencyEventual ("") or ConsistencyStrong (settings.go).
	Consistency Consistency `json:"consistency,omitempty"`
	// Principals are granted patterns by the table's resource policy
	// (other accounts' readers, say), in declaration order.
	Principals []*Principal `json:"principals,omitempty"`
	// Tables, when the model declares several (tables: NAME to its
	// settings), are one model per table: its name and settings as
	// declared, and, once validated, the entities that say table: NAME
	// with the patterns, writes and examples of them (tables.go). Empty:
	// the model is one table, Table.
	Tables []*Model `json:"-"`

	// Source is the file the model was read from ("" when built in Go).
	Source string `json:"-"`
	// Pos is where `table` was declared; IndexKeysPos where `indexKeys`
	// was.
	Pos          Pos `json:"-"`
	IndexKeysPos Pos `json:"-"`
	// FieldPos records where the table's settings (headroom,
	// consistency, principals) were declared.
	FieldPos map[string]Pos `json:"-"`

	entityIdx  map[string]*Entity
	patternIdx map[string]*Pattern
}

// Pos is a position in a model file (1-based; zero when unknown).
type Pos struct {
	Line int `json:"line,omitempty"`
	Col  int `json:"col,omitempty"`
}

// String is "line:col", or "" when unknown.
func (p Pos) String() string {
	if p.Line <= 0 {
		return ""
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// In is "file:line:col", omitting what is unknown ("<model>" for a known
// position in an unnamed file).
func (p Pos) In(file string) string {
	if p.Line <= 0 {
		return file
	}
	if file == "" {
		file = "<model>"
	}
	return file + ":" + p.String()
}

// Entity is one kind of item stored in the table.
type Entity struct {
	// attrIdx finds attributes by name (indexAttrs).
	attrIdx map[string]int

	Name string `json:"name"`
	// ID lists the attributes that identify one item, in order.
	ID []string `json:"id"`
	// Within names the entity whose item collection (partition) this one lives in.
	Within string `json:"within,omitempty"`
	// Table names the model's table (Model.Tables) that holds the
	// entity's items: "" in a model of one table.
	Table string `json:"-"`
	// Attributes in declaration order.
	Attributes []*Attribute `json:"attributes"`
	// Keys, when set, is a hand-made layout: index name ("table", "GSI1", …)
	// to key templates. The planner then checks it instead of designing one.
	Keys []*KeySpec `json:"keys,omitempty"`
	// Writes is the expected item writes per second (puts, updates and
	// deletes), for the cost estimate.
	Writes float64 `json:"writes,omitempty"`
	// PeakWrites is the most item writes per second expected (at least
	// Writes; 0: Writes), for the warm throughput.
	PeakWrites float64 `json:"peakWrites,omitempty"`
	// Copies are attributes of this entity kept equal to another entity's
	// attribute by the fanout stream handler.
	Copies []*Copy `json:"copies,omitempty"`
	// Counters are attributes of this entity kept as the count (or sum) of
	// a child entity's items by the counters stream handler.
	Counters []*Counter `json:"counters,omitempty"`
	// Archive keeps this entity's TTL expiries in S3 (the archive handler).
	Archive bool `json:"archive,omitempty"`
	// Needs are the table settings the entity asks of the table that
	// holds it (needs: point-in-time recovery, backup plan, billing mode,
	// replica Regions): KP310 proposes a split when entities of one table
	// ask differently (checksplit.go). nil: it states none.
	Needs *Needs `json:"-"`
	// RenamedFrom is the entity's name in the lock: its items and keys
	// stay (keyplan keeps its old key tag).
	RenamedFrom string `json:"renamedFrom,omitempty"`
	// Version names a number attribute every write increments and
	// conditions on (optimistic locking): a write holds only if the item
	// still has the version the caller read.
	Version string `json:"version,omitempty"`
	// KeptTag, when set, is the key tag the entity keeps from the lock.
	KeptTag string `json:"-"`

	Pos Pos `json:"-"`
	// FieldPos records where each field of the entity was declared.
	FieldPos map[string]Pos `json:"-"`
}

// KeySpec is an explicit key layout of one entity on one index.
type KeySpec struct {
	Index string `json:"index"`
	// PK is the partition key template; on a local index (Local) it is the
	// base table's, and may be left out.
	PK string `json:"pk"`
	SK string `json:"sk,omitempty"`
	// Local makes the index a local secondary index: the table's partition
	// key, this sort key (lsi.go).
	Local bool `json:"local,omitempty"`
	// When makes the key sparse: only items holding these constants have
	// it (a GSI key; the base key is on every item).
	When []Const `json:"when,omitempty"`
	// Pos is where the index entry was declared; PKPos, SKPos and
	// WhenPos where its templates and constants were.
	Pos     Pos `json:"-"`
	PKPos   Pos `json:"-"`
	SKPos   Pos `json:"-"`
	WhenPos Pos `json:"-"`
}

// Copy is a denormalized attribute: Attr on this entity mirrors From's
// attribute; Via is the pattern that finds the copies from the source's
// values (e.g. Order.customerName from Customer.name via CustomerOrders).
type Copy struct {
	Attr       string `json:"attr"`
	FromEntity string `json:"fromEntity"`
	FromAttr   string `json:"fromAttr"`
	Via        string `json:"via"`
	Pos        Pos    `json:"-"`
}

// Counter is an aggregate of a child entity kept on its parent: Count
// counts the child's items, Sum adds up one of its number attributes;
// Where counts only items holding those constants.
type Counter struct {
	Attr  string  `json:"attr"`
	Child string  `json:"child"`
	Sum   string  `json:"sum,omitempty"`
	Where []Const `json:"where,omitempty"`
	// KeepExpired keeps what children expired by the table's TTL gave
	// the counter (expiries: keep): matches played stay played when their
	// records expire.
	KeepExpired bool `json:"keepExpired,omitempty"`
	// CountExpired says expiries: count out loud: the counter counts an
	// expired child down when DynamoDB deletes it (the default; KP502
	// warns until it is said).
	CountExpired bool `json:"countExpired,omitempty"`
	Pos          Pos  `json:"-"`
}

// AttrType is the declared type of an attribute.
type AttrType string

// Attribute types.
const (
	TypeString AttrType = "string"
	TypeNumber AttrType = "number"
	TypeTime   AttrType = "time"
	TypeBool   AttrType = "bool"
	TypeTTL    AttrType = "ttl"
	// TypeSet, TypeList and TypeMap hold several values of type Of (sets:
	// string or number; lists and maps: string, number or bool): never
	// in a key (kinds.go).
	TypeSet  AttrType = "set"
	TypeList AttrType = "list"
	TypeMap  AttrType = "map"
	// TypeCounter is a number spread over Shards items of its own, added
	// to on a random shard and read as their sum (kinds.go).
	TypeCounter AttrType = "counter"
)

// Attribute is one named, typed field of an entity.
type Attribute struct {
	Name string   `json:"name"`
	Type AttrType `json:"type"`
	// Values makes a string an enum (known cardinality).
	Values []string `json:"values,omitempty"`
	// Cardinality hints how many distinct values the attribute takes (0: unknown).
	Cardinality int `json:"cardinality,omitempty"`
	// Min and Max bound an integer number; they fix its key width.
	Min *int64 `json:"min,omitempty"`
	Max *int64 `json:"max,omitempty"`
	// Digits bounds an integer to (-10^Digits, 10^Digits).
	Digits int `json:"digits,omitempty"`
	// MaxLength bounds a string's length in bytes (0: unknown).
	MaxLength int `json:"maxLength,omitempty"`
	// Store is where the value is kept: "" in the item, StoreS3 in the
	// construct's bucket, the item holding the object's key (objects.go).
	Store string `json:"store,omitempty"`
	// Size is a typical value's size in bytes (0: none given), for the
	// cost estimate: a string, set, list or map is costed at it instead of
	// its maxLength (or maxItems), which stays the bound for the limits.
	Size int `json:"size,omitempty"`
	// Optional marks an attribute an item may lack.
	Optional bool `json:"optional,omitempty"`
	// Immutable marks an attribute that never changes once the item is
	// written: it may enter the base table's key (which cannot be updated
	// in place). Id attributes are immutable by definition.
	Immutable bool `json:"immutable,omitempty"`
	// RenamedFrom is the attribute's name in the lock: existing items hold
	// it under that name until a backfill copies it.
	RenamedFrom string `json:"renamedFrom,omitempty"`
	// KeyOffset and KeyWidth pin how a number is written in keys (offset,
	// zero-padded width), kept from a lock when the declared range still
	// fits, so that existing keys stay valid. Set by the planner; zero
	// (nil): from min/max or digits.
	KeyOffset *int64 `json:"keyOffset,omitempty"`
	KeyWidth  int    `json:"keyWidth,omitempty"`
	// Of is the element type of a set, list or map.
	Of AttrType `json:"of,omitempty"`
	// MaxItems bounds a set's, list's or map's elements (0: unknown), for
	// item sizes.
	MaxItems int `json:"maxItems,omitempty"`
	// Shards is the number of items a counter is spread over.
	Shards int `json:"shards,omitempty"`
	// Derived makes the attribute one the runtime computes from others on
	// every write (nil: the caller's).
	Derived *Derived `json:"derived,omitempty"`

	Pos Pos `json:"-"`
}

// ReadOp is what a read pattern asks for in the model (get or query), as
// WriteOp is what a write pattern does; the DynamoDB request it compiles
// to is an Operation.
type ReadOp string

// Read pattern operations.
const (
	// ReadGet reads one item (by its id, or an alternate key).
	ReadGet ReadOp = "get"
	// ReadQuery reads items of one partition, or an item collection.
	ReadQuery ReadOp = "query"
)

// Pattern is one question the application asks.
type Pattern struct {
	Name string `json:"name"`
	Op   ReadOp `json:"op"`
	// Entities read: one, or several for an item-collection query.
	Entities []string `json:"entities"`
	// Where lists the equality attributes (default for get: the entity's id).
	Where []string `json:"where,omitempty"`
	// Sort lists the attributes results are ordered by, in order (none: no
	// order); the caller ranges over the first.
	Sort []string `json:"sort,omitempty"`
	// Desc orders results descending by Sort (every attribute: a key
	// orders by its whole sort key, so the directions cannot differ).
	Desc bool `json:"desc,omitempty"`
	// Filter fixes attributes to constants: they go into a key or make a sparse index.
	Filter []Const `json:"filter,omitempty"`
	// Limit is the page size the caller asks for (0: none).
	Limit int `json:"limit,omitempty"`
	// Returns lists the attributes the caller needs (empty: the whole item).
	Returns []string `json:"returns,omitempty"`
	// Consistent asks for a strongly consistent read (base table only).
	Consistent bool `json:"consistent,omitempty"`
	// Unique declares an alternate key whose values stay unique.
	Unique bool `json:"unique,omitempty"`
	// Rate is the expected requests per second, for the cost model.
	Rate float64 `json:"rate,omitempty"`
	// Peak is the most requests per second expected (at least Rate; 0:
	// Rate), for the warm throughput and the headroom.
	Peak float64 `json:"peak,omitempty"`
	// Shards consents to write-sharding the key into N partitions, read by scatter-gather.
	Shards int `json:"shards,omitempty"`
	// Expired is ExpiredInclude to return items whose TTL has passed but
	// that DynamoDB has not deleted yet; by default ("") reads hide them.
	Expired string `json:"expired,omitempty"`
	// Count returns how many items the read matches instead of the items
	// (Select COUNT, every page summed).
	Count bool `json:"count,omitempty"`
	// Batch reads many items of a get by id in one request each hundred
	// (BatchGetItem, base table only); Limit is then the most ids a call
	// passes (batch.go).
	Batch bool `json:"batch,omitempty"`

	Pos Pos `json:"-"`
	// FieldPos records where each field of the pattern was declared.
	FieldPos map[string]Pos `json:"-"`
}

// Const is an attribute fixed to a constant value.
type Const struct {
	Attr  string `json:"attr"`
	Value string `json:"value"`
}

// Examples are sample items and the results patterns must return on them.
type Examples struct {
	// Now is the time the examples are read at (RFC 3339; "": the
	// clock's): TTLs before it have passed.
	Now   string         `json:"now,omitempty"`
	Items []*ExampleItem `json:"items,omitempty"`
	// Steps are writes made, in order, after the items and before the
	// expectations are read.
	Steps  []*Step        `json:"steps,omitempty"`
	Expect []*Expectation `json:"expect,omitempty"`
}

// Step is one example write: a write pattern, its parameters, and its
// expected outcome.
type Step struct {
	Write  string         `json:"write"`
	Params map[string]any `json:"params,omitempty"`
	// Fails names the condition expected to fail when it is a string
	// (ParseFails: absent, exists, version, "unique: PATTERN", an
	// attribute, or the start of keyplan's wording of it, today's or an
	// earlier one); "" when the write must succeed, or when FailsCondition
	// names it. Model.FailsOf reads both.
	Fails string `json:"fails,omitempty"`
	// FailsCondition is fails: written as a condition: clause
	// ({inventory: {ge: $quantity}}).
	FailsCondition *Condition `json:"failsCondition,omitempty"`
	// Item names the item a successful single-item write leaves, for the
	// expectations to name.
	Item string `json:"item,omitempty"`
	Pos  Pos    `json:"-"`
}

// ExampleItem is one named sample item of an entity.
type ExampleItem struct {
	Name   string         `json:"name"`
	Entity string         `json:"entity"`
	Values map[string]any `json:"values"`
	Pos    Pos            `json:"-"`
	// At are the positions of the values' fields (by attribute name).
	At map[string]Pos `json:"-"`
}

// Expectation names a pattern, its parameters, and the items it must return.
type Expectation struct {
	Pattern string         `json:"pattern"`
	Params  map[string]any `json:"params,omitempty"`
	Items   []string       `json:"items"`
	// IDs are a batch read's ids (each its entity's id attributes), in
	// order; Items then names one item per id, "" for none.
	IDs []map[string]any `json:"ids,omitempty"`
	// Count is the number a count pattern or a counter's read returns
	// (nil: the pattern returns items).
	Count *int64 `json:"count,omitempty"`
	// Values are attribute values some of the items must hold (item name
	// to attribute to value), as read back.
	Values map[string]map[string]any `json:"values,omitempty"`
	Pos    Pos                       `json:"-"`
}

// Clone copies a model deeply enough for the planner to change its
// entities and attributes (patterns are shared, not changed).
func (m *Model) Clone() *Model {
	c := *m
	c.Entities = make([]*Entity, len(m.Entities))
	for i, e := range m.Entities {
		ce := *e
		ce.Attributes = make([]*Attribute, len(e.Attributes))
		for j, a := range e.Attributes {
			ca := *a
			ce.Attributes[j] = &ca
		}
		c.Entities[i] = &ce
	}
	c.entityIdx, c.patternIdx = nil, nil
	return &c
}

// Entity returns the named entity, or nil.
func (m *Model) Entity(name string) *Entity {
	if e, ok := m.entityIdx[name]; ok && e.Name == name {
		return e
	}
	for _, e := range m.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Pattern returns the named pattern, or nil.
func (m *Model) Pattern(name string) *Pattern {
	if p, ok := m.patternIdx[name]; ok && p.Name == name {
		return p
	}
	for _, p := range m.Patterns {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Attr returns the named attribute, or nil.
func (e *Entity) Attr(name string) *Attribute {
	if i, ok := e.attrIdx[name]; ok && i < len(e.Attributes) && e.Attributes[i].Name == name {
		return e.Attributes[i]
	}
	for _, a := range e.Attributes {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// indexAttrs indexes the attributes by name for Attr (built when the
// model is validated, read-only after: the planner reads it from several
// goroutines). An index that no longer matches (attributes reordered in a
// copy) is only slower: Attr checks each hit.
func (e *Entity) indexAttrs() {
	if len(e.Attributes) < 16 {
		e.attrIdx = nil
		return
	}
	e.attrIdx = make(map[string]int, len(e.Attributes))
	for i, a := range e.Attributes {
		if _, dup := e.attrIdx[a.Name]; !dup {
			e.attrIdx[a.Name] = i
		}
	}
}

// TTLAttr returns the entity's ttl attribute, or nil.
func (e *Entity) TTLAttr() *Attribute {
	for _, a := range e.Attributes {
		if a.Type == TypeTTL {
			return a
		}
	}
	return nil
}

// TagOf is the constant that marks an entity's items in keys: its name in
// upper case, or the tag it keeps from a lock after a rename.
func TagOf(e *Entity) string {
	if e.KeptTag != "" {
		return e.KeptTag
	}
	return Tag(e.Name)
}

// Fixed reports whether an attribute never changes once its item is
// written: an id attribute, or one declared immutable.
func (e *Entity) Fixed(attr string) bool {
	if slices.Contains(e.ID, attr) {
		return true
	}
	a := e.Attr(attr)
	return a != nil && a.Immutable
}

// SortAttr is the attribute a pattern's caller ranges over: its first sort
// attribute, or "".
func (p *Pattern) SortAttr() string {
	if len(p.Sort) == 0 {
		return ""
	}
	return p.Sort[0]
}

// IsID reports whether attr is one of the entity's id attributes.
func (e *Entity) IsID(attr string) bool { return slices.Contains(e.ID, attr) }

// Explicit reports whether the model gives hand-made key layouts.
func (m *Model) Explicit() bool {
	for _, e := range m.Entities {
		if len(e.Keys) > 0 {
			return true
		}
	}
	return false
}

// PosOf returns where a pattern field was declared, falling back to the pattern.
func (p *Pattern) PosOf(name string) Pos {
	if pos, ok := p.FieldPos[name]; ok {
		return pos
	}
	return p.Pos
}

// PosOf returns where an entity field was declared, falling back to the entity.
func (e *Entity) PosOf(name string) Pos {
	if pos, ok := e.FieldPos[name]; ok {
		return pos
	}
	return e.Pos
}

// Where returns a pattern's equality attributes: its where, or for a get
// without one, its entity's id.
func (m *Model) Where(p *Pattern) []string {
	if len(p.Where) == 0 && p.Op == ReadGet && len(p.Entities) == 1 {
		if e := m.Entity(p.Entities[0]); e != nil {
			return e.ID
		}
	}
	return p.Where
}

// FilterValue returns the constant the pattern fixes attr to.
func (p *Pattern) FilterValue(attr string) (string, bool) {
	for _, c := range p.Filter {
		if c.Attr == attr {
			return c.Value, true
		}
	}
	return "", false
}

// Needs are the table settings an entity asks of its table (needs:
// under the entity): a table has one of each, so entities of one table
// that ask differently want separate tables (KP310). A setting the
// entity does not state asks nothing. The construct
// (constructs/singletable) sets the table from them and refuses props
// that say otherwise.
type Needs struct {
	// PointInTimeRecovery: the entity's items must be recoverable to any
	// second of the last 35 days (true), or need not be (false).
	PointInTimeRecovery *bool `json:"pointInTimeRecovery,omitempty"`
	// Backup names the AWS Backup plan that must back the items up, or
	// BackupNone.
	Backup string `json:"backup,omitempty"`
	// Billing is NeedOnDemand or NeedProvisioned.
	Billing string `json:"billing,omitempty"`
	// Replicas are the Regions the items must be replicated to, sorted
	// (a global table's replicas); Replicated says they were stated (an
	// empty list: no replica).
	Replicas   []string `json:"replicas,omitempty"`
	Replicated bool     `json:"-"`
	// Pos is where each need was stated, by its field name.
	Pos map[string]Pos `json:"-"`
}

// The values of needs: billing and backup.
const (
	NeedOnDemand    = "onDemand"
	NeedProvisioned = "provisioned"
	BackupNone      = "none"
)
