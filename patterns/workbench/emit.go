package workbench

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

// emit writes the keyplan model: the notes as comments on top, then
// table, entities (attributes, id, keys), inferred patterns and the
// items as examples.
func (im *importer) emit() (*Imported, error) {
	doc := mapping(0)
	add(doc, "table", scalar(im.t.TableName))
	ents := mapping(0)
	for _, e := range im.ents {
		en := mapping(0)
		add(en, "id", seq(e.id))
		attrs := mapping(0)
		for _, a := range e.attrs {
			add(attrs, a.name, im.attrNode(e, a))
		}
		add(en, "attributes", attrs)
		keys := mapping(0)
		for _, ix := range im.indexes {
			k, ok := e.keys[ix.name]
			if !ok {
				continue
			}
			kn := mapping(yaml.FlowStyle)
			add(kn, "pk", quoted(k[0]))
			add(kn, "sk", quoted(k[1]))
			add(keys, ix.name, kn)
		}
		add(en, "keys", keys)
		add(ents, e.name, en)
	}
	add(doc, "entities", ents)
	pats := im.patterns()
	add(doc, "patterns", pats)
	items := mapping(0)
	for _, e := range im.ents {
		prefix := strings.ToLower(e.name[:1]) + e.name[1:]
		j := 0
		for _, s := range e.samples {
			if _, out := s[dropped]; out {
				continue
			}
			j++
			vals := mapping(yaml.FlowStyle)
			for _, a := range e.attrs {
				v, ok := e.value(s, a)
				if !ok {
					continue
				}
				add(vals, a.name, valueNode(a, v))
			}
			it := mapping(yaml.FlowStyle)
			add(it, e.name, vals)
			add(items, fmt.Sprintf("%s%d", prefix, j), it)
		}
	}
	if len(items.Content) > 0 {
		ex := mapping(0)
		add(ex, "items", items)
		add(doc, "examples", ex)
	}
	var head []string
	head = append(head, fmt.Sprintf("Imported by keyplan from %s (NoSQL Workbench table %s).", im.file, im.t.TableName))
	head = append(head, "Every line marked guess is inferred from the items, not read from the file: check it.")
	for _, n := range im.notes {
		head = append(head, n.String())
	}
	doc.HeadComment = strings.Join(head, "\n")
	quoteUnprintable(doc)
	var b bytes.Buffer
	// Through report.Terminal: what YAML writes raw but a terminal would
	// not show as it is (a right-to-left override) becomes an escape,
	// inside the double quotes quoteUnprintable put around its scalar (or
	// in a comment): the same model, printable.
	enc := yaml.NewEncoder(report.Terminal(&b))
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{doc}}); err != nil {
		return nil, fmt.Errorf("workbench: writing the model: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return &Imported{YAML: b.Bytes(), Notes: im.notes}, nil
}

// attrNode is an attribute's declaration: its type, alone or with its
// range and optional.
func (im *importer) attrNode(e *entity, a *attr) *yaml.Node {
	optional := false
	for _, s := range e.samples {
		if _, out := s[dropped]; out {
			continue
		}
		if _, ok := e.value(s, a); !ok {
			optional = true
		}
	}
	if contains(e.id, a.name) {
		optional = false
	}
	if a.min == nil && !optional {
		return scalar(string(a.typ))
	}
	n := mapping(yaml.FlowStyle)
	add(n, "type", scalar(string(a.typ)))
	if a.min != nil {
		add(n, "min", scalar(strconv.FormatInt(*a.min, 10)))
		add(n, "max", scalar(strconv.FormatInt(*a.max, 10)))
	}
	if optional {
		add(n, "optional", scalar("true"))
	}
	return n
}

// patterns infers what the layout can answer: a get by each entity's id,
// a query of each entity's items in its partition when its sort key
// holds more, a query per GSI key, and a collection read where entities
// share a partition key.
func (im *importer) patterns() *yaml.Node {
	out := mapping(0)
	used := map[string]bool{}
	addP := func(name string, p *yaml.Node, why string) {
		n := sanitize(name)
		for i := 2; used[n]; i++ {
			n = sanitize(name) + strconv.Itoa(i)
		}
		used[n] = true
		add(out, n, p)
		out.Content[len(out.Content)-1].LineComment = why
	}
	partitions := map[string][]*entity{}
	var order []string
	for _, e := range im.ents {
		base := e.keys[patterns.BaseIndex]
		p := mapping(yaml.FlowStyle)
		add(p, "get", scalar(e.name))
		addP("Get"+e.name, p, "guess: by its id, the base key")
		pkAttrs := keyAttrs(base[0])
		if s := sortAttr(base[1], pkAttrs); s != "" && len(pkAttrs) > 0 {
			q := mapping(yaml.FlowStyle)
			add(q, "query", scalar(e.name))
			add(q, "where", seq(pkAttrs))
			add(q, "sort", scalar(s))
			addP(e.name+"By"+upperFirst(strings.Join(pkAttrs, "And")), q, "guess: its items in one partition")
		}
		if len(pkAttrs) > 0 {
			if _, ok := partitions[base[0]]; !ok {
				order = append(order, base[0])
			}
			partitions[base[0]] = append(partitions[base[0]], e)
		}
		for _, ix := range im.indexes[1:] {
			k, ok := e.keys[ix.name]
			if !ok {
				continue
			}
			where := keyAttrs(k[0])
			if len(where) == 0 {
				continue
			}
			q := mapping(yaml.FlowStyle)
			add(q, "query", scalar(e.name))
			add(q, "where", seq(where))
			if s := sortAttr(k[1], where); s != "" {
				add(q, "sort", scalar(s))
			}
			addP(e.name+"By"+upperFirst(strings.Join(where, "And")), q, "guess: what "+ix.name+" answers")
		}
	}
	for _, pk := range order {
		es := partitions[pk]
		if len(es) < 2 {
			continue
		}
		var names []string
		for _, e := range es {
			names = append(names, e.name)
		}
		q := mapping(yaml.FlowStyle)
		add(q, "query", seq(names))
		add(q, "where", seq(keyAttrs(pk)))
		addP(strings.Join(names, "With"), q, "guess: an item collection, one partition")
	}
	im.note("patterns", true, "the file lists no access patterns: those below are what the keys can answer, not what the application asks; replace them with its questions")
	return out
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func valueNode(a *attr, v string) *yaml.Node {
	switch a.typ {
	case patterns.TypeNumber, patterns.TypeTTL:
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return scalar(v)
		}
	case patterns.TypeBool:
		return scalar(v)
	}
	return quoted(v)
}

// quoteUnprintable double-quotes every scalar holding a character
// patterns.Unprintable names (or a byte that is not UTF-8): YAML's escapes
// (\u202e) hold only between double quotes.
func quoteUnprintable(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && patterns.Printable(n.Value) != n.Value {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteUnprintable(c)
	}
}

func mapping(style yaml.Style) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Style: style}
}

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

// quoted is a string that stays a string (a value such as 12 or true
// would otherwise read back as a number or a bool).
func quoted(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func seq(xs []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, x := range xs {
		n.Content = append(n.Content, scalar(x))
	}
	return n
}
