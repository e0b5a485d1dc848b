package patterns

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Comparing two designs: every change from the deployed design to the
// planned one, classified by a change rule (entities, attributes, keys,
// GSIs, TTL, patterns), and the phases that deploy it.

// keyText renders a key for messages.
func keyText(k *EntityKey) string { return k.PK.String() + " / " + k.SK.String() }

// comparison is the state of one compareDesigns: the two designs, their
// models, the diff so far and the entities whose items are rewritten.
type comparison struct {
	from, to *Design
	fm, tm   *model.Model
	df       *Diff
	backfill map[string]bool
}

// compareDesigns classifies the changes from one design to the next and
// plans their phases. The changes come in a fixed order: entities, each
// kept entity's attributes and keys, GSIs, TTL, read patterns, write
// patterns, what else the model says (KP621), then the plan's own errors.
func compareDesigns(from, to *Design) *Diff {
	c := &comparison{from: from, to: to, fm: from.Model(), tm: to.Model(),
		df: &Diff{Changes: []Change{}, Phases: []*Phase{}}, backfill: map[string]bool{}}
	df := c.df
	df.From.Indexes = phaseIndexes(from)
	oldOf := c.entities()
	for _, e := range c.tm.Entities {
		if old, ok := oldOf[e.Name]; ok {
			c.entity(c.fm.Entity(old), e)
		}
	}
	created, deleted := c.indexes()
	c.localIndexes()
	if from.TTL != to.TTL {
		df.add(ChangeTTL, Subject{SubjectTable, to.Table}, "%s", ttlMessage(from.TTL, to.TTL))
	}
	if c.fm.Strong() != c.tm.Strong() {
		df.add(ChangeConsistency, Subject{SubjectTable, to.Table}, "consistency %s would become %s: a global table's multi-Region consistency is set when it is created and never changes (strong also needs an empty table); keep %s, or move the items to a new table",
			consistencyName(c.fm), consistencyName(c.tm), consistencyName(c.fm))
	}
	c.patterns()
	c.writes()
	c.modelChanges(oldOf)
	// A plan that leaves patterns unserved is no design to deploy.
	for _, x := range to.Errors() {
		df.Changes = append(df.Changes, Change{ID: x.ID, Severity: SeverityError, Kind: ChangeKind("check"), Subject: x.Subject, Message: x.Message})
	}
	if df.Phases = phases(from, to, created, deleted, c.backfill); df.Phases == nil || len(df.Errors()) > 0 {
		df.Phases = []*Phase{} // JSON: [], not null; a refused change has none
	}
	df.Safe = len(df.Errors()) == 0 && len(df.Phases) <= 1 && !df.Backfills()
	return df
}

// entities finds the entities kept (by name or renamedFrom) and those
// removed; it returns each kept entity's old name by its new one.
func (c *comparison) entities() map[string]string {
	oldOf := map[string]string{} // new name → old name
	for _, e := range c.tm.Entities {
		old := e.Name
		if e.RenamedFrom != "" && c.fm.Entity(e.RenamedFrom) != nil {
			old = e.RenamedFrom
			c.df.add(ChangeRenamed, Subject{SubjectEntity, e.Name}, "renamed from %s: its items keep their keys (tag %s)", old, c.from.Entity(old).Tag)
		}
		if c.fm.Entity(old) != nil {
			oldOf[e.Name] = old
		}
	}
	kept := map[string]bool{}
	for _, old := range oldOf {
		kept[old] = true
	}
	for _, e := range c.fm.Entities {
		if !kept[e.Name] {
			c.df.add(ChangeRemoved, Subject{SubjectEntity, e.Name}, "removed, but its items stay in the table; if it was renamed, say so with renamedFrom: %s on the new entity", e.Name)
		}
	}
	return oldOf
}

// entity compares a kept entity: fe as locked, e as planned.
func (c *comparison) entity(fe, e *model.Entity) {
	names := c.attributes(fe, e)
	uniqueGuards(c.df, c.fm, c.tm, fe, e, names)
	fk, tk := c.from.Entity(fe.Name), c.to.Entity(e.Name)
	c.keyAttributes(e, fk, names)
	// The base key may not change (it would replace every item).
	fb, tb := fk.Key(model.BaseIndex), tk.Key(model.BaseIndex)
	if t, ok := translateKey(fb, names); !ok || !t.PK.Equal(tb.PK) || !t.SK.Equal(tb.SK) || encodingChanged(fe, e, fb, names) {
		c.df.add(ChangeBaseKey, Subject{SubjectEntity, e.Name}, "its base key %s would become %s: a base key cannot change in place (every item would move); keep the attributes it reads, their types and ranges", keyText(fb), keyText(tb))
	}
	c.keysAdded(fe, e, fk, tk, names)
	c.keysDropped(fe, e, fk, tk, names)
	c.placement(fe, e, fb)
}

