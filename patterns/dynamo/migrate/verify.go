package migrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// A migration's state is proven, not trusted. Before the lock advances,
// a verifying scan reads every item of the table and counts those of the
// phase's entities that do not carry exactly what the phase requires (the
// rekey engine's plan for them is not empty); the phase is done only when
// there are none. The scan is rate-limited and resumable, and its
// progress is kept in the table itself (reserved items under
// patterns.MigrationTag), not in a file: a hand-written or copied
// checkpoint can make a run skip rewriting, never skip the proof. The table also holds a
// random stamp that names it, which a checkpoint records beside the
// table's ARN, id, creation time, endpoint and region: a checkpoint of
// another table (another endpoint, or a table deleted and created again
// under the same name) is refused.

// Sort keys of the bookkeeping items.
const (
	stampSK  = patterns.ReservedPrefix + "TABLE"
	verifySK = patterns.ReservedPrefix + "VERIFY"
	stateSK  = patterns.ReservedPrefix + "STATE"
)

// bookkeeping reports whether an item is keyplan's migration bookkeeping
// (never an entity's: no tag starts with the reserved prefix).
func bookkeeping(pkName string, item map[string]types.AttributeValue) bool {
	s, ok := item[pkName].(*types.AttributeValueMemberS)
	return ok && s.Value == patterns.MigrationTag
}

// TableIdentity names the table a run works on. Fields the engine or the
// client does not give are empty; the stamp is always there.
type TableIdentity struct {
	// Endpoint is the client's endpoint URL ("": AWS's, for the region).
	Endpoint string `json:"endpoint"`
	Region   string `json:"region"`
	ARN      string `json:"arn,omitempty"`
	// ID is DynamoDB's TableId, Created its CreationDateTime (RFC 3339).
	ID      string `json:"tableId,omitempty"`
	Created string `json:"created,omitempty"`
	// Stamp is a random value keyplan keeps in the table (created on the
	// first run): a table created again under the same name has another.
	Stamp string `json:"stamp"`
}

// Same reports whether two identities name one table: the same stamp,
// and the same ARN, table id and creation time where both know them. The
// endpoint and region are not compared: another server's table has
// another stamp, and one table may be reached by two URLs (a proxy,
// localhost or 127.0.0.1).
func (a TableIdentity) Same(b TableIdentity) error {
	for _, f := range []struct{ name, x, y string }{
		{"stamp", a.Stamp, b.Stamp}, {"ARN", a.ARN, b.ARN}, {"table id", a.ID, b.ID}, {"creation time", a.Created, b.Created},
	} {
		if f.name == "stamp" && (f.x == "" || f.y == "") || f.x != "" && f.y != "" && f.x != f.y {
			return fmt.Errorf("%s %q, not %q", f.name, f.x, f.y)
		}
	}
	return nil
}

func (a TableIdentity) String() string {
	s := a.ARN
	if s == "" {
		s = "table"
	}
	if a.Endpoint != "" {
		s += " at " + a.Endpoint
	}
	if a.Created != "" {
		s += " created " + a.Created
	}
	return s + " (stamp " + a.Stamp + ")"
}

// optioned is what a client may offer beyond a BackfillClient: its
// endpoint and region (a table's description: Describer).
type optioned interface{ Options() dynamodb.Options }

