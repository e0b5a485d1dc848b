package dynamo

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
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
	// short are the target's patterns whose accepted plan returns less
	// than the target asks for (a wider returns): read through it, each
	// item's other attributes come from the base table (complete).
	short map[string]bool
	// rekeyed are the accepted design's patterns that read an index on
	// which the target writes another key for one of their entities (a
	// number re-encoded at another width, in place): during the
	// migration that index holds both, so the accepted plan cannot read
	// it, and the pattern waits for the target's.
	rekeyed map[string]bool
}

// NewRollout returns the runtime for a table deployed from a lock. During
// a migration it works with the target design (application code uses the
// model's current names), writes both designs' keys, and reads through
// whichever design the current phase has complete. Without a migration
// it is New(l.Accepted, …).
func NewRollout(l *patterns.Lock, client Client, name string, opts ...Option) *Table {
	if l.Migration == nil {
		return New(l.Accepted, client, name, opts...)
	}
	t := New(l.Migration.Target, client, name, opts...)
	r := &rollout{lock: l, prev: New(l.Accepted, client, name, opts...),
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
	r.short, r.rekeyed = map[string]bool{}, map[string]bool{}
	for _, tp := range l.Migration.Target.Model().Patterns {
		if ap := r.prev.m.Pattern(tp.Name); ap != nil && !r.returnsAll(tp, ap) {
			r.short[tp.Name] = true
		}
	}
	for _, ap := range r.prev.d.Patterns {
		for _, e := range ap.Entities {
			if r.keyedElsewise(e, ap.Index, t) {
				r.rekeyed[ap.Name] = true
			}
		}
	}
	t.rollout = r
	return t
}

// returnsAll reports whether the accepted design's plan of a pattern
// returns every attribute the target's asks for: the base table and an
// index with no returns give the whole item; otherwise each attribute the
// target returns (under its accepted name) must be among the accepted
// pattern's.
func (r *rollout) returnsAll(tp, ap *model.Pattern) bool {
	pp := r.prev.d.Pattern(ap.Name)
	if pp == nil || pp.Index == model.BaseIndex || len(ap.Returns) == 0 {
		return true
	}
	if len(tp.Returns) == 0 {
		return false // the whole item, from an index that holds part of it
	}
	for _, a := range tp.Returns {
		old := a
		for _, e := range tp.Entities {
			if n, ok := r.attrs[e][a]; ok {
				old = n
			}
		}
		if !slices.Contains(ap.Returns, old) {
			return false
		}
	}
	return true
}

// ready reports whether a pattern can be read now: through the target's
// plan (its index complete), or through the accepted design's when the
// index it reads holds only the accepted design's keys of its entities.
func (r *rollout) ready(pattern string) bool {
	return r.lock.ReadsTarget(pattern) || r.prev.d.Pattern(pattern) != nil && !r.rekeyed[pattern]
}

// keyedElsewise reports whether the target writes, on an index, another
// key of an accepted entity than the accepted design does: other
// templates, or an attribute encoded otherwise (a number's width).
func (r *rollout) keyedElsewise(entity, index string, t *Table) bool {
	if index == model.BaseIndex {
		return false
	}
	name := r.entityBack[entity]
	if name == "" {
		return false
	}
	ak, tk := r.prev.d.Entity(entity).Key(index), t.d.Entity(name).Key(index)
	if ak == nil || tk == nil {
		return false
	}
	ae, te := r.prev.m.Entity(entity), t.m.Entity(name)
	same := func(a, b model.Template) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			x, y := a[i], b[i]
			if x.Lit != y.Lit || x.Shards != y.Shards || (x.Attr == "") != (y.Attr == "") {
				return false
			}
			if x.Attr == "" {
				continue
			}
			if r.attrs[name][y.Attr] != x.Attr {
				return false
			}
			if xa, ya := ae.Attr(x.Attr), te.Attr(y.Attr); xa.Type != ya.Type || !sameEncoding(xa, ya) {
				return false
			}
		}
		return true
	}
	return !same(ak.PK, tk.PK) || !same(ak.SK, tk.SK)
}

