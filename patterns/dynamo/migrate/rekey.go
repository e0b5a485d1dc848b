package migrate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// The rekey engine backfills a migration phase: it makes each existing
// item of the phase's backfill entities carry what the rollout runtime at
// that phase would write for it, on the attributes keyplan owns and no
// others:
//
//   - the GSI key attributes the target design gives the item (sparse as
//     it says), and the accepted design's where the target has none on
//     that index (expand), for the indexes the phase has;
//   - the values of attributes renamed with renamedFrom, under the new
//     name (the old name is kept while the migration runs: readers of the
//     accepted design still read it);
//   - no key attribute of a GSI that neither design gives the item (it
//     left the index).
//
// One conditional UpdateItem per item: it holds only while the item still
// has the values the keys were computed from, so a write that lands in
// between is never overwritten (the item is read again and recomputed).
// Attributes keyplan does not own (stream-maintained counters and copies
// included) are never written. Running it twice changes nothing the second
// time.

// RekeyClient is what the rekey engine needs of DynamoDB.
type RekeyClient interface {
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Rekeyer rewrites the items of one migration phase.
type Rekeyer struct {
	lock   *patterns.Lock
	phase  *patterns.Phase
	rt     *dynamo.Table // the rollout runtime (target names)
	name   string
	client RekeyClient
	// backfill are the target entities the phase rewrites.
	backfill map[string]bool
	// deployed are the GSIs the phase's table has.
	deployed map[string]bool
	// owned are the GSI key attribute names of both designs.
	owned []string
	// sources are, per target entity and key attribute, the attributes
	// (as an item may name them) its value is computed from.
	sources map[string]map[string][]string
	// index names the GSI of each key attribute.
	index map[string]string
	// renamed are, per target entity, new name → old name.
	renamed map[string]map[string]string
	// was names, per target entity the accepted design has, its name
	// there.
	was map[string]string
	// stale are, per target entity, attributes a finished migration left
	// in its items (patterns.Cleanup.Remove): removed wherever found.
	stale map[string][]string
	// read are the attributes a rewrite reads (a Scan projects them).
	read []string
	// toS3 and fromS3 are, per target entity, the attributes whose
	// values the phase moves into S3 and out of it (rekeyobjects.go).
	toS3, fromS3 map[string][]string

	// Objects is the bucket values are moved into or out of, when the
	// migration changes an attribute's store: s3 (else unused).
	Objects dynamo.ObjectStore

	// MaxConflicts bounds how often one item is read again after a
	// concurrent write before it counts as failed (default 10).
	MaxConflicts int
	// DryRun plans every item and writes none: items that need a
	// rewrite are counted as Pending (a check that a backfill run
	// elsewhere, the construct's state machine, is complete).
	DryRun bool
	// Wait, when set, is called before each UpdateItem with the write
	// units it is estimated to use (a rate limiter).
	Wait func(ctx context.Context, units float64) error
	// ReadWait, when set, is called after each Scan page with the read
	// units it used (a rate limiter).
	ReadWait func(ctx context.Context, units float64) error

	stats RekeyStats
}

// RekeyStats counts what a backfill did.
type RekeyStats struct {
	// Scanned items; Rewritten (one UpdateItem each), Unchanged (already
	// right), Skipped (another entity, or not a keyplan item), Deleted
	// (gone before its update), Conflicts (re-reads after a concurrent
	// write), Failed (items that could not be rewritten).
	Scanned, Rewritten, Unchanged, Skipped, Deleted, Conflicts, Failed atomic.Int64
	// Pending items need a rewrite (DryRun).
	Pending atomic.Int64
	// MilliWCU is the write capacity the updates used, in thousandths
	// (as the engine reports it, else estimated).
	MilliWCU atomic.Int64
}

// ErrNoMigration: the lock has no migration to backfill.
var ErrNoMigration = errors.New("no migration in progress")

// NewRekeyer returns the engine for the lock's current phase, writing to
// the table named name.
func NewRekeyer(l *patterns.Lock, client RekeyClient, name string) (*Rekeyer, error) {
	mg := l.Migration
	if mg == nil || mg.Current >= len(mg.Phases) {
		return nil, ErrNoMigration
	}
	r := &Rekeyer{lock: l, phase: mg.Phases[mg.Current], rt: dynamo.NewRollout(l, nil, name), name: name, client: client,
		backfill: map[string]bool{}, deployed: map[string]bool{}, sources: map[string]map[string][]string{}, index: map[string]string{}, renamed: map[string]map[string]string{},
		toS3: map[string][]string{}, fromS3: map[string][]string{}, MaxConflicts: 10}
	for _, e := range r.phase.Backfill {
		r.backfill[e] = true
	}
	for _, ix := range r.phase.Indexes {
		r.deployed[ix.Name] = true
	}
	for _, ix := range l.Accepted.LocalIndexes {
		r.deployed[ix.Name] = true // an LSI is there from the table's creation
	}
	for _, d := range []*patterns.Design{l.Accepted, mg.Target} {
		for _, ix := range d.SecondaryIndexes() {
			for _, k := range ix.StoredKeys() {
				if !slices.Contains(r.owned, k) {
					r.owned = append(r.owned, k)
				}
			}
		}
	}
	sort.Strings(r.owned)
	for _, d := range []*patterns.Design{mg.Target, l.Accepted} {
		for _, ix := range d.SecondaryIndexes() {
			for _, k := range ix.StoredKeys() {
				if _, ok := r.index[k]; !ok {
					r.index[k] = ix.Name
				}
			}
		}
	}
	rk := r.rt.Rekeying()
	r.sources, r.renamed, r.was = rk.Sources, rk.Renamed, rk.Was
	// What a rewrite reads: the base key, every key attribute of both
	// designs, and the attributes keys are built from (under either name).
	read := []string{l.Accepted.PK, l.Accepted.SK}
	read = append(read, r.owned...)
	read = append(read, rk.Keyed...)
	for _, m := range r.renamed {
		for n, was := range m {
			read = append(read, n, was)
		}
	}
	if c := l.Cleanup; c != nil {
		r.stale = c.Remove
		for _, names := range c.Remove {
			read = append(read, names...)
		}
	}
	r.read = read
	r.objectMoves()
	slices.Sort(r.read)
	r.read = slices.Compact(r.read)
	return r, nil
}

// Rewrite is what one item needs: attributes to set and to remove, on
// condition that the source attributes are still as read.
type Rewrite struct {
	Entity string
	Key    map[string]types.AttributeValue
	Set    map[string]types.AttributeValue
	Remove []string
	// Sources are the attributes the rewrite was computed from, with the
	// values read (nil: absent).
	Sources map[string]types.AttributeValue
	// ToS3 and FromS3 are the attributes whose values the rewrite moves
	// into S3 (Sources holds the value) and out of it (Sources holds the
	// key): Apply stores or reads the objects, then sets them.
	ToS3, FromS3 []string
}

// Plan computes an item's rewrite: nil when the item is not one the phase
// rewrites, or already right. A phase moving values into S3 asks Objects
// whether each key an item holds names an object (planObjects).
func (r *Rekeyer) Plan(item map[string]types.AttributeValue) (*Rewrite, error) {
	rw, _, err := r.plan(context.Background(), item)
	return rw, err
}

// plan is Plan, and whether the item is of an entity the phase rewrites.
// An error of the object store (not the item's) is a *storeError.
func (r *Rekeyer) plan(ctx context.Context, item map[string]types.AttributeValue) (*Rewrite, bool, error) {
	entity, v, err := r.rt.Decode(item)
	if errors.Is(err, dynamo.ErrNotKeyplan) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !r.backfill[entity] {
		return nil, false, nil
	}
	rw, err := r.rewrite(ctx, entity, v, item)
	return rw, true, err
}

// rewrite computes what an item of a backfilled entity needs.
func (r *Rekeyer) rewrite(ctx context.Context, entity string, v dynamo.Values, item map[string]types.AttributeValue) (*Rewrite, error) {
	// Every key either design gives the item, target first.
	keys, err := r.rt.KeysOf(entity, v)
	if err != nil {
		return nil, err
	}
	rw := &Rewrite{Entity: entity, Set: map[string]types.AttributeValue{}, Sources: map[string]types.AttributeValue{},
		Key: map[string]types.AttributeValue{r.rt.Design().PK: item[r.rt.Design().PK], r.rt.Design().SK: item[r.rt.Design().SK]}}
	for k, x := range keys {
		if !r.deployed[r.index[k]] {
			continue // its index is created in a later phase
		}
		if !dynamo.SameValue(item[k], x) {
			rw.Set[k] = x
		}
	}
	for _, k := range r.owned {
		if _, has := item[k]; has {
			if _, want := keys[k]; !want {
				rw.Remove = append(rw.Remove, k)
			}
		}
	}
	// What a finished migration left (its old names, a deleted GSI's
	// keys): no design writes them for the entity any more.
	for _, a := range r.stale[entity] {
		if _, has := item[a]; has && !slices.Contains(rw.Remove, a) {
			rw.Remove = append(rw.Remove, a)
		}
	}
	// The condition: the attributes the written and removed keys are
	// computed from, and those keys themselves, as read (whatever wrote
	// in between, the rewrite holds only on the item it was computed
	// from).
	for _, k := range append(slices.Sorted(maps.Keys(rw.Set)), rw.Remove...) {
		rw.Sources[k] = item[k]
		for _, a := range r.sources[entity][k] {
			rw.Sources[a] = item[a]
		}
	}
	// A renamed attribute's value is copied to its new name only where
	// the new name is absent: a value there is newer (the application
	// wrote it during the migration), never overwritten by the old one.
	for n, was := range r.renamed[entity] {
		if old, ok := item[was]; ok && item[n] == nil {
			rw.Set[n] = old
			rw.Sources[was] = old
			rw.Sources[n] = nil
		}
	}
	if err := r.planObjects(ctx, entity, item, rw); err != nil {
		return nil, err
	}
	if len(rw.Set) == 0 && len(rw.Remove) == 0 && len(rw.ToS3) == 0 && len(rw.FromS3) == 0 {
		return nil, nil
	}
	return rw, nil
}

// input is the conditional UpdateItem of a rewrite.
func (r *Rekeyer) input(rw *Rewrite) (*dynamodb.UpdateItemInput, error) {
	var upd expression.UpdateBuilder
	for _, k := range slices.Sorted(maps.Keys(rw.Set)) {
		upd = upd.Set(expression.Name(k), expression.Value(rw.Set[k]))
	}
	for _, k := range rw.Remove {
		upd = upd.Remove(expression.Name(k))
	}
	// One flat AND (nested pairs cost some engines' parsers dearly). An
	// equality on a source also proves the item exists; without one,
	// attribute_exists keeps a deleted item from coming back.
	var conds []expression.ConditionBuilder
	exists := false
	for _, s := range slices.Sorted(maps.Keys(rw.Sources)) {
		if x := rw.Sources[s]; x == nil {
			conds = append(conds, expression.AttributeNotExists(expression.Name(s)))
		} else {
			conds = append(conds, expression.Equal(expression.Name(s), expression.Value(x)))
			exists = true
		}
	}
	if !exists {
		conds = append(conds, expression.AttributeExists(expression.Name(r.rt.Design().PK)))
	}
	cond := conds[0]
	if len(conds) > 1 {
		cond = expression.And(conds[0], conds[1], conds[2:]...)
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return nil, err
	}
	return &dynamodb.UpdateItemInput{
		TableName: aws.String(r.name), Key: rw.Key,
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		ReturnConsumedCapacity:              types.ReturnConsumedCapacityTotal,
	}, nil
}

// Apply rewrites one scanned item: it plans the rewrite and writes it on
// condition; after a concurrent write it plans again from the item as it
// is now. An item that cannot be rewritten is counted as failed and its
// error returned.
func (r *Rekeyer) Apply(ctx context.Context, item map[string]types.AttributeValue) error {
	for attempt := 0; ; attempt++ {
		rw, ours, err := r.plan(ctx, item)
		var se *storeError
		var me *missingError
		switch {
		case errors.As(err, &se) && !r.DryRun:
			if item, err = r.s3Again(ctx, item, se, attempt); err != nil || item == nil {
				return err
			}
			continue
		case errors.As(err, &se):
			return se.err // S3's: the run stops, to resume
		case errors.As(err, &me) && !r.DryRun:
			if item, err = r.missingAgain(ctx, item, me, attempt); err != nil || item == nil {
				return err
			}
			continue
		case err != nil:
			return r.failed(item, err)
		}
		if rw == nil {
			if ours || attempt > 0 {
				r.stats.Unchanged.Add(1)
			} else {
				r.stats.Skipped.Add(1)
			}
			return nil
		}
		if r.DryRun {
			r.stats.Pending.Add(1)
			return nil
		}
		written, moved, err := r.moveObjects(ctx, rw)
		if errors.As(err, &me) {
			if item, err = r.missingAgain(ctx, item, me, attempt); err != nil || item == nil {
				return err
			}
			continue
		}
		if errors.As(err, &se) {
			if item, err = r.s3Again(ctx, item, se, attempt); err != nil || item == nil {
				return err
			}
			continue
		}
		if err != nil {
			if objectFault(err) {
				return r.failed(item, err)
			}
			return err // S3's, or no store: the run stops, to resume
		}
		in, err := r.input(rw)
		if err != nil {
			r.dropKeys(ctx, written)
			return r.failed(item, err)
		}
		estimate := writeUnits(item, rw)
		if r.Wait != nil {
			if err := r.Wait(ctx, estimate); err != nil {
				return err
			}
		}
		out, err := r.client.UpdateItem(ctx, in)
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			r.dropKeys(ctx, written) // no item holds them
			if attempt+1 >= r.MaxConflicts {
				return r.failed(item, fmt.Errorf("still changing after %d attempts", attempt+1))
			}
			r.stats.Conflicts.Add(1)
			now := ccf.Item
			if now == nil { // the engine does not return it: read it
				if now, err = r.current(ctx, item); err != nil {
					return err
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if len(now) == 0 {
				r.stats.Deleted.Add(1)
				return nil
			}
			item = now
			continue
		}
		if err != nil {
			if !itemFault(err) {
				return err // not the item's fault: the run stops, to resume
			}
			r.dropKeys(ctx, written) // refused: no item holds them
			return r.failed(item, err)
		}
		r.dropKeys(ctx, moved) // the item holds their values now
		r.stats.Rewritten.Add(1)
		units := estimate
		if out.ConsumedCapacity != nil && aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) > 0 {
			units = aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
		}
		r.stats.MilliWCU.Add(int64(units * 1000))
		return nil
	}
}

// again reads an item again after S3 said that a key it held names no
// object, or failed about it: a write racing the scan replaces a value
// and deletes its object (and S3 answers 403, not 404, for a key it
// does not hold to a caller that may not list the bucket), so the item
// as it is now is planned again (counted a conflict). An item that
// still holds the key (holds) ends with stop's error. A nil item and
// error: it is gone (counted deleted).
func (r *Rekeyer) again(ctx context.Context, item map[string]types.AttributeValue, attempt int, holds func(map[string]types.AttributeValue) bool, stop func() error) (map[string]types.AttributeValue, error) {
	now, err := r.current(ctx, item)
	switch {
	case err != nil:
		return nil, err
	case now == nil:
		r.stats.Deleted.Add(1)
		return nil, nil
	case attempt+1 >= r.MaxConflicts || holds(now):
		return nil, stop()
	}
	r.stats.Conflicts.Add(1)
	return now, nil
}

// missingAgain is again for an item whose keys name no object (me): one
// still holding them is counted failed, me saying what to do.
func (r *Rekeyer) missingAgain(ctx context.Context, item map[string]types.AttributeValue, me *missingError, attempt int) (map[string]types.AttributeValue, error) {
	return r.again(ctx, item, attempt, me.heldBy, func() error { return r.failed(item, me) })
}

// s3Again is again for an item about whose key S3 failed (se): one
// still holding it stops the run with S3's error.
func (r *Rekeyer) s3Again(ctx context.Context, item map[string]types.AttributeValue, se *storeError, attempt int) (map[string]types.AttributeValue, error) {
	return r.again(ctx, item, attempt, se.heldBy, func() error { return se.err })
}

// current reads item again (nil: it is gone); an error is the run's, or
// the item's counted failed (an *ItemError).
func (r *Rekeyer) current(ctx context.Context, item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	d := r.rt.Design()
	key := map[string]types.AttributeValue{d.PK: item[d.PK], d.SK: item[d.SK]}
	got, err := r.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		if !itemFault(err) {
			return nil, err
		}
		return nil, r.failed(item, fmt.Errorf("reading it again: %w", err))
	}
	if len(got.Item) == 0 {
		return nil, nil
	}
	return got.Item, nil
}

