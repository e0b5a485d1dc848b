package patterns

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ChangeKind names what a change does.
type ChangeKind string

// Change kinds.
const (
	ChangeGSICreated     ChangeKind = "gsi-created"
	ChangeGSIDeleted     ChangeKind = "gsi-deleted"
	ChangeProjection     ChangeKind = "projection-replaced"
	ChangeKeyRewritten   ChangeKind = "key-rewritten"
	ChangeRemoved        ChangeKind = "removed"
	ChangeRenamed        ChangeKind = "renamed"
	ChangeBaseKey        ChangeKind = "base-key-changed"
	ChangeTTL            ChangeKind = "ttl-changed"
	ChangePending        ChangeKind = "migration-pending"
	ChangeShapeAdded     ChangeKind = "shape-added"
	ChangePatternAdded   ChangeKind = "pattern-added"
	ChangePatternRemoved ChangeKind = "pattern-removed"
	ChangeUniqueGuard    ChangeKind = "unique-guard"
)

// Change is one difference between a lock and a plan, classified by a
// change rule (ChangeRules).
type Change struct {
	ID       string     `json:"id"`
	Severity Severity   `json:"severity"`
	Kind     ChangeKind `json:"kind"`
	Subject  Subject    `json:"subject"`
	Message  string     `json:"message"`
}

// ChangeRule is one change rule: a stable id, its severity and what it is
// about (documented with a failing and a passing example in
// docs/checks.md).
type ChangeRule struct {
	ID       string
	Severity Severity
	Kind     ChangeKind
	Title    string
}

var changeRules = []ChangeRule{
	{"KP601", SeverityInfo, ChangeGSICreated, "A GSI is created in a phase of its own"},
	{"KP602", SeverityInfo, ChangeGSIDeleted, "A GSI is deleted in a phase of its own, last"},
	{"KP603", SeverityWarning, ChangeProjection, "A projection is never changed in place"},
	{"KP604", SeverityWarning, ChangeKeyRewritten, "A changed key moves to a new shape and is backfilled"},
	{"KP605", SeverityError, ChangeRemoved, "An entity or key attribute is renamed, not removed"},
	{"KP606", SeverityWarning, ChangeRenamed, "A rename follows renamedFrom"},
	{"KP607", SeverityError, ChangeBaseKey, "A base-table key never changes"},
	{"KP608", SeverityWarning, ChangeTTL, "The TTL attribute changes in two phases"},
	{"KP609", SeverityError, ChangePending, "One migration at a time"},
	{"KP610", SeverityWarning, ChangeShapeAdded, "A new key of an existing entity is backfilled"},
	{"KP611", SeverityInfo, ChangePatternAdded, "Patterns added (reads and writes)"},
	{"KP612", SeverityInfo, ChangePatternRemoved, "Patterns removed (reads and writes)"},
	{"KP613", SeverityError, ChangeUniqueGuard, "Unique alternate keys keep their guard items"},
}

// ChangeRules returns the change rules, in id order (a copy).
func ChangeRules() []ChangeRule { return slices.Clone(changeRules) }

func changeRule(k ChangeKind) ChangeRule {
	for _, r := range changeRules {
		if r.Kind == k {
			return r
		}
	}
	panic("patterns: no change rule for " + string(k))
}

// Diff is what deploying a plan over a lock takes.
type Diff struct {
	// Safe is true when the change deploys in one step, with no backfill
	// and nothing refused.
	Safe bool `json:"safe"`
	From struct {
		Indexes []*PhaseIndex `json:"indexes"`
	} `json:"from"`
	Changes []Change `json:"changes"`
	// Phases roll the change out, one deploy each (none: nothing to do).
	Phases []*Phase `json:"phases"`
}

// Errors returns the changes that are refused.
func (d *Diff) Errors() []Change {
	var out []Change
	for _, c := range d.Changes {
		if c.Severity == SeverityError {
			out = append(out, c)
		}
	}
	return out
}

// Backfills reports whether a phase rewrites existing items.
func (d *Diff) Backfills() bool {
	return slices.ContainsFunc(d.Phases, func(p *Phase) bool { return len(p.Backfill) > 0 })
}

