package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/migrate"
	"github.com/keyplan/keyplan/patterns/model"
)

// notesV1 is keyed synthetic: the cleanup here is a renamed attribute's,
// and it runs on every engine (dynalite and DynamoDB Local 1.25.1 have
// no multi-attribute GSI keys).
const notesV1 = testmodel.NotesSynthetic

// finished is a table of n notes whose migration (subject renamed title)
// has run every phase: the lock is the one that ends it, its cleanup
// pending (every note still holds subject).
func finished(t *testing.T, n int) (*patterns.Lock, string) {
	t.Helper()
	ctx := context.Background()
	plan := func(src string, lock *patterns.Lock) *patterns.Design {
		m, err := model.Parse("notes.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		d, err := patterns.PlanLocked(m, lock)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	lock := patterns.NewLock(plan(notesV1, nil))
	c := streamtest.Client(engine.Endpoint, 0).Client
	name := fmt.Sprintf("cleanup-%d", time.Now().UnixNano())
	if err := dynamo.CreateLockTable(ctx, c, lock, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	v1 := dynamo.New(lock.Accepted, nil, name)
	var all []map[string]types.AttributeValue
	for i := range n {
		items, err := v1.Items("Note", dynamo.Values{"noteId": fmt.Sprintf("n%d", i), "ownerId": fmt.Sprintf("o%d", i%7),
			"subject": fmt.Sprintf("subject %d", i), "createdAt": "2026-03-01T09:00:00Z"})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, items...)
	}
	if err := dynamo.BatchPut(ctx, c, name, all); err != nil {
		t.Fatal(err)
	}
	d2 := plan(strings.Replace(notesV1, "subject: {type: string, maxLength: 200}", "title: {type: string, maxLength: 200, renamedFrom: subject}", 1), lock)
	if err := lock.Apply(d2, patterns.Compare(lock, d2)); err != nil || lock.Migration == nil {
		t.Fatalf("the rename starts no migration: %v", err)
	}
	if _, err := migrate.Migrate(ctx, c, name, lock, migrate.MigrateOptions{Apply: true}); err != nil {
		t.Fatal(err)
	}
	if lock.Migration != nil || lock.Cleanup == nil || fmt.Sprint(lock.Cleanup.Remove["Note"]) != "[subject]" {
		t.Fatalf("after the migration: migration %v, cleanup %+v", lock.Migration, lock.Cleanup)
	}
	if got := holding(t, name, "subject"); got != n {
		t.Fatalf("%d of %d notes hold subject before the cleanup", got, n)
	}
	return lock, name
}

// holding counts the items of the table that hold attr.
func holding(t *testing.T, name, attr string) int {
	t.Helper()
	c := streamtest.Client(engine.Endpoint, 0).Client
	n := 0
	var next map[string]types.AttributeValue
	for {
		page, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(name), ExclusiveStartKey: next})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if _, ok := it[attr]; ok {
				n++
			}
		}
		if next = page.LastEvaluatedKey; len(next) == 0 {
			return n
		}
	}
}

// The worker of the job the construct deploys with the lock that ends a
// migration runs its cleanup, as keyplan migrate does: invoked as the
// state machine invokes it (stretches cut short by their deadline), it
// removes the renamed attribute's old name from every item, records the
// deploy in the table, and keyplan migrate --verify then proves the table
// clean and drops the cleanup from the lock. On a table not at the
// lock's design (the deploy has not happened: a GSI the final design
// does not have is still there) it refuses, writing nothing.
func TestWorkerRunsTheCleanup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lock, name := finished(t, 600)
	c := streamtest.Client(engine.Endpoint, 0).Client
	h := &handler{lock: lock, client: c, table: name, log: quiet, margin: 150 * time.Millisecond}
	if err := migrate.CheckDeployed(ctx, c, lock, name); !errors.Is(err, migrate.ErrNotDeployed) {
		t.Fatalf("the deploy is recorded before the job ran: %v", err)
	}
	if _, err := migrate.Migrate(ctx, c, name, lock, migrate.MigrateOptions{Verify: true}); !errors.Is(err, migrate.ErrNotDeployed) {
		t.Fatalf("keyplan migrate --verify before the job: %v", err)
	}
	if enginepkg.Lacks(engine.Name, enginepkg.OnlineIndexes) == "" {
		ixs, _ := lock.Deployed()
		extra := append(append([]*patterns.PhaseIndex{}, ixs...), &patterns.PhaseIndex{Name: "GSI9", PK: "GSI9PK", SK: "GSI9SK", Projection: patterns.ProjectKeysOnly})
		if err := dynamo.ApplyIndexes(ctx, c, name, extra); err != nil {
			t.Fatal(err)
		}
		_, err := h.Handle(ctx, patterns.BackfillTask{Segment: 0, Segments: 1})
		if err == nil || !strings.Contains(err.Error(), "GSI9 still exists") {
			t.Errorf("the cleanup on a table with a GSI the design does not have: %v", err)
		}
		if got := holding(t, name, "subject"); got != 600 {
			t.Errorf("a refused cleanup removed subject from %d note(s)", 600-got)
		}
		if err := migrate.CheckDeployed(ctx, c, lock, name); !errors.Is(err, migrate.ErrNotDeployed) {
			t.Errorf("a refused cleanup recorded the deploy: %v", err)
		}
		if err := dynamo.ApplyIndexes(ctx, c, name, ixs); err != nil {
			t.Fatal(err)
		}
	}
	tasks := run(t, h, 3, 250*time.Millisecond)
	var rewritten, failed int64
	for _, task := range tasks {
		rewritten, failed = rewritten+task.Rewritten, failed+task.Failed
	}
	// A stretch cut short by its deadline returns an error and its
	// rewrites are not counted (the retry finds those items right): the
	// items themselves are the proof.
	if failed != 0 || rewritten == 0 || rewritten > 600 {
		t.Errorf("the cleanup rewrote %d note(s), failed %d; want 1 to 600, 0", rewritten, failed)
	}
	if got := holding(t, name, "subject"); got != 0 {
		t.Errorf("%d note(s) still hold subject after the job", got)
	}
	if got := holding(t, name, "title"); got != 600 {
		t.Errorf("%d note(s) hold title after the job, want 600", got)
	}
	if _, err := migrate.Migrate(ctx, c, name, lock, migrate.MigrateOptions{Verify: true}); err != nil || lock.Cleanup != nil {
		t.Errorf("keyplan migrate --verify after the job: %v, cleanup %+v", err, lock.Cleanup)
	}
}
