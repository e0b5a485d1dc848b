package patterns

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Rule is one design check: a stable id (never reused or renumbered once
// released), a severity, and a small pure function over the design.
// Documented with a failing and a passing example in docs/checks.md.
type Rule struct {
	ID       string
	Severity Severity
	Title    string
	check    func(d *Design) []finding
}

// retired says why a rule no longer fires. Its id stays in the catalog,
// never reused, so that an acknowledgement of it still names a rule.
var retired = map[string]string{
	"KP205": "a synthetic key holds every number the model allows, decimals and whole numbers beyond int64 included (issue 35)",
}

// Retired says why the rule no longer fires ("": it does).
func (r Rule) Retired() string { return retired[r.ID] }

// finding is what a rule function reports; Check adds the rule's id,
// severity and the model file.
type finding struct {
	subject Subject
	pos     model.Pos
	msg     string
	fix     string
}

// Limits that are warnings, not errors.
const (
	// WarnGSIs is the GSI count past which every write fans out enough to
	// suggest a redesign.
	WarnGSIs = 5
	// LowCardinality is the number of distinct partition values below which
	// a partition key concentrates traffic on few partitions.
	LowCardinality = 100
)

// rules is the catalog, in id order.
var rules = []Rule{
	{"KP101", SeverityError, "No pattern needs a Scan", ruleScan},
	{"KP102", SeverityError, "Strong reads only on the base table and its LSIs", ruleStrongOnGSI},
	{"KP103", SeverityError, "A hand-made layout serves every pattern", ruleExplicitUnservable},
	{"KP104", SeverityError, "A hand-made base key identifies one item", ruleExplicitIdentity},
	{"KP105", SeverityError, "A base key holds only attributes that never change", ruleBaseKeyFixed},
	{"KP106", SeverityWarning, "Every key is read by a pattern", ruleUnusedKey},
	{"KP107", SeverityWarning, "A limited collection read reaches its owner", ruleSortedLimit},
	{"KP108", SeverityError, "A batch read is BatchGetItem of base-table keys", ruleBatchOnTable},
	{DeployedBaseRule, SeverityWarning, "A deployed base key keeps serving where a newer rule refuses it", ruleDeployedBase},
	{"KP201", SeverityError, "Numbers in hand-made sort keys have a fixed width", ruleUnpadded},
	{"KP202", SeverityError, "A shared key attribute has one type", ruleTypeClash},
	{"KP203", SeverityError, "Key values fit DynamoDB's key size limits", ruleKeySize},
	{"KP204", SeverityWarning, "Key sizes are provable", ruleKeySizeUnknown},
	{"KP205", SeverityWarning, "Every number the model allows fits its keys", nil},
	{"KP206", SeverityError, "A key holds only scalar attributes", ruleScalarKeys},
	{"KP210", SeverityError, "A native key has at most four attributes a side", ruleNativeWidth},
	{"KP211", SeverityError, "A native key attribute has one scalar type across the table", ruleNativeTypes},
	{"KP212", SeverityError, "A native index is read by equalities, then a range on the next sort attribute", ruleNativeConditions},
	{"KP301", SeverityError, "At most 20 GSIs", ruleGSILimit},
	{"KP302", SeverityWarning, "At most 5 GSIs", ruleGSIWarn},
	{"KP303", SeverityError, "At most 100 projected non-key attributes", ruleProjectedAttrs},
	{"KP304", SeverityError, "Items fit in 400 KB", ruleItemSize},
	{"KP305", SeverityError, "The TTL attribute is one number attribute", ruleTTL},
	{"KP306", SeverityError, "Table and index names are valid", ruleNames},
	{"KP307", SeverityError, "A strongly consistent global table makes no transactions", ruleStrongTransactions},
	{"KP308", SeverityWarning, "Item collections of a table with LSIs fit in 10 GB", ruleItemCollection},
	{"KP309", SeverityError, "At most 5 LSIs", ruleLSILimit},
	{"KP310", SeverityWarning, "Entities that want different table settings are in separate tables", ruleSplitTables},
	{"KP401", SeverityWarning, "No hot partitions", ruleHotPartition},
	{"KP402", SeverityWarning, "Alternate-key gets are unique", ruleNonUniqueGet},
	{"KP403", SeverityWarning, "No partition hotter than the pattern needs", ruleIntroducedHot},
	{"KP404", SeverityWarning, "No count of what a counter keeps", ruleCountKept},
	{"KP405", SeverityWarning, "A sharded counter's shards take its writes", ruleCounterShards},
	{"KP406", SeverityWarning, "A throughput bound counts every pattern", ruleHeadroomRates},
	{"KP407", SeverityWarning, "Declared loads fit the default per-table quota", ruleThroughputQuota},
	{"KP408", SeverityWarning, "A hand-made layout's item collections have a bound", ruleUnboundedCollection},
	{"KP501", SeverityError, "Stream-maintained attributes are not in keys", ruleMaintainedInKey},
	{"KP502", SeverityWarning, "A counter counts what reads return", ruleCounterExpiry},
	{"KP701", SeverityError, "An update rebuilds every key it changes", ruleStaleKey},
	{"KP702", SeverityError, "Transactions fit DynamoDB's limits", ruleTransactLimits},
	{"KP703", SeverityError, "The application does not write what stream handlers keep", ruleWritesMaintained},
	{"KP704", SeverityError, "A version is a number only writes change", ruleVersion},
	{"KP705", SeverityWarning, "No partition takes more writes than it can", ruleHotWrites},
	{"KP706", SeverityError, "Writes without conditions only where none are needed", ruleUnconditional},
	{"KP707", SeverityError, "An update recomputes every derived attribute it changes", ruleDerivedStale},
	{"KP708", SeverityError, "An item keeping values in S3 is written alone", ruleObjectsAlone},
}

// Rules returns the catalog, in id order (a copy: the catalog itself
// cannot be changed).
func Rules() []Rule { return slices.Clone(rules) }

// RuleByID returns the catalog entry with the id.
func RuleByID(id string) (Rule, bool) {
	for _, r := range rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// Check runs every rule over a design and returns the findings, by position.
func Check(d *Design) []Diagnostic {
	out := []Diagnostic{}
	for _, r := range rules {
		if r.check == nil {
			continue // retired
		}
		for _, f := range r.check(d) {
			out = append(out, Diagnostic{ID: r.ID, Severity: r.Severity, Subject: f.subject, Message: model.Printable(f.msg), Fix: model.Printable(f.fix),
				File: d.model.Source, Pos: f.pos})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Pos.Line != b.Pos.Line:
			return a.Pos.Line < b.Pos.Line
		case a.Pos.Col != b.Pos.Col:
			return a.Pos.Col < b.Pos.Col
		case a.ID != b.ID:
			return a.ID < b.ID
		}
		return a.Subject.String() < b.Subject.String()
	})
	return out
}

func pattern(p *model.Pattern) Subject { return Subject{SubjectPattern, p.Name} }
func entity(e *model.Entity) Subject   { return Subject{SubjectEntity, e.Name} }
func table(d *Design) Subject          { return Subject{SubjectTable, d.Table} }

// KP101: no index's partition key is given by the pattern, so only a Scan
// finds its items (or, in a designed layout, it is not one request).
func ruleScan(d *Design) []finding {
	var out []finding
	for _, pp := range d.Patterns {
		if pp.Served() || d.Explicit && !pp.scan {
			continue
		}
		p := d.model.Pattern(pp.Name)
		msg := "needs a Scan: no index's partition key is given by where and filter (" + pp.Reason + ")"
		if !pp.scan {
			msg = "needs more than one request: " + pp.Reason
		}
		out = append(out, finding{pattern(p), p.Pos, msg,
			"add a key (or let keyplan design one) whose partition key the pattern's where attributes fill"})
	}
	return out
}

// KP102: ConsistentRead on a GSI is rejected by DynamoDB (the table and
// its LSIs read consistently).
func ruleStrongOnGSI(d *Design) []finding {
	var out []finding
	for _, pp := range d.Patterns {
		if ix := d.Index(pp.Index); pp.Served() && pp.Consistent && pp.Index != model.BaseIndex && (ix == nil || !ix.Local()) {
			p := d.model.Pattern(pp.Name)
			out = append(out, finding{pattern(p), p.PosOf("consistent"),
				fmt.Sprintf("asks for a strongly consistent read, but is served by %s: GSIs are eventually consistent", pp.Index),
				d.strongFix(pp)})
		}
	}
	return out
}

// KP103: a hand-made layout addresses the pattern's partition but cannot
// serve it in one request without a FilterExpression, client-side sorting,
// or reading other entities' items.
func ruleExplicitUnservable(d *Design) []finding {
	if !d.Explicit {
		return nil
	}
	var out []finding
	for _, pp := range d.Patterns {
		if !pp.Served() && !pp.scan {
			p := d.model.Pattern(pp.Name)
			out = append(out, finding{pattern(p), p.Pos, "the hand-made layout cannot serve it in one request: " + pp.Reason,
				"add or change a key so that it starts with the pattern's equality attributes, then its sort attribute; or remove keys and let keyplan design them"})
		}
	}
	return out
}

// KP104: a base key that lacks an id attribute lets two items overwrite
// each other; one that holds another attribute beside the id stores two
// items of one identity (a create succeeds twice) and cannot be found by
// id.
func ruleExplicitIdentity(d *Design) []finding {
	if !d.Explicit {
		return nil
	}
	var out []finding
	for _, e := range d.model.Entities {
		k := d.Entity(e.Name).Key(model.BaseIndex)
		if k == nil {
			continue
		}
		keyed := append(k.PK.Attrs(), k.SK.Attrs()...)
		if missing := minus(e.ID, keyed); len(missing) > 0 {
			out = append(out, finding{entity(e), e.PosOf("keys"),
				fmt.Sprintf("the base key %s / %s lacks id attribute(s) %s: two %s items with the same key overwrite each other", k.PK, k.SK, strings.Join(missing, ", "), e.Name),
				"put every id attribute in the base table's pk or sk"})
		}
		// An immutable attribute beside the id (a mutable one is KP105's)
		// makes two keys of one identity: a create finds no item at its
		// key while another of the same id exists, and a write by id
		// cannot find the item. A deployed key keeps it (KP109).
		if d.deployedBase(e, k) {
			continue
		}
		var extra []string
		for _, a := range keyed {
			if !e.IsID(a) && e.Fixed(a) && !slices.Contains(extra, a) {
				extra = append(extra, a)
			}
		}
		if len(extra) > 0 {
			out = append(out, finding{entity(e), e.PosOf("keys"),
				fmt.Sprintf("the base key %s / %s holds %s, which is not part of the id (%s): two %s items of one id with different %s would both be stored, and a write by id cannot find the item", k.PK, k.SK, strings.Join(extra, ", "), strings.Join(e.ID, ", "), e.Name, strings.Join(extra, ", ")),
				fmt.Sprintf("move %s to a GSI key, or add it to id if it is part of what identifies the item", strings.Join(extra, ", "))})
		}
	}
	return out
}

// KP105: a base key cannot be updated in place, so an attribute in it that
// changes leaves the item under its old key (an update would have to
// delete and re-create it).
func ruleBaseKeyFixed(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		k := d.Entity(e.Name).Key(model.BaseIndex)
		if k == nil || d.deployedBase(e, k) {
			continue // a deployed key keeps it (KP109)
		}
		for _, a := range append(k.PK.Attrs(), k.SK.Attrs()...) {
			if !e.Fixed(a) {
				out = append(out, finding{entity(e), e.PosOf("keys"),
					fmt.Sprintf("the base key %s / %s holds %s, which is not an id attribute and may change: a base key cannot be updated in place", k.PK, k.SK, a),
					fmt.Sprintf("move %s to a GSI key (a base key holds the id alone, KP104)", a)})
				break
			}
		}
	}
	return out
}

