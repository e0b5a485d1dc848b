package migrate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/faults"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// stoppedRun backfills mg's table through a client that stops after
// pages Scan pages, leaving its checkpoint at cp.
func stoppedRun(t *testing.T, mg *migration, cp string, pages int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sa := &stopAfter{BackfillClient: engine, cancel: cancel}
	sa.n.Store(pages)
	r, err := NewRekeyer(mg.lock, engine, mg.table)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Backfill(ctx, sa, BackfillOptions{Segments: 3, PageSize: 40, Checkpoint: cp}); err == nil {
		t.Fatal("the stopped run reports no error")
	}
	if _, err := os.Stat(cp); err != nil {
		t.Fatalf("no checkpoint after the stopped run: %v", err)
	}
}

// A checkpoint names the table it belongs to: resumed against a table of
// the same name created again (its items not backfilled), or reached at
// another endpoint, it is refused, and nothing is written.
func TestCheckpointOfAnotherTableIsRefused(t *testing.T) {
	ctx := context.Background()
	mg := newMigration(t, 600)
	cp := filepath.Join(t.TempDir(), "backfill.json")
	stoppedRun(t, mg, cp, 7)

	// The same name, another table.
	if _, err := engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(mg.table)}); err != nil {
		t.Fatal(err)
	}
	again := reload(t, mg)
	r, _ := NewRekeyer(mg.lock, engine, mg.table)
	res, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 3, PageSize: 40, Checkpoint: cp})
	if err == nil || !strings.Contains(err.Error(), "another table") {
		t.Errorf("resumed against a table created again: %v (stats %+v)", err, res)
	}
	if got := evolvetest.ScanAll(t, engine, mg.table); !sameItems(again, got) {
		t.Error("the refused run wrote to the table")
	}

	// Another server's table of the same name.
	wd, _ := os.Getwd()
	srv, err := enginepkg.Start(enginepkg.Memory, wd)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	other := enginepkg.Client(srv.Endpoint, 0) // with the key the served engine accepts
	if err := dynamo.CreateLockTable(ctx, other, mg.lock, mg.table); err != nil {
		t.Fatal(err)
	}
	var items []map[string]types.AttributeValue
	for _, it := range again {
		items = append(items, it)
	}
	if err := dynamo.BatchPut(ctx, other, mg.table, items); err != nil {
		t.Fatal(err)
	}
	cp2 := filepath.Join(t.TempDir(), "backfill.json")
	stoppedRun(t, mg, cp2, 7)
	r, _ = NewRekeyer(mg.lock, other, mg.table)
	if _, err := r.Backfill(ctx, other, BackfillOptions{Segments: 3, PageSize: 40, Checkpoint: cp2}); err == nil || !strings.Contains(err.Error(), "another table") {
		t.Errorf("resumed on another server: %v", err)
	}
	if got := evolvetest.ScanAll(t, other, mg.table); !sameItems(again, got) {
		t.Error("the refused run wrote to the other server's table")
	}
	// The same table reached through another URL is the same table: it
	// resumes.
	proxy, err := faults.New(engineEndpoint, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	via := dynamodb.New(engine.Options(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(proxy.URL) }) // the engine's key
	r, _ = NewRekeyer(mg.lock, via, mg.table)
	if res, err := r.Backfill(ctx, via, BackfillOptions{Segments: 3, PageSize: 40, Checkpoint: cp2}); err != nil || !res.Resumed || !res.Verify.Verified {
		t.Errorf("resumed through a proxy to the same table: %v, %+v", err, res)
	}
}

// reload creates mg's table again under its name, with the same items as
// the accepted design writes them; it returns them.
func reload(t *testing.T, mg *migration) map[string]map[string]types.AttributeValue {
	t.Helper()
	fresh := newMigration(t, 600)
	ctx := context.Background()
	if err := dynamo.CreateLockTable(ctx, engine, mg.lock, mg.table); err != nil {
		t.Fatal(err)
	}
	all := evolvetest.ScanAll(t, engine, fresh.table)
	var items []map[string]types.AttributeValue
	for _, it := range all {
		items = append(items, it)
	}
	if err := dynamo.BatchPut(ctx, engine, mg.table, items); err != nil {
		t.Fatal(err)
	}
	return all
}