// Identify reads the identity of the table named name: its stamp (made
// on first use), and what the client and DescribeTable say when the
// client offers them (a *dynamodb.Client does).
func Identify(ctx context.Context, c RekeyClient, d *patterns.Design, name string) (TableIdentity, error) {
	var id TableIdentity
	if o, ok := c.(optioned); ok {
		opts := o.Options()
		id.Endpoint, id.Region = aws.ToString(opts.BaseEndpoint), opts.Region
	}
	if dc, ok := c.(dynamo.Describer); ok {
		out, err := dc.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return id, fmt.Errorf("describing %s: %w", name, err)
		}
		if t := out.Table; t != nil {
			id.ARN, id.ID = aws.ToString(t.TableArn), aws.ToString(t.TableId)
			if t.CreationDateTime != nil {
				id.Created = t.CreationDateTime.UTC().Format(time.RFC3339Nano)
			}
		}
	}
	key := bookKey(d, stampSK)
	for range 3 {
		var got *dynamodb.GetItemOutput
		err := patiently(ctx, func() (err error) {
			got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: key, ConsistentRead: aws.Bool(true)})
			return err
		})
		if err != nil {
			return id, fmt.Errorf("reading %s's stamp: %w", name, err)
		}
		if s, ok := got.Item["stamp"].(*types.AttributeValueMemberS); ok {
			if m, ok := got.Item["model"].(*types.AttributeValueMemberS); ok && m.Value != d.Table {
				return id, fmt.Errorf("%w: %s was migrated by keyplan as the table of %s, not %s", ErrOtherTable, name, m.Value, d.Table)
			}
			id.Stamp = s.Value
			return id, nil
		}
		var b [16]byte
		rand.Read(b[:])
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
			UpdateExpression:    aws.String("SET stamp = :s, since = :t, model = :m"),
			ConditionExpression: aws.String("attribute_not_exists(stamp)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":s": &types.AttributeValueMemberS{Value: hex.EncodeToString(b[:])},
				":t": &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339)},
				":m": &types.AttributeValueMemberS{Value: d.Table},
			}})
		var ccf *types.ConditionalCheckFailedException
		if err != nil && !errors.As(err, &ccf) {
			return id, fmt.Errorf("stamping %s: %w", name, err)
		}
		// Read it back: ours, or another run's that came first.
	}
	return id, fmt.Errorf("%s: its stamp could not be read back", name)
}

// bookKey is the key of a bookkeeping item.
func bookKey(d *patterns.Design, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		d.PK: &types.AttributeValueMemberS{Value: patterns.MigrationTag},
		d.SK: &types.AttributeValueMemberS{Value: sk},
	}
}

// MigrationDigest identifies a lock's migration whatever its current
// phase and whichever environments verified it (the accepted design, the
// target and the phases): the table's bookkeeping is keyed by it
// (patterns.Lock.MigrationDigest).
func MigrationDigest(l *patterns.Lock) (string, error) {
	if l.Migration == nil {
		return "", ErrNoMigration
	}
	return l.MigrationDigest()
}

// VerifyOptions tune a verifying scan.
type VerifyOptions struct {
	// Segments is the parallel Scan's segment count (default 1). A
	// stopped verification resumes with the same count; another starts
	// over.
	Segments int
	// PageSize is the items per Scan page (default DefaultPageSize).
	PageSize int32
	// MaxRCU caps the read capacity the Scan uses per second (0: none).
	MaxRCU float64
	// Progress, when set, is called every ProgressEvery with the counts
	// so far (Scanned, Unchanged, Skipped, Pending, Failed).
	Progress      func(BackfillProgress)
	ProgressEvery time.Duration
}

// VerifyResult is what a verifying scan found: counts over the whole
// table (resumed segments included), and up to 20 keys of items still to
// rewrite or that cannot be.
type VerifyResult struct {
	Segments                                     int
	Scanned, Unchanged, Skipped, Pending, Failed int64
	// Resumed: some segments were verified by a stopped run.
	Resumed bool
	// Verified: every segment is done and no item is pending or failed;
	// the table records the phase as verified.
	Verified bool
	Examples []string
	// Needs counts, per entity and key attribute, the pending items this
	// run scanned whose rewrite sets it: resumed segments' items are not
	// in it.
	Needs map[string]map[string]*KeyNeed
}

// KeyNeed counts the items whose rewrite sets a key attribute: Lack it,
// or hold an Other value than the design gives.
type KeyNeed struct{ Lack, Other int64 }

// verifyRecord is one segment's verification progress, as the table
// keeps it.
type verifyRecord struct {
	next                                         map[string]types.AttributeValue
	done                                         bool
	scanned, unchanged, skipped, pending, failed int64
}

func (r *Rekeyer) verifyKey(digest string, phase, segments, seg int) map[string]types.AttributeValue {
	return bookKey(r.lock.Accepted, fmt.Sprintf("%s%c%s%c%d%c%d%c%d", verifySK, model.Sep, digest, model.Sep, phase, model.Sep, segments, model.Sep, seg))
}

