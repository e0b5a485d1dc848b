package dynamo

import (
	"context"
	"iter"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
)

// A table in the middle of a migration (patterns.Lock with a Migration)
// has two designs: the accepted one, whose keys every item has, and the
// target, whose new keys a backfill is writing. The runtime then expands:
// every write carries the keys of both designs; and reads each pattern
// with the target's plan only once the lock says the index it reads is
// complete (patterns.Lock.ReadsTarget), otherwise with the accepted
// design's. When the migration ends (the lock's accepted design is the
// target), only the target's keys are written: the contract.

// rollout is what a runtime knows of a migration in progress.
type rollout struct {
	lock *patterns.Lock
	// prev is the runtime of the accepted design.
	prev *Table
	// entity and attrs map the target's names to the accepted design's
	// (renamedFrom), and back.
	entity, entityBack map[string]string
	attrs, attrsBack   map[string]map[string]string // entity (target name) → names
}

// NewRollout returns the runtime for a table deployed from a lock. During
// a migration it works with the target design (application code uses the
// model's current names), writes both designs' keys, and reads through
// whichever design the current phase has complete. Without a migration
// it is New(l.Accepted, …).
func NewRollout(l *patterns.Lock, client Client, name string) *Table {
	if l.Migration == nil {
		return New(l.Accepted, client, name)
	}
	t := New(l.Migration.Target, client, name)
	r := &rollout{lock: l, prev: New(l.Accepted, client, name),
		entity: map[string]string{}, entityBack: map[string]string{},
		attrs: map[string]map[string]string{}, attrsBack: map[string]map[string]string{}}
	am := l.Accepted.Model()
	for _, e := range l.Migration.Target.Model().Entities {
		old := e.Name
		if e.RenamedFrom != "" && am.Entity(e.RenamedFrom) != nil {
			old = e.RenamedFrom
		}
		oe := am.Entity(old)
		if oe == nil {
			continue
		}
		r.entity[e.Name], r.entityBack[old] = old, e.Name
		r.attrs[e.Name], r.attrsBack[e.Name] = map[string]string{}, map[string]string{}
		for _, a := range e.Attributes {
			was := a.Name
			if a.RenamedFrom != "" && oe.Attr(a.RenamedFrom) != nil {
				was = a.RenamedFrom
			}
			if oe.Attr(was) != nil {
				r.attrs[e.Name][a.Name], r.attrsBack[e.Name][was] = was, a.Name
			}
		}
	}
	t.rollout = r
	return t
}

// toPrev renames values from the target's names to the accepted design's
// (values the accepted design has no attribute for are left out).
func (r *rollout) toPrev(entity string, v map[string]any) map[string]any {
	names := r.attrs[entity]
	out := make(map[string]any, len(v))
	for k, x := range v {
		if old, ok := names[k]; ok {
			out[old] = x
		}
	}
	return out
}

// fromPrev renames an item read with the accepted design back to the
// target's names.
func (r *rollout) fromPrev(it Item) Item {
	name := r.entityBack[it.Entity]
	if name == "" {
		return it
	}
	back := r.attrsBack[name]
	v := make(Values, len(it.Values))
	for k, x := range it.Values {
		if n, ok := back[k]; ok {
			v[n] = x
		}
	}
	return Item{Entity: name, Values: v, Raw: it.Raw}
}

// via returns the runtime that reads a pattern now: the accepted design's
// while the target's index is not complete (nil: the target's).
func (t *Table) via(pattern string) *rollout {
	r := t.rollout
	if r == nil || r.lock.ReadsTarget(pattern) || r.prev.d.Pattern(pattern) == nil {
		return nil
	}
	return r
}

// prevRequest is a request for the accepted design's plan.
func (r *rollout) prevRequest(pattern string, req Request) Request {
	p := r.prev.m.Pattern(pattern)
	if p == nil || len(p.Entities) == 0 {
		return req
	}
	entity := r.entityBack[p.Entities[0]]
	req.Params = Params(r.toPrev(entity, req.Params))
	return req
}

// expand adds to an item the keys the accepted design gives it (those the
// target does not: the other GSI keys), and the values of renamed
// attributes under their old names too (readers of the accepted design
// read those).
func (t *Table) expand(entity string, v Values, item map[string]types.AttributeValue) error {
	r := t.rollout
	if r == nil {
		return nil
	}
	old, ok := r.entity[entity]
	if !ok {
		return nil // new in the target: no keys before it
	}
	keys, err := r.prev.keysOf(old, Values(r.toPrev(entity, v)))
	if err != nil {
		return err
	}
	for k, x := range keys {
		if _, has := item[k]; !has {
			item[k] = x
		}
	}
	for n, was := range r.attrs[entity] {
		if x, ok := item[n]; ok && was != n {
			item[was] = x
		}
	}
	return nil
}

// keysOf builds the GSI keys an entity's item carries (sparse as the
// design says) from the values it has, without the checks of a
// whole item (values the design does not declare are ignored).
func (t *Table) keysOf(entity string, v Values) (map[string]types.AttributeValue, error) {
	p := t.plans[entity]
	if p == nil {
		_, _, err := t.entity(entity)
		return nil, err
	}
	e := p.e
	enc := make([]string, len(e.Attributes))
	present := make([]bool, len(e.Attributes))
	for i, a := range e.Attributes {
		x, ok := v[a.Name]
		if !ok || x == nil || !p.keyed[i] {
			continue
		}
		s, err := a.EncodeKey(x)
		if err != nil {
			return nil, err
		}
		enc[i], present[i] = s, true
	}
	out := map[string]types.AttributeValue{}
	// The base key is the same in both designs: GSI keys only.
	if err := p.putKeys(out, false, present, enc, v); err != nil {
		return nil, err
	}
	for _, dc := range p.discs {
		out[dc.name] = &types.AttributeValueMemberS{Value: dc.value}
	}
	return out, nil
}

// read runs a read with the accepted design's plan.
func (r *rollout) read(ctx context.Context, pattern string, req Request) (*Page, error) {
	page, err := r.prev.Read(ctx, pattern, r.prevRequest(pattern, req))
	if err != nil {
		return nil, err
	}
	for i, it := range page.Items {
		page.Items[i] = r.fromPrev(it)
	}
	return page, nil
}

func (r *rollout) all(ctx context.Context, pattern string, req Request) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		for it, err := range r.prev.All(ctx, pattern, r.prevRequest(pattern, req)) {
			if err == nil {
				it = r.fromPrev(it)
			}
			if !yield(it, err) {
				return
			}
		}
	}
}

func (r *rollout) queryInputs(pattern string, req Request) ([]*dynamodb.QueryInput, error) {
	req = r.prevRequest(pattern, req)
	return r.prev.queryInputs(pattern, &req)
}

func (r *rollout) getItemInput(pattern string, req Request) (*dynamodb.GetItemInput, error) {
	return r.prev.GetItemInput(pattern, r.prevRequest(pattern, req).Params)
}
