package oracle

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// OpKind is what a write step does.
type OpKind string

// Write steps: a declared write pattern, a batch, or the runtime's
// general writes (Table.Create, Table.Delete, Table.Replace).
const (
	OpWrite   OpKind = "write"
	OpBatch   OpKind = "batch"
	OpCreate  OpKind = "create"
	OpDelete  OpKind = "delete"
	OpReplace OpKind = "replace"
)

// Op is one write step, in the plain values the runtime takes.
type Op struct {
	Kind OpKind
	// Write names the write pattern (OpWrite, OpBatch).
	Write string
	// Entity is the entity written (OpCreate, OpDelete, OpReplace).
	Entity string
	// Params are the write's parameters (OpWrite), the item's values
	// (OpCreate, OpDelete) or its new values (OpReplace).
	Params map[string]any
	// Old are the values a replace read (OpReplace).
	Old map[string]any
	// Items are a batch's items.
	Items []map[string]any
}

// Subject names what the op runs: its write pattern, or the general
// write and its entity.
func (op *Op) Subject() string {
	if op.Write != "" {
		return op.Write
	}
	return string(op.Kind) + " " + op.Entity
}

func (op *Op) String() string {
	switch op.Kind {
	case OpBatch:
		var items []string
		for _, it := range op.Items {
			items = append(items, "{"+paramText(it)+"}")
		}
		return fmt.Sprintf("batch %s [%s]", op.Write, strings.Join(items, " "))
	case OpReplace:
		return fmt.Sprintf("replace %s {%s} -> {%s}", op.Entity, paramText(op.Old), paramText(op.Params))
	case OpWrite:
		return fmt.Sprintf("write %s(%s)", op.Write, paramText(op.Params))
	}
	return fmt.Sprintf("%s %s {%s}", op.Kind, op.Entity, paramText(op.Params))
}

// Apply runs an op on the state, by definition (see Write, Batch, Create,
// Delete, Replace).
func (s *State) Apply(op *Op) error {
	switch op.Kind {
	case OpWrite:
		w := s.m.Write(op.Write)
		if w == nil {
			return invalid("unknown write %q", op.Write)
		}
		return s.Write(w, op.Params)
	case OpBatch:
		return s.Batch(s.m.Write(op.Write), op.Items)
	case OpCreate:
		return s.Create(op.Entity, op.Params)
	case OpDelete:
		return s.Delete(op.Entity, op.Params)
	case OpReplace:
		return s.Replace(op.Entity, op.Old, op.Params)
	}
	return invalid("unknown op %q", op.Kind)
}

// Op draws a write step: one of the model's write patterns (more often
// when it declares some) or a general create, replace or delete; mostly
// well formed and on items the state holds, some stale (a version or a
// value no longer the item's), some on absent items, some invalid.
func (g *Generator) Op(s *State) *Op {
	var writes []*model.Write
	writes = append(writes, g.m.Writes...)
	if len(writes) > 0 && g.r.Float64() < 0.6 {
		w := writes[g.r.IntN(len(writes))]
		if w.Op == model.WriteBatch {
			return g.batch(s, w)
		}
		return &Op{Kind: OpWrite, Write: w.Name, Params: g.WriteParams(s, w)}
	}
	e := g.m.Entities[g.r.IntN(len(g.m.Entities))]
	held := s.Of(e.Name)
	switch k := g.r.IntN(10); {
	case k < 5 || len(held) == 0:
		return g.create(s, e)
	case k < 8:
		return g.replace(e, held[g.r.IntN(len(held))])
	default:
		return g.delete(e, held[g.r.IntN(len(held))])
	}
}

// Create draws a create of the entity: a new item, or now and then one
// whose identity or unique value is taken, or an invalid one.
func (g *Generator) Create(s *State, entity string) *Op { return g.create(s, g.m.Entity(entity)) }

func (g *Generator) create(s *State, e *model.Entity) *Op {
	it := g.Item(e.Name)
	held := s.Of(e.Name)
	switch x := g.r.Float64(); {
	case len(held) > 0 && x < 0.1: // the identity is taken
		h := held[g.r.IntN(len(held))]
		for _, id := range e.ID {
			it.Values[id] = Plain(h.Values[id])
		}
	case len(held) > 0 && x < 0.2: // a unique value is taken
		h := held[g.r.IntN(len(held))]
		for _, u := range Unique(g.m, e.Name) {
			for _, a := range g.m.Where(u) {
				if v, ok := h.Values[a]; ok {
					it.Values[a] = Plain(v)
				}
			}
		}
	case x < 0.2+g.Invalid:
		a := e.Attributes[g.r.IntN(len(e.Attributes))]
		it.Values[a.Name] = g.InvalidValue(e, a)
	}
	return &Op{Kind: OpCreate, Entity: e.Name, Params: map[string]any(it.Values)}
}