func (r *Rekeyer) readRecord(ctx context.Context, c RekeyClient, key map[string]types.AttributeValue) (*verifyRecord, error) {
	var out *dynamodb.GetItemOutput
	err := patiently(ctx, func() (err error) {
		out, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.name), Key: key, ConsistentRead: aws.Bool(true)})
		return err
	})
	if err != nil {
		return nil, err
	}
	rec := &verifyRecord{}
	if out.Item == nil {
		return rec, nil
	}
	if m, ok := out.Item["next"].(*types.AttributeValueMemberM); ok {
		rec.next = m.Value
	}
	if b, ok := out.Item["done"].(*types.AttributeValueMemberBOOL); ok {
		rec.done = b.Value
	}
	for name, p := range map[string]*int64{"scanned": &rec.scanned, "unchanged": &rec.unchanged, "skipped": &rec.skipped, "pending": &rec.pending, "failed": &rec.failed} {
		if n, ok := out.Item[name].(*types.AttributeValueMemberN); ok {
			*p, _ = strconv.ParseInt(n.Value, 10, 64)
		}
	}
	return rec, nil
}

func (r *Rekeyer) writeRecord(ctx context.Context, c RekeyClient, key map[string]types.AttributeValue, rec *verifyRecord) error {
	num := func(n int64) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
	}
	upd := expression.Set(expression.Name("done"), expression.Value(&types.AttributeValueMemberBOOL{Value: rec.done})).
		Set(expression.Name("scanned"), expression.Value(num(rec.scanned))).
		Set(expression.Name("unchanged"), expression.Value(num(rec.unchanged))).
		Set(expression.Name("skipped"), expression.Value(num(rec.skipped))).
		Set(expression.Name("pending"), expression.Value(num(rec.pending))).
		Set(expression.Name("failed"), expression.Value(num(rec.failed))).
		Set(expression.Name("at"), expression.Value(&types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339)}))
	if rec.next != nil {
		upd = upd.Set(expression.Name("next"), expression.Value(&types.AttributeValueMemberM{Value: rec.next}))
	} else {
		upd = upd.Remove(expression.Name("next"))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		return err
	}
	return patiently(ctx, func() error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.name), Key: key,
			UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
		return err
	})
}

