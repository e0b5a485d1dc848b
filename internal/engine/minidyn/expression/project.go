package expression

import (
	"maps"
	"slices"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Projection is a parsed ProjectionExpression: the document paths to
// return.
type Projection struct {
	Paths []Path
}

// ParseProjection parses a ProjectionExpression.
func ParseProjection(src string, req *Request) (*Projection, error) {
	p, err := newParser(ProjectionExpression, src, req)
	if err != nil {
		return nil, err
	}

	pr := &Projection{}

	for {
		path, err := p.parsePath()
		if err != nil {
			return nil, publicError(err)
		}

		pr.Paths = append(pr.Paths, path)

		if p.peek().kind == tokEOF {
			break
		}

		if err := p.expectPunct(","); err != nil {
			return nil, publicError(err)
		}
	}

	u := &Update{}
	for _, path := range pr.Paths {
		u.actions = append(u.actions, action{path: path})
	}

	if err := p.checkPaths(u); err != nil {
		return nil, publicError(err)
	}

	return pr, nil
}

// Tops are the top-level attributes the projection reads.
func (pr *Projection) Tops() []string {
	var out []string

	for _, p := range pr.Paths {
		if !slices.Contains(out, p.Top()) {
			out = append(out, p.Top())
		}
	}

	return out
}

// Apply returns the parts of item the projection names (copies): nested
// paths keep their structure, list elements stay in their order.
func (pr *Projection) Apply(item map[string]*types.Item) map[string]*types.Item {
	return Project(item, pr.Paths)
}

// Project returns the parts of item at paths (copies).
func Project(item map[string]*types.Item, paths []Path) map[string]*types.Item {
	root := &node{}
	for _, p := range paths {
		root.add(p)
	}

	out := map[string]*types.Item{}

	for name, child := range root.keys {
		v, ok := item[name]
		if !ok {
			continue
		}

		if pv := child.project(v); pv != nil {
			out[name] = pv
		}
	}

	return out
}

// node is a tree of requested paths: whole (the value itself), or the
// map keys and list indexes under it.
type node struct {
	whole   bool
	keys    map[string]*node
	indexes map[int]*node
}

func (n *node) add(p Path) {
	for _, e := range p {
		if e.Index >= 0 {
			if n.indexes == nil {
				n.indexes = map[int]*node{}
			}

			if n.indexes[e.Index] == nil {
				n.indexes[e.Index] = &node{}
			}

			n = n.indexes[e.Index]

			continue
		}

		if n.keys == nil {
			n.keys = map[string]*node{}
		}

		if n.keys[e.Name] == nil {
			n.keys[e.Name] = &node{}
		}

		n = n.keys[e.Name]
	}

	n.whole = true
}

func (n *node) project(v *types.Item) *types.Item {
	if n.whole {
		return types.Clone(v)
	}

	switch {
	case n.keys != nil && types.TypeOf(v) == types.TypeM:
		out := &types.Item{M: map[string]*types.Item{}}

		for k, child := range n.keys {
			if e, ok := v.M[k]; ok {
				if pe := child.project(e); pe != nil {
					out.M[k] = pe
				}
			}
		}

		if len(out.M) == 0 {
			return nil
		}

		return out
	case n.indexes != nil && types.TypeOf(v) == types.TypeL:
		out := &types.Item{L: []*types.Item{}}

		for _, i := range slices.Sorted(maps.Keys(n.indexes)) {
			if i < len(v.L) {
				if pe := n.indexes[i].project(v.L[i]); pe != nil {
					out.L = append(out.L, pe)
				}
			}
		}

		if len(out.L) == 0 {
			return nil
		}

		return out
	}

	return nil
}
