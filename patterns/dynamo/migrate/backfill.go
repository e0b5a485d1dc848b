package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/atomicfile"
	"github.com/keyplan/keyplan/patterns"
)

// BackfillClient is what a backfill needs of DynamoDB.
type BackfillClient interface {
	RekeyClient
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// DefaultPageSize is the items per Scan page: small enough that a
// checkpoint is never far behind, large enough to keep requests few.
const DefaultPageSize = 250

// Segment runs one Scan segment of the phase's backfill, page by page,
// from start (nil: the segment's beginning) until the segment ends or
// more reports false after a page (a Lambda's remaining time). It returns
// the key to resume from (nil when the segment is done). Every item of
// a page is applied before the next page is read; an item that cannot be
// rewritten (ItemError) does not stop it, any other error does.
func (r *Rekeyer) Segment(ctx context.Context, c BackfillClient, segment, segments int, start map[string]types.AttributeValue, pageSize int32, more func(next map[string]types.AttributeValue) bool) (map[string]types.AttributeValue, []error, error) {
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	var failed []error
	next := start
	// Only what a rewrite reads comes back (less to send and decode).
	proj := expression.NamesList(expression.Name(r.read[0]))
	for _, a := range r.read[1:] {
		proj = proj.AddNames(expression.Name(a))
	}
	pe, err := expression.NewBuilder().WithProjection(proj).Build()
	if err != nil {
		return start, nil, err
	}
	for {
		var out *dynamodb.ScanOutput
		err := patiently(ctx, func() (err error) {
			out, err = c.Scan(ctx, &dynamodb.ScanInput{
				TableName: aws.String(r.name), Segment: aws.Int32(int32(segment)), TotalSegments: aws.Int32(int32(segments)),
				ExclusiveStartKey: next, Limit: aws.Int32(pageSize),
				ProjectionExpression: pe.Projection(), ExpressionAttributeNames: pe.Names(),
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			})
			return err
		})
		if err != nil {
			return next, failed, fmt.Errorf("scanning segment %d of %d: %w", segment, segments, err)
		}
		if r.ReadWait != nil {
			if err := r.ReadWait(ctx, readUnits(out)); err != nil {
				return next, failed, err
			}
		}
		for _, item := range out.Items {
			if bookkeeping(r.rt.Design().PK, item) {
				continue // keyplan's own, not the application's
			}
			r.stats.Scanned.Add(1)
			err := patiently(ctx, func() error { return r.Apply(ctx, item) })
			if err != nil {
				var ie *ItemError
				if !errors.As(err, &ie) {
					return next, failed, err
				}
				failed = append(failed, err)
			}
		}
		next = out.LastEvaluatedKey
		if len(next) == 0 {
			return nil, failed, nil
		}
		if more != nil && !more(next) {
			return next, failed, nil
		}
	}
}

// patiently runs f again while it fails transiently (after the SDK's
// own retries), pausing 1, 2, 4, … 16 s: a throttled or briefly
// unavailable table slows a backfill down rather than stopping it.
func patiently(ctx context.Context, f func() error) error {
	for attempt := 0; ; attempt++ {
		err := f()
		if err == nil || !Transient(err) || attempt == 5 || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(1<<attempt) * time.Second):
		}
	}
}

// PatientRetries configures a client for long runs (a backfill): ten
// attempts per request with backoff up to 20 s, and no retry quota, so a
// burst of throttling never turns into failed requests.
func PatientRetries(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(s *retry.StandardOptions) {
		s.MaxAttempts = 10
		s.MaxBackoff = 20 * time.Second
		s.RateLimiter = ratelimit.None
	})
}

// Transient reports whether an error is the engine's or the network's,
// not the request's: throttling, a server error, a timeout. A backfill
// stops on one (after the SDK's retries) and resumes from its checkpoint.
func Transient(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded",
			"InternalServerError", "ServiceUnavailable", "LimitExceededException":
			return true
		}
		return api.ErrorFault() == smithy.FaultServer
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}

// CheckpointFormat is the version of a checkpoint file's JSON form.
const CheckpointFormat = 2

// Checkpoint is a backfill's progress on disk: where each Scan segment
// is, for the lock's phase and the table it belongs to. A killed run
// resumes from it. It only ever saves work: a run advances nothing until
// the verifying scan (Verify) has read the whole table.
type Checkpoint struct {
	Format int    `json:"format"`
	Table  string `json:"table"`
	// Identity is the table's (its stamp, ARN, creation time, endpoint
	// and region): a checkpoint of another table is refused.
	Identity TableIdentity `json:"identity"`
	Lock     string        `json:"lock"` // sha256 of the lock's bytes
	Phase    int           `json:"phase"`
	Segments int           `json:"segments"`
	// Next is each segment's resume key (PK, SK); Done marks the
	// segments that are finished.
	Next  []map[string]string `json:"next"`
	Done  []bool              `json:"done"`
	Stats CheckpointStats     `json:"stats"`
}

