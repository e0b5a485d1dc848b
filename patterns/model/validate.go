package model

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Validate checks a model built in Go the way [Parse] checks a file: every
// name resolves, types fit, and patterns are well formed. Problems are
// joined and match [ErrInvalidModel].
func (m *Model) Validate() error { return m.validate(m.Source) }

func (m *Model) validate(file string) error {
	if len(m.Tables) > 0 {
		return m.splitTables(file) // validates each table
	}
	l := &errorList{file: file}
	m.entityIdx = make(map[string]*Entity, len(m.Entities))
	for _, e := range m.Entities {
		if _, dup := m.entityIdx[e.Name]; !dup {
			m.entityIdx[e.Name] = e
		}
		e.indexAttrs()
	}
	m.patternIdx = make(map[string]*Pattern, len(m.Patterns))
	for _, p := range m.Patterns {
		if _, dup := m.patternIdx[p.Name]; !dup {
			m.patternIdx[p.Name] = p
		}
	}
	if m.Table == "" {
		l.add(m.Pos, "table", "missing; expected the table's logical name")
	}
	if len(m.Entities) == 0 {
		l.add(m.Pos, "entities", "expected at least one entity")
	}
	var names []string
	seenEntity, seenPattern := map[string]bool{}, map[string]bool{}
	tags := map[string]string{}
	for _, e := range m.Entities {
		if seenEntity[e.Name] {
			l.add(e.Pos, "entities."+e.Name, "duplicate entity name %q", e.Name)
		}
		names = append(names, e.Name)
		seenEntity[e.Name] = true
		if other, clash := tags[Tag(e.Name)]; clash {
			l.add(e.Pos, "entities."+e.Name, "entity names %q and %q give the same key tag %q; rename one", other, e.Name, Tag(e.Name))
		}
		tags[Tag(e.Name)] = e.Name
	}
	for _, e := range m.Entities {
		m.validateEntity(l, e, names)
	}
	m.validateWithin(l)
	m.validateEntityTables(l)
	var pnames []string
	for _, p := range m.Patterns {
		if seenPattern[p.Name] {
			l.add(p.Pos, "patterns."+p.Name, "duplicate pattern name %q", p.Name)
		}
		pnames = append(pnames, p.Name)
		seenPattern[p.Name] = true
		m.validatePattern(l, p, names)
	}
	if len(m.Patterns) == 0 {
		l.add(m.Pos, "patterns", "expected at least one pattern: the questions the table must answer")
	}
	m.validateWrites(l, names)
	m.validateSettings(l)
	m.validateIndexKeys(l)
	m.validateObjects(l)
	if len(l.errs) == 0 {
		m.validateKeys(l)
		m.validateStreams(l, names, pnames)
		m.validateExamples(l, pnames)
	}
	return l.err()
}

// Tag is the constant that marks an entity's items in keys: its name in
// upper case.
func Tag(entity string) string { return strings.ToUpper(entity) }

func (m *Model) validateEntity(l *errorList, e *Entity, entities []string) {
	path := "entities." + e.Name
	var attrs []string
	ttl := ""
	for _, a := range e.Attributes {
		ap := path + ".attributes." + a.Name
		if slices.Contains(attrs, a.Name) {
			l.add(a.Pos, ap, "duplicate attribute %q", a.Name)
		}
		attrs = append(attrs, a.Name)
		switch {
		case a.Type == "":
			// reported by the loader
		case len(a.Values) > 0 && !a.takes(FacetValues):
			l.add(a.Pos, ap+".values", "values make an enum of strings; type is %s", a.Type)
		case (a.Min != nil || a.Max != nil || a.Digits > 0) && !a.takes(FacetRange):
			l.add(a.Pos, ap, "min, max and digits apply to numbers; type is %s", a.Type)
		case a.Digits > 0 && (a.Min != nil || a.Max != nil):
			l.add(a.Pos, ap+".digits", "give either digits or min/max, not both")
		case a.Min != nil && a.Max != nil && *a.Min > *a.Max:
			l.add(a.Pos, ap+".min", "min %d is above max %d", *a.Min, *a.Max)
		case a.MaxLength > 0 && !a.takes(FacetMaxLength):
			l.add(a.Pos, ap+".maxLength", "maxLength applies to %s; type is %s", nounsTaking(FacetMaxLength), a.Type)
		}
		if a.Type == TypeTTL {
			if ttl != "" {
				l.add(a.Pos, ap, "an entity has at most one ttl attribute; %q is one already", ttl)
			}
			ttl = a.Name
		}
	}
	if len(e.ID) == 0 {
		l.add(e.Pos, path+".id", "missing; expected the attributes that identify one item, e.g. id: [%s]", firstOr(attrs, "playerId"))
	}
	for _, id := range e.ID {
		a := e.Attr(id)
		if a == nil {
			l.unknown(e.PosOf("id"), path+".id", "attribute", id, attrs)
			continue
		}
		if a.Optional {
			l.add(e.PosOf("id"), path+".id", "id attribute %q cannot be optional", id)
		}
		if a.Type == TypeTTL {
			l.add(e.PosOf("id"), path+".id", "id attribute %q is a ttl; an item's identity cannot expire", id)
		}
	}
	m.validateKinds(l, e)
	if e.Within != "" {
		if e.Within == e.Name {
			l.add(e.PosOf("within"), path+".within", "an entity cannot live within itself")
		} else if m.Entity(e.Within) == nil {
			l.unknown(e.PosOf("within"), path+".within", "entity", e.Within, entities)
		}
	}
}