// Verify runs the verifying scan of the lock's current phase: every item
// of the table is read (at most o.MaxRCU read units a second), and those
// of the phase's backfill entities that need a rewrite are counted,
// writing nothing but its progress in the table. Stopped (an error, a
// cancelled context), it resumes from that progress when run again with
// the same segments; once complete it starts over the next time. A
// complete verification that finds nothing pending records the phase as
// verified in the table (VerifiedPhases).
func (r *Rekeyer) Verify(ctx context.Context, c BackfillClient, o VerifyOptions) (*VerifyResult, error) {
	if o.Segments <= 0 {
		o.Segments = 1
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	digest, err := MigrationDigest(r.lock)
	if err != nil {
		return nil, err
	}
	phase := r.lock.Migration.Current
	wait := r.ReadWait
	if wait == nil && o.MaxRCU > 0 {
		wait = RateLimiter(o.MaxRCU)
	}
	proj := expression.NamesList(expression.Name(r.read[0]))
	for _, a := range r.read[1:] {
		proj = proj.AddNames(expression.Name(a))
	}
	pe, err := expression.NewBuilder().WithProjection(proj).Build()
	if err != nil {
		return nil, err
	}
	res := &VerifyResult{Segments: o.Segments}
	recs := make([]*verifyRecord, o.Segments)
	for seg := range o.Segments {
		if recs[seg], err = r.readRecord(ctx, c, r.verifyKey(digest, phase, o.Segments, seg)); err != nil {
			return nil, fmt.Errorf("reading the verification's progress: %w", err)
		}
		if recs[seg].done || recs[seg].next != nil {
			res.Resumed = true
		}
	}
	// The counts so far, for progress reports (resumed segments' too).
	var live RekeyStats
	for _, rec := range recs {
		live.Scanned.Add(rec.scanned)
		live.Unchanged.Add(rec.unchanged)
		live.Skipped.Add(rec.skipped)
		live.Pending.Add(rec.pending)
		live.Failed.Add(rec.failed)
	}
	if o.Progress != nil && o.ProgressEvery > 0 {
		snapshot := func() CheckpointStats {
			return CheckpointStats{Scanned: live.Scanned.Load(), Unchanged: live.Unchanged.Load(), Skipped: live.Skipped.Load(), Pending: live.Pending.Load(), Failed: live.Failed.Load()}
		}
		defer reportEvery(snapshot, o.Progress, o.ProgressEvery, snapshot())()
	}
	var mu sync.Mutex
	example := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if len(res.Examples) < 20 {
			res.Examples = append(res.Examples, s)
		}
	}
	need := func(rw *Rewrite, item map[string]types.AttributeValue) {
		mu.Lock()
		defer mu.Unlock()
		if res.Needs == nil {
			res.Needs = map[string]map[string]*KeyNeed{}
		}
		if res.Needs[rw.Entity] == nil {
			res.Needs[rw.Entity] = map[string]*KeyNeed{}
		}
		for k := range rw.Set {
			n := res.Needs[rw.Entity][k]
			if n == nil {
				n = &KeyNeed{}
				res.Needs[rw.Entity][k] = n
			}
			if item[k] == nil {
				n.Lack++
			} else {
				n.Other++
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, o.Segments)
	for seg := range o.Segments {
		rec := recs[seg]
		if rec.done {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := r.verifyKey(digest, phase, o.Segments, seg)
			for {
				var out *dynamodb.ScanOutput
				err := patiently(ctx, func() (err error) {
					out, err = c.Scan(ctx, &dynamodb.ScanInput{
						TableName: aws.String(r.name), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(int32(o.Segments)),
						ExclusiveStartKey: rec.next, Limit: aws.Int32(o.PageSize), ConsistentRead: aws.Bool(true),
						ProjectionExpression: pe.Projection(), ExpressionAttributeNames: pe.Names(),
						ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
					})
					return err
				})
				if err != nil {
					errs[seg] = fmt.Errorf("verifying segment %d of %d: %w", seg, o.Segments, err)
					cancel()
					return
				}
				for _, item := range out.Items {
					if bookkeeping(r.rt.Design().PK, item) {
						continue
					}
					rec.scanned++
					live.Scanned.Add(1)
					rw, ours, err := r.planNow(ctx, item)
					var se *storeError
					switch {
					case errors.As(err, &se):
						errs[seg] = fmt.Errorf("verifying segment %d of %d: %w", seg, o.Segments, se.err)
						cancel()
						return
					case err != nil:
						rec.failed++
						live.Failed.Add(1)
						example(fmt.Sprintf("item %s: %v", dynamo.KeyText(r.rt.Design(), item), err))
					case rw != nil:
						rec.pending++
						live.Pending.Add(1)
						example(fmt.Sprintf("item %s (%s) still needs %s", dynamo.KeyText(r.rt.Design(), item), rw.Entity, rewriteText(rw)))
						need(rw, item)
					case ours:
						rec.unchanged++
						live.Unchanged.Add(1)
					default:
						rec.skipped++
						live.Skipped.Add(1)
					}
				}
				rec.next = out.LastEvaluatedKey
				if len(rec.next) == 0 {
					rec.next, rec.done = nil, true
				}
				if err := r.writeRecord(ctx, c, key, rec); err != nil {
					errs[seg] = fmt.Errorf("keeping the verification's progress: %w", err)
					cancel()
					return
				}
				if rec.done {
					return
				}
				if wait != nil {
					if err := wait(ctx, readUnits(out)); err != nil {
						errs[seg] = err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, rec := range recs {
		res.Scanned += rec.scanned
		res.Unchanged += rec.unchanged
		res.Skipped += rec.skipped
		res.Pending += rec.pending
		res.Failed += rec.failed
	}
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	// Complete: the next verification starts over.
	for seg := range o.Segments {
		if err := r.writeRecord(ctx, c, r.verifyKey(digest, phase, o.Segments, seg), &verifyRecord{}); err != nil {
			return res, fmt.Errorf("resetting the verification's progress: %w", err)
		}
	}
	if res.Pending > 0 || res.Failed > 0 {
		return res, nil
	}
	if err := r.recordVerified(ctx, c, digest, phase+1); err != nil {
		return res, err
	}
	res.Verified = true
	return res, nil
}

// readUnits is the read capacity a Scan page used: as the engine
// reports it, else estimated (a unit per started 4 KB read, strongly
// consistent).
func readUnits(out *dynamodb.ScanOutput) float64 {
	if out.ConsumedCapacity != nil && aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) > 0 {
		return aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
	}
	size := 0
	for _, it := range out.Items {
		for k, v := range it {
			size += len(k) + avSize(v)
		}
	}
	return float64(size/4096 + 1)
}

// rewriteText says what a rewrite would write.
func rewriteText(rw *Rewrite) string {
	s := ""
	for _, k := range slices.Sorted(maps.Keys(rw.Set)) {
		if s != "" {
			s += ", "
		}
		s += k
	}
	for _, k := range rw.Remove {
		if s != "" {
			s += ", "
		}
		s += "no " + k
	}
	for _, moves := range []struct {
		attrs []string
		how   string
	}{{rw.ToS3, " moved into S3"}, {rw.FromS3, " moved back from S3"}} {
		for _, k := range moves.attrs {
			if s != "" {
				s += ", "
			}
			s += k + moves.how
		}
	}
	return s
}

// recordVerified records in the table that a migration's first n phases
// are verified there (it never moves back).
func (r *Rekeyer) recordVerified(ctx context.Context, c RekeyClient, digest string, n int) error {
	key := bookKey(r.lock.Accepted, stateSK+string(model.Sep)+digest)
	err := patiently(ctx, func() error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.name), Key: key,
			UpdateExpression:         aws.String("SET verified = :n, #at = :t"),
			ConditionExpression:      aws.String("attribute_not_exists(verified) OR verified <= :n"),
			ExpressionAttributeNames: map[string]string{"#at": "at"},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":n": &types.AttributeValueMemberN{Value: strconv.Itoa(n)},
				":t": &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339)},
			}})
		return err
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil // a later phase is recorded already
	}
	if err != nil {
		return fmt.Errorf("recording the verified phase: %w", err)
	}
	return nil
}