// placement classifies a change of an entity's within: its items stay
// where their base key put them (the lock keeps it: a base key never
// changes), whatever the model now says.
func (c *comparison) placement(fe, e *model.Entity, base *EntityKey) {
	parent := e.Within
	if p := c.tm.Entity(parent); p != nil && p.RenamedFrom != "" && c.fm.Entity(p.RenamedFrom) != nil {
		parent = p.RenamedFrom
	}
	if parent == fe.Within {
		return
	}
	s := Subject{SubjectEntity, e.Name}
	switch {
	case fe.Within == "":
		c.df.add(ChangePlacementKept, s, "within: %s is new, but its items keep their base key %s (a base key never changes): they stay out of %s's item collection; a new table would place them in it", e.Within, keyText(base), e.Within)
	case e.Within == "":
		c.df.add(ChangePlacementKept, s, "within: %s is gone, but its items keep their base key %s (a base key never changes): they stay in %s's item collection", fe.Within, keyText(base), fe.Within)
	default:
		c.df.add(ChangePlacementKept, s, "within: %s becomes %s, but its items keep their base key %s (a base key never changes): they stay where it puts them", fe.Within, e.Within, keyText(base))
	}
}

// attributes finds a kept entity's renamed attributes (backfilled); it
// returns each kept attribute's new name by its old one.
func (c *comparison) attributes(fe, e *model.Entity) map[string]string {
	names := map[string]string{} // old → new
	for _, a := range e.Attributes {
		was := a.Name
		if a.RenamedFrom != "" && fe.Attr(a.RenamedFrom) != nil {
			was = a.RenamedFrom
			c.df.add(ChangeRenamed, Subject{SubjectEntity, e.Name}, "attribute %s renamed from %s: its items are backfilled to the new name", a.Name, was)
			c.backfill[e.Name] = true
		}
		if fa := fe.Attr(was); fa != nil {
			names[was] = a.Name
			if fa.InS3() != a.InS3() {
				c.backfill[e.Name] = true // its values move (objectMove)
			}
		}
	}
	return names
}

// keyAttributes refuses removing an attribute that a locked key reads.
func (c *comparison) keyAttributes(e *model.Entity, fk *EntityKeys, names map[string]string) {
	var keyAttrs []string
	for _, k := range fk.Keys {
		for _, a := range append(k.PK.Attrs(), k.SK.Attrs()...) {
			if !slices.Contains(keyAttrs, a) {
				keyAttrs = append(keyAttrs, a)
			}
		}
	}
	for _, a := range keyAttrs {
		if _, ok := names[a]; !ok {
			c.df.add(ChangeRemoved, Subject{SubjectEntity, e.Name}, "attribute %s is in its keys but the model no longer has it; if it was renamed, say so with renamedFrom: %s", a, a)
		}
	}
}

// keysAdded finds an entity's GSI keys that are new or rewritten (a new
// shape: its items are backfilled).
func (c *comparison) keysAdded(fe, e *model.Entity, fk, tk *EntityKeys, names map[string]string) {
	for _, k := range tk.Keys {
		if k.Index == model.BaseIndex {
			continue
		}
		if slices.ContainsFunc(fk.Keys, func(o *EntityKey) bool {
			t, ok := translateKey(o, names)
			return ok && o.Index == k.Index && t.PK.Equal(k.PK) && t.SK.Equal(k.SK) && !encodingChanged(fe, e, o, names)
		}) {
			continue
		}
		where := "an existing GSI"
		if c.from.Index(k.Index) == nil {
			where = "a new GSI"
			if ix := c.to.Index(k.Index); ix.Native() && builtFromItems(fe, e, ix, names) {
				c.df.add(ChangeIndexBuild, Subject{SubjectIndex, k.Index}, "keyed natively (%s): the items of %s already hold %s, so DynamoDB fills it itself when it is created (an index build, while it is CREATING); nothing is backfilled", ix.KeyText(), e.Name, strings.Join(ix.KeyAttributes(), ", "))
				continue
			}
		}
		c.backfill[e.Name] = true
		c.df.add(ChangeShapeAdded, Subject{SubjectEntity, e.Name}, "a new key %s on %s (%s): its existing items are backfilled", keyText(k), k.Index, where)
	}
}