// writeUnits estimates an update's write capacity: one unit per started
// KB of the item after it.
func writeUnits(item map[string]types.AttributeValue, rw *Rewrite) float64 {
	size := 0
	for k, v := range item {
		size += len(k) + avSize(v)
	}
	for k, v := range rw.Set {
		size += len(k) + avSize(v)
	}
	return float64(size/model.WriteUnitBytes + 1)
}

func avSize(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return len(x.Value)/2 + 1
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + avSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += 1 + len(k) + avSize(e)
		}
		return n
	}
	return 1
}

// ItemError is an item the backfill could not rewrite (its values do not
// fit the target model, or it kept changing); the run goes on without it.
type ItemError struct {
	Key string
	Err error
}

func (e *ItemError) Error() string { return "item " + e.Key + ": " + e.Err.Error() }

func (e *ItemError) Unwrap() error { return e.Err }

// itemFault reports whether a request failed for the item's sake (the
// engine refused it: a validation error), not the run's (throttling, the
// network, a cancelled context): only those are counted and skipped.
func itemFault(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorFault() == smithy.FaultClient && !Transient(err)
}

func (r *Rekeyer) failed(item map[string]types.AttributeValue, err error) error {
	r.stats.Failed.Add(1)
	return &ItemError{Key: dynamo.KeyText(r.rt.Design(), item), Err: err}
}
