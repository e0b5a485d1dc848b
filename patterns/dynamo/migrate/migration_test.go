package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// These tests race the application's writes (through the rollout
// runtime, or as a writer that knows only the target design) against a
// migration's backfill, each at the moment that used to lose data.

// startMigration locks the model v1 as deployed, then plans v2 with that
// lock and starts the migration; it returns the lock at phase 1. Both
// are keyed synthetic: these tests race backfills, and a new native key
// over attributes the items hold has none (KP615).
func startMigration(t testing.TB, v1, v2 string) *patterns.Lock {
	t.Helper()
	v1, v2 = "indexKeys: synthetic\n"+v1, "indexKeys: synthetic\n"+v2
	m1, err := model.Parse("v1.yaml", []byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	d1, err := patterns.Plan(m1)
	if err != nil {
		t.Fatal(err)
	}
	if errs := d1.Errors(); len(errs) > 0 {
		t.Fatalf("v1: %v", errs)
	}
	return startMigrationFrom(t, patterns.NewLock(d1), v2)
}

// startMigrationFrom starts the migration from lock's accepted design
// (no migration pending) to the model next (its text as given).
func startMigrationFrom(t testing.TB, lock *patterns.Lock, next string) *patterns.Lock {
	t.Helper()
	m, err := model.Parse("v2.yaml", []byte(next))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.PlanLocked(m, lock)
	if err != nil {
		t.Fatal(err)
	}
	df := patterns.Compare(lock, d)
	if err := lock.Apply(d, df); err != nil || lock.Migration == nil {
		t.Fatalf("starting the migration: %v (changes %+v)", err, df.Changes)
	}
	return lock
}

// phaseTable creates a table as the lock's current phase deploys it and
// loads items written by the accepted design (as before the migration).
func phaseTable(t testing.TB, lock *patterns.Lock, items map[string][]dynamo.Values) string {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("t%d-%s", tables.Add(1), lock.Table)
	if err := dynamo.CreateLockTable(ctx, engine, lock, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	v1 := dynamo.New(lock.Accepted, nil, name)
	var all []map[string]types.AttributeValue
	for _, entity := range slices.Sorted(func(yield func(string) bool) {
		for k := range items {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, v := range items[entity] {
			its, err := v1.Items(entity, v)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, its...)
		}
	}
	if err := dynamo.BatchPut(ctx, engine, name, all); err != nil {
		t.Fatal(err)
	}
	return name
}

// backfillPhase runs the current phase's backfill to its end.
func backfillPhase(t testing.TB, lock *patterns.Lock, c BackfillClient, table string) *BackfillResult {
	t.Helper()
	r, err := NewRekeyer(lock, c, table)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Backfill(context.Background(), c, BackfillOptions{Segments: 2, PageSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Failed > 0 {
		t.Fatalf("%d item(s) failed: %v", res.Stats.Failed, res.Failed)
	}
	return res
}

// ids reads a pattern and lists the values of attr of what it returns.
func ids(t testing.TB, tbl *dynamo.Table, pattern string, params dynamo.Params, attr string) []string {
	t.Helper()
	page, err := tbl.Read(context.Background(), pattern, dynamo.Request{Params: params})
	if err != nil {
		t.Fatalf("%s %v: %v", pattern, params, err)
	}
	var out []string
	for _, it := range page.Items {
		out = append(out, fmt.Sprint(it.Values[attr]))
	}
	slices.Sort(out)
	return out
}

const helpV1 = testmodel.HelpTickets

func helpTicket(id, customer string) dynamo.Values {
	return dynamo.Values{"ticketId": id, "customerId": customer, "subject": "printer on fire " + id, "status": "OPEN", "openedAt": "2026-03-01T09:00:00Z"}
}

// An update and a replace through the rollout runtime keep the accepted
// design's keys right, not only the target's: the projection change
// moves CustomerTickets to a new GSI, and until its backfill is done the
// pattern reads the old one, which must list a moved ticket under its
// new customer, not its old.
func TestRolloutUpdateKeepsTheAcceptedKeys(t *testing.T) {
	ctx := context.Background()
	v2 := replaceOnce(t, helpV1, "returns: [subject]}", "returns: [subject, status]}")
	lock := startMigration(t, helpV1, v2)
	if got := lock.Migration.Phases[0].Create; !slices.Equal(got, []string{"GSI2"}) {
		t.Fatalf("phase 1 creates %v, want GSI2 (a new projection is a new index)", got)
	}
	var tickets []dynamo.Values
	for i := range 6 {
		tickets = append(tickets, helpTicket(fmt.Sprintf("t%d", i), "alice"))
	}
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Ticket": tickets})
	rt := dynamo.NewRollout(lock, client, name)
	if lock.Migration == nil || lock.ReadsTarget("CustomerTickets") {
		t.Fatal("CustomerTickets should read the accepted design's GSI1 during phase 1")
	}
	// Moved three ways: Update, Replace, the Move write pattern.
	if err := rt.Update(ctx, "Ticket", dynamo.Values{"ticketId": "t0"}, dynamo.Changes{Set: dynamo.Values{"customerId": "bob"}, With: dynamo.Values{"openedAt": "2026-03-01T09:00:00Z"}, Version: 1}); err != nil {
		t.Fatal(err)
	}
	old := with(tickets[1], "revision", 1)
	if err := rt.Replace(ctx, "Ticket", old, with(old, "customerId", "bob")); err != nil {
		t.Fatal(err)
	}
	if err := rt.Write(ctx, "Move", dynamo.Params{"ticketId": "t2", "customerId": "bob", "openedAt": "2026-03-01T09:00:00Z", "revision": 1}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if got := ids(t, rt, "CustomerTickets", dynamo.Params{"customerId": "bob"}, "ticketId"); !slices.Equal(got, []string{"t0", "t1", "t2"}) {
			t.Errorf("%s: bob's tickets %v, want [t0 t1 t2]", when, got)
		}
		page, err := rt.Read(ctx, "CustomerTickets", dynamo.Request{Params: dynamo.Params{"customerId": "alice"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range page.Items {
			got = append(got, fmt.Sprint(it.Values["ticketId"]))
			if it.Values["customerId"] != "alice" {
				t.Errorf("%s: alice's list holds %s of customer %v", when, it.Values["ticketId"], it.Values["customerId"])
			}
			// The target returns status too, which GSI1 does not hold:
			// read through it, each item's rest comes from the table.
			if it.Values["status"] != "OPEN" {
				t.Errorf("%s: %s returned without its status (%v)", when, it.Values["ticketId"], it.Values)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, []string{"t3", "t4", "t5"}) {
			t.Errorf("%s: alice's tickets %v, want [t3 t4 t5]", when, got)
		}
	}
	check("before the backfill")
	backfillPhase(t, lock, engine, name)
	check("after the backfill")
	// Phase 2 drops GSI1; the target's reads list the same.
	if err := lock.Advance(); err != nil {
		t.Fatal(err)
	}
	if err := dynamo.ApplyIndexes(ctx, engine, name, lock.Migration.Phases[1].Indexes); err != nil {
		if why := enginepkg.Lacks(engineName, enginepkg.OnlineIndexes); why != "" {
			t.Skipf("%s: phase 2's GSI1 cannot be deleted from the live table (%v)", why, err)
		}
		t.Fatal(err)
	}
	rt = dynamo.NewRollout(lock, client, name)
	check("at phase 2")
}

func replaceOnce(t testing.TB, s, old, new string) string {
	t.Helper()
	i := indexOf(s, old)
	if i < 0 {
		t.Fatalf("%q is not in the model", old)
	}
	return s[:i] + new + s[i+len(old):]
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

const renameV1 = testmodel.NotesToRename

// renameV2 renames three attributes (one optional, one a number).
var renameV2 = testmodel.NotesRenamed

// A rename keeps the application's writes made during the migration:
// the backfill never copies the old attribute over a newer value of the
// new one, whoever wrote it (the rollout runtime, or a writer that knows
// only the target design), and a removed optional value does not come
// back from its old name.
func TestRenameKeepsWritesDuringTheMigration(t *testing.T) {
	ctx := context.Background()
	lock := startMigration(t, renameV1, renameV2)
	var notes []dynamo.Values
	for i := range 8 {
		notes = append(notes, dynamo.Values{"noteId": fmt.Sprintf("n%d", i), "ownerId": "ann", "subject": fmt.Sprintf("old %d", i), "memo": "memo", "score": 10})
	}
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Note": notes})
	rt := dynamo.NewRollout(lock, client, name)
	key := func(id string) dynamo.Values { return dynamo.Values{"noteId": id} }
	// n0: a Set through the rollout runtime.
	if err := rt.Update(ctx, "Note", key("n0"), dynamo.Changes{Set: dynamo.Values{"title": "new 0"}}); err != nil {
		t.Fatal(err)
	}
	// n1: a writer that knows only the target (it sets title alone).
	tgt := dynamo.New(lock.Migration.Target, client, name)
	k1, _ := tgt.Key("Note", key("n1"))
	if _, err := engine.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: k1,
		UpdateExpression:          aws.String("SET title = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: "new 1"}}}); err != nil {
		t.Fatal(err)
	}
	// n2: the optional note removed through the rollout runtime.
	if err := rt.Update(ctx, "Note", key("n2"), dynamo.Changes{Remove: []string{"note"}}); err != nil {
		t.Fatal(err)
	}
	// n3: a Replace through the rollout runtime (conditional on the
	// values read: the item is not backfilled yet).
	old := dynamo.Values{"noteId": "n3", "ownerId": "ann", "title": "old 3", "note": "memo", "points": 10}
	if err := rt.Replace(ctx, "Note", old, with(with(old, "title", "new 3"), "points", 11)); err != nil {
		t.Errorf("Replace of an item not yet backfilled: %v", err)
	}
	// n4: an add to a renamed number is refused while the migration runs
	// (its new name may not hold the value yet), and changes nothing.
	if err := rt.Update(ctx, "Note", key("n4"), dynamo.Changes{Add: dynamo.Values{"points": 5}}); err == nil {
		t.Error("an add to a renamed attribute during the migration is accepted")
	}
	want := map[string]dynamo.Values{
		"n0": {"title": "new 0", "note": "memo", "points": int64(10)},
		"n1": {"title": "new 1", "note": "memo", "points": int64(10)},
		"n2": {"title": "old 2", "points": int64(10)},
		"n3": {"title": "new 3", "note": "memo", "points": int64(11)},
		"n4": {"title": "old 4", "note": "memo", "points": int64(10)},
	}
	check := func(when string, tbl *dynamo.Table, accepted bool) {
		t.Helper()
		page, err := tbl.Read(ctx, "OwnerNotes", dynamo.Request{Params: dynamo.Params{"ownerId": "ann"}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]dynamo.Values{}
		for _, it := range page.Items {
			got[fmt.Sprint(it.Values["noteId"])] = it.Values
		}
		for id, w := range want {
			if id == "n1" && accepted {
				continue // its writer wrote no old name: the accepted design's readers cannot see it
			}
			for _, a := range []string{"title", "note", "points"} {
				if fmt.Sprint(got[id][a]) != fmt.Sprint(w[a]) {
					t.Errorf("%s: %s.%s = %v, want %v", when, id, a, got[id][a], w[a])
				}
			}
		}
	}
	check("during the migration, read through the accepted design", rt, true)
	backfillPhase(t, lock, engine, name)
	check("after the backfill", rt, true)
	for id, w := range want {
		k, _ := tgt.Key("Note", key(id))
		it := raw(t, tgt, k)
		if s, _ := it["title"].(*types.AttributeValueMemberS); s == nil || s.Value != w["title"] {
			t.Errorf("after the backfill %s.title is stored as %#v, want %v", id, it["title"], w["title"])
		}
		if _, has := it["note"]; has != (w["note"] != nil) {
			t.Errorf("after the backfill %s.note is %v, want %v", id, it["note"], w["note"])
		}
	}
	for lock.Migration != nil {
		if err := lock.Advance(); err != nil {
			t.Fatal(err)
		}
	}
	check("after the migration", dynamo.New(lock.Accepted, client, name), false)
	// After it, a removal is a removal: the old name does not answer for
	// the new one.
	done := dynamo.New(lock.Accepted, client, name)
	if err := done.Update(ctx, "Note", key("n5"), dynamo.Changes{Remove: []string{"note"}}); err != nil {
		t.Fatal(err)
	}
	if it, err := done.Get(ctx, "GetNote", dynamo.Params{"noteId": "n5"}); err != nil || it.Values["note"] != nil {
		t.Errorf("n5 after its note was removed: %v, %v", it, err)
	}
}

const deviceV1 = `
table: Fleet
entities:
  Device:
    id: [deviceId]
    attributes:
      deviceId: {type: string, maxLength: 40}
      region: {type: string, values: [na, eu, apac], immutable: true}
      name: {type: string, maxLength: 100}
patterns:
  GetDevice: {get: Device}
`

// interleave runs a write between the rekeyer's read of an item and its
// UpdateItem, once.
type interleave struct {
	BackfillClient
	done  atomic.Bool
	write func()
}

func (c *interleave) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if !c.done.Swap(true) {
		c.write()
	}
	return c.BackfillClient.UpdateItem(ctx, in, opts...)
}

// The rekeyer writes nothing from what it read once the item changed an
// attribute it never expects to change (an immutable one, out of the base
// key): a delete and create, or a Put, between its Scan and its
// UpdateItem does not get the old key written back.
func TestRekeyerHoldsAgainstImmutableChanges(t *testing.T) {
	ctx := context.Background()
	v2 := deviceV1 + "  DevicesByRegion: {query: Device, where: [region]}\n"
	for _, how := range []string{"delete and create", "put", "an old writer's delete and create"} {
		t.Run(how, func(t *testing.T) {
			lock := startMigration(t, deviceV1, v2)
			dev := dynamo.Values{"deviceId": "d1", "region": "na", "name": "pump"}
			name := phaseTable(t, lock, map[string][]dynamo.Values{"Device": {dev}})
			rt := dynamo.NewRollout(lock, client, name)
			moved := with(dev, "region", "eu")
			c := &interleave{BackfillClient: engine, write: func() {
				if how == "an old writer's delete and create" {
					// It writes no key of the new index: only the
					// attributes can tell the item changed.
					v1 := dynamo.New(lock.Accepted, client, name)
					if err := v1.Delete(ctx, "Device", dev); err != nil {
						t.Error(err)
					}
					if err := v1.Create(ctx, "Device", moved); err != nil {
						t.Error(err)
					}
					return
				}
				if how == "put" {
					if err := rt.Put(ctx, "Device", moved); err != nil {
						t.Error(err)
					}
					return
				}
				if err := rt.Delete(ctx, "Device", dev); err != nil {
					t.Error(err)
				}
				if err := rt.Create(ctx, "Device", moved); err != nil {
					t.Error(err)
				}
			}}
			backfillPhase(t, lock, c, name)
			if !c.done.Load() {
				t.Fatal("the backfill made no UpdateItem: the test proves nothing")
			}
			if err := lock.Advance(); err != nil || lock.Migration != nil {
				t.Fatalf("Advance: %v", err)
			}
			done := dynamo.New(lock.Accepted, client, name)
			if got := ids(t, done, "DevicesByRegion", dynamo.Params{"region": "na"}, "deviceId"); len(got) != 0 {
				t.Errorf("devices in na: %v, want none (d1 moved to eu)", got)
			}
			if got := ids(t, done, "DevicesByRegion", dynamo.Params{"region": "eu"}, "deviceId"); !slices.Equal(got, []string{"d1"}) {
				t.Errorf("devices in eu: %v, want [d1]", got)
			}
		})
	}
}

// A rewrite holds only on the item it was computed from: its condition
// names the keys it replaces, as read (absent ones as absent), besides the
// attributes they are built from.
func TestRewriteIsConditionalOnTheKeysItReplaces(t *testing.T) {
	lock := startMigration(t, deviceV1, deviceV1+"  DevicesByRegion: {query: Device, where: [region]}\n")
	r, err := NewRekeyer(lock, nil, "x")
	if err != nil {
		t.Fatal(err)
	}
	v1 := dynamo.New(lock.Accepted, nil, "x")
	item, err := v1.Item("Device", dynamo.Values{"deviceId": "d1", "region": "na", "name": "pump"})
	if err != nil {
		t.Fatal(err)
	}
	stale := &types.AttributeValueMemberS{Value: "DEVICE#REGION#apac"}
	item["GSI1PK"] = stale
	rw, err := r.Plan(item)
	if err != nil || rw == nil {
		t.Fatalf("Plan: %v, %v", rw, err)
	}
	if got, ok := rw.Sources["GSI1PK"]; !ok || !dynamo.SameValue(got, stale) {
		t.Errorf("the condition on GSI1PK: %v (present %v), want it as read", got, ok)
	}
	if got, ok := rw.Sources["GSI1SK"]; !ok || got != nil {
		t.Errorf("the condition on GSI1SK: %v (present %v), want it absent as read", got, ok)
	}
	if got, ok := rw.Sources["region"]; !ok || !dynamo.SameValue(got, item["region"]) {
		t.Errorf("the condition on region (immutable, out of the base key): %v (present %v)", got, ok)
	}
}

// A renamed version keeps optimistic locking through the migration: an
// update of an item not yet backfilled tests the version under its old
// name, sets it under both, and a stale version is refused.
func TestRenamedVersionDuringTheMigration(t *testing.T) {
	ctx := context.Background()
	v1 := `
table: Docs
entities:
  Doc:
    id: [docId]
    version: rev
    attributes:
      docId: {type: string, maxLength: 40}
      body: {type: string, maxLength: 200}
      rev: {type: number, min: 1}
patterns:
  GetDoc: {get: Doc}
`
	v2 := replaceOnce(t, replaceOnce(t, v1, "version: rev", "version: revision"), "rev: {type: number, min: 1}", "revision: {type: number, min: 1, renamedFrom: rev}")
	lock := startMigration(t, v1, v2)
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Doc": {{"docId": "d1", "body": "one"}, {"docId": "d2", "body": "two"}}})
	rt := dynamo.NewRollout(lock, client, name)
	if err := rt.Update(ctx, "Doc", dynamo.Values{"docId": "d1"}, dynamo.Changes{Set: dynamo.Values{"body": "uno"}, Version: 1}); err != nil {
		t.Fatalf("an update at the version read, not yet backfilled: %v", err)
	}
	if err := rt.Update(ctx, "Doc", dynamo.Values{"docId": "d1"}, dynamo.Changes{Set: dynamo.Values{"body": "stale"}, Version: 1}); !errors.Is(err, dynamo.ErrChanged) {
		t.Errorf("an update at a stale version: %v", err)
	}
	backfillPhase(t, lock, engine, name)
	if err := rt.Update(ctx, "Doc", dynamo.Values{"docId": "d1"}, dynamo.Changes{Set: dynamo.Values{"body": "eins"}, Version: 2}); err != nil {
		t.Fatalf("the next update after the backfill: %v", err)
	}
	for lock.Migration != nil {
		lock.Advance()
	}
	got, err := dynamo.New(lock.Accepted, client, name).Get(ctx, "GetDoc", dynamo.Params{"docId": "d1"})
	if err != nil || got == nil || got.Values["body"] != "eins" || fmt.Sprint(got.Values["revision"]) != "3" {
		t.Errorf("after the migration: %v, %v", got, err)
	}
}

// A widened number whose key is re-encoded in place (the same GSI, a
// wider width): during the backfill that index holds keys of both
// widths, so the accepted plan of the pattern reading it is not used
// (ErrNotReady until the target's is complete), and the new range's
// values are written with the target's keys at once.
func TestWidenedNumberKeyedInPlace(t *testing.T) {
	ctx := context.Background()
	lock := startMigration(t, sizesV1, replaceOnce(t, sizesV1, "max: 9999}", "max: 9999999}"))
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Doc": {{"docId": "d1", "owner": "ann", "size": 12}, {"docId": "d4", "owner": "ann", "size": 4999}}})
	rt := dynamo.NewRollout(lock, client, name)
	if _, err := rt.Read(ctx, "OwnerDocsBySize", dynamo.Request{Params: dynamo.Params{"owner": "ann"}}); !errors.Is(err, dynamo.ErrNotReady) {
		t.Errorf("a read of the index being re-encoded in place, during its backfill: %v, want ErrNotReady", err)
	}
	if err := rt.Create(ctx, "Doc", dynamo.Values{"docId": "d2", "owner": "ann", "size": 5_000_000}); err != nil {
		t.Fatalf("a size of the new range, its key the target's: %v", err)
	}
	migrateAll(t, lock, name)
	done := dynamo.New(lock.Accepted, client, name)
	page, err := done.Read(ctx, "OwnerDocsBySize", dynamo.Request{Params: dynamo.Params{"owner": "ann"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names2(page.Items, "docId"); !slices.Equal(got, []string{"d1", "d4", "d2"}) {
		t.Errorf("OwnerDocsBySize(ann) after the migration: %v, want d1, d4, d2 (by size)", got)
	}
}

const sizesV1 = `
table: Sizes
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 40}
      owner: {type: string, maxLength: 40}
      size: {type: number, min: 0, max: 9999}
patterns:
  GetDoc: {get: Doc}
  OwnerDocsBySize: {query: Doc, where: [owner], sort: size}
`

// A widened number the accepted design's key still holds at its old
// width (the target drops the pattern, and Doc's key leaves GSI1, which
// Note keeps; the accepted design's readers read it until the migration
// is done): a value only the new range allows is refused while the
// migration runs (ErrNotYet, saying why), and written once it is done.
func TestWidenedNumberRefusedUntilDone(t *testing.T) {
	ctx := context.Background()
	v1 := replaceOnce(t, sizesV1, "patterns:\n", `  Note:
    id: [noteId]
    attributes:
      noteId: {type: string, maxLength: 40}
      topic: {type: string, maxLength: 40}
patterns:
  NotesByTopic: {query: Note, where: [topic]}
`)
	v2 := replaceOnce(t, replaceOnce(t, v1, "max: 9999}", "max: 9999999}"), "  OwnerDocsBySize: {query: Doc, where: [owner], sort: size}\n", "")
	lock := startMigration(t, v1, v2)
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Doc": {{"docId": "d1", "owner": "ann", "size": 12}}})
	rt := dynamo.NewRollout(lock, client, name)
	big := dynamo.Values{"docId": "d2", "owner": "ann", "size": 5_000_000}
	err := rt.Create(ctx, "Doc", big)
	if !errors.Is(err, dynamo.ErrNotYet) || !strings.Contains(err.Error(), "until the migration is done") {
		t.Errorf("a size only the new range allows: %v, want ErrNotYet saying why", err)
	}
	if err := rt.Update(ctx, "Doc", dynamo.Values{"docId": "d1"}, dynamo.Changes{Set: dynamo.Values{"size": 6_000_000}, With: dynamo.Values{"owner": "ann"}}); !errors.Is(err, dynamo.ErrNotYet) {
		t.Errorf("an update to a size only the new range allows: %v, want ErrNotYet", err)
	}
	if err := rt.Create(ctx, "Doc", with(big, "size", 9999)); err != nil {
		t.Errorf("a size both ranges allow: %v", err)
	}
	migrateAll(t, lock, name)
	done := dynamo.New(lock.Accepted, client, name)
	if err := done.Create(ctx, "Doc", with(big, "docId", "d3")); err != nil {
		t.Errorf("after the migration: %v", err)
	}
	for _, id := range []string{"d1", "d2", "d3"} {
		if it, err := done.Get(ctx, "GetDoc", dynamo.Params{"docId": id}); err != nil || it == nil {
			t.Errorf("GetDoc(%s): %v, %v", id, it, err)
		}
	}
}

// migrateAll runs every phase of the lock's migration on the table as
// keyplan migrate --apply-indexes does: the phase's indexes, its backfill
// (verified), the lock advanced.
func migrateAll(t testing.TB, lock *patterns.Lock, name string) {
	t.Helper()
	ctx := context.Background()
	for lock.Migration != nil {
		mg := lock.Migration
		phase := mg.Phases[mg.Current]
		if err := dynamo.ApplyIndexes(ctx, engine, name, phase.Indexes); err != nil {
			if why := enginepkg.Lacks(engineName, enginepkg.OnlineIndexes); why != "" {
				t.Skipf("%s: phase %d's GSIs cannot be applied to the live table (%v)", why, mg.Current+1, err)
			}
			t.Fatal(err)
		}
		if len(phase.Backfill) > 0 {
			res := backfillPhase(t, lock, engine, name)
			if !res.Verify.Verified {
				t.Fatalf("phase %d not verified: %+v", mg.Current+1, res.Verify)
			}
		}
		if err := lock.Advance(); err != nil {
			t.Fatal(err)
		}
	}
}

// An entity given two new GSIs at once gets its keys on both: each new
// GSI's phase backfills the entities it holds, not only the first.
func TestTwoNewIndexesOfOneEntityAreBothBackfilled(t *testing.T) {
	v2 := helpV1[:indexOf(helpV1, "writes:")] + "  TicketsByStatus: {query: Ticket, where: [status], sort: openedAt}\n  TicketsBySubject: {query: Ticket, where: [subject]}\n" + helpV1[indexOf(helpV1, "writes:"):]
	lock := startMigration(t, helpV1, v2)
	var created []string
	for _, p := range lock.Migration.Phases {
		created = append(created, p.Create...)
	}
	if len(created) != 2 {
		t.Fatalf("phases %+v: want two GSIs created", lock.Migration.Phases)
	}
	var tickets []dynamo.Values
	for i := range 30 {
		tickets = append(tickets, helpTicket(fmt.Sprintf("t%d", i), "alice"))
	}
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Ticket": tickets})
	migrateAll(t, lock, name)
	done := dynamo.New(lock.Accepted, client, name)
	if got := ids(t, done, "TicketsByStatus", dynamo.Params{"status": "OPEN"}, "ticketId"); len(got) != 30 {
		t.Errorf("TicketsByStatus(OPEN): %d tickets, want 30", len(got))
	}
	for _, tk := range tickets {
		if got := ids(t, done, "TicketsBySubject", dynamo.Params{"subject": tk["subject"]}, "ticketId"); !slices.Equal(got, []string{tk["ticketId"].(string)}) {
			t.Errorf("TicketsBySubject(%s): %v", tk["subject"], got)
		}
	}
}
