package patterns

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Cleanup is what a finished migration left in the items, to remove once
// the lock that ends it is deployed (the runtime then writes the final
// design only): while the migration ran, every write carried the design
// before's keys and names as well. keyplan migrate removes it
// (migrate.Migrate) and then drops the record; until then an edit that
// would read the leftovers is refused (KP616).
type Cleanup struct {
	// Entities are the entities whose items are rewritten to the
	// accepted design: every entity a phase backfilled (a key on a GSI
	// that stays but no longer serves it, put back by writes during the
	// migration) and every one Remove names.
	Entities []string `json:"entities"`
	// Remove are, per entity, attributes its items may hold that the
	// accepted design never writes for it: the keys of GSIs the
	// migration deleted, renamed attributes' old names.
	Remove map[string][]string `json:"remove,omitempty"`
	// Verified are the environments (Lock.Environments) whose tables are
	// cleaned up, waiting for the others.
	Verified []string `json:"verified,omitempty"`
	// Before are the designs the table was at before the accepted one,
	// oldest first, since the last cleanup: what the cleanup is derived
	// from (Lock.Check re-derives Entities and Remove from them and the
	// accepted design, and refuses a lock that disagrees). None in a lock
	// an earlier keyplan wrote before it recorded them (KP620).
	Before []*Design `json:"-"`
}

// MarshalJSON writes the cleanup with its designs as a lock records them.
func (c *Cleanup) MarshalJSON() ([]byte, error) {
	before := make([]lockedDesign, len(c.Before))
	for i, d := range c.Before {
		before[i] = lockedDesign{d}
	}
	return json.Marshal(struct {
		Entities []string            `json:"entities"`
		Remove   map[string][]string `json:"remove,omitempty"`
		Verified []string            `json:"verified,omitempty"`
		Before   []lockedDesign      `json:"before"`
	}{c.Entities, c.Remove, c.Verified, before})
}

// cleanupFile is a cleanup as a lock file holds it.
type cleanupFile struct {
	Entities []string            `json:"entities"`
	Remove   map[string][]string `json:"remove"`
	Verified []string            `json:"verified"`
	Before   []json.RawMessage   `json:"before"`
}

// read decodes a cleanup read from the lock file (named file).
func (in *cleanupFile) read(file string) (*Cleanup, error) {
	// No designs before: keyplan recorded a cleanup so for a while (an
	// upgrade change, KP620); it is kept as recorded once valid says it
	// removes nothing the accepted design writes.
	c := &Cleanup{Entities: in.Entities, Remove: in.Remove, Verified: in.Verified}
	for i, raw := range in.Before {
		d, err := decodeDesign(fmt.Sprintf("%s (cleanup's design before, %d)", file, i+1), raw)
		if err != nil {
			return nil, err
		}
		c.Before = append(c.Before, d)
	}
	return c, nil
}

// ended is the cleanup pending once the table has gone from one design
// to another (a migration ended, or a one-deploy change was accepted):
// the pending one, with its entities named as the new design names them,
// and what the step leaves. The step's backfilled entities are those of
// the phases keyplan derives between the two designs.
func (c *Cleanup) ended(from, to *Design) *Cleanup {
	var backfilled []string
	for _, p := range compareDesigns(from, to).Phases {
		backfilled = append(backfilled, p.Backfill...)
	}
	out := c.renamed(to).merge(leftovers(from, to, backfilled))
	if out == nil {
		return nil
	}
	var before []*Design
	if c != nil {
		before = slices.Clone(c.Before)
	}
	out.Before = append(before, from)
	return out
}

// derived is the cleanup its designs leave, from the first design before
// to the accepted one (nil: nothing), as keyplan recorded it step by
// step.
func (c *Cleanup) derived(accepted *Design) *Cleanup {
	var out *Cleanup
	for i, from := range c.Before {
		to := accepted
		if i+1 < len(c.Before) {
			to = c.Before[i+1]
		}
		out = out.ended(from, to)
	}
	return out
}

// check compares a cleanup with the one its designs derive.
func (c *Cleanup) check(accepted *Design) error {
	want := c.derived(accepted)
	if want == nil {
		return fmt.Errorf("its designs leave nothing to clean up, and it records %s", c)
	}
	type rec struct {
		Entities []string            `json:"entities"`
		Remove   map[string][]string `json:"remove,omitempty"`
	}
	return sameJSON("cleanup", rec{c.Entities, c.Remove}, rec{want.Entities, want.Remove})
}

