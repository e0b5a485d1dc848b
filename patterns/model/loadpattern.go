package model

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decoding the patterns section: get and query, where, sort, filter and
// the rest of a read pattern's fields.

func (l *loader) pattern(f field) *Pattern {
	path := "patterns." + f.key
	p := &Pattern{Name: l.name(&yaml.Node{Kind: yaml.ScalarNode, Value: f.key, Line: f.keyAt.Line, Column: f.keyAt.Col}, path), Pos: f.keyAt, FieldPos: map[string]Pos{}}
	for _, g := range l.fields(f.val, path, patternFields) {
		p.FieldPos[g.key] = pos(g.val)
		fp := join(path, g.key)
		switch g.key {
		case "get", "query":
			if p.Op != "" {
				l.add(g.keyAt, fp, "a pattern is either a get or a query, not both")
				continue
			}
			p.Op = ReadOp(g.key)
			p.Entities = l.strs(g.val, fp)
		case "where":
			p.Where = l.strs(g.val, fp)
		case "sort":
			p.Sort, p.Desc = l.sortSpec(g.val, fp)
		case "filter":
			p.Filter = l.constants(g.val, fp)
		case "limit":
			p.Limit = l.count(g.val, fp, 1, 1<<31-1)
		case "returns":
			p.Returns = l.strs(g.val, fp)
		case "consistent":
			p.Consistent = l.boolean(g.val, fp)
		case "unique":
			p.Unique = l.boolean(g.val, fp)
		case "rate":
			if p.Rate = l.number(g.val, fp); p.Rate < 0 {
				l.add(pos(g.val), fp, "expected a rate of zero or more requests per second, found %v", p.Rate)
			}
		case "peak":
			p.Peak = l.number(g.val, fp)
		case "shards":
			p.Shards = l.count(g.val, fp, 1, MaxShards)
		case "expired":
			switch p.Expired = l.str(g.val, fp); p.Expired {
			case ExpiredInclude, ExpiredHide, "":
			default:
				l.add(pos(g.val), fp, "expected %s (return items whose ttl has passed, until DynamoDB deletes them) or %s (the default), found %q", ExpiredInclude, ExpiredHide, p.Expired)
			}
		case "count":
			p.Count = l.boolean(g.val, fp)
		case "batch":
			p.Batch = l.boolean(g.val, fp)
		}
	}
	if p.Op == "" {
		l.add(f.keyAt, path, "missing get or query; expected {get: ENTITY} or {query: ENTITY or [ENTITY, …]}")
	}
	return p
}

// sortSpec reads sort: "attr", "attr asc|desc", or a list of those. A key
// orders by its whole sort key, so every direction must be the same.
func (l *loader) sortSpec(n *yaml.Node, path string) ([]string, bool) {
	n = deref(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			l.add(pos(n), path, "expected at least one sort attribute")
		}
	}
	var attrs []string
	dir := ""
	for _, it := range items {
		it = deref(it)
		s := strings.Fields(l.str(it, path))
		d := ""
		switch {
		case len(s) == 1:
		case len(s) == 2 && (s[1] == "asc" || s[1] == "desc"):
			d = s[1]
		case len(s) > 0 || it.Kind == yaml.ScalarNode:
			l.add(pos(it), path, "expected \"ATTRIBUTE\", \"ATTRIBUTE asc\" or \"ATTRIBUTE desc\", found %q", it.Value)
			continue
		default:
			continue
		}
		if slices.Contains(attrs, s[0]) {
			l.add(pos(it), path, "%q is listed twice", s[0])
			continue
		}
		attrs = append(attrs, s[0])
		if d != "" && dir != "" && d != dir {
			l.add(pos(it), path, "%s is %s but an earlier sort attribute is %s: a query orders by its whole sort key, so every attribute goes the same way", s[0], d, dir)
		}
		if d != "" {
			dir = d
		}
	}
	return attrs, dir == "desc"
}

// patternFields are the fields of a read pattern.
var patternFields = []string{"get", "query", "where", "sort", "filter", "limit", "returns", "consistent", "unique", "rate", "peak", "shards", "expired", "count", "batch"}

// constants reads `{attr: constant, ...}` (a pattern's filter, a sparse
// key's when).
func (l *loader) constants(n *yaml.Node, path string) []Const {
	var out []Const
	for _, cf := range l.fields(n, path, nil) {
		if cf.val.Kind != yaml.ScalarNode || cf.val.Tag == "!!null" {
			l.add(pos(cf.val), join(path, cf.key), "expected a constant value, found %s", kindName(cf.val))
			continue
		}
		out = append(out, Const{Attr: cf.key, Value: cf.val.Value})
	}
	return out
}
