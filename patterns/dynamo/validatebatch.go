package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// Batch reads proved: an example's batch expectation (Validate) and a
// generated batch read held against the reference evaluator (Prove).

// batch compares a batch read with the reference's: the same entry for
// each id, in order (nil where there is none), in as many requests as its
// distinct ids take.
func (r *proofRun) batch(ctx context.Context, rd *oracle.Read) (*Mismatch, error) {
	m := r.t.m
	ans, want := r.ref.ReadBatch(m.Pattern(rd.Pattern), rd.IDs)
	ids := make([]Params, len(rd.IDs))
	for i, id := range rd.IDs {
		ids[i] = Params(maps.Clone(id))
	}
	c := &counter{Client: r.t.client}
	t := New(r.t.d, c, r.t.name, r.t.Options()...)
	items, err := t.GetBatch(ctx, rd.Pattern, ids)
	if isEngineFailure(err) {
		return nil, err
	}
	mismatch := readMismatch(rd, want, err)
	switch {
	case want != nil && err != nil:
		r.proof.Reads++
		return nil, nil // both refuse it
	case want != nil:
		return mismatch("the reference refuses it (%v); the table answered %d entries", want, len(items)), nil
	case err != nil:
		return mismatch("the table refused it: %v", err), nil
	}
	r.proof.Reads++
	got := make([]*oracle.Item, len(items))
	for i, it := range items {
		if it != nil {
			v, err := withObjects(ctx, t, it.Entity, it.Values)
			if err != nil {
				return mismatch("entry %d: %v", i, err), nil
			}
			got[i] = oracle.FromRuntime(m, it.Entity, v)
		}
	}
	if slices.ContainsFunc(got, func(it *oracle.Item) bool { return it != nil }) {
		r.proof.Answered++
	}
	_, keys, _, kerr := t.batchKeys(rd.Pattern, ids)
	if requests := (len(keys) + patterns.MaxBatchGetKeys - 1) / patterns.MaxBatchGetKeys; kerr == nil && c.n != requests {
		return mismatch("%d distinct ids took %d request(s); they take %d", len(keys), c.n, requests), nil
	}
	if err := ans.Check(m, got); err != nil {
		return mismatch("%v", err), nil
	}
	return nil, nil
}

// NoItem names, in a batch read's Result, an id that has no item.
const NoItem = "-"

// expectBatch runs an example expectation of a batch pattern: GetBatch of
// its ids, each entry named by its example item (NoItem for none), in
// order, in the requests its distinct ids take.
func (t *Table) expectBatch(ctx context.Context, c *counter, x *patterns.Expectation, r *Result, names map[string]string) {
	r.Ordered = true
	r.IDs = make([]Params, len(x.IDs))
	for i, id := range x.IDs {
		r.IDs[i] = Params(maps.Clone(id))
	}
	r.Expected = make([]string, len(x.Items))
	for i, name := range x.Items {
		if r.Expected[i] = name; name == "" {
			r.Expected[i] = NoItem
		}
	}
	if _, keys, _, err := t.batchKeys(x.Pattern, r.IDs); err == nil {
		r.Planned = (len(keys) + patterns.MaxBatchGetKeys - 1) / patterns.MaxBatchGetKeys
	}
	items, err := t.getBatch(ctx, x.Pattern, r.IDs, &r.Capacity)
	r.Requests = c.n
	if err != nil {
		r.Err = err
		return
	}
	r.Actual = make([]string, len(items))
	read := map[string]Item{}
	for i, it := range items {
		if it == nil {
			r.Actual[i] = NoItem
			continue
		}
		key, _ := t.key(it.Entity, it.Values)
		name, ok := names[it.Entity+"\x00"+KeyText(t.d, key)]
		if !ok {
			name = fmt.Sprintf("%s(%s)", it.Entity, KeyText(t.d, key))
		}
		r.Actual[i] = name
		read[name] = *it
	}
	r.Mismatches = append(readObjects(ctx, t, read), t.mismatches(x.Values, read)...)
}