func sameItems(a, b map[string]map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y := b[k]
		if len(x) != len(y) {
			return false
		}
		for n, v := range x {
			if !dynamo.SameValue(v, y[n]) {
				return false
			}
		}
	}
	return true
}

// A hand-made checkpoint that marks every segment done advances
// nothing: the run rewrites nothing, and the verifying scan that follows
// finds every item of the phase still to rewrite, so the phase is not
// verified (and the checkpoint is gone: the next run backfills).
func TestForgedCheckpointAdvancesNothing(t *testing.T) {
	ctx := context.Background()
	mg := newMigration(t, 600)
	cp := filepath.Join(t.TempDir(), "backfill.json")
	id, err := Identify(ctx, engine, mg.lock.Accepted, mg.table)
	if err != nil {
		t.Fatal(err)
	}
	digest, _ := LockDigest(mg.lock)
	forged := &Checkpoint{Format: CheckpointFormat, Table: mg.table, Identity: id, Lock: digest, Segments: 3,
		Next: make([]map[string]string, 3), Done: []bool{true, true, true}}
	if err := forged.write(cp); err != nil {
		t.Fatal(err)
	}
	before := evolvetest.ScanAll(t, engine, mg.table)

	r, _ := NewRekeyer(mg.lock, engine, mg.table)
	res, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 3, PageSize: 40, Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, it := range before {
		if rw, _ := r.Plan(it); rw != nil {
			pending++
		}
	}
	if pending < 300 {
		t.Fatalf("only %d items to rewrite before the run: the test proves nothing", pending)
	}
	if res.Stats.Pending != int64(pending) || res.Verify == nil || res.Verify.Verified {
		t.Errorf("after the forged checkpoint: pending %d (want %d), verify %+v", res.Stats.Pending, pending, res.Verify)
	}
	if n, err := VerifiedPhases(ctx, engine, mg.lock, mg.table); err != nil || n != 0 {
		t.Errorf("the table records %d verified phase(s) (%v)", n, err)
	}
	if _, err := os.Stat(cp); !os.IsNotExist(err) {
		t.Error("the forged checkpoint is kept: the next run would skip the backfill again")
	}
	// The next run does the work, and verifies it.
	r, _ = NewRekeyer(mg.lock, engine, mg.table)
	res, err = r.Backfill(ctx, engine, BackfillOptions{Segments: 3, PageSize: 40, Checkpoint: cp})
	if err != nil || res.Stats.Rewritten != int64(pending) || !res.Verify.Verified || res.Stats.Pending != 0 {
		t.Fatalf("the next run: %v, %+v, verify %+v", err, res.Stats, res.Verify)
	}
	if n, err := VerifiedPhases(ctx, engine, mg.lock, mg.table); err != nil || n != 1 {
		t.Errorf("the table records %d verified phase(s) (%v), want 1", n, err)
	}
	checkTarget(t, mg.lock, evolvetest.ScanAll(t, engine, mg.table))
}