// KP106: a GSI key that no pattern reads costs a write (and storage) on
// every item that carries it.
func ruleUnusedKey(d *Design) []finding {
	used := map[string]bool{}
	for _, p := range d.Patterns {
		if p.Served() {
			for _, e := range p.Entities {
				used[e+" "+p.Index] = true
			}
		}
	}
	var out []finding
	for _, e := range d.model.Entities {
		for _, k := range d.Entity(e.Name).Keys {
			if k.Index == model.BaseIndex || used[e.Name+" "+k.Index] {
				continue
			}
			out = append(out, finding{entity(e), e.PosOf("keys"),
				fmt.Sprintf("its key %s / %s on %s serves no pattern: every %s write pays for it", k.PK, k.SK, k.Index, e.Name),
				"remove the key, or add the pattern it was meant for"})
		}
	}
	return out
}

// KP201: an integer without a declared range has no width keyplan can
// promise, so a hand-made sort key would order it wrongly by hand.
func ruleUnpadded(d *Design) []finding {
	if !d.Explicit {
		return nil
	}
	var out []finding
	for _, e := range d.model.Entities {
		for _, k := range d.Entity(e.Name).Keys {
			for _, a := range k.SK.Attrs() {
				if attr := e.Attr(a); attr != nil && (attr.Type == model.TypeNumber || attr.Type == model.TypeTTL) && !attr.FixedWidth() {
					out = append(out, finding{entity(e), attr.Pos,
						fmt.Sprintf("number %q is in the sort key %s on %s without min/max or digits: its string order is not its numeric order unless it is zero-padded to a fixed width", a, k.SK, k.Index),
						fmt.Sprintf("declare %s's range: {type: number, min: …, max: …} or digits: N", a)})
				}
			}
		}
	}
	return out
}