// Compare classifies every change from a lock to a plan (planned with the
// lock: PlanWith, Options.Lock) and splits the change into phases. A lock
// in the middle of a migration compares the plan with its target: the same
// design is the migration in progress, another one is refused (KP609).
func Compare(l *Lock, to *Design) *Diff {
	from := l.Accepted
	df := &Diff{Changes: []Change{}, Phases: []*Phase{}}
	df.From.Indexes = phaseIndexes(from)
	if mg := l.Migration; mg != nil {
		df.From.Indexes = mg.indexesNow(from)
		if !sameDesign(mg.Target, to) {
			df.add(ChangePending, Subject{SubjectTable, to.Table}, "a migration to another design is at phase %d of %d: finish it (keyplan migrate) before changing the model again", mg.Current+1, len(mg.Phases))
			return df
		}
		df.Phases = mg.Phases[min(mg.Current, len(mg.Phases)):]
		df.Changes = compareDesigns(from, to).Changes
		df.Safe = false
		return df
	}
	c := compareDesigns(from, to)
	c.From = df.From
	return c
}

// sameDesign reports whether two designs deploy the same table.
func sameDesign(a, b *Design) bool {
	la, _ := (&Lock{Format: LockFormat, Accepted: a}).Bytes()
	lb, _ := (&Lock{Format: LockFormat, Accepted: b}).Bytes()
	return string(la) == string(lb)
}

func (d *Diff) add(k ChangeKind, s Subject, format string, args ...any) {
	r := changeRule(k)
	d.Changes = append(d.Changes, Change{ID: r.ID, Severity: r.Severity, Kind: k, Subject: s, Message: Printable(fmt.Sprintf(format, args...))})
}

// keyText renders a key for messages.
func keyText(k *EntityKey) string { return k.PK.String() + " / " + k.SK.String() }