func (g *Generator) delete(e *model.Entity, cur *Item) *Op {
	v := map[string]any{}
	for _, id := range e.ID {
		v[id] = Plain(cur.Values[id])
	}
	if e.Version != "" {
		v[e.Version] = Plain(cur.Values[e.Version])
	}
	for _, u := range Unique(g.m, e.Name) {
		for _, a := range g.m.Where(u) {
			if x, ok := cur.Values[a]; ok {
				v[a] = Plain(x)
			}
		}
	}
	switch x := g.r.Float64(); {
	case x < 0.1 && e.Version != "": // a stale version
		v[e.Version] = Plain(plusOne(cur.Values[e.Version]))
	case x < 0.2: // an item that is not there
		last := e.Attr(e.ID[len(e.ID)-1])
		v[last.Name] = g.Value(e, last)
	}
	return &Op{Kind: OpDelete, Entity: e.Name, Params: v}
}

func (g *Generator) replace(e *model.Entity, cur *Item) *Op {
	old := cur.Plain()
	next := maps.Clone(old)
	var free []*model.Attribute
	for _, a := range e.Attributes {
		if !e.Fixed(a.Name) && !maintained(e, a.Name) && a.Name != e.Version && a.Type != model.TypeCounter && a.Derived == nil {
			free = append(free, a)
		}
	}
	if len(free) == 0 {
		return g.delete(e, cur)
	}
	for range 1 + g.r.IntN(2) {
		a := free[g.r.IntN(len(free))]
		if a.Optional && g.r.IntN(3) == 0 {
			delete(next, a.Name)
		} else {
			next[a.Name] = g.Value(e, a)
		}
	}
	switch x := g.r.Float64(); {
	case x < 0.15: // read before somebody else's change
		a := free[g.r.IntN(len(free))]
		old = maps.Clone(old)
		old[a.Name] = g.Value(e, a)
	case x < 0.2 && e.Version != "":
		old = maps.Clone(old)
		old[e.Version] = Plain(plusOne(cur.Values[e.Version]))
	case x < 0.2+g.Invalid:
		a := free[g.r.IntN(len(free))]
		next[a.Name] = g.InvalidValue(e, a)
	}
	return &Op{Kind: OpReplace, Entity: e.Name, Old: old, Params: next}
}

// WriteParams draws the parameters of a write pattern: each step's item
// one the state holds (a new one for a create), the version and with
// attributes as that item holds them, new values for what it sets; now
// and then stale, of an absent item, missing or invalid.
func (g *Generator) WriteParams(s *State, w *model.Write) map[string]any {
	params := map[string]any{}
	for _, st := range w.Items() {
		e := g.m.Entity(st.Entity)
		if e == nil {
			continue
		}
		held := s.Of(e.Name)
		var target *Item
		create := st.Op == model.WritePut && st.If == model.IfAbsent
		switch {
		case len(held) > 0 && (!create && g.r.Float64() < 0.85 || create && g.r.Float64() < 0.15):
			target = held[g.r.IntN(len(held))]
		default:
			target = g.Item(e.Name)
			v, err := normalizeItem(e, target.Values, true)
			if err == nil {
				target = &Item{Entity: e.Name, Values: v}
			}
		}
		fresh := g.Item(e.Name) // new values for what the step sets
		for _, pname := range g.m.Params(st) {
			if _, done := params[pname]; done {
				continue
			}
			// The attribute the parameter is (a step's named item's
			// follower.userId is userId; a map entry prefs.theme an
			// element of prefs).
			name := pname
			if st.As != "" {
				name = strings.TrimPrefix(pname, st.As+".")
			}
			if ma, _, ok := entryOf(e, name); ok {
				params[pname] = g.Value(e, element(ma))
				continue
			}
			a := e.Attr(name)
			if a == nil {
				params[pname] = g.param(e, st, pname, target)
				if params[pname] == nil {
					delete(params, pname)
				}
				continue
			}
			switch {
			case a != nil && e.IsID(name):
				params[pname] = Plain(target.Values[name])
			case a != nil && name == e.Version:
				params[pname] = Plain(target.Values[name])
				if params[pname] == nil || g.r.Float64() < 0.1 {
					params[pname] = Plain(plusOne(target.Values[name]))
				}
			case a != nil && (slices.Contains(st.With, name) || st.Op == model.WriteDelete):
				// As the item holds it (with, a delete's unique values).
				params[pname] = Plain(target.Values[name])
				if g.r.Float64() < 0.1 {
					params[pname] = g.Value(e, a)
				}
			case a != nil && st.Op == model.WritePut:
				switch {
				case st.If == model.IfAbsent:
					params[pname] = Plain(target.Values[name])
				case a.Immutable && g.r.Float64() < 0.9:
					params[pname] = Plain(target.Values[name]) // as it is
				default:
					params[pname] = fresh.Values[name]
				}
			case a != nil && slices.Contains(st.Set, name):
				params[pname] = g.Value(e, a)
			default:
				params[pname] = g.param(e, st, pname, target)
			}
			if params[pname] == nil {
				delete(params, pname)
			}
		}
	}
	names := sortedKeys(params)
	switch x := g.r.Float64(); {
	case len(names) > 0 && x < g.Invalid:
		name := names[g.r.IntN(len(names))]
		if a := g.attrOf(w, name); a != nil {
			params[name] = g.InvalidValue(g.m.Entity(g.entityOf(w, name)), a)
		}
	case len(names) > 0 && x < 1.5*g.Invalid:
		delete(params, names[g.r.IntN(len(names))])
	case x < 1.7*g.Invalid:
		params["notAParameter"] = "x"
	}
	return params
}