// sameEncoding reports whether two declarations of a key attribute write
// its values alike in keys (a number's offset and width): the lowest
// value of the first, and one more, encode the same under both.
func sameEncoding(a, b *model.Attribute) bool {
	if a.Type != model.TypeNumber && a.Type != model.TypeTTL {
		return true
	}
	lo := int64(0)
	if a.Min != nil {
		lo = *a.Min
	}
	for _, v := range []int64{lo, lo + 1} {
		x, err1 := a.EncodeKey(v)
		y, err2 := b.EncodeKey(v)
		if err1 != nil || err2 != nil || x != y {
			return false
		}
	}
	return true
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
	if r == nil || r.lock.ReadsTarget(pattern) || !r.ready(pattern) {
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
	keys, err := r.prev.keysOf(old, Values(r.toPrev(entity, v)), item)
	if err != nil {
		return notYet(err)
	}
	maps.Copy(item, keys)
	for n, was := range r.attrs[entity] {
		if x, ok := item[n]; ok && was != n {
			item[was] = x
		}
	}
	return nil
}

// ErrNotYet: during a migration, a value the target accepts that the
// accepted design's keys cannot hold (a number beyond the range the
// target widens): its readers read those keys until the migration is
// done, so the write waits until then.
var ErrNotYet = errors.New("value not writable until the migration is done")

// notYet is an error building the accepted design's keys of a value the
// target accepted.
func notYet(err error) error {
	return fmt.Errorf("%w: %v (the accepted design's keys, which its readers read until the migration is done, cannot hold it)", ErrNotYet, err)
}

// keysOf builds the GSI keys an entity's item carries (sparse as the
// design says) from the values it has, without the checks of a
// whole item (values the design does not declare are ignored); keys
// named in held (the other design's, which the item has on that index)
// are left out, their values not even encoded.
func (t *Table) keysOf(entity string, v Values, held map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	p := t.plans[entity]
	if p == nil {
		_, _, err := t.entity(entity)
		return nil, err
	}
	e := p.e
	enc := make([]string, len(e.Attributes))
	present := make([]bool, len(e.Attributes))
	done := make([]bool, len(e.Attributes))
	out := map[string]types.AttributeValue{}
	var readBuf [16]int
	for _, k := range p.keys {
		if k.table || held[k.id()] != nil {
			continue
		}
		for _, i := range keyReads(k, readBuf[:0]) {
			if done[i] {
				continue
			}
			done[i] = true
			x, ok := v[e.Attributes[i].Name]
			if !ok || x == nil {
				continue
			}
			s, err := e.Attributes[i].EncodeKey(x)
			if err != nil {
				return nil, err
			}
			enc[i], present[i] = s, true
		}
		if !p.holds(k, present, enc) {
			continue
		}
		pk, err := p.build(k.pk, enc, v)
		if err != nil {
			return nil, err
		}
		sk, err := p.build(k.sk, enc, v)
		if err != nil {
			return nil, err
		}
		if k.pkName != "" {
			out[k.pkName] = &types.AttributeValueMemberS{Value: pk}
		}
		out[k.skName] = &types.AttributeValueMemberS{Value: sk}
	}
	for _, dc := range p.discs {
		out[dc.name] = &types.AttributeValueMemberS{Value: dc.value}
	}
	return out, nil
}

// read runs a read with the accepted design's plan. A pattern the
// target asks more of than that plan returns (a wider returns, whose new
// index is still being backfilled) gets the rest of each item it reads
// from the base table: one GetItem per item, until the migration is done.
func (r *rollout) read(ctx context.Context, t *Table, pattern string, req Request) (*Page, error) {
	page, err := r.prev.Read(ctx, pattern, r.prevRequest(pattern, req))
	if err != nil {
		return nil, err
	}
	items := page.Items[:0]
	for _, it := range page.Items {
		it, ok, requests, err := r.complete(ctx, t, pattern, r.fromPrev(it))
		if err != nil {
			return nil, err
		}
		page.Requests += requests
		if ok {
			items = append(items, it)
		}
	}
	page.Items = items
	return page, nil
}

func (r *rollout) all(ctx context.Context, t *Table, pattern string, req Request) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		for it, err := range r.prev.All(ctx, pattern, r.prevRequest(pattern, req)) {
			ok := true
			if err == nil {
				it, ok, _, err = r.complete(ctx, t, pattern, r.fromPrev(it))
			}
			if ok && !yield(it, err) || err != nil {
				return
			}
		}
	}
}

// complete gives an item read through the accepted design's plan of a
// pattern it returns less of than the target asks (short) the rest of
// its attributes, from the base table; false when it is gone meanwhile.
// It reports the requests it made.
func (r *rollout) complete(ctx context.Context, t *Table, pattern string, it Item) (Item, bool, int, error) {
	if !r.short[pattern] {
		return it, true, 0, nil
	}
	key := map[string]types.AttributeValue{t.d.PK: it.Raw[t.d.PK], t.d.SK: it.Raw[t.d.SK]}
	out, err := t.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(t.name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return it, false, 1, err
	}
	if out.Item == nil {
		return it, false, 1, nil
	}
	entity, v, err := t.Decode(out.Item)
	if err != nil {
		return it, false, 1, err
	}
	return Item{Entity: entity, Values: v, Raw: out.Item}, true, 1, nil
}

func (r *rollout) queryInputs(pattern string, req Request) ([]*dynamodb.QueryInput, error) {
	req = r.prevRequest(pattern, req)
	return r.prev.queryInputs(pattern, &req)
}

func (r *rollout) getItemInput(pattern string, req Request) (*dynamodb.GetItemInput, error) {
	return r.prev.GetItemInput(pattern, r.prevRequest(pattern, req).Params)
}

// storeMoving reports whether a migration moves entity's attr (target
// names) into or out of S3: the rollout runtime's accepted design keeps
// it otherwise than the target. Until the backfill reaches an item, it
// holds the value as the accepted design wrote it (a value, or a key).
func (t *Table) storeMoving(entity, attr string) bool {
	ro := t.rollout
	if ro == nil {
		return false
	}
	old := entity
	if n, ok := ro.entity[entity]; ok {
		old = n
	}
	e, fe := t.m.Entity(entity), ro.prev.m.Entity(old)
	return e != nil && fe != nil && e.Attr(attr) != nil && fe.Attr(attr) != nil && e.Attr(attr).InS3() != fe.Attr(attr).InS3()
}

// movedOut are the attributes of entity (target names) a migration
// takes out of S3: an item the backfill has not reached holds an
// object's key there, and a write replacing it deletes that object
// after (as a write of a value kept in S3 does), given an ObjectStore.
func (t *Table) movedOut(entity string) []*model.Attribute {
	var out []*model.Attribute
	if e := t.m.Entity(entity); e != nil && t.rollout != nil {
		for _, a := range e.Attributes {
			if !a.InS3() && t.storeMoving(entity, a.Name) {
				out = append(out, a)
			}
		}
	}
	return out
}
