package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// What a declared write does to the design: the item writes it makes,
// the keys it writes or rebuilds. The checks (KP701…), the grants and the
// cost estimate read it; the runtime does the same at run time.

// stepEffect is what one single-item write (a write, or a step of a
// transaction) does.
type stepEffect struct {
	s  *model.Write
	e  *model.Entity
	ek *EntityKeys
	// changed are the attributes it writes: all of them for a put or a
	// delete, those it sets, adds to or removes for an update, none for a
	// check.
	changed map[string]bool
	// keys are the entity's keys it writes (its item's indexes): all for a
	// put or a delete, for an update the table's and those reading a
	// changed attribute.
	keys []*EntityKey
	// guards counts the guard items of unique values it writes.
	guards int
	// counter marks an add to sharded counters: it writes a shard item,
	// not the entity's item; shards counts the shard items a delete
	// takes with its item.
	counter bool
	shards  int
}

// keyReads lists the attributes an entity key reads: its templates' and
// its sparse conditions'.
func keyReads(k *EntityKey) []string {
	out := append(k.PK.Attrs(), k.SK.Attrs()...)
	for _, c := range k.When {
		out = append(out, c.Attr)
	}
	return out
}

// effect analyses one single-item write; nil when its entity is unknown.
func (d *Design) effect(s *model.Write) *stepEffect {
	e := d.model.Entity(s.Entity)
	ek := d.Entity(s.Entity)
	if e == nil || ek == nil {
		return nil
	}
	fx := &stepEffect{s: s, e: e, ek: ek, changed: map[string]bool{}}
	switch s.Op {
	case model.WritePut, model.WriteDelete, model.WriteBatch:
		for _, a := range e.Attributes {
			fx.changed[a.Name] = true
		}
		fx.keys = ek.Keys
		if s.Op != model.WriteBatch {
			fx.guards = len(d.model.UniquePatterns(e))
		}
		if s.Op == model.WriteDelete {
			for _, c := range ek.Counters {
				fx.shards += c.Shards
			}
		}
	case model.WriteUpdate:
		if d.model.CounterStep(s) {
			fx.counter = true
			for _, i := range s.Add {
				fx.changed[i.Attr] = true
			}
			return fx
		}
		fx.changed = updated(e, s)
		for _, k := range ek.Keys {
			if k.Index == model.BaseIndex || slices.ContainsFunc(keyReads(k), func(a string) bool { return fx.changed[a] }) {
				fx.keys = append(fx.keys, k)
			}
		}
		for _, u := range d.model.UniquePatterns(e) {
			if slices.ContainsFunc(u.Where, func(a string) bool { return fx.changed[a] }) {
				fx.guards += 2 // the old guard goes, the new one comes
			}
		}
	case model.WriteCheck:
		fx.keys = ek.Keys[:1]
	}
	return fx
}

// effects analyses a write's item writes, in order.
func (d *Design) effects(w *model.Write) []*stepEffect {
	var out []*stepEffect
	for _, s := range w.Items() {
		if w.Op == model.WriteBatch {
			s = &model.Write{Op: model.WriteBatch, Entity: w.Entity}
		}
		if fx := d.effect(s); fx != nil {
			out = append(out, fx)
		}
	}
	return out
}

// stepName says which step of a write a finding is about.
func stepName(w *model.Write, i int) string {
	if w.Op == model.WriteTransact {
		return fmt.Sprintf("step %d (%s %s)", i+1, w.Steps[i].Op, w.Steps[i].Entity)
	}
	return string(w.Op) + " " + w.Entity
}

func write(w *model.Write) Subject { return Subject{SubjectWrite, w.Name} }

// Pinned lists the attributes a write's equality conditions fix to a
// value (condition {a: $p} or {a: CONST}): the write holds only if the
// item has it, so the write knows it as with would.
func Pinned(w *model.Write) []string {
	var out []string
	for _, c := range w.Condition {
		if c.Op == model.CondEq && !slices.Contains(out, c.Attr) {
			out = append(out, c.Attr)
		}
	}
	return out
}