// builtFromItems reports whether the existing items of an entity (fe as
// locked, e as planned) already hold every key attribute of the native
// index ix, stored as the index's type. A discriminator (GSInEntity) is
// no attribute of the entity: it is written by a backfill, and so is an
// attribute renamed (backfilled to its new name) or new to the entity.
func builtFromItems(fe, e *model.Entity, ix *Index, names map[string]string) bool {
	old := map[string]string{} // new name → old name
	for was, now := range names {
		old[now] = was
	}
	for _, a := range ix.KeyAttributes() {
		was, ok := old[a]
		na, la := e.Attr(a), fe.Attr(was)
		if !ok || was != a || na == nil || la == nil || na.DynamoType() != la.DynamoType() {
			return false
		}
	}
	return true
}

// keysDropped finds an entity's locked GSI keys that go: re-encoded (a
// new shape), or dropped from a GSI that stays (its items leave it, a
// cleanup backfill).
func (c *comparison) keysDropped(fe, e *model.Entity, fk, tk *EntityKeys, names map[string]string) {
	for _, o := range fk.Keys {
		if o.Index == model.BaseIndex {
			continue
		}
		t, ok := translateKey(o, names)
		still := ok && slices.ContainsFunc(tk.Keys, func(k *EntityKey) bool {
			return k.Index == o.Index && t.PK.Equal(k.PK) && t.SK.Equal(k.SK)
		})
		reencoded := encodingChanged(fe, e, o, names)
		if still && !reencoded {
			continue
		}
		if ok && reencoded {
			c.df.add(ChangeKeyRewritten, Subject{SubjectEntity, e.Name}, "its key %s on %s encodes a number attribute at another width: the key moves to a new shape, backfilled, and the old one is dropped", keyText(o), o.Index)
		}
		if c.to.Index(o.Index) != nil {
			c.backfill[e.Name] = true // its items leave the GSI
		}
	}
}

// indexes classifies the GSIs created, deleted and re-projected; it
// returns the names created and deleted.
func (c *comparison) indexes() (created, deleted map[string]bool) {
	from, to, df := c.from, c.to, c.df
	created, deleted = map[string]bool{}, map[string]bool{}
	for _, ix := range to.Indexes {
		if globalIndex(from, ix.Name) == nil {
			created[ix.Name] = true
		}
	}
	for _, ix := range from.Indexes {
		if globalIndex(to, ix.Name) == nil {
			deleted[ix.Name] = true
		}
	}
	for _, name := range slices.Sorted(mapKeys(created)) {
		ix := to.Index(name)
		if old := sameShapes(from, to, name); old != "" && deleted[old] {
			df.add(ChangeProjection, Subject{SubjectIndex, name}, "replaces %s, whose projection %s becomes %s: %s is created and backfilled, reads switch to it, then %s is deleted (a projection is never changed in place)", old, from.Index(old).ProjectionText(), ix.ProjectionText(), name, old)
		}
		df.add(ChangeGSICreated, Subject{SubjectIndex, name}, "created (%s, %s) for %s", ix.ProjectionText(), strings.Join(ix.Entities, ", "), strings.Join(patternsOn(to, name), ", "))
	}
	for _, name := range slices.Sorted(mapKeys(deleted)) {
		df.add(ChangeGSIDeleted, Subject{SubjectIndex, name}, "deleted once nothing reads it (last)")
	}
	for _, ix := range to.Indexes {
		if old := globalIndex(from, ix.Name); old != nil && (old.Projection != ix.Projection || !slices.Equal(old.NonKeyAttributes, ix.NonKeyAttributes)) {
			df.add(ChangeProjection, Subject{SubjectIndex, ix.Name}, "its projection %s would become %s in place, which DynamoDB refuses: plan a new index instead", old.ProjectionText(), ix.ProjectionText())
			// Stable planning never does this; a hand-made layout can.
			df.Changes[len(df.Changes)-1].Severity = SeverityError
		}
	}
	return created, deleted
}

// patterns lists the read patterns added and removed, each its own
// change.
func (c *comparison) patterns() {
	for _, p := range patternsByName(c.tm) {
		if c.fm.Pattern(p.Name) != nil {
			continue
		}
		pp := c.to.Pattern(p.Name)
		if pp == nil || !pp.Served() {
			continue // its check error follows
		}
		c.df.add(ChangePatternAdded, Subject{SubjectPattern, p.Name}, "new: %s on %s", pp.Operation, pp.Index)
	}
	for _, p := range patternsByName(c.fm) {
		if c.tm.Pattern(p.Name) == nil {
			c.df.add(ChangePatternRemoved, Subject{SubjectPattern, p.Name}, "removed: nothing reads it any more (the keys it read go when no other pattern needs them)")
		}
	}
}

