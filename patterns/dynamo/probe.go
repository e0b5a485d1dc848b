package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Probe is what a proof of the runtime (package patterns/prove, keyplan
// validate) reads of a Table beyond the API application code uses: the
// client and the migration it runs with, and reads that return what
// they cost or that bypass what the API adds (a rollout's choice of
// plan, an error's wrapping). Application code has no use for it.
type Probe struct{ t *Table }

// Probe returns the table's Probe.
func (t *Table) Probe() Probe { return Probe{t} }

// Client is the client the table reads and writes through.
func (p Probe) Client() Client { return p.t.client }

// Rollout is the migration the table runs (NewRollout): its lock and the
// accepted design (nil, nil: no migration).
func (p Probe) Rollout() (*patterns.Lock, *patterns.Design) {
	if r := p.t.rollout; r != nil {
		return r.lock, r.prev.d
	}
	return nil, nil
}

// Read reads one page of a pattern with the table's design (during a
// migration, the target's, whatever the phase), its error unwrapped.
func (p Probe) Read(ctx context.Context, pattern string, r *Request) (*Page, error) {
	return p.t.read(ctx, pattern, r)
}

// Number runs a pattern that returns a number (a count, a sharded
// counter's sum): the number, the read capacity it consumed and the
// expired items it read and hid.
func (p Probe) Number(ctx context.Context, pattern string, r *Request) (*int64, float64, int, error) {
	t := p.t
	_, pp, err := t.pattern(pattern)
	if err != nil {
		return nil, 0, 0, err
	}
	var n int64
	var page *Page
	switch {
	case pp.Count:
		n, page, err = t.count(ctx, pattern, r)
	case pp.Sum != "":
		n, page, err = t.sum(ctx, pattern, r)
	default:
		return nil, 0, 0, fmt.Errorf("%s returns items, not a number: expect items, not count", pattern)
	}
	if err != nil {
		return nil, 0, 0, err
	}
	return &n, page.Capacity, page.Hidden, nil
}

// GetBatch is GetBatch, adding the read capacity it consumes to
// capacity, its error unwrapped.
func (p Probe) GetBatch(ctx context.Context, pattern string, ids []Params, capacity *float64) ([]*Item, error) {
	return p.t.getBatch(ctx, pattern, ids, capacity)
}

// BatchKeys counts the distinct keys a batch read of ids reads (one
// BatchGetItem request per MaxBatchGetKeys of them).
func (p Probe) BatchKeys(pattern string, ids []Params) (int, error) {
	_, keys, _, err := p.t.batchKeys(pattern, ids)
	return len(keys), err
}

// Item is the item a write of v stores, its values kept in S3 held
// inline (Item refuses them): what an example item is compared by.
func (p Probe) Item(entity string, v Values) (map[string]types.AttributeValue, error) {
	return p.t.item(entity, v)
}

// Decoded is a stored value of an attribute read back as the runtime
// returns it (it reads no table: a zero Probe serves).
func (Probe) Decoded(a *model.Attribute, av types.AttributeValue) (any, error) {
	return fromStored(a, av)
}

// CounterKey is the partition key of the sharded counter attr of
// entity for the values v (their shards' common key).
func (p Probe) CounterKey(entity, attr string, v map[string]any) (string, error) {
	e := p.t.m.Entity(entity)
	if e == nil {
		return "", fmt.Errorf("%w %q", ErrUnknownEntity, entity)
	}
	return render(e, p.t.d.Entity(entity).Counter(attr).PK, v)
}

// CreateScratchTable creates a table of the lock's design for a proof
// and waits until it is active (see CreateLockTable); created reports
// whether the engine accepted the request: the table is then the
// caller's to drop, even when waiting for it failed.
func CreateScratchTable(ctx context.Context, c TableAdmin, l *patterns.Lock, name string) (created bool, err error) {
	return createLockTable(ctx, c, l, name)
}

// SameAs reports whether two values of an attribute are stored alike (a
// set's elements in any order; nil: absent, and an empty set is none).
func SameAs(a *model.Attribute, x, y any) bool {
	p, err1 := storedOrNil(a, x)
	q, err2 := storedOrNil(a, y)
	if err1 != nil || err2 != nil {
		return false
	}
	if p == nil || q == nil {
		return p == nil && q == nil
	}
	if a.Type == model.TypeSet {
		px, _ := fromStoredMany(a, p)
		qx, _ := fromStoredMany(a, q)
		return fmt.Sprint(px) == fmt.Sprint(qx)
	}
	return SameValue(p, q)
}

func storedOrNil(a *model.Attribute, v any) (types.AttributeValue, error) {
	if v == nil {
		return nil, nil
	}
	return stored(a, v)
}