// KP202: entities that share a partition key on an index must encode its
// attributes alike, or one value gives two partitions.
func ruleTypeClash(d *Design) []finding {
	type use struct {
		entity *model.Entity
		attr   *model.Attribute
	}
	groups := map[string][]use{}
	var order []string
	for _, e := range d.model.Entities {
		for _, k := range d.Entity(e.Name).Keys {
			for _, a := range k.PK.Attrs() {
				g := k.Index + " " + k.PK.String() + " " + a
				if _, ok := groups[g]; !ok {
					order = append(order, g)
				}
				groups[g] = append(groups[g], use{e, e.Attr(a)})
			}
		}
	}
	var out []finding
	for _, g := range order {
		us := groups[g]
		for _, u := range us[1:] {
			if model.KeyEncoding(u.attr) != model.KeyEncoding(us[0].attr) {
				parts := strings.SplitN(g, " ", 3)
				out = append(out, finding{entity(u.entity), u.attr.Pos,
					fmt.Sprintf("%s.%s is %s but %s.%s is %s, and both are in the partition key %s on %s", u.entity.Name, u.attr.Name, model.KeyEncoding(u.attr), us[0].entity.Name, us[0].attr.Name, model.KeyEncoding(us[0].attr), parts[1], parts[0]),
					fmt.Sprintf("declare %s with the same type (and range) in both entities", u.attr.Name)})
				break
			}
		}
	}
	return out
}