// KP701: an update that changes an attribute a key reads must be able to
// rebuild the key: every other attribute the key reads is set, passed
// (with), fixed by an equality condition or part of the id, and none is
// added to atomically (its new value is unknown to the write); a key that
// reads an attribute the update removes is simply dropped (the item
// leaves a sparse index). A unique value's guard moves with the old
// value, which a write pattern cannot name.
func ruleStaleKey(d *Design) []finding {
	var out []finding
	for _, w := range d.model.Writes {
		for i, fx := range d.effects(w) {
			s := fx.s
			if s.Op != model.WriteUpdate {
				continue
			}
			known := knownTo(fx.e, s)
			for _, k := range fx.keys {
				if ix := d.Index(k.Index); k.Index == model.BaseIndex || ix != nil && ix.Native() {
					continue // DynamoDB indexes a native key's attributes itself
				}
				reads := keyReads(k)
				added, missing := staleKey(s, reads, known)
				changed := slices.DeleteFunc(slices.Clone(reads), func(a string) bool { return !fx.changed[a] })
				key := fmt.Sprintf("%s's key on %s (%s / %s)", fx.e.Name, k.Index, k.PK, k.SK)
				if len(k.When) > 0 {
					key += ", sparse on " + constText(k.When)
				}
				switch {
				case len(added) > 0:
					out = append(out, finding{write(w), w.PosOf("add"),
						fmt.Sprintf("%s adds to %s, which %s reads: the write cannot know the new value, so the key would go stale", stepName(w, i), strings.Join(added, ", "), key),
						"set the attribute to the new value instead of add, or take it out of the key"})
				case len(missing) > 0:
					out = append(out, finding{write(w), w.Pos,
						fmt.Sprintf("%s changes %s, which %s reads with %s: without them the key cannot be rebuilt (stale, or wrongly in or out of a sparse index)",
							stepName(w, i), strings.Join(uniq(changed), ", "), key, strings.Join(missing, ", ")),
						fmt.Sprintf("add with: [%s] (the caller passes them as the item holds them; the write holds only if they still are)%s", strings.Join(missing, ", "), d.unavoidable(fx.e, k, changed, missing))})
				}
			}
			for _, u := range d.model.UniquePatterns(fx.e) {
				for _, a := range u.Where {
					if slices.Contains(s.Set, a) || slices.Contains(s.Remove, a) || fx.e.Attr(a) != nil && fx.e.Attr(a).Derived != nil && fx.changed[a] {
						out = append(out, finding{write(w), w.Pos,
							fmt.Sprintf("%s changes %s, which %s keeps unique: its guard item moves from the old value, which a write pattern cannot name", stepName(w, i), a, u.Name),
							"change it with Replace (old and new values) or Update with Changes.With holding the old value"})
					}
				}
			}
		}
	}
	return out
}

// updated lists the attributes an update changes: those it sets, adds
// to, appends to, discards from or removes (a map's entry changes the
// map), and the derived attributes recomputed from them.
func updated(e *model.Entity, s *model.Write) map[string]bool {
	changed := map[string]bool{}
	for _, a := range slices.Concat(s.Set, s.Remove) {
		a, _, _ = model.MapPath(a)
		changed[a] = true
	}
	for _, i := range slices.Concat(s.Discard, s.Append, s.Add) {
		changed[i.Attr] = true
	}
	for _, a := range e.Attributes { // recomputed from a source it changes
		if a.Derived != nil && slices.ContainsFunc(a.Derived.Sources(), func(src string) bool { return changed[src] }) {
			changed[a.Name] = true
		}
	}
	return changed
}

// knownTo lists what an update knows of the item: what it sets or
// removes, passes (with), fixes by an equality condition, the id, and
// what is derived from those alone.
func knownTo(e *model.Entity, s *model.Write) map[string]bool {
	known := map[string]bool{}
	for _, a := range slices.Concat(s.Set, s.Remove, s.With, e.ID, Pinned(s)) {
		known[a] = true
	}
	for _, a := range e.Attributes { // computed from what the write knows
		if a.Derived != nil && !slices.ContainsFunc(a.Derived.Sources(), func(src string) bool { return !known[src] }) {
			known[a.Name] = true
		}
	}
	return known
}

// staleKey is what an update that changes an attribute a synthetic key
// reads (reads) lacks to rebuild it: the attributes it adds to (it cannot
// know their new values) and those it does not know (missing: it must be
// passed them, with). Nothing when the key reads an attribute the update
// removes: the item leaves the index, whatever else the key reads.
func staleKey(s *model.Write, reads []string, known map[string]bool) (added, missing []string) {
	if slices.ContainsFunc(reads, func(a string) bool { return slices.Contains(s.Remove, a) }) {
		return nil, nil
	}
	for _, a := range reads {
		switch {
		case slices.ContainsFunc(s.Add, func(inc *model.Increment) bool { return inc.Attr == a }):
			added = appendNew(added, a)
		case !known[a]:
			missing = appendNew(missing, a)
		}
	}
	return added, missing
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func uniq(s []string) []string {
	var out []string
	for _, v := range s {
		out = appendNew(out, v)
	}
	return out
}

func constText(cs []model.Const) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.Attr+"="+c.Value)
	}
	return strings.Join(s, ", ")
}

