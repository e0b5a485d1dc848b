package adopt

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/report"
)

// emit writes the keyplan model: the notes as comments on top, then
// table, entities (attributes, id, keys), inferred patterns and the
// items as examples.
func (im *importer) emit() (*Imported, error) {
	doc := mapping(0)
	add(doc, "table", scalar(im.t.Name))
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
			if w := e.when[ix.name]; len(w) > 0 {
				f := mapping(yaml.FlowStyle)
				for _, c := range w {
					add(f, c.Attr, valueNode(e.attr(c.Attr), c.Value))
				}
				add(kn, "when", f)
			}
			add(keys, ix.name, kn)
		}
		add(en, "keys", keys)
		add(ents, e.name, en)
	}
	add(doc, "entities", ents)
	pats := im.patterns()
	add(doc, "patterns", pats)
	var head []string
	head = append(head, fmt.Sprintf("Imported by keyplan from %s.", im.t.Origin))
	head = append(head, fmt.Sprintf("Every line marked guess is inferred from the items, not read from %s: check it.", im.t.Noun))
	for _, n := range im.notes {
		head = append(head, n.String())
	}
	doc.HeadComment = strings.Join(head, "\n")
	var b bytes.Buffer
	if err := encodeYAML(&b, doc); err != nil {
		return nil, err
	}
	// The examples, a chunk of items at a time: one document of them all
	// would hold every item's events in the YAML emitter at once
	// (gigabytes for a big table).
	chunk := mapping(0)
	header := false
	flush := func() error {
		if len(chunk.Content) == 0 {
			return nil
		}
		if !header {
			b.WriteString("examples:\n  items:\n")
			header = true
		}
		var ib bytes.Buffer
		if err := encodeYAML(&ib, chunk); err != nil {
			return err
		}
		for _, line := range strings.SplitAfter(ib.String(), "\n") {
			if line != "" {
				b.WriteString("    ")
				b.WriteString(line)
			}
		}
		chunk = mapping(0)
		if b.Len() > model.MaxModelBytes {
			return im.tooBig()
		}
		return nil
	}
	for _, e := range im.ents {
		prefix := strings.ToLower(e.name[:1]) + e.name[1:]
		if strings.ToUpper(e.name) == e.name {
			prefix = strings.ToLower(e.name) // ORDER: order1, not oRDER1
		}
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
			add(chunk, fmt.Sprintf("%s%d", prefix, j), it)
			if len(chunk.Content) == 2*itemsPerChunk {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if im.t.Expect {
		y := im.expect(b.Bytes(), im.t.Complete)
		b.Reset()
		b.Write(y)
	}
	// Through report.Terminal: what YAML writes raw but a terminal would
	// not show as it is (a right-to-left override) becomes an escape,
	// inside the double quotes quoteUnprintable put around its scalar (or
	// in a comment): the same model, printable.
	var out bytes.Buffer
	if _, err := report.Terminal(&out).Write(b.Bytes()); err != nil {
		return nil, err
	}
	if out.Len() > model.MaxModelBytes {
		return nil, im.tooBig() // the escapes made it so
	}
	return &Imported{YAML: out.Bytes(), Notes: im.notes}, nil
}

// itemsPerChunk is how many example items one YAML document holds.
const itemsPerChunk = 256

// encodeYAML writes one node as a YAML document, its scalars holding
// unprintable characters double-quoted (quoteUnprintable).
func encodeYAML(b *bytes.Buffer, n *yaml.Node) error {
	quoteUnprintable(n)
	enc := yaml.NewEncoder(b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}}); err != nil {
		return fmt.Errorf("workbench: writing the model: %w", err)
	}
	return enc.Close()
}

