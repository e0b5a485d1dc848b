package oracle

import (
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// BatchAnswer is what a batch read (batch: true) must return: for each id
// given, in order, the item its get by that id answers (State.Read), or
// nil when it answers none. An id given twice is answered twice.
type BatchAnswer struct {
	Pattern *model.Pattern
	Items   []*Item
	// Returns are the attributes a returned item must carry (nil: all).
	Returns []string
}

// ReadBatch evaluates a batch pattern on the state: each id is a get of
// the pattern by that id (its parameters exactly the entity's id
// attributes, each a valid value: otherwise the read is invalid,
// ErrInvalid, naming the id).
func (s *State) ReadBatch(p *model.Pattern, ids []map[string]any) (*BatchAnswer, error) {
	if !p.Batch {
		return nil, invalid("pattern %s is not a batch (batch: true)", p.Name)
	}
	ans := &BatchAnswer{Pattern: p, Returns: p.Returns, Items: make([]*Item, len(ids))}
	for i, id := range ids {
		a, err := s.Read(p, id, nil)
		if err != nil {
			return nil, fmt.Errorf("id %d: %w", i, err)
		}
		switch len(a.Items) {
		case 0:
		case 1:
			ans.Items[i] = a.Items[0]
		default:
			return nil, fmt.Errorf("id %d: %d items of one id", i, len(a.Items))
		}
	}
	return ans, nil
}

// Check compares a batch read's result with the answer: as many entries
// as ids, each nil where the answer's is, else the same item (its id and
// the attributes it must carry).
func (b *BatchAnswer) Check(m *model.Model, got []*Item) error {
	if len(got) != len(b.Items) {
		return fmt.Errorf("%d entries for %d ids", len(got), len(b.Items))
	}
	a := &Answer{Pattern: b.Pattern, Returns: b.Returns}
	var problems []string
	for i, want := range b.Items {
		g := got[i]
		switch {
		case want == nil && g == nil:
			continue
		case want == nil:
			problems = append(problems, fmt.Sprintf("id %d: %s, expected none", i, g))
			continue
		case g == nil:
			problems = append(problems, fmt.Sprintf("id %d: none, expected %s", i, want))
			continue
		}
		e := m.Entity(want.Entity)
		wid, _ := identity(e, want.Values)
		gid, err := identity(e, g.Values)
		if g.Entity != want.Entity || err != nil || gid != wid {
			problems = append(problems, fmt.Sprintf("id %d: %s, expected %s", i, g, want))
			continue
		}
		if diff := a.diffValues(m, want, g); diff != "" {
			problems = append(problems, fmt.Sprintf("id %d: %s", i, diff))
		}
	}
	const most = 5
	if n := len(problems); n > most {
		problems = append(problems[:most], fmt.Sprintf("and %d more", n-most))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// readBatch draws a batch read: a few ids, now and then more than one
// request takes (MaxBatchGetKeys), each drawn as a get's parameters are
// (mostly an item's, else of none or of one whose values start the
// same, seldom invalid), some given twice.
func (g *Generator) readBatch(s *State, p *model.Pattern) *Read {
	n := g.r.IntN(6)
	if g.r.IntN(20) == 0 {
		n = model.MaxBatchGetKeys - 2 + g.r.IntN(5)
	}
	rd := &Read{Pattern: p.Name, IDs: make([]map[string]any, 0, n)}
	for range n {
		if len(rd.IDs) > 0 && g.r.IntN(6) == 0 {
			rd.IDs = append(rd.IDs, rd.IDs[g.r.IntN(len(rd.IDs))])
			continue
		}
		id := g.params(s, p)
		g.invalidate(p, id)
		rd.IDs = append(rd.IDs, id)
	}
	return rd
}