// KP702: a transaction within DynamoDB's limits: at most 100 items (guard
// items included), at most 4 MB, and no item twice (parameters are one
// namespace, so two steps on one entity write one item).
func ruleTransactLimits(d *Design) []finding {
	var out []finding
	z := &sizer{assumed: map[string]bool{}, items: map[string]int{}}
	for _, w := range d.model.Writes {
		if w.Op != model.WriteTransact {
			continue
		}
		fxs := d.effects(w)
		items, bytes := 0, 0
		seen := map[string]int{}
		for i, fx := range fxs {
			items += 1 + fx.guards + fx.shards
			bytes += z.item(d, fx.e)
			if fx.counter {
				continue // a shard item, picked at random
			}
			item := fx.e.Name + "\x00" + fx.s.As
			if j, dup := seen[item]; dup {
				params := strings.Join(fx.e.ID, ", ")
				if fx.s.As != "" {
					params = fx.s.As + "." + strings.Join(fx.e.ID, ", "+fx.s.As+".")
				}
				out = append(out, finding{write(w), w.Steps[i].Pos,
					fmt.Sprintf("steps %d and %d both write a %s with the same id parameters (%s): a transaction touches an item once", j+1, i+1, fx.e.Name, params),
					"merge the two steps into one, or name each step's item (as: follower, as: followee: their parameters are follower.userId, followee.userId)"})
			}
			seen[item] = i
		}
		if items > model.MaxTransactItems {
			out = append(out, finding{write(w), w.Pos,
				fmt.Sprintf("writes %d items (guard items of unique values included); DynamoDB takes %d in a transaction", items, model.MaxTransactItems),
				"split the transaction"})
		}
		if bytes > model.MaxTransactBytes {
			out = append(out, finding{write(w), w.Pos,
				fmt.Sprintf("its items may reach %d bytes; a transaction carries at most %d (4 MB)", bytes, model.MaxTransactBytes),
				"split the transaction, or bound the attributes' sizes (maxLength)"})
		}
	}
	return out
}

// KP703: the application never writes an attribute a stream handler
// keeps (a counter or a copy): an update would race the handler, and a
// put without if would overwrite it. A create gives it its first value.
func ruleWritesMaintained(d *Design) []finding {
	var out []finding
	for _, w := range d.model.Writes {
		for i, s := range w.Items() {
			e := d.model.Entity(s.Entity)
			if e == nil {
				continue
			}
			var hit []string
			if s.Op == model.WriteUpdate {
				for _, a := range slices.Concat(s.Set, s.Remove) {
					if e.Maintained(a) {
						hit = appendNew(hit, a)
					}
				}
				for _, inc := range s.Add {
					if e.Maintained(inc.Attr) {
						hit = appendNew(hit, inc.Attr)
					}
				}
			}
			if len(hit) > 0 {
				out = append(out, finding{write(w), w.Pos,
					fmt.Sprintf("%s writes %s, which a stream handler keeps (counters, copies): the two would overwrite each other", stepName(w, i), strings.Join(hit, ", ")),
					"leave the attribute to its handler"})
			}
			if blind := (s.Op == model.WritePut && s.If == "") || w.Op == model.WriteBatch && w.Batch == model.WritePut; blind && len(e.Counters)+len(e.Copies) > 0 {
				out = append(out, finding{write(w), w.Pos,
					fmt.Sprintf("%s overwrites whole %s items, losing what the stream handlers keep (%s)", stepName(w, i), e.Name, strings.Join(maintained(e), ", ")),
					"put with if: absent (create) or if: present (replace, keeping them), or use an update"})
			}
		}
	}
	return out
}

func maintained(e *model.Entity) []string {
	var out []string
	for _, c := range e.Counters {
		out = append(out, c.Attr)
	}
	for _, c := range e.Copies {
		out = append(out, c.Attr)
	}
	return out
}