// Pending says what the cleanup removes and how to run it (model: the
// model file).
func (c *Cleanup) Pending(model string) string {
	return fmt.Sprintf("the last migration's cleanup is pending, which removes what the design before left in the items of %s: once the lock is deployed, the construct's cleanup job removes it (or keyplan migrate %s --table NAME --deployed)", c, model)
}

// UpToDate says that the lock of the model file model records no
// migration, and what of a cleanup is pending.
//
// Deprecated: keyplan lock says what it records with Says.
func (l *Lock) UpToDate(model string) string {
	if l.Cleanup == nil {
		return "up to date"
	}
	return "up to date; " + l.Cleanup.Pending(model)
}

// String says what a cleanup removes from which entities' items:
// "Order (GSI3PK, GSI3SK), Ticket (its keys rewritten to the design's)".
func (c *Cleanup) String() string {
	var parts []string
	for _, e := range c.Entities {
		if r := c.Remove[e]; len(r) > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", e, strings.Join(r, ", ")))
		} else {
			parts = append(parts, e+" (its keys rewritten to the design's)")
		}
	}
	return strings.Join(parts, ", ")
}

// leftovers is the cleanup a migration from one design to another leaves,
// its phases having backfilled the entities backfilled (nil: nothing).
func leftovers(from, to *Design, backfilled []string) *Cleanup {
	c := &Cleanup{Remove: map[string][]string{}}
	fm, tm := from.Model(), to.Model()
	for _, ek := range to.Entities {
		e := tm.Entity(ek.Name)
		if e == nil {
			continue
		}
		old := e.Name
		if e.RenamedFrom != "" && fm.Entity(e.RenamedFrom) != nil {
			old = e.RenamedFrom
		}
		fe := fm.Entity(old)
		if fe == nil {
			continue // a new entity: nothing written before
		}
		var remove []string
		// The keys of GSIs the migration deleted.
		for _, fk := range from.Entities {
			if fk.Name != old {
				continue
			}
			for _, k := range fk.Keys {
				if k.Index == "" || to.indexNamed(k.Index) != nil {
					continue
				}
				if ix := from.indexNamed(k.Index); ix != nil {
					remove = append(remove, ix.StoredKeys()...)
				}
			}
		}
		// Renamed attributes' old names (unless the entity still has one
		// by that name).
		for _, a := range e.Attributes {
			if a.RenamedFrom != "" && fe.Attr(a.RenamedFrom) != nil && e.Attr(a.RenamedFrom) == nil {
				remove = append(remove, a.RenamedFrom)
			}
		}
		if len(remove) > 0 {
			slices.Sort(remove)
			c.Remove[e.Name] = slices.Compact(remove)
		}
	}
	c.Entities = append(slices.Clone(backfilled), slices.Collect(maps.Keys(c.Remove))...)
	slices.Sort(c.Entities)
	c.Entities = slices.Compact(c.Entities)
	if len(c.Entities) == 0 {
		return nil
	}
	return c
}