// KP301: DynamoDB's default quota.
func ruleGSILimit(d *Design) []finding {
	if len(d.Indexes) <= model.MaxGSIs {
		return nil
	}
	return []finding{{table(d), d.model.Pos,
		fmt.Sprintf("the design needs %d GSIs; DynamoDB allows %d per table", len(d.Indexes), model.MaxGSIs),
		"merge patterns that differ only in sort order, or serve some from the base table by changing ids or within"}}
}

// KP302: every GSI multiplies writes.
func ruleGSIWarn(d *Design) []finding {
	if len(d.Indexes) <= WarnGSIs || len(d.Indexes) > model.MaxGSIs {
		return nil
	}
	return []finding{{table(d), d.model.Pos,
		fmt.Sprintf("the design needs %d GSIs (lower bound %d): each write to an entity on every one of them costs a write per GSI", len(d.Indexes), d.LowerBound),
		"look for patterns that can share a shape or be served by the base table"}}
}

// KP303: the NonKeyAttributes of all indexes (GSIs and LSIs) together
// count at most 100.
func ruleProjectedAttrs(d *Design) []finding {
	n := 0
	for _, ix := range d.SecondaryIndexes() {
		n += len(ix.NonKeyAttributes)
	}
	if n <= model.MaxProjectedAttributes {
		return nil
	}
	return []finding{{table(d), d.model.Pos,
		fmt.Sprintf("the secondary indexes project %d non-key attributes in all; DynamoDB allows %d", n, model.MaxProjectedAttributes),
		"narrow the patterns' returns, or let a pattern read whole items (ALL projects without naming attributes)"}}
}

// KP305: the table has one TTL attribute; DynamoDB expires items by it only
// when it holds a number, and expires any item whose number it holds.
func ruleTTL(d *Design) []finding {
	var out []finding
	ttl := ""
	for _, e := range d.model.Entities {
		a := e.TTLAttr()
		if a == nil {
			continue
		}
		if ttl == "" {
			ttl = a.Name
		} else if a.Name != ttl {
			out = append(out, finding{entity(e), a.Pos,
				fmt.Sprintf("ttl attribute %q differs from the table's TTL attribute %q: %s items would never expire", a.Name, ttl, e.Name),
				fmt.Sprintf("rename it to %s", ttl)})
		}
	}
	if ttl == "" {
		return out
	}
	for _, e := range d.model.Entities {
		a := e.Attr(ttl)
		if a == nil || a.Type == model.TypeTTL {
			continue
		}
		if a.Type == model.TypeNumber {
			out = append(out, finding{entity(e), a.Pos,
				fmt.Sprintf("%s.%s is a number named like the table's TTL attribute: DynamoDB would expire %s items by it", e.Name, ttl, e.Name),
				"declare it ttl if it is an expiry, else rename it"})
			continue
		}
		out = append(out, finding{entity(e), a.Pos,
			fmt.Sprintf("%s.%s is a %s, but the table's TTL attribute must hold a number (epoch seconds)", e.Name, ttl, a.Type),
			"declare it ttl, or rename it"})
	}
	return out
}