// KP704: an entity's version is a number that only keyplan's writes
// change: not in a key, not kept by a handler, not immutable.
func ruleVersion(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		a := e.Attr(e.Version)
		if e.Version == "" || a == nil {
			continue
		}
		at := e.PosOf("version")
		switch {
		case a.Type != model.TypeNumber:
			out = append(out, finding{entity(e), at, fmt.Sprintf("the version %s is a %s: it must be a number (every write adds 1)", a.Name, a.Type), "declare it type: number"})
		case e.IsID(a.Name) || a.Immutable:
			out = append(out, finding{entity(e), at, fmt.Sprintf("the version %s never changes (id or immutable): every write changes it", a.Name), "use an attribute of its own"})
		case e.Maintained(a.Name):
			out = append(out, finding{entity(e), at, fmt.Sprintf("the version %s is kept by a stream handler: only keyplan's writes change it", a.Name), "use an attribute of its own"})
		}
		if ek := d.Entity(e.Name); ek != nil {
			for _, k := range ek.Keys {
				if slices.Contains(keyReads(k), a.Name) {
					out = append(out, finding{entity(e), at, fmt.Sprintf("the version %s is in %s's key on %s: every write would move the item", a.Name, e.Name, k.Index), "keep the version out of patterns' where and sort"})
					break
				}
			}
		}
	}
	return out
}

// KP705: a write rate one partition cannot take: the write units a
// pattern's writes put on one partition of an index (its rate spread over
// the partition key's values, when they are few) against DynamoDB's 1,000
// WCU per partition.
func ruleHotWrites(d *Design) []finding {
	var out []finding
	z := &sizer{typical: true, assumed: map[string]bool{}, items: map[string]int{}} // a load estimate, as the cost's
	for _, w := range d.model.Writes {
		if w.Rate <= 0 {
			continue
		}
		factor := 1.0
		if w.Op == model.WriteTransact {
			factor = 2 // a transaction's writes cost double
		}
		for i, fx := range d.effects(w) {
			for _, k := range fx.keys {
				values := cardinalityOf(fx.e, k.PK.Attrs(), nil, k.PK.Shards())
				if values >= highCardinality {
					continue // many values: the writes spread
				}
				bytes := z.item(d, fx.e)
				if k.Index != model.BaseIndex {
					bytes = z.projected(d, fx.e, k.Index)
				}
				wcu := w.Rate * factor * units(bytes, model.WriteUnitBytes) / float64(values)
				if wcu <= model.PartitionWCU {
					continue
				}
				out = append(out, finding{write(w), w.PosOf("rate"),
					fmt.Sprintf("%s at %g/s puts about %.0f WCU/s on one partition of %s (%s takes %d value(s)); a partition takes %d",
						stepName(w, i), w.Rate, wcu, k.Index, k.PK, values, model.PartitionWCU),
					"write-shard the key (shards: N on the patterns reading it), partition by an attribute with more values, or batch the updates"})
			}
		}
	}
	return out
}

// KP706: writes without conditions (a batch, a put without if) only for
// entities whose writes need none: no unique values (their guard items
// would not follow), no version (it would not be checked or bumped).
func ruleUnconditional(d *Design) []finding {
	var out []finding
	for _, w := range d.model.Writes {
		for i, s := range w.Items() {
			e := d.model.Entity(s.Entity)
			blind := (s.Op == model.WritePut && s.If == "") || w.Op == model.WriteBatch
			if e == nil || !blind {
				continue
			}
			var why []string
			if u := d.model.UniquePatterns(e); len(u) > 0 {
				why = append(why, "unique values ("+u[0].Name+") whose guard items would not follow")
			}
			if e.Version != "" {
				why = append(why, "a version ("+e.Version+") that would be neither checked nor bumped")
			}
			if len(why) > 0 {
				out = append(out, finding{write(w), w.Pos,
					fmt.Sprintf("%s writes %s items without conditions, but %s has %s", stepName(w, i), e.Name, e.Name, strings.Join(why, " and ")),
					"use put with if: absent or if: present, update or delete, one item at a time"})
			}
		}
	}
	return out
}

// updateStep is an update step of the model's writes as the planner
// weighs a layout against it.
type updateStep struct {
	s              *model.Write
	e              *model.Entity
	changed, known map[string]bool
}

