package adopt

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// expect adds examples.expect to a model made from a table: for each
// inferred read, its parameters from an example item and the examples it
// returns by the reference evaluator (package oracle, which reads no
// key), so that keyplan validate --existing proves the model's keys
// against the table's items. With a partial sample only the gets are
// expected (a query's partition may hold items the sample missed), and a
// note says so (FromLive).
func (im *importer) expect(y []byte, complete bool) []byte {
	m, err := model.Parse("imported.yaml", y)
	if err != nil || len(m.Examples.Items) == 0 {
		return y // Loads says why
	}
	s := oracle.NewState(m)
	names := map[string]string{} // identity -> example name
	for _, ex := range m.Examples.Items {
		it := &oracle.Item{Entity: ex.Entity, Values: ex.Values}
		if s.Load(it) != nil {
			continue
		}
		names[s.IdentityOf(it)] = ex.Name
	}
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, p := range m.Patterns {
		get := p.Op == model.ReadGet
		if !get && !complete {
			continue
		}
		params, ok := paramsFor(m, p)
		if !ok {
			continue
		}
		ans, err := s.Read(p, params, nil)
		if err != nil || ans.Number != nil || ans.Ordered && ties(m, p, ans) {
			continue
		}
		var items []string
		for _, it := range ans.Items {
			items = append(items, names[s.IdentityOf(it)])
		}
		if slices.Contains(items, "") {
			continue
		}
		e := mapping(yaml.FlowStyle)
		add(e, "pattern", scalar(p.Name))
		pn := mapping(yaml.FlowStyle)
		for _, w := range m.Where(p) {
			v := &yaml.Node{}
			if v.Encode(params[w]) != nil {
				continue
			}
			add(pn, w, v)
		}
		add(e, "params", pn)
		add(e, "items", seq(items))
		list.Content = append(list.Content, e)
	}
	if len(list.Content) == 0 {
		return y
	}
	var b bytes.Buffer
	if encodeYAML(&b, list) != nil {
		return y
	}
	out := append(slices.Clone(y), "  expect:\n"...)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" {
			out = append(out, "    "+line...)
		}
	}
	return out
}

// paramsFor draws a read's parameters from the first example item of its
// entities that holds every attribute its where names.
func paramsFor(m *model.Model, p *model.Pattern) (map[string]any, bool) {
	where := m.Where(p)
	for _, ex := range m.Examples.Items {
		if !slices.Contains(p.Entities, ex.Entity) {
			continue
		}
		params := map[string]any{}
		for _, w := range where {
			v, ok := ex.Values[w]
			if !ok {
				break
			}
			params[w] = v
		}
		if len(params) == len(where) {
			return params, true
		}
	}
	return nil, false
}

// ties reports whether a sorted answer holds two items of equal sort
// values (their order is the rest of the key's, which an expectation's
// list would fix).
func ties(m *model.Model, p *model.Pattern, ans *oracle.Answer) bool {
	seen := map[string]bool{}
	for _, it := range ans.Items {
		var parts []string
		for _, a := range p.Sort {
			parts = append(parts, oracle.Text(it.Values[a]))
		}
		k := fmt.Sprint(parts)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}