// The verifying scan resumes where it stopped (its progress is in the
// table), counting each item once, and is paced by its read limiter.
func TestVerifyResumesAndIsRateLimited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mg := newMigration(t, 900)
	r, _ := NewRekeyer(mg.lock, engine, mg.table)
	if _, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 2}); err != nil {
		t.Fatal(err)
	}
	stop, cancel := context.WithCancel(ctx)
	sa := &stopAfter{BackfillClient: engine, cancel: cancel}
	sa.n.Store(5)
	v, _ := NewRekeyer(mg.lock, engine, mg.table)
	if res, err := v.Verify(stop, sa, VerifyOptions{Segments: 3, PageSize: 50}); err == nil || res.Verified {
		t.Fatalf("the stopped verification: %v, %+v", err, res)
	}
	var units atomic.Int64
	v, _ = NewRekeyer(mg.lock, engine, mg.table)
	v.ReadWait = func(ctx context.Context, u float64) error {
		units.Add(int64(u * 1000))
		return nil
	}
	pages := &countScans{BackfillClient: engine}
	res, err := v.Verify(ctx, pages, VerifyOptions{Segments: 3, PageSize: 50})
	if err != nil || !res.Verified || !res.Resumed {
		t.Fatalf("the resumed verification: %v, %+v", err, res)
	}
	if res.Scanned != int64(mg.items) {
		t.Errorf("verified %d items, the table has %d (each counted once)", res.Scanned, mg.items)
	}
	if full := int64(mg.items/50 + 3); pages.n.Load() >= full {
		t.Errorf("the resumed run read %d pages, a full scan %d: it started over", pages.n.Load(), full)
	}
	if units.Load() == 0 {
		t.Error("the read limiter was never asked")
	}
	// Complete, it starts over the next time.
	v, _ = NewRekeyer(mg.lock, engine, mg.table)
	res, err = v.Verify(ctx, engine, VerifyOptions{Segments: 3, PageSize: 50})
	if err != nil || res.Resumed || res.Scanned != int64(mg.items) {
		t.Errorf("after a complete verification: %v, %+v", err, res)
	}
}

type countScans struct {
	BackfillClient
	n atomic.Int64
}

func (c *countScans) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	c.n.Add(1)
	return c.BackfillClient.Scan(ctx, in, opts...)
}

// The checkpoint is written without following a symbolic link someone
// planted at the name a temporary file used to have.
func TestCheckpointWriteFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	cp := filepath.Join(dir, "backfill.json")
	if err := os.Symlink(victim, filepath.Join(dir, ".backfill.json.tmp")); err != nil {
		t.Fatal(err)
	}
	mg := newMigration(t, 300)
	stoppedRun(t, mg, cp, 7)
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the file behind the planted link now holds %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, ".backfill.json.tmp")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted link: %v, %v", fi, err)
	}
	if _, err := ReadCheckpoint(cp); err != nil {
		t.Error(err)
	}
	// A link at the checkpoint's own name is replaced, not followed.
	os.Remove(cp)
	os.Symlink(victim, cp)
	stoppedRun(t, newMigration(t, 300), cp, 7)
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the file behind a link at the checkpoint's name now holds %q", b)
	}
}

// A table that holds another model's items, or that keyplan stamped for
// another model, is refused before anything is written to it; the
// model's own table and an empty one pass.
func TestCheckTableOf(t *testing.T) {
	ctx := context.Background()
	mg := newMigration(t, 50)
	if err := CheckTableOf(ctx, engine, mg.lock, mg.table); err != nil {
		t.Errorf("the shop's own table: %v", err)
	}
	desk := design(t, ticketsModel)
	other := fresh(t, desk)
	if err := CheckTableOf(ctx, engine, mg.lock, other.Name()); err != nil {
		t.Errorf("an empty table: %v", err)
	}
	for i := range 30 {
		if err := other.Write(ctx, "OpenTicket", dynamo.Params(ticket(fmt.Sprintf("t%d", i), "ann", "OPEN", 3))); err != nil {
			t.Fatal(err)
		}
	}
	err := CheckTableOf(ctx, engine, mg.lock, other.Name())
	if !errors.Is(err, ErrOtherTable) || !strings.Contains(err.Error(), "none of the 30 item(s)") {
		t.Errorf("the desk's table as the shop's: %v", err)
	}
	// Stamped by a migration of the desk: refused however it looks.
	if _, err := Identify(ctx, engine, desk, mg.table); err != nil {
		t.Fatal(err)
	}
	if err := CheckTableOf(ctx, engine, mg.lock, mg.table); !errors.Is(err, ErrOtherTable) || !strings.Contains(err.Error(), "the table of Desk") {
		t.Errorf("a table stamped for the desk: %v", err)
	}
	if _, err := Identify(ctx, engine, mg.lock.Accepted, mg.table); !errors.Is(err, ErrOtherTable) {
		t.Errorf("Identify of a table stamped for the desk: %v", err)
	}
}