// KP306: DynamoDB's naming rule for tables and indexes.
func ruleNames(d *Design) []finding {
	var out []finding
	if !model.ValidTableName(d.Table) {
		out = append(out, finding{table(d), d.model.Pos,
			fmt.Sprintf("table name %q is not %s", d.Table, model.NameRule), "rename the table"})
	}
	for _, ix := range d.SecondaryIndexes() {
		if !model.ValidTableName(ix.Name) {
			out = append(out, finding{Subject{SubjectIndex, ix.Name}, d.model.Pos,
				fmt.Sprintf("index name %q is not %s", ix.Name, model.NameRule), "rename the index in keys"})
		}
	}
	return out
}

// KP402: a get by attributes other than the id may match several items.
func ruleNonUniqueGet(d *Design) []finding {
	var out []finding
	for _, p := range d.model.Patterns {
		if p.Op != model.ReadGet || p.Unique || len(p.Where) == 0 || len(p.Entities) != 1 {
			continue
		}
		e := d.model.Entity(p.Entities[0])
		if subset(e.ID, p.Where) {
			continue
		}
		out = append(out, finding{pattern(p), p.PosOf("where"),
			fmt.Sprintf("a get by %s, which is not %s's id: several items may match and one is returned arbitrarily", strings.Join(p.Where, ", "), e.Name),
			"declare unique: true (keyplan's runtime then keeps the values unique), or make it a query"})
	}
	return out
}

// KP206: a key holds one scalar value of its item: not a set, list or
// map (several values), not a sharded counter (its shard items hold it).
func ruleScalarKeys(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		ek := d.Entity(e.Name)
		if ek == nil {
			continue
		}
		for _, k := range ek.Keys {
			for _, a := range uniq(keyReads(k)) {
				if attr := e.Attr(a); attr != nil && !attr.Scalar() {
					at := attr.Pos
					if ks := keySpec(e, k.Index); ks != nil {
						at = ks.Pos
					}
					out = append(out, finding{entity(e), at,
						fmt.Sprintf("%s's key on %s (%s / %s) holds %s, a %s: a key holds one scalar value of the item", e.Name, k.Index, k.PK, k.SK, a, attr.Type),
						scalarFix(attr)})
				}
			}
		}
	}
	for _, p := range d.model.Patterns {
		seen := map[string]bool{}
		for _, name := range p.Entities {
			e := d.model.Entity(name)
			for _, a := range slices.Concat(d.model.Where(p), p.Sort, constAttrs(p.Filter)) {
				attr := e.Attr(a)
				if attr == nil || attr.Scalar() || seen[a] {
					continue
				}
				seen[a] = true
				out = append(out, finding{pattern(p), p.Pos,
					fmt.Sprintf("reads %s by %s, a %s: only a key finds items by a value, and a key holds one scalar value", name, a, attr.Type),
					scalarFix(attr)})
			}
		}
	}
	return out
}

func scalarFix(a *model.Attribute) string {
	if a.Type == model.TypeCounter {
		return "read the counter with its own pattern ({get: ENTITY, returns: [" + a.Name + "]}); keys take the attributes the item holds"
	}
	return "key by a scalar attribute; to find items by one element, give each element an item of its own (an entity within this one)"
}

func constAttrs(cs []model.Const) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Attr
	}
	return out
}

// keySpec is an entity's hand-made key on an index, or nil.
func keySpec(e *model.Entity, index string) *model.KeySpec {
	for _, ks := range e.Keys {
		if ks.Index == index {
			return ks
		}
	}
	return nil
}

// KP107: a collection read in descending order with a limit returns its
// owner only after all the items it orders: a page of limit items holds
// the owner only when there are fewer of them.
func ruleSortedLimit(d *Design) []finding {
	var out []finding
	for _, p := range d.model.Patterns {
		sorted := d.model.SortedMember(p)
		pp := d.Pattern(p.Name)
		if sorted == "" || pp == nil || !pp.ownerReadLast(p) {
			continue // no limit, or the owner read first: above, read descending; below, ascending
		}
		owner := d.model.CollectionOwner(p)
		order, first, other := "newest first", "oldest first", "ascending"
		if !p.Desc {
			order, first, other = "oldest first", "newest first", "descending"
		}
		out = append(out, finding{pattern(p), p.PosOf("limit"),
			fmt.Sprintf("reads %s %s and %s at the end: with limit %d, the %s comes back only when there are fewer than %d %s items (the first page holds the %s %d)",
				sorted, order, owner, p.Limit, owner, p.Limit, sorted, strings.Fields(order)[0], p.Limit),
			fmt.Sprintf("drop limit and page with All, read %s %s (%s, %s first), key %s to sort at the other end of %s's items, or read %s with a get of its own", sorted, other, first, owner, owner, sorted, owner)})
	}
	return out
}
