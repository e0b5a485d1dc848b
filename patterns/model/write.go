package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// WriteOp is what a write pattern (or a step of a transaction) does.
type WriteOp string

// Write operations.
const (
	// WritePut writes a whole item (If: absent creates only, present
	// replaces only).
	WritePut WriteOp = "put"
	// WriteUpdate changes named attributes of an existing item.
	WriteUpdate WriteOp = "update"
	// WriteDelete deletes an item.
	WriteDelete WriteOp = "delete"
	// WriteCheck (in a transaction only) holds the transaction to a
	// condition on an item it does not change.
	WriteCheck WriteOp = "check"
	// WriteTransact runs its steps all or nothing.
	WriteTransact WriteOp = "transact"
	// WriteBatch puts or deletes many items of one entity, each on its
	// own (no conditions).
	WriteBatch WriteOp = "batch"
)

// Put conditions (Write.If).
const (
	IfAbsent  = "absent"
	IfPresent = "present"
)

// Write is a declared write: what the application writes, by name, as a
// read pattern is what it reads. The runtime executes it (Table.Write),
// the checks prove it keeps every key right, GrantPatterns grants exactly
// its actions, the cost model counts its rate.
type Write struct {
	Name string  `json:"name"`
	Op   WriteOp `json:"op"`
	// Entity written (put, update, delete, check, batch).
	Entity string `json:"entity,omitempty"`
	// As (a transaction's step) names its item: the step's parameters
	// are As.attr, so steps on one entity write different items.
	As string `json:"as,omitempty"`
	// If (put): IfAbsent creates only, IfPresent replaces only, "" either.
	If string `json:"if,omitempty"`
	// Set (update): attributes set to the caller's values.
	Set []string `json:"set,omitempty"`
	// Add (update): numbers added to atomically.
	Add []*Increment `json:"add,omitempty"`
	// Remove (update): optional attributes (or map entries, a.b) removed.
	Remove []string `json:"remove,omitempty"`
	// Discard (update): elements removed from sets (DELETE).
	Discard []*Increment `json:"discard,omitempty"`
	// Append (update): elements added at the end of lists (list_append).
	Append []*Increment `json:"append,omitempty"`
	// With (update): attributes the caller passes as the item holds them,
	// for the keys the update rebuilds; the write holds only if they still
	// are.
	With []string `json:"with,omitempty"`
	// Condition the item must meet for the write to happen.
	Condition []*Condition `json:"condition,omitempty"`
	// Steps (transact), all or nothing.
	Steps []*Write `json:"steps,omitempty"`
	// Batch (batch): WritePut or WriteDelete, of Entity.
	Batch WriteOp `json:"batch,omitempty"`
	// Rate is the expected writes per second, for the cost model and the
	// hot-partition check.
	Rate float64 `json:"rate,omitempty"`
	// Peak is the most writes per second expected (at least Rate; 0:
	// Rate), for the warm throughput and the headroom.
	Peak float64 `json:"peak,omitempty"`

	Pos Pos `json:"-"`
	// FieldPos records where each field was declared.
	FieldPos map[string]Pos `json:"-"`
}

// Increment is an atomic addition to a number attribute: the caller's
// parameter (negated: a decrement) or a constant.
type Increment struct {
	Attr   string `json:"attr"`
	Param  string `json:"param,omitempty"`
	Negate bool   `json:"negate,omitempty"`
	// By is the constant added when Param is empty.
	By int64 `json:"by,omitempty"`
}

// String is the increment as the model writes it.
func (i *Increment) String() string {
	switch {
	case i.Param != "" && i.Negate:
		return "-$" + i.Param
	case i.Param != "":
		return "$" + i.Param
	}
	return strconv.FormatInt(i.By, 10)
}

// CondOp is a condition's comparison.
type CondOp string

// Condition comparisons.
const (
	CondEq     CondOp = "eq"
	CondNe     CondOp = "ne"
	CondLt     CondOp = "lt"
	CondLe     CondOp = "le"
	CondGt     CondOp = "gt"
	CondGe     CondOp = "ge"
	CondIn     CondOp = "in"
	CondExists CondOp = "exists"
	CondAbsent CondOp = "absent"
)

// CondOps lists the comparisons, in order.
func CondOps() []CondOp {
	return []CondOp{CondEq, CondNe, CondLt, CondLe, CondGt, CondGe, CondIn, CondExists, CondAbsent}
}

// Condition is one test of an item's attribute: against a constant, the
// caller's parameter, a list of constants (in), or presence.
type Condition struct {
	Attr string `json:"attr"`
	Op   CondOp `json:"op"`
	// Value is the constant compared with (as the model writes it), unless
	// Param names the caller's parameter.
	Value  string   `json:"value,omitempty"`
	Param  string   `json:"param,omitempty"`
	Values []string `json:"values,omitempty"`
	Pos    Pos      `json:"-"`
}