// attrNode is an attribute's declaration: its type, alone or with what
// else it declares (keyplan's export carries them: declarations), its
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
	d := a.decl
	if d != nil {
		optional = optional || d.Optional
	}
	if contains(e.id, a.name) {
		optional = false
	}
	n := mapping(yaml.FlowStyle)
	add(n, "type", scalar(string(a.typ)))
	if d != nil && len(d.Values) > 0 {
		vs := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, v := range d.Values {
			vs.Content = append(vs.Content, quoted(v))
		}
		add(n, "values", vs)
	}
	if d != nil && d.MaxLength > 0 {
		add(n, "maxLength", scalar(strconv.Itoa(d.MaxLength)))
	}
	if a.min != nil {
		add(n, "min", scalar(strconv.FormatInt(*a.min, 10)))
	}
	if a.max != nil {
		add(n, "max", scalar(strconv.FormatInt(*a.max, 10)))
	}
	if d != nil && d.Digits > 0 {
		add(n, "digits", scalar(strconv.Itoa(d.Digits)))
	}
	if d != nil && d.Cardinality > 0 {
		add(n, "cardinality", scalar(strconv.Itoa(d.Cardinality)))
	}
	if optional {
		add(n, "optional", scalar("true"))
	}
	if d != nil && d.Immutable {
		add(n, "immutable", scalar("true"))
	}
	if len(n.Content) == 2 {
		return scalar(string(a.typ))
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
		base := e.keys[model.BaseIndex]
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
			// A sparse key's constants are the read's filter, not its where.
			where, filter := keyAttrs(k[0]), e.when[ix.name]
			for _, c := range filter {
				where = slices.DeleteFunc(where, func(a string) bool { return a == c.Attr })
			}
			q := mapping(yaml.FlowStyle)
			add(q, "query", scalar(e.name))
			if len(where) > 0 {
				add(q, "where", seq(where))
			}
			known := slices.Clone(where)
			for _, c := range filter {
				known = append(known, c.Attr)
			}
			if s := sortAttr(k[1], known); s != "" {
				add(q, "sort", scalar(s))
			}
			if len(filter) > 0 {
				f := mapping(yaml.FlowStyle)
				for _, c := range filter {
					add(f, c.Attr, valueNode(e.attr(c.Attr), c.Value))
				}
				add(q, "filter", f)
			}
			why := "guess: what " + ix.name + " answers"
			returns, hidden := im.returns(e, ix)
			if returns != nil {
				add(q, "returns", seq(returns))
				why += ", returning what it projects (" + string(ix.projection) + ")"
			}
			if hidden {
				add(q, "expired", scalar(string(model.ExpiredInclude)))
				why += "; it projects no TTL, so it cannot hide expired items"
			}
			name := e.name + "On" + ix.name
			if len(where) > 0 {
				name = e.name + "By" + upperFirst(strings.Join(where, "And"))
			}
			addP(name, q, why)
			im.askCardinality(e, ix.name, where)
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
	im.note("patterns", true, "%s lists no access patterns: those below are what the keys can answer, not what the application asks; replace them with its questions", im.t.Noun)
	return out
}

// askCardinality asks, for a read that partitions an entity on a GSI by
// where, how many values those attributes take in the table: a sample
// cannot say, and a partition key of few values is a hot partition
// (KP401), which keyplan check reports once the model says it
// (cardinality: N), never guessed.
func (im *importer) askCardinality(e *entity, index string, where []string) {
	if len(where) == 0 || len(e.samples) == 0 {
		im.notes = append(im.notes, Note{Subject: "entity " + e.name + ", " + index, Question: true,
			Text: "every item of it on " + index + " is in one partition: is that what the reads need? A partition takes 3,000 reads and 1,000 writes a second (KP401)"})
		return
	}
	seen := map[string]bool{}
	for _, s := range e.samples {
		var parts []string
		for _, w := range where {
			if a := e.attr(w); a != nil {
				v, _ := e.value(s, a)
				parts = append(parts, v)
			}
		}
		seen[strings.Join(parts, "\x00")] = true
	}
	im.notes = append(im.notes, Note{Subject: "entity " + e.name + ", " + index, Question: true,
		Text: fmt.Sprintf("%s partitions it by %s: how many values do they take in the table? The sample holds %d in %d item(s); say it with cardinality: N on the attribute (fewer than 100: a hot partition, which keyplan check reports, KP401)",
			index, strings.Join(where, ", "), len(seen), len(e.samples))})
}

// returns is what an inferred read of an entity on a GSI returns so that
// the GSI's projection is the one the table has: nothing (ALL), the
// attributes its keys hold (KEYS_ONLY), or those and the ones it includes
// (INCLUDE); hidden is true when the projection holds no TTL attribute the
// entity has (the read then cannot hide expired items: expired: include).
func (im *importer) returns(e *entity, ix index) (returns []string, hidden bool) {
	if ix.projection == "" || ix.projection == patterns.ProjectAll {
		return nil, false
	}
	keyed := map[string]bool{}
	base, own := e.keys[model.BaseIndex], e.keys[ix.name]
	for _, t := range []string{base[0], base[1], own[0], own[1]} {
		for _, a := range keyAttrs(t) {
			keyed[a] = true
		}
	}
	for _, a := range e.attrs {
		if keyed[a.name] || ix.projection == patterns.ProjectInclude && slices.Contains(ix.nonKey, a.from) {
			returns = append(returns, a.name)
		} else if a.typ == model.TypeTTL {
			hidden = true
		}
	}
	if returns == nil {
		returns = []string{} // never ALL
	}
	return returns, hidden
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func valueNode(a *attr, v string) *yaml.Node {
	switch dynamoType(a.typ) {
	case "N":
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return scalar(v)
		}
	case "BOOL":
		return scalar(v)
	}
	return quoted(v)
}

// quoteUnprintable double-quotes every scalar holding a character
// patterns.Unprintable names (or a byte that is not UTF-8): YAML's escapes
// (\u202e) hold only between double quotes.
func quoteUnprintable(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && model.Printable(n.Value) != n.Value {
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