// compareDesigns classifies the changes from one design to the next and
// plans their phases.
func compareDesigns(from, to *Design) *Diff {
	df := &Diff{Changes: []Change{}, Phases: []*Phase{}}
	df.From.Indexes = phaseIndexes(from)
	fm, tm := from.Model(), to.Model()
	backfill := map[string]bool{}
	// Entities: kept, renamed, removed.
	oldOf := map[string]string{} // new name → old name
	for _, e := range tm.Entities {
		old := e.Name
		if e.RenamedFrom != "" && fm.Entity(e.RenamedFrom) != nil {
			old = e.RenamedFrom
			df.add(ChangeRenamed, Subject{SubjectEntity, e.Name}, "renamed from %s: its items keep their keys (tag %s)", old, from.Entity(old).Tag)
		}
		if fm.Entity(old) != nil {
			oldOf[e.Name] = old
		}
	}
	kept := map[string]bool{}
	for _, old := range oldOf {
		kept[old] = true
	}
	for _, e := range fm.Entities {
		if !kept[e.Name] {
			df.add(ChangeRemoved, Subject{SubjectEntity, e.Name}, "removed, but its items stay in the table; if it was renamed, say so with renamedFrom: %s on the new entity", e.Name)
		}
	}
	for _, e := range tm.Entities {
		old, ok := oldOf[e.Name]
		if !ok {
			continue
		}
		fe := fm.Entity(old)
		fk, tk := from.Entity(old), to.Entity(e.Name)
		// Attributes: renamed (backfilled), removed from a key (refused).
		names := map[string]string{} // old → new
		for _, a := range e.Attributes {
			was := a.Name
			if a.RenamedFrom != "" && fe.Attr(a.RenamedFrom) != nil {
				was = a.RenamedFrom
				df.add(ChangeRenamed, Subject{SubjectEntity, e.Name}, "attribute %s renamed from %s: its items are backfilled to the new name", a.Name, was)
				backfill[e.Name] = true
			}
			if fe.Attr(was) != nil {
				names[was] = a.Name
			}
		}
		uniqueGuards(df, fm, tm, fe, e, names)
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
				df.add(ChangeRemoved, Subject{SubjectEntity, e.Name}, "attribute %s is in its keys but the model no longer has it; if it was renamed, say so with renamedFrom: %s", a, a)
			}
		}
		// The base key may not change (it would replace every item).
		fb, tb := fk.Key(BaseIndex), tk.Key(BaseIndex)
		if t, ok := translateKey(fb, names); !ok || !t.PK.Equal(tb.PK) || !t.SK.Equal(tb.SK) || encodingChanged(fe, e, fb, names) {
			df.add(ChangeBaseKey, Subject{SubjectEntity, e.Name}, "its base key %s would become %s: a base key cannot change in place (every item would move); keep the attributes it reads, their types and ranges", keyText(fb), keyText(tb))
		}
		// GSI keys: added (backfill), rewritten (new shape, backfill),
		// dropped from a GSI that stays (cleanup backfill).
		for _, k := range tk.Keys {
			if k.Index == BaseIndex {
				continue
			}
			if !slices.ContainsFunc(fk.Keys, func(o *EntityKey) bool {
				t, ok := translateKey(o, names)
				return ok && o.Index == k.Index && t.PK.Equal(k.PK) && t.SK.Equal(k.SK) && !encodingChanged(fe, e, o, names)
			}) {
				backfill[e.Name] = true
				where := "an existing GSI"
				if from.Index(k.Index) == nil {
					where = "a new GSI"
				}
				df.add(ChangeShapeAdded, Subject{SubjectEntity, e.Name}, "a new key %s on %s (%s): its existing items are backfilled", keyText(k), k.Index, where)
			}
		}
		for _, o := range fk.Keys {
			if o.Index == BaseIndex {
				continue
			}
			t, ok := translateKey(o, names)
			still := ok && slices.ContainsFunc(tk.Keys, func(k *EntityKey) bool {
				return k.Index == o.Index && t.PK.Equal(k.PK) && t.SK.Equal(k.SK)
			})
			if still && !encodingChanged(fe, e, o, names) {
				continue
			}
			if ok && encodingChanged(fe, e, o, names) {
				df.add(ChangeKeyRewritten, Subject{SubjectEntity, e.Name}, "its key %s on %s encodes a number attribute at another width: the key moves to a new shape, backfilled, and the old one is dropped", keyText(o), o.Index)
			}
			if to.Index(o.Index) != nil {
				backfill[e.Name] = true // its items leave the GSI
			}
		}
	}
	// GSIs.
	created, deleted := map[string]bool{}, map[string]bool{}
	for _, ix := range to.Indexes {
		if from.Index(ix.Name) == nil {
			created[ix.Name] = true
		}
	}
	for _, ix := range from.Indexes {
		if to.Index(ix.Name) == nil {
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
		if old := from.Index(ix.Name); old != nil && (old.Projection != ix.Projection || !slices.Equal(old.NonKeyAttributes, ix.NonKeyAttributes)) {
			df.add(ChangeProjection, Subject{SubjectIndex, ix.Name}, "its projection %s would become %s in place, which DynamoDB refuses: plan a new index instead", old.ProjectionText(), ix.ProjectionText())
			// Stable planning never does this; a hand-made layout can.
			df.Changes[len(df.Changes)-1].Severity = SeverityError
		}
	}
	// TTL.
	if from.TTL != to.TTL {
		df.add(ChangeTTL, Subject{SubjectTable, to.Table}, "%s", ttlMessage(from.TTL, to.TTL))
	}
	// Patterns, each its own change.
	for _, p := range patternsByName(tm) {
		if fm.Pattern(p.Name) != nil {
			continue
		}
		pp := to.Pattern(p.Name)
		if pp == nil || !pp.Served() {
			continue // its check error follows
		}
		df.add(ChangePatternAdded, Subject{SubjectPattern, p.Name}, "new: %s on %s", pp.Operation, pp.Index)
	}
	for _, p := range patternsByName(fm) {
		if tm.Pattern(p.Name) == nil {
			df.add(ChangePatternRemoved, Subject{SubjectPattern, p.Name}, "removed: nothing reads it any more (the keys it read go when no other pattern needs them)")
		}
	}
	// Write patterns change no table, only what the application may do
	// (and its grants).
	for _, w := range tm.Writes {
		if fm.Write(w.Name) == nil {
			df.add(ChangePatternAdded, Subject{SubjectWrite, w.Name}, "new: %s (%s)", w.Op, strings.Join(w.Actions(tm), ", "))
		}
	}
	for _, w := range fm.Writes {
		if tm.Write(w.Name) == nil {
			df.add(ChangePatternRemoved, Subject{SubjectWrite, w.Name}, "removed: the application no longer makes this write (grants of it go)")
		}
	}
	// A plan that leaves patterns unserved is no design to deploy.
	for _, x := range to.Errors() {
		df.Changes = append(df.Changes, Change{ID: x.ID, Severity: SeverityError, Kind: ChangeKind("check"), Subject: x.Subject, Message: x.Message})
	}
	if df.Phases = phases(from, to, created, deleted, backfill); df.Phases == nil {
		df.Phases = []*Phase{} // JSON: [], not null
	}
	df.Safe = len(df.Errors()) == 0 && len(df.Phases) <= 1 && !df.Backfills()
	return df
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
func uniqueGuards(df *Diff, fm, tm *Model, fe, te *Entity, names map[string]string) {
	unique := func(m *Model, e string) map[string]*Pattern {
		out := map[string]*Pattern{}
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
			case encoding(fa) != encoding(ta):
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
func encodingChanged(fe, te *Entity, k *EntityKey, names map[string]string) bool {
	for _, a := range append(k.PK.Attrs(), k.SK.Attrs()...) {
		fa, ta := fe.Attr(a), te.Attr(names[a])
		if fa != nil && ta != nil && encoding(fa) != encoding(ta) {
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

// phases splits a change into deploys: a TTL attribute change first
// disabled; each new GSI in a phase of its own, its entities backfilled
// after it; the other backfills; each deleted GSI in a phase of its own,
// last (reads have switched by then); the new TTL attribute enabled last.
func phases(from, to *Design, created, deleted, backfill map[string]bool) []*Phase {
	var out []*Phase
	cur := phaseIndexes(from)
	ttl := from.TTL
	emit := func(p *Phase) {
		p.TTL = ttl
		p.Indexes = slices.Clone(cur)
		if p.Create == nil {
			p.Create = []string{}
		}
		if p.Delete == nil {
			p.Delete = []string{}
		}
		if p.Backfill == nil {
			p.Backfill = []string{}
		}
		out = append(out, p)
	}
	twoStep := from.TTL != "" && to.TTL != "" && from.TTL != to.TTL
	if twoStep {
		ttl = ""
		emit(&Phase{})
	} else {
		ttl = to.TTL
	}
	left := map[string]bool{}
	for e := range backfill {
		left[e] = true
	}
	for _, name := range slices.Sorted(mapKeys(created)) {
		ix := to.Index(name)
		cur = append(cur, &PhaseIndex{Name: ix.Name, PK: ix.PK, SK: ix.SK, Projection: ix.Projection, NonKeyAttributes: ix.NonKeyAttributes})
		var bf []string
		for _, e := range ix.Entities {
			if left[e] {
				bf = append(bf, e)
				delete(left, e)
			}
		}
		emit(&Phase{Create: []string{name}, Backfill: bf})
	}
	if len(left) > 0 {
		bf := slices.Sorted(mapKeys(left))
		if len(out) > 0 && len(out[len(out)-1].Delete) == 0 {
			last := out[len(out)-1]
			last.Backfill = append(last.Backfill, bf...)
			sort.Strings(last.Backfill)
		} else {
			emit(&Phase{Backfill: bf})
		}
	}
	for _, name := range slices.Sorted(mapKeys(deleted)) {
		cur = slices.DeleteFunc(slices.Clone(cur), func(ix *PhaseIndex) bool { return ix.Name == name })
		emit(&Phase{Delete: []string{name}})
	}
	if twoStep {
		ttl = to.TTL
		emit(&Phase{})
	} else if len(out) == 0 && from.TTL != to.TTL {
		emit(&Phase{})
	}
	return out
}

// indexesNow are the GSIs the table has at the migration's current phase:
// those of the last phase deployed (before Current, or Current itself once
// deployed); the accepted design's before the first.
func (mg *Migration) indexesNow(accepted *Design) []*PhaseIndex {
	if mg.Current == 0 {
		return phaseIndexes(accepted)
	}
	return mg.Phases[mg.Current-1].Indexes
}