// String is the condition as a sentence's part: "inventory ≥ $quantity".
func (c *Condition) String() string {
	sym := map[CondOp]string{CondEq: "=", CondNe: "≠", CondLt: "<", CondLe: "≤", CondGt: ">", CondGe: "≥"}
	switch c.Op {
	case CondExists:
		return c.Attr + " exists"
	case CondAbsent:
		return c.Attr + " is absent"
	case CondIn:
		return c.Attr + " in [" + strings.Join(c.Values, ", ") + "]"
	}
	operand := c.Value
	if c.Param != "" {
		operand = "$" + c.Param
	}
	return c.Attr + " " + sym[c.Op] + " " + operand
}

// Write returns the write pattern named name, or nil.
func (m *Model) Write(name string) *Write {
	for _, w := range m.Writes {
		if w.Name == name {
			return w
		}
	}
	return nil
}

// Items are the single-item writes a write makes: itself, or a
// transaction's steps.
func (w *Write) Items() []*Write {
	if w.Op == WriteTransact {
		return w.Steps
	}
	return []*Write{w}
}

// Named is the put whose item an example step's item names: the write
// itself, or a transaction's first put; nil when it puts nothing.
func (w *Write) Named() *Write {
	for _, s := range w.Items() {
		if s.Op == WritePut {
			return s
		}
	}
	return nil
}