// param draws a parameter that is no attribute set or passed: an
// increment, or a condition's operand (mostly what the item holds, so
// that the condition holds as often as not).
func (g *Generator) param(e *model.Entity, st *model.Write, name string, target *Item) any {
	for _, inc := range slices.Concat(st.Add, st.Discard, st.Append) {
		if inc.Param != name {
			continue
		}
		a := e.Attr(inc.Attr)
		switch {
		case a != nil && a.Type == model.TypeSet && g.r.Float64() < 0.5:
			// Mostly elements the item holds, or one of them alone.
			if held, ok := target.Values[inc.Attr].(Set); ok && len(held) > 0 {
				pick := held[g.r.IntN(len(held))]
				if g.r.IntN(2) == 0 {
					return Plain(pick)
				}
				return Plain(Set{pick})
			}
			return g.Value(e, a)
		case a != nil && many(a):
			return g.Value(e, a)
		}
		return int64(g.r.IntN(9) - 3)
	}
	for _, c := range st.Condition {
		if c.Param != name {
			continue
		}
		a := e.Attr(c.Attr)
		if v, ok := target.Values[c.Attr]; ok && g.r.Float64() < 0.6 {
			return Plain(v)
		}
		return g.Value(e, a)
	}
	if a := e.Attr(name); a != nil {
		return g.Value(e, a)
	}
	return int64(1)
}

// attrOf is the attribute a write's parameter stands for, if any.
func (g *Generator) attrOf(w *model.Write, name string) *model.Attribute {
	if e := g.m.Entity(g.entityOf(w, name)); e != nil {
		if a := e.Attr(name); a != nil {
			return a
		}
		for _, st := range w.Items() {
			for _, c := range st.Condition {
				if c.Param == name && st.Entity == e.Name {
					return e.Attr(c.Attr)
				}
			}
		}
	}
	return nil
}

func (g *Generator) entityOf(w *model.Write, name string) string {
	for _, st := range w.Items() {
		if slices.Contains(g.m.Params(st), name) {
			return st.Entity
		}
	}
	return ""
}

func (g *Generator) batch(s *State, w *model.Write) *Op {
	e := g.m.Entity(w.Entity)
	op := &Op{Kind: OpBatch, Write: w.Name}
	held := s.Of(e.Name)
	for range 1 + g.r.IntN(5) {
		var it map[string]any
		switch {
		case w.Batch == model.WriteDelete && len(held) > 0 && g.r.IntN(4) > 0:
			h := held[g.r.IntN(len(held))]
			it = map[string]any{}
			for _, id := range e.ID {
				it[id] = Plain(h.Values[id])
			}
		case w.Batch == model.WriteDelete:
			it = map[string]any{}
			for _, id := range e.ID {
				it[id] = g.Value(e, e.Attr(id))
			}
		default:
			it = map[string]any(g.Item(e.Name).Values)
			if len(held) > 0 && g.r.IntN(4) == 0 { // overwrite one held
				h := held[g.r.IntN(len(held))]
				for _, id := range e.ID {
					it[id] = Plain(h.Values[id])
				}
			}
		}
		op.Items = append(op.Items, it)
	}
	if g.r.Float64() < g.Invalid && len(op.Items) > 0 {
		if w.Batch == model.WritePut {
			a := e.Attributes[g.r.IntN(len(e.Attributes))]
			op.Items[0][a.Name] = g.InvalidValue(e, a)
		} else {
			op.Items = append(op.Items, maps.Clone(op.Items[0])) // one item twice
		}
	}
	return op
}
