package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/migrate"
)

// handler runs stretches of the phase's backfill, or of the cleanup of a
// finished migration (the lock carries no migration and a pending
// cleanup: Cleanup).
type handler struct {
	lock   *patterns.Lock
	client client
	table  string
	log    *slog.Logger
	// maxWCU is this worker's share of the job's write-rate limit (0:
	// none).
	maxWCU float64
	// margin is the time left at which it stops after a page (default:
	// a fifth of the invocation's time, at most a minute).
	margin time.Duration
}

// client is what the worker asks of DynamoDB: the rekey engine's Scan
// and UpdateItem, and DescribeTable and DescribeTimeToLive for the drift
// check (DescribeContinuousBackups is never called: migrate.LiveOptions
// NoBackups).
type client interface {
	migrate.MigrateClient
	migrate.LiveReader
}

// checkDrift compares the lock with the table before anything is
// written (patterns.CompareLive, keyplan diff --live's comparison): the
// drift that makes the backfill's writes wrong stops it, with an error
// naming each difference and what to do
// (patterns.LiveDiff.BackfillDrift); the rest is logged and the job goes
// on.
func (h *handler) checkDrift(ctx context.Context, lock *patterns.Lock, segment int) error {
	lt, err := migrate.DescribeLive(ctx, h.client, h.table, migrate.LiveOptions{NoBackups: true})
	if err != nil {
		return fmt.Errorf("the drift check before writing: %w", err)
	}
	ld := patterns.CompareLive(lock, lt)
	stops, reported := ld.BackfillDrift(lock)
	for _, d := range reported {
		h.log.WarnContext(ctx, "drift reported, not in the backfill's way", "segment", segment, "kind", string(d.Kind), "subject", d.Subject.String(), "drift", d.Message)
	}
	if len(stops) == 0 {
		return nil
	}
	for _, d := range stops {
		h.log.ErrorContext(ctx, "drift: refused to write", "segment", segment, "kind", string(d.Kind), "subject", d.Subject.String(), "drift", d.Message)
	}
	return ld.BackfillErr(lock)
}

// Handle rewrites the task's segment from where it stands, page by page,
// until the segment ends or the invocation's time runs short, and returns
// the task updated. It first checks the table against the lock
// (checkDrift) and writes nothing on drift in its way. An error (the table unreachable after every retry)
// makes Step Functions retry the task from the same place: work done is
// not lost, only done again, and the rekey engine is idempotent.
func (h *handler) Handle(ctx context.Context, task patterns.BackfillTask) (patterns.BackfillTask, error) {
	if task.Segments < 1 || task.Segment < 0 || task.Segment >= task.Segments {
		return task, fmt.Errorf("segment %d of %d: expected 0 ≤ segment < segments", task.Segment, task.Segments)
	}
	if err := h.checkDrift(ctx, h.lock, task.Segment); err != nil {
		return task, err
	}
	lock := h.lock
	if lock.Migration == nil && lock.Cleanup != nil {
		var err error
		if lock, err = h.cleanup(ctx, task); err != nil {
			return task, err
		}
	}
	r, err := migrate.NewRekeyer(lock, h.client, h.table)
	if errors.Is(err, migrate.ErrNoMigration) {
		return task, errors.New("the lock the function carries has no migration in progress and no cleanup pending: redeploy after keyplan lock")
	}
	if err != nil {
		return task, err
	}
	if h.maxWCU > 0 {
		r.Wait = migrate.RateLimiter(h.maxWCU)
	}
	margin := h.margin
	if dl, ok := ctx.Deadline(); ok && margin == 0 {
		margin = min(time.Minute, time.Until(dl)/5)
	}
	more := func(map[string]types.AttributeValue) bool {
		dl, ok := ctx.Deadline()
		return !ok || time.Until(dl) > margin
	}
	next, failed, err := r.Segment(ctx, h.client, task.Segment, task.Segments, migrate.ResumeKey(task.Next), 0, more)
	s := r.Snapshot()
	for _, f := range failed {
		h.log.ErrorContext(ctx, "item not rewritten", "segment", task.Segment, "error", f.Error())
	}
	if err != nil {
		h.log.ErrorContext(ctx, "stopped", "segment", task.Segment, "scanned", s.Scanned, "error", err.Error())
		return task, err
	}
	if task.Next, err = migrate.ResumeJSON(next); err != nil {
		return task, err
	}
	task.Done = next == nil
	task.Scanned += s.Scanned
	task.Rewritten += s.Rewritten
	task.Failed += s.Failed
	h.log.InfoContext(ctx, "stretch done", "segment", task.Segment, "segments", task.Segments, "done", task.Done,
		"scanned", s.Scanned, "rewritten", s.Rewritten, "failed", s.Failed, "conflicts", s.Conflicts)
	return task, nil
}

// CleanupDeployer names the construct's cleanup job in the table's record
// of the deploy (migrate.MarkDeployed).
const CleanupDeployer = "the singletable construct's cleanup job"

// cleanup is the lock the cleanup runs as (migrate.CleanupLock). The job
// is synthesized only from the lock that ended the migration, so it runs
// only once that lock is deployed: at a segment's first stretch the
// table is checked to have the accepted design's GSIs (the final deploy
// deleted the migration's old ones) and the deploy is recorded in the
// table, which keyplan migrate --verify and a later keyplan migrate read
// (migrate.CheckDeployed).
func (h *handler) cleanup(ctx context.Context, task patterns.BackfillTask) (*patterns.Lock, error) {
	cl, err := migrate.CleanupLock(h.lock)
	if err != nil || task.Next != nil || task.Scanned > 0 {
		return cl, err
	}
	if _, err := dynamo.PhaseReady(ctx, h.client, h.table, cl, dynamo.PhaseOptions{}); err != nil {
		return nil, fmt.Errorf("the cleanup: %s is not at the lock's design: %w", h.table, err)
	}
	if err := migrate.MarkDeployed(ctx, h.client, h.lock, h.table, CleanupDeployer); err != nil {
		return nil, err
	}
	return cl, nil
}