// writes lists the write patterns added and removed: they change no
// table, only what the application may do (and its grants).
func (c *comparison) writes() {
	for _, w := range c.tm.Writes {
		if c.fm.Write(w.Name) == nil {
			c.df.add(ChangePatternAdded, Subject{SubjectWrite, w.Name}, "new: %s (%s)", w.Op, strings.Join(w.Actions(c.tm), ", "))
		}
	}
	for _, w := range c.fm.Writes {
		if c.tm.Write(w.Name) == nil {
			c.df.add(ChangePatternRemoved, Subject{SubjectWrite, w.Name}, "removed: the application no longer makes this write (grants of it go)")
		}
	}
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// uniqueGuards refuses what would strand the guard items that keep an
// entity's unique alternate keys unique: they are keyed by the attribute's
// name and its encoded value, and the backfill does not rewrite them; nor
// does it write guards for a unique key new on items already there.
func uniqueGuards(df *Diff, fm, tm *model.Model, fe, te *model.Entity, names map[string]string) {
	unique := func(m *model.Model, e string) map[string]*model.Pattern {
		out := map[string]*model.Pattern{}
		for _, p := range m.Patterns {
			if p.Unique && len(p.Entities) == 1 && p.Entities[0] == e {
				out[strings.Join(p.Where, ",")] = p
			}
		}
		return out
	}
	was := unique(fm, fe.Name)
	for _, p := range was {
		for _, a := range p.Where {
			n := names[a]
			switch fa, ta := fe.Attr(a), te.Attr(n); {
			case ta == nil:
				// Gone: KP605 says so.
			case n != a:
				df.add(ChangeUniqueGuard, Subject{SubjectEntity, te.Name}, "attribute %s (renamed from %s) is unique (pattern %s): its items' guard items are keyed by the name %s, which the backfill does not rewrite; keep the name", n, a, p.Name, strings.ToUpper(a))
			case model.KeyEncoding(fa) != model.KeyEncoding(ta):
				df.add(ChangeUniqueGuard, Subject{SubjectEntity, te.Name}, "attribute %s is unique (pattern %s): its guard items hold its value at the encoding it is written with, which would change; keep its range", a, p.Name)
			}
		}
	}
	// A unique key is new unless the locked model has it, attributes
	// renamed back to their locked names.
	old := map[string]string{} // new name → locked name
	for o, n := range names {
		old[n] = o
	}
	for _, p := range unique(tm, te.Name) {
		locked := make([]string, len(p.Where))
		for i, a := range p.Where {
			locked[i] = a
			if o, ok := old[a]; ok {
				locked[i] = o
			}
		}
		if was[strings.Join(locked, ",")] != nil {
			continue
		}
		df.add(ChangeUniqueGuard, Subject{SubjectPattern, p.Name}, "a new unique alternate key on %s, whose items are already in the table: keyplan would have to write their guard items (and find duplicates among them) first, which it does not do; declare the pattern without unique: true, or add it before the entity has items", te.Name)
	}
}

// encodingChanged reports whether a key reads a number attribute whose
// key encoding differs between the two entities.
func encodingChanged(fe, te *model.Entity, k *EntityKey, names map[string]string) bool {
	for _, a := range append(k.PK.Attrs(), k.SK.Attrs()...) {
		fa, ta := fe.Attr(a), te.Attr(names[a])
		if fa != nil && ta != nil && model.KeyEncoding(fa) != model.KeyEncoding(ta) {
			return true
		}
	}
	return false
}

// sameShapes finds a GSI of from whose entity keys equal those of to's
// GSI name (another projection, same keys): what name replaces.
func sameShapes(from, to *Design, name string) string {
	shapes := func(d *Design, ix string) string {
		var s []string
		for _, e := range d.Entities {
			for _, k := range e.Keys {
				if k.Index == ix {
					s = append(s, e.Name+":"+keyText(k))
				}
			}
		}
		sort.Strings(s)
		return strings.Join(s, "|")
	}
	want := shapes(to, name)
	for _, ix := range from.Indexes {
		if want != "" && shapes(from, ix.Name) == want {
			return ix.Name
		}
	}
	return ""
}

func patternsOn(d *Design, index string) []string {
	var out []string
	for _, p := range d.Patterns {
		if p.Index == index {
			out = append(out, p.Name)
		}
	}
	return out
}

func ttlMessage(from, to string) string {
	switch {
	case from == "":
		return fmt.Sprintf("TTL is enabled on %s", to)
	case to == "":
		return fmt.Sprintf("TTL on %s is disabled", from)
	}
	return fmt.Sprintf("the TTL attribute changes from %s to %s: DynamoDB needs TTL disabled (one deploy) before it is enabled on %s (another, at least an hour later)", from, to, to)
}

// consistencyName names a model's consistency for messages.
func consistencyName(m *model.Model) model.Consistency {
	if m.Strong() {
		return model.ConsistencyStrong
	}
	return model.ConsistencyEventual
}