// VerifiedPhases reads how many phases of the lock's migration the table
// has verified (0: none, or no record).
func VerifiedPhases(ctx context.Context, c RekeyClient, l *patterns.Lock, name string) (int, error) {
	digest, err := MigrationDigest(l)
	if err != nil {
		return 0, err
	}
	return verifiedOf(ctx, c, l, name, digest)
}

// verifiedOf reads how many phases of the migration digest names the
// table has verified (0: none, or no record).
func verifiedOf(ctx context.Context, c RekeyClient, l *patterns.Lock, name, digest string) (int, error) {
	var out *dynamodb.GetItemOutput
	err := patiently(ctx, func() (err error) {
		out, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: bookKey(l.Accepted, stateSK+string(model.Sep)+digest), ConsistentRead: aws.Bool(true)})
		return err
	})
	if err != nil {
		return 0, err
	}
	n, ok := out.Item["verified"].(*types.AttributeValueMemberN)
	if !ok {
		return 0, nil
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		return 0, fmt.Errorf("%s's record of verified phases is %q", name, n.Value)
	}
	return v, nil
}

// planNow is plan for the verifying scan. When S3 says that a key the
// item held names no object, or fails about it, a write racing the scan
// may have replaced the value and deleted its object after the scan read
// the item (S3 answers 403, not 404, for a key it does not hold to a
// caller that may not list the bucket): the item as it is now is planned
// instead, and a gone item has nothing to verify. An item that still
// holds the key keeps the error (counted failed, or S3's: the run
// stops), as the backfill's Apply does (again).
func (r *Rekeyer) planNow(ctx context.Context, item map[string]types.AttributeValue) (*Rewrite, bool, error) {
	rw, ours, err := r.plan(ctx, item)
	for attempt := 0; err != nil && attempt < r.MaxConflicts; attempt++ {
		var se *storeError
		var me *missingError
		var holds func(map[string]types.AttributeValue) bool
		switch {
		case errors.As(err, &se):
			holds = se.heldBy
		case errors.As(err, &me):
			holds = me.heldBy
		default:
			return rw, ours, err
		}
		now, cerr := r.current(ctx, item)
		switch {
		case cerr != nil || now != nil && holds(now):
			return rw, ours, err
		case now == nil:
			return nil, false, nil
		}
		item = now
		rw, ours, err = r.plan(ctx, item)
	}
	return rw, ours, err
}