// validateWithin rejects cycles and children that lack the attributes of
// their root's partition key (they must live in that partition).
func (m *Model) validateWithin(l *errorList) {
	for _, e := range m.Entities {
		seen := map[string]bool{e.Name: true}
		for p := m.Entity(e.Within); p != nil; p = m.Entity(p.Within) {
			if seen[p.Name] {
				l.add(e.PosOf("within"), "entities."+e.Name+".within", "within forms a cycle through %q", p.Name)
				break
			}
			seen[p.Name] = true
			if p.Within == "" && len(p.ID) > 0 && e.Attr(p.ID[0]) == nil {
				l.add(e.PosOf("within"), "entities."+e.Name+".within",
					"%s lives in %s's partition, whose key needs %q; add %s to %s's attributes (and id)", e.Name, p.Name, p.ID[0], p.ID[0], e.Name)
			}
		}
	}
}

// attrNames lists the attributes of the named entities, without repeats.
func (m *Model) attrNames(entities []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range entities {
		if e := m.Entity(n); e != nil {
			for _, a := range e.Attributes {
				if !seen[a.Name] {
					seen[a.Name] = true
					out = append(out, a.Name)
				}
			}
		}
	}
	return out
}

func (m *Model) validatePattern(l *errorList, p *Pattern, entities []string) {
	path := "patterns." + p.Name
	op := string(p.Op)
	var ents []*Entity
	for _, n := range p.Entities {
		e := m.Entity(n)
		if e == nil {
			l.unknown(p.PosOf(op), path+"."+op, "entity", n, entities)
			continue
		}
		ents = append(ents, e)
	}
	if p.Op == "" || len(ents) != len(p.Entities) {
		return
	}
	if len(p.Entities) == 0 {
		l.add(p.PosOf(op), path+"."+op, "expected an entity name")
		return
	}
	if p.Op == ReadGet && len(p.Entities) > 1 {
		l.add(p.PosOf(op), path+".get", "get reads one entity; use query: [%s] for an item collection", strings.Join(p.Entities, ", "))
	}
	// An attribute named in a pattern must exist on every entity it reads.
	need := func(field, attr string) bool {
		for _, e := range ents {
			if e.Attr(attr) == nil {
				var attrs []string
				for _, a := range e.Attributes {
					attrs = append(attrs, a.Name)
				}
				l.unknown(p.PosOf(field), path+"."+field, "attribute of "+e.Name, attr, attrs)
				return false
			}
		}
		return true
	}
	for _, a := range p.Where {
		need("where", a)
	}
	switch {
	case len(p.Sort) > 0 && len(ents) > 1:
		// a sorted collection: validatePatternKinds
	case len(p.Sort) > 0:
		for _, a := range p.Sort {
			if need("sort", a) && slices.Contains(p.Where, a) {
				l.add(p.PosOf("sort"), path+".sort", "%q is in where already; sort names the attributes the caller ranges over or orders by", a)
			}
		}
	}
	if p.Desc && len(p.Sort) == 0 {
		l.add(p.PosOf("sort"), path+".sort", "desc needs a sort attribute")
	}
	for _, c := range p.Filter {
		if !need("filter", c.Attr) {
			continue
		}
		if slices.Contains(p.Where, c.Attr) {
			l.add(p.PosOf("filter"), path+".filter."+c.Attr, "%q is in where already", c.Attr)
		}
		for _, e := range ents {
			if err := e.Attr(c.Attr).Check(c.Value); err != nil {
				l.add(p.PosOf("filter"), path+".filter."+c.Attr, "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("attribute %q: ", c.Attr)))
				break
			}
		}
	}
	if len(p.Returns) > 0 {
		all := m.attrNames(p.Entities)
		for _, a := range p.Returns {
			if !slices.Contains(all, a) {
				l.unknown(p.PosOf("returns"), path+".returns", "attribute", a, all)
			}
		}
	}
	if p.Unique && p.Op != ReadGet {
		l.add(p.PosOf("unique"), path+".unique", "unique declares an alternate key: it applies to a get")
	}
	if p.Unique && len(ents) == 1 && len(p.Where) == 0 {
		l.add(p.PosOf("unique"), path+".unique", "a get by id is unique already; unique applies to a get by other attributes (where)")
	}
	if p.Shards > 1 && p.Consistent {
		l.add(p.PosOf("shards"), path+".shards", "a sharded read is served by a GSI, which cannot be read strongly consistent")
	}
	m.validatePatternKinds(l, p, ents)
	m.validateBatch(l, p, ents)
}

func (m *Model) validateKeys(l *errorList) {
	explicit := m.Explicit()
	for _, e := range m.Entities {
		path := "entities." + e.Name + ".keys"
		if explicit && len(e.Keys) == 0 {
			l.add(e.Pos, path, "missing; when one entity gives explicit keys every entity must (mixed layouts are not supported)")
			continue
		}
		hasTable := false
		for _, ks := range e.Keys {
			kp := path + "." + ks.Index
			if ks.Index == BaseIndex {
				hasTable = true
			} else if !ValidTableName(ks.Index) {
				l.add(ks.Pos, kp, "%q is not an index name; expected %q or %s", ks.Index, BaseIndex, NameRule)
			}
			if ks.PK == "" && !ks.Local {
				l.add(ks.Pos, kp+".pk", "missing; expected a template such as \"%s#{%s}\"", Tag(e.Name), firstOr(e.ID, "id"))
			}
			if ks.SK == "" {
				l.add(ks.Pos, kp+".sk", "missing; every index has a sort key (a constant such as %s will do)", Tag(e.Name))
			}
			for _, f := range []struct {
				name, text string
				pos        Pos
			}{{"pk", ks.PK, ks.PKPos}, {"sk", ks.SK, ks.SKPos}} {
				if f.text == "" {
					continue
				}
				at := f.pos
				if at.Line == 0 {
					at = ks.Pos
				}
				t, err := ParseTemplate(f.text)
				if err != nil {
					l.add(at, kp+"."+f.name, "%v", err)
					continue
				}
				for _, a := range t.Attrs() {
					if e.Attr(a) == nil {
						l.unknown(at, kp+"."+f.name, "attribute", a, e.AttrNames())
					}
				}
			}
			validateWhen(l, e, ks, kp)
		}
		if explicit && !hasTable {
			l.add(e.Pos, path, "missing the base table's key: add %s: {pk: …, sk: …}", BaseIndex)
		}
	}
	m.validateLocalKeys(l)
}

// validateStreams checks copies, counters and archive: what the stream
// handlers need to find and update items.
func (m *Model) validateStreams(l *errorList, entities, patterns []string) {
	hasTTL := false
	for _, e := range m.Entities {
		hasTTL = hasTTL || e.TTLAttr() != nil
	}
	attrsOf := func(e *Entity) []string { return e.AttrNames() }
	for _, e := range m.Entities {
		path := "entities." + e.Name
		for _, c := range e.Copies {
			cp := path + ".copies." + c.Attr
			target := e.Attr(c.Attr)
			if target == nil {
				l.unknown(c.Pos, cp, "attribute of "+e.Name, c.Attr, attrsOf(e))
			}
			src := m.Entity(c.FromEntity)
			if src == nil {
				l.unknown(c.Pos, cp+".from", "entity", c.FromEntity, entities)
				continue
			}
			if src == e {
				l.add(c.Pos, cp+".from", "a copy comes from another entity")
			}
			sa := src.Attr(c.FromAttr)
			if sa == nil {
				l.unknown(c.Pos, cp+".from", "attribute of "+src.Name, c.FromAttr, attrsOf(src))
			} else if target != nil && KeyEncoding(sa) != KeyEncoding(target) {
				l.add(c.Pos, cp, "%s.%s is %s but %s.%s is %s: a copy has its source's type", e.Name, c.Attr, KeyEncoding(target), src.Name, c.FromAttr, KeyEncoding(sa))
			}
			via := m.Pattern(c.Via)
			switch {
			case via == nil:
				l.unknown(c.Pos, cp+".via", "pattern", c.Via, patterns)
			case len(via.Entities) != 1 || via.Entities[0] != e.Name || via.Op != ReadQuery:
				l.add(c.Pos, cp+".via", "pattern %s must be a query of %s: it finds the copies to update", c.Via, e.Name)
			default:
				for _, a := range m.Where(via) {
					if src.Attr(a) == nil {
						l.add(c.Pos, cp+".via", "pattern %s needs %s, which %s lacks: the handler fills the pattern's where from the changed %s", c.Via, a, src.Name, src.Name)
					}
				}
			}
		}
		for _, c := range e.Counters {
			cp := path + ".counters." + c.Attr
			if a := e.Attr(c.Attr); a == nil {
				l.unknown(c.Pos, cp, "attribute of "+e.Name, c.Attr, attrsOf(e))
			} else if a.Type != TypeNumber {
				l.add(c.Pos, cp, "a counter is a number; %s.%s is %s", e.Name, c.Attr, a.Type)
			}
			child := m.Entity(c.Child)
			if child == nil {
				l.unknown(c.Pos, cp, "entity", c.Child, entities)
				continue
			}
			for _, id := range e.ID {
				if child.Attr(id) == nil {
					l.add(c.Pos, cp, "%s lacks %s's id attribute %s: the handler finds the parent from the child's values", child.Name, e.Name, id)
				}
			}
			if c.Sum != "" {
				if a := child.Attr(c.Sum); a == nil {
					l.unknown(c.Pos, cp+".sum", "attribute of "+child.Name, c.Sum, attrsOf(child))
				} else if a.Type != TypeNumber {
					l.add(c.Pos, cp+".sum", "a sum adds a number; %s.%s is %s", child.Name, c.Sum, a.Type)
				}
			}
			for _, w := range c.Where {
				a := child.Attr(w.Attr)
				if a == nil {
					l.unknown(c.Pos, cp+".where", "attribute of "+child.Name, w.Attr, attrsOf(child))
				} else if err := a.Check(w.Value); err != nil {
					l.add(c.Pos, cp+".where."+w.Attr, "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("attribute %q: ", w.Attr)))
				}
			}
			if !hasTTL {
				l.add(c.Pos, cp, "counters need the table's ttl attribute (declare one, e.g. expiresAt: ttl): their once-only markers expire by it")
			}
		}
		if e.Archive && e.TTLAttr() == nil {
			l.add(e.PosOf("archive"), path+".archive", "archive keeps TTL expiries; %s has no ttl attribute", e.Name)
		}
	}
}

// ValidTableName is DynamoDB's rule for table and index names: 3 to 255
// of [a-zA-Z0-9_.-].
func ValidTableName(s string) bool {
	if len(s) < MinNameLength || len(s) > MaxNameLength {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '.' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

func (m *Model) validateExamples(l *errorList, patterns []string) {
	if m.Examples == nil {
		return
	}
	var items []string
	for _, it := range m.Examples.Items {
		path := "examples.items." + it.Name
		items = append(items, it.Name)
		e := m.Entity(it.Entity)
		if e == nil {
			var names []string
			for _, x := range m.Entities {
				names = append(names, x.Name)
			}
			l.unknown(it.Pos, path, "entity", it.Entity, names)
			continue
		}
		// Each value is checked against its attribute's type and
		// constraints here, at its field; what the design's keys cannot
		// hold of a valid value is a finding of keyplan validate's.
		var attrs []string
		for _, a := range e.Attributes {
			attrs = append(attrs, a.Name)
		}
		for _, name := range slices.Sorted(maps.Keys(it.Values)) {
			at, ok := it.At[name]
			if !ok {
				at = it.Pos
			}
			a := e.Attr(name)
			if a == nil {
				l.unknown(at, path, "attribute of "+e.Name, name, attrs)
				continue
			}
			if v := it.Values[name]; v != nil && a.Stored() {
				if err := a.Check(v); err != nil {
					// the message is keyplan's, not the file's text: only the value in it is clipped
					l.add(at, join(join(path, e.Name), name), "").Msg = exampleValueMessage(err)
				}
			}
		}
	}
	var writes []string
	for _, w := range m.Writes {
		writes = append(writes, w.Name)
	}
	for i, st := range m.Examples.Steps {
		path := fmt.Sprintf("examples.steps[%d]", i)
		w := m.Write(st.Write)
		if w == nil {
			if st.Write != "" {
				l.unknown(st.Pos, path+".write", "write pattern", st.Write, writes)
			}
			continue
		}
		if w.Op == WriteBatch {
			l.add(st.Pos, path+".write", "%s is a batch: a step runs one write (list its items under items instead)", w.Name)
			continue
		}
		takes := m.Params(w)
		for _, name := range slices.Sorted(maps.Keys(st.Params)) {
			if !slices.Contains(takes, name) {
				l.unknown(st.Pos, path+".params", "parameter of "+w.Name, name, takes)
			}
		}
		if msg := m.failsProblem(st, w); msg != "" {
			l.add(st.Pos, path+".fails", "").Msg = msg // names may be long: not clipped
		}
		if st.Item != "" {
			switch {
			case w.Named() == nil:
				l.add(st.Pos, path+".item", "%s puts no item: item names the item a put leaves (a transaction's first put)", w.Name)
			case slices.Contains(items, st.Item):
				l.add(st.Pos, path+".item", "duplicate item name %q", st.Item)
			case m.FailsOf(st).Kind != "":
				l.add(st.Pos, path+".item", "a step expected to fail leaves no item to name")
			default:
				items = append(items, st.Item)
			}
		}
	}
	for i, x := range m.Examples.Expect {
		path := fmt.Sprintf("examples.expect[%d]", i)
		p := m.Pattern(x.Pattern)
		if p == nil {
			if x.Pattern != "" {
				l.unknown(x.Pos, path+".pattern", "pattern", x.Pattern, patterns)
			}
			continue
		}
		if m.validateBatchExpectation(l, p, x, path, items) {
			continue
		}
		where := m.Where(p)
		for _, a := range where {
			if _, ok := x.Params[a]; !ok {
				l.add(x.Pos, path+".params."+a, "missing; pattern %s needs %s", p.Name, a)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(x.Params)) {
			if !slices.Contains(where, name) { // the runtime refuses it (validate did, after check passed)
				l.unknown(x.Pos, path+".params", "parameter of "+p.Name, name, where)
			}
		}
		for _, name := range x.Items {
			if !slices.Contains(items, name) {
				l.unknown(x.Pos, path+".items", "example item", name, items)
			}
		}
	}
}

// exampleValueMessage says what is wrong with an example's value: the
// value (clipped: it is the file's text) and what its attribute takes.
func exampleValueMessage(err error) string {
	var ve *ValueError
	if errors.As(err, &ve) {
		if ve.Value == "" {
			return `value "": ` + ve.Msg
		}
		return fmt.Sprintf("value %s: %s", clip(fmt.Sprint(ve.Value)), ve.Msg)
	}
	return err.Error()
}

func firstOr(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}

// validateWhen checks a sparse key's constants: attributes of the
// entity, values they take, on a GSI key only.
func validateWhen(l *errorList, e *Entity, ks *KeySpec, path string) {
	at := ks.WhenPos
	if at.Line == 0 {
		at = ks.Pos
	}
	if len(ks.When) > 0 && ks.Index == BaseIndex {
		l.add(at, path+".when", "the base table's key is on every item: only a GSI key can be sparse")
		return
	}
	for _, c := range ks.When {
		a := e.Attr(c.Attr)
		if a == nil {
			l.unknown(at, path+".when", "attribute", c.Attr, e.AttrNames())
			continue
		}
		if err := a.Check(c.Value); err != nil {
			l.add(at, path+".when."+c.Attr, "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("attribute %q: ", c.Attr)))
		}
	}
}
