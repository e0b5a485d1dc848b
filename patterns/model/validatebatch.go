package model

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Validating batch reads (batch: true): a get of many ids of one
// entity, and their examples' expectations.

// BaseOnly reports whether a pattern can only be read from the base table:
// a strongly consistent read, or a batch of gets.
func (p *Pattern) BaseOnly() bool { return p.Consistent || p.Batch }

// BatchIDs is how many ids one call of a batch pattern is assumed to pass
// (its limit, DefaultPage without one), and the requests they take.
func (p *Pattern) BatchIDs() (ids, requests int) {
	ids = p.Limit
	if ids == 0 {
		ids = DefaultPage
	}
	return ids, int(math.Ceil(float64(ids) / MaxBatchGetKeys))
}

// validateBatch: a batch is a get of one entity by its id, nothing more.
func (m *Model) validateBatch(l *errorList, p *Pattern, ents []*Entity) {
	if !p.Batch {
		return
	}
	at, path := p.PosOf("batch"), "patterns."+p.Name+".batch"
	switch {
	case p.Op != ReadGet:
		l.add(at, path, "batch reads many items of a get by id (BatchGetItem); a query reads many already")
		return
	case len(ents) != 1:
		l.add(at, path, "a batch reads items of one entity")
		return
	}
	e := ents[0]
	if len(p.Where) > 0 && !sameSet(p.Where, e.ID) {
		l.add(p.PosOf("where"), "patterns."+p.Name+".where", "a batch reads %s items by their id (%v): BatchGetItem takes base-table keys; leave where out", e.Name, e.ID)
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"unique", p.Unique}, {"shards", p.Shards > 0}, {"count", p.Count}, {"filter", len(p.Filter) > 0}, {"sort", len(p.Sort) > 0}} {
		if f.set {
			l.add(p.PosOf(f.name), "patterns."+p.Name+"."+f.name, "%s does not apply to a batch of gets by id (batch: true)", f.name)
		}
	}
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// validateBatchExpectation checks an expectation of a batch pattern (ids,
// one item name per id) and refuses ids for another pattern; it reports
// whether x was a batch pattern's (and so checked).
func (m *Model) validateBatchExpectation(l *errorList, p *Pattern, x *Expectation, path string, items []string) bool {
	if !p.Batch {
		if x.IDs != nil {
			l.add(x.Pos, path+".ids", "ids are a batch pattern's (batch: true); %s takes params", p.Name)
		}
		return false
	}
	e := m.Entity(p.Entities[0])
	switch {
	case len(x.Params) > 0:
		l.add(x.Pos, path+".params", "pattern %s is a batch: it takes ids (a list of {%s: …}), not params", p.Name, strings.Join(e.ID, ": …, "))
	case x.IDs == nil:
		l.add(x.Pos, path+".ids", "missing; pattern %s reads a list of ids, each {%s: …}", p.Name, strings.Join(e.ID, ": …, "))
		return true
	case x.Count != nil:
		l.add(x.Pos, path+".count", "a batch reads items, not a number")
	}
	for i, id := range x.IDs {
		ip := fmt.Sprintf("%s.ids[%d]", path, i)
		for _, a := range e.ID {
			if _, ok := id[a]; !ok {
				l.add(x.Pos, ip+"."+a, "missing; an id of %s holds %s", e.Name, strings.Join(e.ID, ", "))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(id)) {
			if !e.IsID(k) {
				l.unknown(x.Pos, ip, "id attribute", k, e.ID)
			}
		}
	}
	if len(x.Items) != len(x.IDs) {
		l.add(x.Pos, path+".items", "%d item name(s) for %d id(s): name one per id, in order, null where an id has no item", len(x.Items), len(x.IDs))
	}
	for _, name := range x.Items {
		if name != "" && !slices.Contains(items, name) {
			l.unknown(x.Pos, path+".items", "example item", name, items)
		}
	}
	return true
}