// CheckpointStats carries the counts of the runs before a resume.
type CheckpointStats struct {
	Scanned, Rewritten, Unchanged, Skipped, Deleted, Conflicts, Failed, Pending, MilliWCU int64
}

// LockDigest identifies a lock's state in a checkpoint.
func LockDigest(l *patterns.Lock) (string, error) {
	b, err := l.Bytes()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// ReadCheckpoint reads a checkpoint file; nil, nil when there is none.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: not a keyplan checkpoint (%v); delete it to start over", path, err)
	}
	if c.Format != CheckpointFormat {
		return nil, fmt.Errorf("%s: a checkpoint of format %d (this keyplan writes %d, with the table's identity); delete it to start over", path, c.Format, CheckpointFormat)
	}
	if c.Segments < 1 || len(c.Next) != c.Segments || len(c.Done) != c.Segments || c.Identity.Stamp == "" {
		return nil, fmt.Errorf("%s: not a keyplan checkpoint (%d segments, %d resume keys, %d done flags, stamp %q); delete it to start over", path, c.Segments, len(c.Next), len(c.Done), c.Identity.Stamp)
	}
	return &c, nil
}

// write replaces the checkpoint file atomically.
func (c *Checkpoint) write(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// ResumeJSON is a Scan's resume key (the table's string PK and SK) as
// JSON-friendly strings, for a checkpoint or a state machine's state.
func ResumeJSON(k map[string]types.AttributeValue) (map[string]string, error) {
	if k == nil {
		return nil, nil
	}
	out := map[string]string{}
	for n, v := range k {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return nil, fmt.Errorf("resume key attribute %s is not a string", n)
		}
		out[n] = s.Value
	}
	return out, nil
}

// ResumeKey is ResumeJSON's inverse.
func ResumeKey(k map[string]string) map[string]types.AttributeValue {
	if k == nil {
		return nil
	}
	out := map[string]types.AttributeValue{}
	for n, v := range k {
		out[n] = &types.AttributeValueMemberS{Value: v}
	}
	return out
}

// BackfillOptions tune a backfill run.
type BackfillOptions struct {
	// Segments is the parallel Scan's segment count (default 1).
	Segments int
	// PageSize is the items per Scan page (default DefaultPageSize).
	PageSize int32
	// MaxWCU caps the write capacity the updates use per second (0: no
	// cap).
	MaxWCU float64
	// Checkpoint is the file progress is kept in ("": none). An existing
	// one for the same table (its identity), lock and segments is
	// resumed.
	Checkpoint string
	// Progress, when set, is called every ProgressEvery while the run
	// goes on (for a progress line). Default: not called.
	Progress      func(BackfillProgress)
	ProgressEvery time.Duration
	// MaxRCU caps the read capacity the Scans use per second (0: no
	// cap).
	MaxRCU float64
	// Identity is the table's (default: Identify).
	Identity *TableIdentity
}

// BackfillProgress is a running backfill's counts: Stats so far (resumed
// runs included), Before those the resumed checkpoint carried, and the
// time this run has taken.
type BackfillProgress struct {
	Stats, Before CheckpointStats
	Elapsed       time.Duration
}

// Rate is the items this run scans per second.
func (p BackfillProgress) Rate() float64 {
	return float64(p.Stats.Scanned-p.Before.Scanned) / max(p.Elapsed.Seconds(), 0.001)
}

// SegmentsFor is the Scan segments a backfill of table t takes: those a
// checkpoint was started with (a resumed run keeps them), else
// DefaultSegments.
func SegmentsFor(t *types.TableDescription, checkpoint string) int {
	if cp, _ := ReadCheckpoint(checkpoint); checkpoint != "" && cp != nil {
		return cp.Segments
	}
	return DefaultSegments(t)
}

// ErrIncomplete is matched by Complete's errors: the lock must not advance.
var ErrIncomplete = errors.New("the backfill is not complete")

// Complete reports whether the run left every item as the phase needs:
// none failed, none still to rewrite (a verification's). Only then may the
// lock advance to the next phase; the error (matching ErrIncomplete) says
// how many items are not.
func (r *BackfillResult) Complete() error {
	switch {
	case r.Stats.Failed > 0:
		return fmt.Errorf("%w: %d item(s) could not be rewritten", ErrIncomplete, r.Stats.Failed)
	case r.Stats.Pending > 0:
		return fmt.Errorf("%w: %d item(s) still need the phase's keys", ErrIncomplete, r.Stats.Pending)
	}
	return nil
}

