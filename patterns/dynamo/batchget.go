package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Batch reads (patterns/batch.go): a get by id with batch: true reads
// many ids with GetBatch, BatchGetItem of their base-table keys.

// BatchReader is a Client that reads many items a request, as
// *dynamodb.Client does. GetBatch needs one; the rest of the runtime does
// not (a Client written before batch reads keeps working).
type BatchReader interface {
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

// More errors matched with errors.Is.
var (
	// ErrBatchPattern: a batch pattern read with Read or Get, or another
	// read with GetBatch.
	ErrBatchPattern = errors.New("batch reads are GetBatch's")
	// ErrNoBatchReader: the Client cannot BatchGetItem (BatchReader).
	ErrNoBatchReader = errors.New("the client has no BatchGetItem")
)

// BatchReadError reports the ids of a GetBatch whose items were never
// read: their keys left unprocessed after every attempt, or a request
// that failed (Err says which).
type BatchReadError struct {
	Pattern string
	// Unread are the indexes (into the ids given) not read.
	Unread []int
	Err    error
}

func (e *BatchReadError) Error() string {
	return fmt.Sprintf("GetBatch %s: %d of the ids not read: %v", e.Pattern, len(e.Unread), e.Err)
}

func (e *BatchReadError) Unwrap() error { return e.Err }

// NoItem names an id that has no item where a batch read's answer is
// written as names (keyplan validate's report, keyplan view): GetBatch
// returns nil for it.
const NoItem = "-"

// GetBatch reads a batch pattern's items by their ids (each id the
// entity's id values): BatchGetItem, patterns.MaxBatchGetKeys keys a
// request, keys the engine leaves unprocessed (throttled, or past the
// 16 MB a response holds) asked again with backoff. The result has one
// entry per id, in the order given: its item, or nil when there is none
// (nor, unless the pattern says expired: include, when its TTL has
// passed). An id given twice is read once and answered at both places.
// Ids never read come back in a *BatchReadError, the items read beside
// it.
func (t *Table) GetBatch(ctx context.Context, pattern string, ids []Params) ([]*Item, error) {
	out, err := t.getBatch(ctx, pattern, ids, nil)
	var bre *BatchReadError
	if errors.As(err, &bre) {
		return out, err
	}
	return out, wrap("GetBatch", pattern, err)
}

// batchRead is one unique key of a GetBatch and the ids it answers.
type batchRead struct {
	key   map[string]types.AttributeValue
	slots []int
}

// getBatch is GetBatch, adding the read capacity consumed to capacity
// when it is not nil.
func (t *Table) getBatch(ctx context.Context, pattern string, ids []Params, capacity *float64) ([]*Item, error) {
	_, pp, err := t.pattern(pattern)
	if err != nil {
		return nil, err
	}
	if !pp.Batch {
		return nil, fmt.Errorf("%w: %s is not a batch pattern (batch: true); use Get", ErrBatchPattern, pattern)
	}
	br, ok := t.client.(BatchReader)
	if !ok {
		return nil, fmt.Errorf("%w (%T)", ErrNoBatchReader, t.client)
	}
	out := make([]*Item, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ka, keys, byKey, err := t.batchKeys(pattern, ids)
	if err != nil {
		return nil, err
	}
	var unread []int
	var last error
	for start := 0; start < len(keys); start += model.MaxBatchGetKeys {
		chunk := keys[start:min(start+model.MaxBatchGetKeys, len(keys))]
		left, err := t.batchGet(ctx, br, pp, ka, chunk, byKey, out, capacity)
		for _, r := range left {
			unread = append(unread, r.slots...)
		}
		if err != nil {
			last = err
			if ctx.Err() != nil {
				for _, r := range keys[start+len(chunk):] {
					unread = append(unread, r.slots...)
				}
				break
			}
		}
	}
	if len(unread) > 0 {
		return out, &BatchReadError{Pattern: pattern, Unread: unread, Err: last}
	}
	return out, nil
}

// batchKeys are a GetBatch's distinct keys, in the order of their first
// id, each with the ids it answers, and what every request asks of them
// (consistency, projection): one GetItem's input per id, as Get builds
// it.
func (t *Table) batchKeys(pattern string, ids []Params) (types.KeysAndAttributes, []*batchRead, map[string]*batchRead, error) {
	var ka types.KeysAndAttributes
	var keys []*batchRead
	byKey := map[string]*batchRead{}
	for i, id := range ids {
		in, err := t.getItemInput(pattern, &Request{Params: id})
		if err != nil {
			return ka, nil, nil, fmt.Errorf("id %d: %w", i, err)
		}
		if i == 0 {
			ka = types.KeysAndAttributes{ConsistentRead: in.ConsistentRead, ProjectionExpression: in.ProjectionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames}
		}
		k := KeyText(t.d, in.Key)
		if r, dup := byKey[k]; dup {
			r.slots = append(r.slots, i)
			continue
		}
		r := &batchRead{key: in.Key, slots: []int{i}}
		byKey[k] = r
		keys = append(keys, r)
	}
	return ka, keys, byKey, nil
}

// batchGet reads one request's keys until none is left unprocessed or
// the attempts run out, filling out; it returns the keys never read.
func (t *Table) batchGet(ctx context.Context, br BatchReader, pp *patterns.PatternPlan, ka types.KeysAndAttributes,
	pending []*batchRead, byKey map[string]*batchRead, out []*Item, capacity *float64) ([]*batchRead, error) {
	wait := t.batchBackoff
	hides := t.hides(pp)
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
		req := ka
		req.Keys = make([]map[string]types.AttributeValue, len(pending))
		for i, r := range pending {
			req.Keys[i] = r.key
		}
		in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{t.name: req}}
		if capacity != nil {
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		}
		var res *dynamodb.BatchGetItemOutput
		res, err = br.BatchGetItem(ctx, in)
		if err == nil && capacity != nil {
			for _, c := range res.ConsumedCapacity {
				*capacity += aws.ToFloat64(c.CapacityUnits)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return pending, err
			}
			continue // the SDK retried already; so does the batch
		}
		for _, raw := range res.Responses[t.name] {
			r := byKey[KeyText(t.d, raw)]
			if r == nil {
				return pending, fmt.Errorf("BatchGetItem returned an item of a key not asked for (%s)", KeyText(t.d, raw))
			}
			if hides != "" && t.expired(hides, raw) {
				continue
			}
			items, err := t.decodeAll(pp, nil, []map[string]types.AttributeValue{raw})
			if err != nil {
				return pending, err
			}
			for k, slot := range r.slots {
				it := items[0]
				if k > 0 { // each entry its own values: the caller may change one
					it.Values, it.Raw = maps.Clone(it.Values), maps.Clone(it.Raw)
				}
				out[slot] = &it
			}
		}
		left := map[string]bool{}
		if u, ok := res.UnprocessedKeys[t.name]; ok {
			for _, k := range u.Keys {
				left[KeyText(t.d, k)] = true
			}
		}
		var still []*batchRead
		for _, r := range pending {
			if left[KeyText(t.d, r.key)] {
				still = append(still, r)
			}
		}
		if pending = still; len(pending) == 0 {
			return nil, nil
		}
		err = ErrUnprocessed
	}
	return pending, err
}
