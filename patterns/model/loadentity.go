package model

import (
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decoding the entities section: ids, attributes and their types, key
// templates, copies and counters.

func (l *loader) entity(f field) *Entity {
	path := "entities." + f.key
	e := &Entity{Name: l.name(&yaml.Node{Kind: yaml.ScalarNode, Value: f.key, Line: f.keyAt.Line, Column: f.keyAt.Col}, path), Pos: f.keyAt, FieldPos: map[string]Pos{}}
	for _, g := range l.fields(f.val, path, entityFields) {
		e.FieldPos[g.key] = pos(g.val)
		p := join(path, g.key)
		switch g.key {
		case "id":
			e.ID = l.strs(g.val, p)
		case "within":
			e.Within = l.str(g.val, p)
		case "table":
			e.Table = l.str(g.val, p)
		case "renamedFrom":
			e.RenamedFrom = l.name(g.val, p)
		case "version":
			e.Version = l.name(g.val, p)
		case "attributes":
			for _, af := range l.capped(l.fields(g.val, p, nil), g.val, p, MaxAttributes) {
				e.Attributes = append(e.Attributes, l.attribute(af, p))
			}
		case "copies":
			for _, cf := range l.fields(g.val, p, nil) {
				e.Copies = append(e.Copies, l.copy(cf, join(p, cf.key)))
			}
		case "counters":
			for _, cf := range l.fields(g.val, p, nil) {
				e.Counters = append(e.Counters, l.counter(cf, join(p, cf.key)))
			}
		case "archive":
			e.Archive = l.boolean(g.val, p)
		case "needs":
			e.Needs = l.needs(g.val, p)
		case "writes":
			if e.Writes = l.number(g.val, p); e.Writes < 0 {
				l.add(pos(g.val), p, "expected a rate of zero or more writes per second, found %v", e.Writes)
			}
		case "peakWrites":
			e.PeakWrites = l.number(g.val, p)
		case "keys":
			for _, kf := range l.fields(g.val, p, nil) {
				ks := &KeySpec{Index: kf.key, Pos: kf.keyAt}
				for _, tf := range l.fields(kf.val, join(p, kf.key), keyFields) {
					switch tf.key {
					case "pk":
						ks.PK, ks.PKPos = l.str(tf.val, join(join(p, kf.key), "pk")), pos(tf.val)
					case "sk":
						ks.SK, ks.SKPos = l.str(tf.val, join(join(p, kf.key), "sk")), pos(tf.val)
					case "when":
						ks.WhenPos = pos(tf.val)
						ks.When = l.constants(tf.val, join(join(p, kf.key), "when"))
					case "local":
						ks.Local = l.boolean(tf.val, join(join(p, kf.key), "local"))
					}
				}
				e.Keys = append(e.Keys, ks)
			}
		}
	}
	return e
}

// copy reads `attr: {from: Entity.attr, via: Pattern}`.
func (l *loader) copy(f field, path string) *Copy {
	c := &Copy{Attr: f.key, Pos: f.keyAt}
	for _, g := range l.fields(f.val, path, []string{"from", "via"}) {
		switch g.key {
		case "from":
			ent, attr, ok := strings.Cut(l.str(g.val, join(path, "from")), ".")
			if !ok || ent == "" || attr == "" {
				l.add(pos(g.val), join(path, "from"), "expected Entity.attribute, e.g. Customer.name")
			}
			c.FromEntity, c.FromAttr = ent, attr
		case "via":
			c.Via = l.str(g.val, join(path, "via"))
		}
	}
	if c.FromEntity == "" || c.Via == "" {
		l.add(f.keyAt, path, "a copy needs from: Entity.attribute and via: the pattern that finds the copies")
	}
	return c
}

// counter reads `attr: {count: Child, where: {…}}` or `{sum: Child.attr}`.
func (l *loader) counter(f field, path string) *Counter {
	c := &Counter{Attr: f.key, Pos: f.keyAt}
	for _, g := range l.fields(f.val, path, []string{"count", "sum", "where", "expiries"}) {
		switch g.key {
		case "expiries":
			switch v := l.str(g.val, join(path, "expiries")); v {
			case "keep":
				c.KeepExpired = true
			case "count":
				c.CountExpired = true
			default:
				l.add(pos(g.val), join(path, "expiries"), "expected count (an expired child counts down) or keep, found %q", v)
			}
		case "count":
			c.Child = l.str(g.val, join(path, "count"))
		case "sum":
			ent, attr, ok := strings.Cut(l.str(g.val, join(path, "sum")), ".")
			if !ok || ent == "" || attr == "" {
				l.add(pos(g.val), join(path, "sum"), "expected Child.attribute, e.g. Match.ratingDelta")
			}
			if c.Child != "" {
				l.add(g.keyAt, path, "a counter either counts or sums, not both")
			}
			c.Child, c.Sum = ent, attr
		case "where":
			for _, cf := range l.fields(g.val, join(path, "where"), nil) {
				if cf.val.Kind != yaml.ScalarNode || cf.val.Tag == "!!null" {
					l.add(pos(cf.val), join(join(path, "where"), cf.key), "expected a constant value, found %s", kindName(cf.val))
					continue
				}
				c.Where = append(c.Where, Const{Attr: cf.key, Value: cf.val.Value})
			}
		}
	}
	if c.Child == "" {
		l.add(f.keyAt, path, "a counter needs count: Child or sum: Child.attribute")
	}
	return c
}

func (l *loader) attribute(f field, parent string) *Attribute {
	path := join(parent, f.key)
	a := &Attribute{Name: f.key, Pos: f.keyAt}
	if len(f.key) > MaxName {
		l.add(f.keyAt, path, "the attribute name %q is %d characters; expected at most %d (DynamoDB's limit on a projected attribute's name)", f.key, len(f.key), MaxName)
	} else if !ValidName(f.key) {
		l.add(f.keyAt, path, "%q is not a valid attribute name; expected letters, digits and _ (starting with a letter)", f.key)
	} else if reservedAttr(f.key) {
		l.add(f.keyAt, path, "%q is a key attribute keyplan writes (%s, %s, GSI<n>PK, GSI<n>SK): it would be overwritten, or put items into an index; rename it", f.key, TablePK, TableSK)
	}
	v := deref(f.val)
	if v.Kind == yaml.ScalarNode {
		a.Type = l.attrType(v, path)
		return a
	}
	seenType := false
	var sizeAt *yaml.Node
	for _, g := range l.fields(v, path, attrFields) {
		p := join(path, g.key)
		switch g.key {
		case "type":
			a.Type = l.attrType(g.val, p)
			seenType = true
		case "values":
			a.Values = l.strs(g.val, p)
			if len(a.Values) == 0 {
				l.add(pos(g.val), p, "expected at least one value")
			}
		case "cardinality":
			a.Cardinality = l.count(g.val, p, 1, 1<<40)
		case "min":
			if x, ok := l.integer(g.val, p); ok {
				a.Min = &x
			}
		case "max":
			if x, ok := l.integer(g.val, p); ok {
				a.Max = &x
			}
		case "digits":
			a.Digits = l.count(g.val, p, 1, MaxDigits)
		case "maxLength":
			a.MaxLength = l.count(g.val, p, 1, MaxObjectBytes)
		case "store":
			a.Store = l.str(g.val, p)
		case "size":
			a.Size = l.count(g.val, p, 1, MaxObjectBytes)
			sizeAt = g.val
		case "optional":
			a.Optional = l.boolean(g.val, p)
		case "immutable":
			a.Immutable = l.boolean(g.val, p)
		case "renamedFrom":
			a.RenamedFrom = l.name(g.val, p)
		case "of":
			a.Of = l.attrType(g.val, p)
		case "maxItems":
			a.MaxItems = l.count(g.val, p, 1, MaxItemBytes)
		case "shards":
			a.Shards = l.count(g.val, p, 1, MaxCounterShards)
		case "derived":
			a.Derived = l.derived(g.val, p)
		}
	}
	if !seenType {
		if a.Values != nil {
			a.Type = TypeString
		} else {
			l.add(pos(v), path, "missing type; expected one of: %s", list(typeNames))
		}
	}
	if sizeAt != nil {
		switch {
		case !a.takes(FacetSize) && !a.Collection():
			l.add(pos(sizeAt), join(path, "size"), "size is the typical size of a %s, set, list or map; a %s's size is known", namesTaking(FacetSize), a.Type)
		case len(a.Values) > 0:
			l.add(pos(sizeAt), join(path, "size"), "size is for free text; an enum's size is its values'")
		case a.MaxLength > 0 && a.Size > a.MaxLength:
			l.add(pos(sizeAt), join(path, "size"), "size %d is above maxLength %d; expected the typical size, at most maxLength", a.Size, a.MaxLength)
		}
	}
	return a
}

// derived reads derived: {from: [a, b]} or a template "{a}-{b}".
func (l *loader) derived(n *yaml.Node, path string) *Derived {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		d := &Derived{Template: l.str(n, path)}
		if err := d.checkTemplate(); err != nil {
			l.add(pos(n), path, "%v", err)
		}
		return d
	}
	d := &Derived{}
	for _, g := range l.fields(n, path, []string{"from"}) {
		d.From = l.strs(g.val, join(path, "from"))
	}
	if len(d.From) == 0 {
		l.add(pos(n), path, "expected from: [attributes] or a template such as \"{repo}-{number}\"")
	}
	return d
}