// CheckMaxWCU refuses a write-rate limit (BackfillOptions.MaxWCU,
// keyplan migrate --max-wcu) that is not a finite number of write units
// per second, zero (no limit) or more: NaN compares false with every
// bound, and would run unlimited.
func CheckMaxWCU(rate float64) error {
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		return fmt.Errorf("%v: expected a finite number of write units per second, 0 (no limit) or more", rate)
	}
	return nil
}

// BackfillResult is what a run did: the counts (resumed runs included)
// and the items it could not rewrite (at most 20 kept). Stats.Pending
// counts the items the verifying scan found still to rewrite.
type BackfillResult struct {
	Stats   CheckpointStats
	Failed  []error
	Resumed bool
	// Before are the counts the resumed checkpoint carried.
	Before CheckpointStats
	// Verify is the verifying scan's result (nil if it did not run):
	// the phase is done only when it is Verified.
	Verify *VerifyResult
}

// Backfill runs the phase's backfill over every Scan segment in
// parallel, keeping a checkpoint after each page, then the verifying
// scan (Verify) over the whole table; with DryRun, only the verifying
// scan. It returns when both are complete (the checkpoint is then
// removed, and res.Verify says whether the phase is verified: if not,
// the next run backfills again), or on the first error that is not an
// item's (the checkpoint, and the verification's progress in the table,
// stay: run again to resume).
func (r *Rekeyer) Backfill(ctx context.Context, c BackfillClient, o BackfillOptions) (*BackfillResult, error) {
	if err := CheckMaxWCU(o.MaxWCU); err != nil {
		return nil, fmt.Errorf("BackfillOptions.MaxWCU: %w", err)
	}
	if o.Segments <= 0 {
		o.Segments = 1
	}
	if o.MaxRCU > 0 && r.ReadWait == nil {
		r.ReadWait = RateLimiter(o.MaxRCU)
	}
	res := &BackfillResult{}
	if !r.DryRun {
		if err := r.rewriteAll(ctx, c, o, res); err != nil {
			return res, err
		}
	}
	v, err := r.Verify(ctx, c, VerifyOptions{Segments: o.Segments, PageSize: o.PageSize, MaxRCU: o.MaxRCU, Progress: o.Progress, ProgressEvery: o.ProgressEvery})
	res.Verify = v
	if v != nil {
		if r.DryRun {
			res.Stats = CheckpointStats{Scanned: v.Scanned, Unchanged: v.Unchanged, Skipped: v.Skipped, Pending: v.Pending, Failed: v.Failed}
			res.Resumed = v.Resumed
		} else {
			res.Stats.Pending = v.Pending
		}
	}
	if err != nil {
		return res, err
	}
	if o.Checkpoint != "" {
		if err := os.Remove(o.Checkpoint); err != nil && !errors.Is(err, os.ErrNotExist) {
			return res, err
		}
	}
	return res, nil
}

// rewriteAll is Backfill's rewriting pass.
func (r *Rekeyer) rewriteAll(ctx context.Context, c BackfillClient, o BackfillOptions, res *BackfillResult) error {
	digest, err := LockDigest(r.lock)
	if err != nil {
		return err
	}
	cp := &Checkpoint{Format: CheckpointFormat, Table: r.name, Lock: digest, Phase: r.lock.Migration.Current, Segments: o.Segments,
		Next: make([]map[string]string, o.Segments), Done: make([]bool, o.Segments)}
	if o.Checkpoint != "" {
		id := o.Identity
		if id == nil {
			got, err := Identify(ctx, c, r.lock.Accepted, r.name)
			if err != nil {
				return err
			}
			id = &got
		}
		cp.Identity = *id
		old, err := ReadCheckpoint(o.Checkpoint)
		if err != nil {
			return err
		}
		if old != nil {
			if err := old.Identity.Same(*id); old.Table != r.name || err != nil {
				why := fmt.Sprintf("table %s", old.Table)
				if err != nil {
					why = fmt.Sprintf("%s: %v", old.Identity, err)
				}
				return fmt.Errorf("%s is a checkpoint of another table (%s; this is %s): delete it to start over", o.Checkpoint, why, id)
			}
			switch {
			case old.Lock != digest || old.Phase != cp.Phase:
				return fmt.Errorf("%s is a checkpoint of another run (table %s, phase %d, another lock); delete it to start over", o.Checkpoint, old.Table, old.Phase+1)
			case old.Segments != o.Segments:
				return fmt.Errorf("%s was written with %d segments, not %d: run with --segments %d to resume, or delete it to start over", o.Checkpoint, old.Segments, o.Segments, old.Segments)
			}
			cp, res.Resumed, res.Before = old, true, old.Stats
			s := &r.stats
			s.Scanned.Store(old.Stats.Scanned)
			s.Rewritten.Store(old.Stats.Rewritten)
			s.Unchanged.Store(old.Stats.Unchanged)
			s.Skipped.Store(old.Stats.Skipped)
			s.Deleted.Store(old.Stats.Deleted)
			s.Conflicts.Store(old.Stats.Conflicts)
			s.Failed.Store(old.Stats.Failed)
			s.Pending.Store(old.Stats.Pending)
			s.MilliWCU.Store(old.Stats.MilliWCU)
		}
	}
	if o.MaxWCU > 0 && r.Wait == nil {
		r.Wait = RateLimiter(o.MaxWCU)
	}
	if o.Progress != nil && o.ProgressEvery > 0 {
		defer r.report(o.Progress, o.ProgressEvery, res.Before)()
	}
	var mu sync.Mutex
	save := func(seg int, next map[string]types.AttributeValue) error {
		mu.Lock()
		defer mu.Unlock()
		k, err := ResumeJSON(next)
		if err != nil {
			return err
		}
		cp.Next[seg], cp.Done[seg] = k, next == nil
		cp.Stats = r.Snapshot()
		if o.Checkpoint == "" {
			return nil
		}
		return cp.write(o.Checkpoint)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, o.Segments)
	for seg := range o.Segments {
		if cp.Done[seg] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var saveErr error
			next, failed, err := r.Segment(ctx, c, seg, o.Segments, ResumeKey(cp.Next[seg]), o.PageSize, func(next map[string]types.AttributeValue) bool {
				saveErr = save(seg, next)
				return saveErr == nil
			})
			mu.Lock()
			for _, f := range failed {
				if len(res.Failed) < 20 {
					res.Failed = append(res.Failed, f)
				}
			}
			mu.Unlock()
			if err == nil {
				err = saveErr
			}
			if err == nil {
				err = save(seg, next)
			}
			if err != nil {
				errs[seg] = err
				cancel()
			}
		}()
	}
	wg.Wait()
	res.Stats = r.Snapshot()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// report calls progress every interval until the returned stop is called.