// indexNamed is the design's GSI or LSI of that name (nil: none).
func (d *Design) indexNamed(name string) *Index {
	for _, ix := range d.SecondaryIndexes() {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// merge adds another cleanup's work (a migration that ended while an
// earlier one's cleanup was pending).
func (c *Cleanup) merge(o *Cleanup) *Cleanup {
	switch {
	case c == nil:
		return o
	case o == nil:
		return c
	}
	out := &Cleanup{Entities: slices.Concat(c.Entities, o.Entities), Remove: maps.Clone(c.Remove)}
	if out.Remove == nil {
		out.Remove = map[string][]string{}
	}
	for e, names := range o.Remove {
		out.Remove[e] = slices.Concat(out.Remove[e], names)
		slices.Sort(out.Remove[e])
		out.Remove[e] = slices.Compact(out.Remove[e])
	}
	slices.Sort(out.Entities)
	out.Entities = slices.Compact(out.Entities)
	return out
}

// renamed is a pending cleanup with the entity names of a migration's
// target (renamedFrom); entities the target no longer has are dropped.
func (c *Cleanup) renamed(to *Design) *Cleanup {
	if c == nil {
		return nil
	}
	m := to.Model()
	name := func(e string) string {
		if m.Entity(e) != nil {
			return e
		}
		for _, x := range m.Entities {
			if x.RenamedFrom == e {
				return x.Name
			}
		}
		return ""
	}
	out := &Cleanup{Remove: map[string][]string{}}
	for _, e := range c.Entities {
		if n := name(e); n != "" {
			out.Entities = append(out.Entities, n)
			if r := c.Remove[e]; len(r) > 0 {
				out.Remove[n] = slices.Clone(r)
			}
		}
	}
	if len(out.Entities) == 0 {
		return nil
	}
	return out
}

// valid checks a cleanup read from a file against the accepted design:
// its entities are the design's, and it removes nothing the design
// writes for them.
func (c *Cleanup) valid(d *Design) error {
	if len(c.Entities) == 0 {
		return errors.New("a cleanup of no entity")
	}
	m := d.Model()
	for _, e := range c.Entities {
		if m.Entity(e) == nil {
			return fmt.Errorf("cleanup of entity %q, which the accepted design does not have", e)
		}
	}
	for e, names := range c.Remove {
		ent := m.Entity(e)
		if !slices.Contains(c.Entities, e) || ent == nil {
			return fmt.Errorf("cleanup removes attributes of %q, which it does not list", e)
		}
		for _, n := range names {
			if n == "" || ent.Attr(n) != nil || n == d.PK || n == d.SK || d.writesKey(e, n) {
				return fmt.Errorf("cleanup removes %s from %s's items, which the accepted design writes", n, e)
			}
		}
	}
	return nil
}

// writesKey reports whether the design gives an entity's items a key
// attribute of that name.
func (d *Design) writesKey(entity, attr string) bool {
	for _, ek := range d.Entities {
		if ek.Name != entity {
			continue
		}
		for _, k := range ek.Keys {
			if ix := d.indexNamed(k.Index); ix != nil && slices.Contains(ix.StoredKeys(), attr) {
				return true
			}
		}
	}
	return false
}

// CleanedUp records that environment env (one Environments names, or ""
// when it names none) has removed the cleanup's leftovers from its table:
// the record goes once every environment has. It reports whether it did.
func (l *Lock) CleanedUp(env string) (bool, error) {
	c := l.Cleanup
	switch {
	case c == nil:
		return false, errors.New("no cleanup pending")
	case len(l.Environments) == 0 && env != "":
		return false, fmt.Errorf("environment %q: the lock names no environments (keyplan lock --environments sets them)", env)
	case len(l.Environments) > 0 && !slices.Contains(l.Environments, env):
		return false, fmt.Errorf("environment %q: the lock names %s", env, strings.Join(l.Environments, ", "))
	}
	if env != "" && !slices.Contains(c.Verified, env) {
		c.Verified = append(c.Verified, env)
		slices.SortFunc(c.Verified, func(a, b string) int { return slices.Index(l.Environments, a) - slices.Index(l.Environments, b) })
	}
	if len(c.Verified) < len(l.Environments) {
		return false, nil
	}
	l.Cleanup = nil
	return true, nil
}

// cleanupConflicts refuses (KP616) an edit that would read a pending
// cleanup's leftovers: a new attribute under a name the cleanup removes
// from its entity's items (it would read their old values), or a new GSI
// keyed by attributes the cleanup removes (it would hold stale keys).
func cleanupConflicts(df *Diff, c *Cleanup, from, to *Design) {
	if c == nil {
		return
	}
	tm := to.Model()
	for _, e := range slices.Sorted(maps.Keys(c.Remove)) {
		names := c.Remove[e]
		te := tm.Entity(e)
		if te == nil {
			for _, x := range tm.Entities {
				if x.RenamedFrom == e {
					te = x
				}
			}
		}
		if te != nil {
			for _, a := range te.Attributes {
				if slices.Contains(names, a.Name) {
					df.add(ChangeCleanupPending, Subject{SubjectEntity, te.Name}, "attribute %s: %s's items still hold the old values of a renamed attribute or a deleted GSI's key under that name (the last migration's cleanup is pending): run keyplan migrate to remove them first, or choose another name", a.Name, e)
				}
			}
		}
		for _, ix := range to.Indexes {
			if from.indexNamed(ix.Name) == nil && slices.ContainsFunc(ix.StoredKeys(), func(k string) bool { return slices.Contains(names, k) }) {
				df.add(ChangeCleanupPending, Subject{SubjectIndex, ix.Name}, "created under a deleted GSI's name: %s's items still hold its stale keys (the last migration's cleanup is pending): run keyplan migrate to remove them first", e)
			}
		}
	}
}