func (l *loader) attrType(n *yaml.Node, path string) AttrType {
	s := l.str(n, path)
	if s == "" {
		return ""
	}
	if sc := Scalar(AttrType(s)); sc != nil {
		return sc.Type // a spelling is read as its type
	}
	if !slices.Contains(typeNames, s) {
		l.unknown(pos(n), path, "type", s, typeNames)
		return ""
	}
	return AttrType(s)
}

var (
	entityFields = []string{"id", "within", "table", "attributes", "keys", "writes", "peakWrites", "copies", "counters", "archive", "renamedFrom", "version", "needs"}
	attrFields   = []string{"type", "values", "cardinality", "min", "max", "digits", "maxLength", "store", "size", "optional", "immutable", "renamedFrom", "of", "maxItems", "shards", "derived"}
	keyFields    = []string{"pk", "sk", "when", "local"}
	typeNames    = append(ScalarNames(false), string(TypeSet), string(TypeList), string(TypeMap), string(TypeCounter))
)

// needFields are the fields of an entity's needs:.
var needFields = []string{"pointInTimeRecovery", "backup", "billing", "replicas"}

// RegionName is an AWS Region's name: eu-west-1, us-gov-east-1.
var RegionName = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

// backupPlanName is an AWS Backup plan's name: 1 to 50 of [a-zA-Z0-9_.-].
var backupPlanName = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,50}$`)

// needs decodes an entity's needs: the table settings it asks for.
func (l *loader) needs(n *yaml.Node, path string) *Needs {
	nd := &Needs{Pos: map[string]Pos{}}
	for _, f := range l.fields(n, path, needFields) {
		p := join(path, f.key)
		nd.Pos[f.key] = pos(f.val)
		switch f.key {
		case "pointInTimeRecovery":
			b := l.boolean(f.val, p)
			nd.PointInTimeRecovery = &b
		case "backup":
			if nd.Backup = l.str(f.val, p); nd.Backup != "" && !backupPlanName.MatchString(nd.Backup) {
				l.add(pos(f.val), p, "expected %s or an AWS Backup plan's name (1 to 50 of a-z, A-Z, 0-9, _, . and -), found %q", BackupNone, nd.Backup)
			}
		case "billing":
			if nd.Billing = l.str(f.val, p); nd.Billing != "" && nd.Billing != NeedOnDemand && nd.Billing != NeedProvisioned {
				l.add(pos(f.val), p, "expected %s or %s, found %q", NeedOnDemand, NeedProvisioned, nd.Billing)
			}
		case "replicas":
			nd.Replicated = true
			if v := deref(f.val); v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
				continue // []: no replica
			}
			for i, r := range l.strs(f.val, p) {
				if !RegionName.MatchString(r) {
					at := pos(f.val)
					if v := deref(f.val); v.Kind == yaml.SequenceNode && i < len(v.Content) {
						at = pos(v.Content[i])
					}
					l.add(at, p, "expected a list of AWS Regions (like eu-west-1), found %q", r)
					continue
				}
				nd.Replicas = append(nd.Replicas, r)
			}
			slices.Sort(nd.Replicas)
		}
	}
	return nd
}