// Actions are the DynamoDB actions a write makes, sorted: PutItem,
// UpdateItem (an update, and a put if present, which keeps what stream
// handlers maintain), DeleteItem, ConditionCheckItem, BatchWriteItem,
// and for an entity with unique values the guard items' PutItem and
// DeleteItem. A transaction needs no action of its own.
func (w *Write) Actions(m *Model) []string {
	var out []string
	add := func(as ...string) {
		for _, a := range as {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	for _, s := range w.Items() {
		guards := false
		if e := m.Entity(s.Entity); e != nil {
			guards = len(m.UniquePatterns(e)) > 0
		}
		switch {
		case w.Op == WriteBatch:
			add("BatchWriteItem")
		case s.Op == WritePut && s.If == IfPresent:
			add("UpdateItem")
		case s.Op == WritePut:
			add("PutItem")
			if guards {
				add("PutItem")
			}
		case s.Op == WriteUpdate:
			add("UpdateItem")
			if guards && slices.ContainsFunc(m.UniquePatterns(m.Entity(s.Entity)), func(u *Pattern) bool {
				return slices.ContainsFunc(u.Where, func(a string) bool { return slices.Contains(s.Set, a) || slices.Contains(s.Remove, a) })
			}) {
				add("PutItem", "DeleteItem")
			}
		case s.Op == WriteDelete:
			add("DeleteItem")
		case s.Op == WriteCheck:
			add("ConditionCheckItem")
		}
	}
	slices.Sort(out)
	return out
}

// Maintained reports whether a stream handler keeps the attribute (a
// counter or a copy): the application never writes it.
func (e *Entity) Maintained(attr string) bool {
	for _, c := range e.Counters {
		if c.Attr == attr {
			return true
		}
	}
	for _, c := range e.Copies {
		if c.Attr == attr {
			return true
		}
	}
	return false
}

// Params lists the parameters a write takes from its caller, sorted: for
// a put, the entity's attributes; otherwise the id, the attributes set,
// passed (with) or removed-from, the increments' and conditions'
// parameters, the version read, and for a delete the unique values the
// item holds. A transaction takes its steps'.
func (m *Model) Params(w *Write) []string {
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	for _, s := range w.Items() {
		e := m.Entity(s.Entity)
		if e == nil {
			continue
		}
		own := func(attrs ...string) { // the step's item's: after its alias
			for _, a := range attrs {
				add(s.Param(a))
			}
		}
		if s.Op == WritePut { // a create gives maintained attributes their first values
			for _, a := range e.Attributes {
				if a.Name != e.Version && (s.If == IfAbsent || !e.Maintained(a.Name)) && a.Stored() && a.Derived == nil {
					own(a.Name)
				}
			}
		} else {
			own(e.ID...)
		}
		own(s.Set...)
		own(s.With...)
		for _, i := range slices.Concat(s.Add, s.Discard, s.Append) {
			add(i.Param)
		}
		for _, c := range s.Condition {
			add(c.Param)
		}
		if e.Version != "" && !(s.Op == WritePut && s.If == IfAbsent) && !m.CounterStep(s) {
			own(e.Version)
		}
		if s.Op == WriteDelete {
			// Its unique values, as the item holds them: their guard items
			// go with it (without them the delete could never hold).
			for _, u := range m.UniquePatterns(e) {
				for _, a := range u.Where {
					if !e.IsID(a) {
						add(a)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// validateWrites checks the write patterns against the entities: every
// name known, each field used where it means something, operands of the
// attribute's type. What a write does to keys and limits is for the
// checks (KP701…).
func (m *Model) validateWrites(l *errorList, entities []string) {
	names := map[string]bool{}
	for _, p := range m.Patterns {
		names[p.Name] = true
	}
	for _, w := range m.Writes {
		path := "writes." + w.Name
		m.validateAliases(l, w, path)
		if names[w.Name] {
			l.add(w.Pos, path, "duplicate name %q: read and write patterns share one namespace (GrantPatterns takes both)", w.Name)
		}
		names[w.Name] = true
		if w.Rate < 0 {
			l.add(w.PosOf("rate"), path+".rate", "expected a rate of zero or more writes per second, found %v", w.Rate)
		}
		checkPeak(l, w.PosOf("peak"), path+".peak", w.Peak, w.Rate, "rate")
		switch w.Op {
		case WriteTransact:
			if len(w.Steps) == 0 {
				l.add(w.PosOf("transact"), path+".transact", "expected at least one step")
			}
			for i, s := range w.Steps {
				sp := fmt.Sprintf("%s.transact[%d]", path, i)
				if s.Op == WriteTransact || s.Op == WriteBatch {
					l.add(s.Pos, sp, "a transaction's steps are put, update, delete or check, not %s", s.Op)
					continue
				}
				m.validateStep(l, s, sp, entities)
			}
		case WriteBatch:
			if w.Batch != WritePut && w.Batch != WriteDelete {
				l.add(w.PosOf("batch"), path+".batch", "expected put: Entity or delete: Entity")
			}
			if m.Entity(w.Entity) == nil {
				l.unknown(w.PosOf("batch"), path+".batch", "entity", w.Entity, entities)
			}
		case WriteCheck:
			l.add(w.Pos, path, "check is a step of a transaction (transact: [...]), not a write on its own")
		default:
			m.validateStep(l, w, path, entities)
		}
	}
	for _, e := range m.Entities {
		if e.Version == "" {
			continue
		}
		if e.Attr(e.Version) == nil {
			l.unknown(e.PosOf("version"), "entities."+e.Name+".version", "attribute", e.Version, e.AttrNames())
		}
	}
}

// validateStep checks one single-item write.
func (m *Model) validateStep(l *errorList, w *Write, path string, entities []string) {
	e := m.Entity(w.Entity)
	if e == nil {
		l.unknown(w.Pos, path+"."+string(w.Op), "entity", w.Entity, entities)
		return
	}
	attrs := e.AttrNames()
	only := func(field string, ops ...WriteOp) {
		if _, set := w.FieldPos[field]; set && !slices.Contains(ops, w.Op) {
			l.add(w.PosOf(field), path+"."+field, "%s applies to %s, not to %s", field, opList(ops), w.Op)
		}
	}
	only("if", WritePut)
	only("set", WriteUpdate)
	only("add", WriteUpdate)
	only("remove", WriteUpdate)
	only("with", WriteUpdate)
	only("discard", WriteUpdate)
	only("append", WriteUpdate)
	if w.Op == WritePut && w.If != "" && w.If != IfAbsent && w.If != IfPresent {
		l.add(w.PosOf("if"), path+".if", "expected %s or %s, found %q", IfAbsent, IfPresent, w.If)
	}
	if w.Op == WriteUpdate && len(w.Set)+len(w.Add)+len(w.Remove)+len(w.Discard)+len(w.Append) == 0 {
		l.add(w.Pos, path, "an update changes something: give set, add, remove, discard or append")
	}
	if w.Op == WriteCheck && len(w.Condition) == 0 {
		l.add(w.Pos, path, "a check step holds the transaction to a condition: give condition")
	}
	changed := map[string]string{}
	change := func(field, attr string) *Attribute {
		fp := path + "." + field
		a := e.Attr(attr)
		switch {
		case a == nil:
			l.unknown(w.PosOf(field), fp, "attribute", attr, attrs)
			return nil
		case changed[attr] != "":
			l.add(w.PosOf(field), fp, "%s is already in %s: an update changes an attribute once", attr, changed[attr])
		case e.IsID(attr):
			l.add(w.PosOf(field), fp, "%s is part of %s's id: an item's id never changes (delete it and put a new one)", attr, e.Name)
		case a.Immutable:
			l.add(w.PosOf(field), fp, "%s is immutable: it never changes once written", attr)
		case attr == e.Version:
			l.add(w.PosOf(field), fp, "%s is %s's version: every write increments it itself", attr, e.Name)
		case a.Derived != nil:
			l.add(w.PosOf(field), fp, "%s is derived: the runtime computes it from %s on every write", attr, strings.Join(a.Derived.Sources(), ", "))
		case a.Type == TypeCounter && field != "add":
			l.add(w.PosOf(field), fp, "%s is a sharded counter: it is added to (add: {%s: 1}), never %s", attr, attr, field)
		}
		changed[attr] = field
		return a
	}
	for _, a := range w.Set {
		if m.mapEntry(l, e, w, "set", a, path, changed) {
			continue
		}
		change("set", a)
	}
	for _, i := range w.Add {
		if a := change("add", i.Attr); a != nil && a.Type != TypeNumber && a.Type != TypeCounter && a.Type != TypeSet {
			l.add(w.PosOf("add"), path+".add."+i.Attr, "add applies to numbers, counters and sets; %s is a %s", i.Attr, a.Type)
		}
	}
	for _, r := range w.Remove {
		if m.mapEntry(l, e, w, "remove", r, path, changed) {
			continue
		}
		if a := change("remove", r); a != nil && !a.Optional && a.Type != TypeSet {
			l.add(w.PosOf("remove"), path+".remove", "%s is required: only optional attributes can be removed", r)
		}
	}
	for _, i := range w.Discard {
		change("discard", i.Attr)
	}
	for _, i := range w.Append {
		change("append", i.Attr)
	}
	m.validateStepKinds(l, e, w, path)
	for _, a := range w.With {
		switch {
		case e.Attr(a) == nil:
			l.unknown(w.PosOf("with"), path+".with", "attribute", a, attrs)
		case e.IsID(a):
			l.add(w.PosOf("with"), path+".with", "%s is part of the id: it is passed anyway", a)
		case changed[a] != "":
			l.add(w.PosOf("with"), path+".with", "%s is in %s: with lists attributes the update passes as they are", a, changed[a])
		}
	}
	for _, c := range w.Condition {
		m.validateCondition(l, e, c, path+".condition."+c.Attr)
	}
}

func opList(ops []WriteOp) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, " and ")
}

// validateCondition checks a condition's attribute and operands.
func (m *Model) validateCondition(l *errorList, e *Entity, c *Condition, path string) {
	a := e.Attr(c.Attr)
	if a == nil {
		l.unknown(c.Pos, path, "attribute", c.Attr, e.AttrNames())
		return
	}
	if !slices.Contains(CondOps(), c.Op) {
		l.add(c.Pos, path, "unknown comparison %q; expected one of %s", c.Op, condOpList())
		return
	}
	if a.Type == TypeCounter || !a.Scalar() && c.Op != CondExists && c.Op != CondAbsent {
		l.add(c.Pos, path, "%s is a %s: a condition tests it with exists or absent only", c.Attr, a.Type)
		return
	}
	constant := func(v string) {
		if a.Type == TypeNumber {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				l.add(c.Pos, path, "value %q: expected a number", v)
			}
			return
		}
		if err := a.Check(v); err != nil {
			l.add(c.Pos, path, "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("attribute %q: ", c.Attr)))
		}
	}
	switch c.Op {
	case CondIn:
		if len(c.Values) == 0 {
			l.add(c.Pos, path, "in expects a list of values")
		}
		for _, v := range c.Values {
			constant(v)
		}
	case CondExists, CondAbsent:
	case CondLt, CondLe, CondGt, CondGe:
		if a.Type == TypeBool {
			l.add(c.Pos, path, "%s orders values; %s is a bool", c.Op, c.Attr)
		}
		fallthrough
	default:
		if c.Param == "" {
			constant(c.Value)
		}
	}
}

func condOpList() string {
	var s []string
	for _, o := range CondOps() {
		s = append(s, string(o))
	}
	return strings.Join(s, ", ")
}

// AttrNames lists an entity's attribute names, in order.
func (e *Entity) AttrNames() []string {
	out := make([]string, len(e.Attributes))
	for i, a := range e.Attributes {
		out[i] = a.Name
	}
	return out
}

func (w *Write) PosOf(name string) Pos {
	if p, ok := w.FieldPos[name]; ok {
		return p
	}
	return w.Pos
}

// UniquePatterns lists the unique alternate keys of an entity.
func (m *Model) UniquePatterns(e *Entity) []*Pattern {
	var out []*Pattern
	for _, p := range m.Patterns {
		if p.Unique && len(p.Entities) == 1 && p.Entities[0] == e.Name {
			out = append(out, p)
		}
	}
	return out
}
