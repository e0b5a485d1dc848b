package prove

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// Batch reads proved: an example's batch expectation (Validate) and a
// generated batch read held against the reference evaluator (Prove).

// batch compares a batch read with the reference's: the same entry for
// each id, in order (nil where there is none), in as many requests as its
// distinct ids take.
func (r *proofRun) batch(ctx context.Context, rd *oracle.Read) (*Mismatch, error) {
	m := r.t.Design().Model()
	ans, want := r.ref.ReadBatch(m.Pattern(rd.Pattern), rd.IDs)
	ids := make([]dynamo.Params, len(rd.IDs))
	for i, id := range rd.IDs {
		ids[i] = dynamo.Params(maps.Clone(id))
	}
	c := &counter{Client: r.t.Probe().Client()}
	t := dynamo.New(r.t.Design(), c, r.t.Name(), r.t.Options()...)
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
	keys, kerr := t.Probe().BatchKeys(rd.Pattern, ids)
	if requests := (keys + model.MaxBatchGetKeys - 1) / model.MaxBatchGetKeys; kerr == nil && c.n != requests {
		return mismatch("%d distinct ids took %d request(s); they take %d", keys, c.n, requests), nil
	}
	if err := ans.Check(m, got); err != nil {
		return mismatch("%v", err), nil
	}
	return nil, nil
}

// expectBatch runs an example expectation of a batch pattern: GetBatch of
// its ids, each entry named by its example item (dynamo.NoItem for none), in
// order, in the requests its distinct ids take.
func expectBatch(t *dynamo.Table, ctx context.Context, c *counter, x *model.Expectation, r *Result, names map[string]string) {
	r.Ordered = true
	r.IDs = make([]dynamo.Params, len(x.IDs))
	for i, id := range x.IDs {
		r.IDs[i] = dynamo.Params(maps.Clone(id))
	}
	r.Expected = make([]string, len(x.Items))
	for i, name := range x.Items {
		if r.Expected[i] = name; name == "" {
			r.Expected[i] = dynamo.NoItem
		}
	}
	if keys, err := t.Probe().BatchKeys(x.Pattern, r.IDs); err == nil {
		r.Planned = (keys + model.MaxBatchGetKeys - 1) / model.MaxBatchGetKeys
	}
	items, err := t.Probe().GetBatch(ctx, x.Pattern, r.IDs, &r.Capacity)
	r.Requests = c.n
	if err != nil {
		r.Err = err
		return
	}
	r.Actual = make([]string, len(items))
	read := map[string]dynamo.Item{}
	for i, it := range items {
		if it == nil {
			r.Actual[i] = dynamo.NoItem
			continue
		}
		key, _ := t.Key(it.Entity, it.Values)
		name, ok := names[it.Entity+"\x00"+dynamo.KeyText(t.Design(), key)]
		if !ok {
			name = fmt.Sprintf("%s(%s)", it.Entity, dynamo.KeyText(t.Design(), key))
		}
		r.Actual[i] = name
		read[name] = *it
	}
	r.Mismatches = append(readObjects(ctx, t, read), mismatches(t, x.Values, read)...)
}
