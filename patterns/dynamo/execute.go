package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns/model"
)

// Write runs the model's write pattern name with the caller's params: one
// conditional request when it writes one item, one TransactWriteItems
// when several items move together (a transact, or guard items). A
// condition that does not hold comes back as a *ConditionError naming it
// (and, in a transaction, the step). A batch pattern is WriteBatch's.
func (t *Table) Write(ctx context.Context, name string, params Params) error {
	ws, err := t.writes(name, params)
	if err != nil {
		return wrap("Write", name, err)
	}
	return t.execute(ctx, "Write", name, ws)
}

// WriteInput builds the transaction a write pattern makes (each item
// write a TransactWriteItem), for callers that send it themselves. A
// put or delete of an item keeping values in S3 (store: s3), or an
// update setting or removing one, is refused (ErrObjectInline): only
// Write stores the objects first and deletes the old ones after.
func (t *Table) WriteInput(name string, params Params) (*dynamodb.TransactWriteItemsInput, error) {
	ws, err := t.writes(name, params)
	if err != nil {
		return nil, wrap("WriteInput", name, err)
	}
	if err := t.refuseInline(ws); err != nil {
		return nil, wrap("WriteInput", name, err)
	}
	in, err := t.transactInput(ws)
	if err != nil {
		return nil, wrap("WriteInput", name, err)
	}
	return in, nil
}

// WriteCall is one write pattern and its parameters, for Transact.
type WriteCall struct {
	Write  string
	Params Params
}

// Op is the former name of WriteCall.
//
// Deprecated: use WriteCall (docs/writes.md named Op before the rename).
type Op = WriteCall

// Transact runs several write patterns as one transaction, all or
// nothing: say, an order's lines, each an AddLine. Each op's parameters
// are its own, so ops may write different items of one entity; no item
// may be written twice. A failed condition comes back as a
// *ConditionError whose Subject names the op ("AddLine (op 3)").
func (t *Table) Transact(ctx context.Context, ops ...WriteCall) error {
	ws, err := t.transactWrites(ops)
	if err != nil {
		return wrap("Transact", fmt.Sprintf("%d ops", len(ops)), err)
	}
	return t.execute(ctx, "Transact", fmt.Sprintf("%d ops", len(ops)), ws)
}

// TransactInput builds the transaction Transact sends (refusing, as
// WriteInput, what would bypass values kept in S3).
func (t *Table) TransactInput(ops ...WriteCall) (*dynamodb.TransactWriteItemsInput, error) {
	ws, err := t.transactWrites(ops)
	if err == nil {
		err = t.refuseInline(ws)
	}
	if err == nil {
		var in *dynamodb.TransactWriteItemsInput
		if in, err = t.transactInput(ws); err == nil {
			return in, nil
		}
	}
	return nil, wrap("TransactInput", fmt.Sprintf("%d ops", len(ops)), err)
}

func (t *Table) transactWrites(ops []WriteCall) ([]*itemWrite, error) {
	if len(ops) == 0 {
		return nil, errors.New("no op to run")
	}
	var out []*itemWrite
	for i, op := range ops {
		ws, err := t.writes(op.Write, op.Params)
		if err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", i+1, op.Write, err)
		}
		for _, w := range ws {
			w.op, w.opName = i+1, op.Write
		}
		out = append(out, ws...)
	}
	return out, nil
}

// writes plans a write pattern's item writes.
func (t *Table) writes(name string, params Params) ([]*itemWrite, error) {
	w := t.m.Write(name)
	if w == nil {
		var names []string
		for _, x := range t.m.Writes {
			names = append(names, x.Name)
		}
		return nil, fmt.Errorf("%w %q (the design has %s)", ErrUnknownWrite, name, orNone(names))
	}
	if w.Op == model.WriteBatch {
		return nil, fmt.Errorf("%s is a batch: run it with WriteBatch", name)
	}
	takes := t.takes(w)
	for p := range params {
		if !takes[p] {
			names := slices.Sorted(maps.Keys(takes))
			for _, p := range sortedNames(params) {
				if !takes[p] {
					return nil, fmt.Errorf("unknown parameter %q (%s takes %s)", p, name, orNone(names))
				}
			}
		}
	}
	var out []*itemWrite
	for i, s := range w.Items() {
		step := 0
		if w.Op == model.WriteTransact {
			step = i + 1
		}
		ws, err := t.step(s, stepParams(s, params), step)
		if err != nil {
			if step > 0 {
				return nil, fmt.Errorf("step %d (%s %s): %w", step, s.Op, s.Entity, err)
			}
			return nil, err
		}
		out = append(out, ws...)
	}
	return out, nil
}