func (r *Rekeyer) report(progress func(BackfillProgress), every time.Duration, before CheckpointStats) (stop func()) {
	return reportEvery(r.Snapshot, progress, every, before)
}

// reportEvery calls progress with snapshot's counts every interval until
// the returned stop is called.
func reportEvery(snapshot func() CheckpointStats, progress func(BackfillProgress), every time.Duration, before CheckpointStats) (stop func()) {
	start := time.Now()
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				progress(BackfillProgress{Stats: snapshot(), Before: before, Elapsed: time.Since(start)})
			}
		}
	}()
	return func() { close(done); <-ended }
}

// Snapshot is the counts so far (for progress reports).
func (r *Rekeyer) Snapshot() CheckpointStats {
	s := &r.stats
	return CheckpointStats{Scanned: s.Scanned.Load(), Rewritten: s.Rewritten.Load(), Unchanged: s.Unchanged.Load(), Skipped: s.Skipped.Load(),
		Deleted: s.Deleted.Load(), Conflicts: s.Conflicts.Load(), Failed: s.Failed.Load(), Pending: s.Pending.Load(), MilliWCU: s.MilliWCU.Load()}
}

// RateLimiter returns a Rekeyer.Wait that holds writes to rate units per
// second (a token bucket with a second's worth of burst).
func RateLimiter(rate float64) func(ctx context.Context, units float64) error {
	return newLimiter(rate).wait
}

// limiter is a token bucket of write units: rate per second, a second's
// worth of burst.
type limiter struct {
	mu     sync.Mutex
	rate   float64
	tokens float64
	last   time.Time
}

func newLimiter(rate float64) *limiter {
	return &limiter{rate: rate, tokens: rate, last: time.Now()}
}

func (l *limiter) wait(ctx context.Context, units float64) error {
	units = math.Min(units, l.rate) // a unit larger than a second's worth waits a second
	for {
		l.mu.Lock()
		now := time.Now()
		l.tokens = math.Min(l.rate, l.tokens+now.Sub(l.last).Seconds()*l.rate)
		l.last = now
		if l.tokens >= units {
			l.tokens -= units
			l.mu.Unlock()
			return nil
		}
		d := time.Duration((units - l.tokens) / l.rate * float64(time.Second))
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
	}
}

// DefaultSegments sizes a parallel Scan from a table's description: a
// segment per 128 MB or per 25,000 items, whichever is more, at least 4
// (parallel requests overlap each other's latency) and at most 64.
func DefaultSegments(t *types.TableDescription) int {
	if t == nil {
		return 4
	}
	bySize := math.Ceil(float64(aws.ToInt64(t.TableSizeBytes)) / (128 << 20))
	byItems := math.Ceil(float64(aws.ToInt64(t.ItemCount)) / 25000)
	return int(math.Max(4, math.Min(64, math.Max(bySize, byItems))))
}