// updateSteps lists the model's update steps that change an item's
// attributes (not a counter's shards).
func updateSteps(m *model.Model) []updateStep {
	var out []updateStep
	for _, w := range m.Writes {
		if w.Op == model.WriteBatch {
			continue
		}
		for _, s := range w.Items() {
			if e := m.Entity(s.Entity); e != nil && s.Op == model.WriteUpdate && !m.CounterStep(s) {
				out = append(out, updateStep{s, e, updated(e, s), knownTo(e, s)})
			}
		}
	}
	return out
}

// withDemand counts the parameters a layout's GSI keys demand of the
// model's updates beyond what they pass (KP701's with:), one per update
// step and attribute: a layout demanding fewer is preferred after the
// GSI count (docs/planner.md).
func withDemand(steps []updateStep, keys map[string][]*EntityKey) int {
	n := 0
	for _, u := range steps {
		for _, k := range keys[u.e.Name] {
			if k.Index == model.BaseIndex {
				continue
			}
			if reads := keyReads(k); slices.ContainsFunc(reads, func(a string) bool { return u.changed[a] }) {
				_, missing := staleKey(u.s, reads, u.known)
				n += len(missing)
			}
		}
	}
	return n
}

// unavoidable says, for KP701's fix, which layout would not demand the
// missing attributes of an update that changes what entity e's key k
// reads: none with a synthetic key when one pattern the key serves reads
// a changed and a missing attribute (a native key, which DynamoDB
// maintains, would not); else a key that does not read them together (a
// hand-made key reading more than its patterns need).
func (d *Design) unavoidable(e *model.Entity, k *EntityKey, changed, missing []string) string {
	var apart []string
	for _, pp := range d.Patterns {
		p := d.model.Pattern(pp.Name)
		if p == nil || pp.Index != k.Index || !slices.Contains(pp.Entities, e.Name) {
			continue
		}
		reads := slices.Concat(p.Where, p.Sort)
		for _, c := range p.Filter {
			reads = append(reads, c.Attr)
		}
		has := func(as []string) []string {
			return slices.DeleteFunc(slices.Clone(as), func(a string) bool { return !slices.Contains(reads, a) })
		}
		if c, m := has(changed), has(missing); len(c) > 0 && len(m) > 0 {
			native := "a native key (DynamoDB maintains it) would need none, but " + k.Index + " is synthetic (the plan says why)"
			if d.indexKeys == model.IndexKeysSynthetic {
				native = "a native key (DynamoDB maintains it) would need none: drop indexKeys: synthetic"
			}
			return fmt.Sprintf("; no synthetic layout avoids it: pattern %s reads %s and %s in one key; %s", p.Name, strings.Join(m, ", "), strings.Join(c, ", "), native)
		} else if len(m) > 0 {
			apart = appendNew(apart, p.Name)
		}
	}
	if len(apart) == 0 {
		return ""
	}
	return fmt.Sprintf("; no pattern served there reads %s with %s (%s read %s): a key of %s on %s that does not read them together would not", strings.Join(missing, ", "), strings.Join(changed, ", "), strings.Join(apart, ", "), strings.Join(missing, ", "), e.Name, k.Index)
}

// KP707: an update that changes a source of a derived attribute must know
// its other sources (set, passed with with, or the id) to compute the new
// value; otherwise the value, and every key that reads it, would go stale.
func ruleDerivedStale(d *Design) []finding {
	var out []finding
	for _, w := range d.model.Writes {
		for i, fx := range d.effects(w) {
			s := fx.s
			if s.Op != model.WriteUpdate || fx.counter {
				continue
			}
			known := map[string]bool{}
			for _, a := range slices.Concat(s.Set, s.Remove, s.With, fx.e.ID) {
				known[a] = true
			}
			for _, a := range fx.e.Attributes {
				if a.Derived == nil || !fx.changed[a.Name] {
					continue
				}
				var missing []string
				for _, src := range a.Derived.Sources() {
					if !known[src] {
						missing = append(missing, src)
					}
				}
				if len(missing) > 0 {
					out = append(out, finding{write(w), w.Pos,
						fmt.Sprintf("%s changes a source of %s.%s (derived from %s) without %s: the new value cannot be computed, so it (and every key it feeds) would go stale",
							stepName(w, i), fx.e.Name, a.Name, strings.Join(a.Derived.Sources(), ", "), strings.Join(missing, ", ")),
						fmt.Sprintf("add with: [%s] (the caller passes them as the item holds them; the write holds only if they still are)", strings.Join(missing, ", "))})
				}
			}
		}
	}
	return out
}