// takes is the set of a write's parameters (Model.Params), worked out
// once.
func (t *Table) takes(w *model.Write) map[string]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if set, ok := t.writeParams[w.Name]; ok {
		return set
	}
	set := map[string]bool{}
	for _, p := range t.m.Params(w) {
		set[p] = true
	}
	t.writeParams[w.Name] = set
	return set
}

// step plans one single-item write of a pattern.
func (t *Table) step(s *model.Write, params Params, step int) ([]*itemWrite, error) {
	e, _, err := t.entity(s.Entity)
	if err != nil {
		return nil, err
	}
	v := Values(params) // each write takes the names it needs
	switch s.Op {
	case model.WritePut:
		return t.putWrite(s.Entity, v, false, s.If, s.Condition, params, step)
	case model.WriteDelete:
		return t.deleteWrite(s.Entity, v, s.Condition, params, step)
	case model.WriteCheck:
		w, err := t.checkWrite(s.Entity, v, s.Condition, params, step)
		return []*itemWrite{w}, err
	case model.WriteUpdate:
		ch := Changes{Set: Values{}, Add: Values{}, Remove: s.Remove, With: Values{}, If: s.Condition, Params: params}
		if e.Version != "" {
			ch.Version = params[e.Version]
		}
		for _, a := range s.Set {
			x, ok := params[a]
			if !ok || x == nil {
				return nil, fmt.Errorf("%w: parameter %s (set)", ErrMissing, a)
			}
			ch.Set[a] = x
		}
		for _, a := range s.With {
			x, ok := params[a]
			if !ok {
				return nil, fmt.Errorf("%w: parameter %s (with: its value as the item holds it, nil when absent)", ErrMissing, a)
			}
			ch.With[a] = x
		}
		for _, inc := range s.Add {
			x, err := increment(inc, params)
			if err != nil {
				return nil, err
			}
			ch.Add[inc.Attr] = x
		}
		if err := elementParams(s, params, &ch); err != nil {
			return nil, err
		}
		w, extra, err := t.updateWrite(s.Entity, v, ch, step)
		if err != nil {
			return nil, err
		}
		return append([]*itemWrite{w}, extra...), nil
	}
	return nil, fmt.Errorf("a %s cannot be a step", s.Op)
}

// increment is what an atomic add adds: a constant or the caller's
// number, negated when the model writes -$param.
func increment(inc *model.Increment, params Params) (any, error) {
	if inc.Param == "" {
		return inc.By, nil
	}
	x, ok := params[inc.Param]
	if !ok || x == nil {
		return nil, fmt.Errorf("%w: parameter %s (add to %s)", ErrMissing, inc.Param, inc.Attr)
	}
	if !inc.Negate {
		return x, nil
	}
	n, err := number(&model.Attribute{Name: inc.Param, Type: model.TypeNumber}, x, false)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.HasPrefix(n, "-"):
		return n[1:], nil
	case strings.Trim(n, "0.") == "":
		return n, nil
	}
	return "-" + n, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Batch retries: an unprocessed item is sent again after a backoff that
// doubles from batchBackoff up to batchMaxBackoff (full jitter), at most
// batchAttempts times in all.
const (
	batchAttempts   = 10
	batchBackoff    = 20 * time.Millisecond
	batchMaxBackoff = 2 * time.Second
)

// BatchError reports the items of a WriteBatch that never got written.
type BatchError struct {
	Name string
	// Unwritten are the indexes (into the items given) of those not
	// written; Err is why (the last error, or the engine leaving them
	// unprocessed after every attempt).
	Unwritten []int
	Err       error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("WriteBatch %s: %d items not written: %v", e.Name, len(e.Unwritten), e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// ErrUnprocessed: the engine left items unprocessed after every retry.
var ErrUnprocessed = errors.New("left unprocessed after every retry")

// WriteBatch runs a batch write pattern over items (puts: each item's
// values; deletes: each its id): BatchWriteItem, 25 items a request,
// unprocessed items sent again with backoff. Items are written each on
// its own, without conditions (a batch is refused for an entity whose
// writes need them: unique values, a version, stream-kept attributes).
// What never got written comes back as a *BatchError.
func (t *Table) WriteBatch(ctx context.Context, name string, items []Values) error {
	reqs, err := t.batchRequests(name, items)
	if err != nil {
		return wrap("WriteBatch", name, err)
	}
	var unwritten []int
	var last error
	for start := 0; start < len(reqs); start += model.MaxBatchWriteItems {
		end := min(start+model.MaxBatchWriteItems, len(reqs))
		left, err := t.batch(ctx, reqs[start:end])
		for _, i := range left {
			unwritten = append(unwritten, start+i)
		}
		if err != nil {
			last = err
			if ctx.Err() != nil { // nothing more will be written
				for i := end; i < len(reqs); i++ {
					unwritten = append(unwritten, i)
				}
				break
			}
		}
	}
	if len(unwritten) > 0 {
		return &BatchError{Name: name, Unwritten: unwritten, Err: last}
	}
	return nil
}

// batchRequests builds a batch's write requests, one per item.
func (t *Table) batchRequests(name string, items []Values) ([]types.WriteRequest, error) {
	w := t.m.Write(name)
	switch {
	case w == nil:
		return nil, fmt.Errorf("%w %q", ErrUnknownWrite, name)
	case w.Op != model.WriteBatch:
		return nil, fmt.Errorf("%s is a %s, not a batch: run it with Write", name, w.Op)
	}
	e, _, err := t.entity(w.Entity)
	if err != nil {
		return nil, err
	}
	if err := t.unconditional(e, w.Batch == model.WritePut); err != nil {
		return nil, err
	}
	if len(e.ObjectAttrs()) > 0 {
		return nil, fmt.Errorf("%w (%s)", ErrObjectsAlone, e.Name)
	}
	reqs := make([]types.WriteRequest, len(items))
	seen := make(map[string]int, len(items))
	for i, v := range items {
		var key map[string]types.AttributeValue
		if w.Batch == model.WritePut {
			item, err := t.item(e.Name, v)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			reqs[i].PutRequest = &types.PutRequest{Item: item}
			key = map[string]types.AttributeValue{t.d.PK: item[t.d.PK], t.d.SK: item[t.d.SK]}
		} else {
			if key, err = t.key(e.Name, v); err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			reqs[i].DeleteRequest = &types.DeleteRequest{Key: key}
		}
		k := KeyText(t.d, key)
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("items %d and %d are the same item (%s): a batch writes an item once", j, i, k)
		}
		seen[k] = i
	}
	return reqs, nil
}

// batch sends one request's items until none is left unprocessed or the
// attempts run out; it returns the indexes of those not written.
func (t *Table) batch(ctx context.Context, reqs []types.WriteRequest) ([]int, error) {
	pending := make([]int, len(reqs))
	for i := range pending {
		pending[i] = i
	}
	index := func(r types.WriteRequest) string {
		if r.PutRequest != nil {
			return KeyText(t.d, map[string]types.AttributeValue{t.d.PK: r.PutRequest.Item[t.d.PK], t.d.SK: r.PutRequest.Item[t.d.SK]})
		}
		return KeyText(t.d, r.DeleteRequest.Key)
	}
	wait := t.batchBackoff
	var err error
	for attempt := range batchAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return pending, ctx.Err()
			case <-time.After(rand.N(wait) + time.Millisecond):
			}
			wait = min(2*wait, batchMaxBackoff)
		}
		send := make([]types.WriteRequest, len(pending))
		for i, p := range pending {
			send[i] = reqs[p]
		}
		var out *dynamodb.BatchWriteItemOutput
		out, err = t.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{t.name: send}})
		if err != nil {
			if ctx.Err() != nil {
				return pending, err
			}
			continue // the SDK retried already; so does the batch
		}
		left := map[string]bool{}
		for _, r := range out.UnprocessedItems[t.name] {
			left[index(r)] = true
		}
		pending = slices.DeleteFunc(pending, func(p int) bool { return !left[index(reqs[p])] })
		if len(pending) == 0 {
			return nil, nil
		}
		err = ErrUnprocessed
	}
	return pending, err
}
