package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

// A finished migration's cleanup (keyplan migrate once the lock that
// ended it is deployed) removes what the design before left in the items,
// one test per leftover kind; until it has, an edit that would read the
// leftovers is refused (KP616).

// planEdit plans a model with the lock and compares it (the change rules'
// ids it raises).
func planEdit(t *testing.T, lock *patterns.Lock, model string) (*patterns.Design, *patterns.Diff, []string) {
	t.Helper()
	m, err := kpmodel.Parse("edit.yaml", []byte(model))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.PlanLocked(m, lock)
	if err != nil {
		t.Fatal(err)
	}
	df := patterns.Compare(lock, d)
	var ids []string
	for _, c := range df.Changes {
		ids = append(ids, c.ID)
	}
	return d, df, ids
}

// holding lists the items (by base key) of the table that hold attr.
func holding(t *testing.T, name, attr string) []string {
	t.Helper()
	var out []string
	for k, it := range evolvetest.ScanAll(t, engine, name) {
		if _, ok := it[attr]; ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// cleanup runs the lock's cleanup as keyplan migrate does.
func cleanup(t *testing.T, lock *patterns.Lock, c MigrateClient, name string) *BackfillResult {
	t.Helper()
	if lock.Cleanup == nil {
		t.Fatal("the lock records no cleanup")
	}
	res, err := Migrate(context.Background(), c, name, lock, MigrateOptions{Deployed: true, Backfill: BackfillOptions{Segments: 2, PageSize: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if lock.Cleanup != nil {
		t.Fatal("the cleanup is still recorded after it ran")
	}
	return res
}

// (b) A renamed attribute's old name: gone after the cleanup, the new
// one kept (also where the final runtime rewrote the item meanwhile); a
// new attribute under the old name is refused until then, and then reads
// nothing stale.
func TestCleanupRemovesRenamedAttributesOldNames(t *testing.T) {
	ctx := context.Background()
	lock := startMigration(t, renameV1, renameV2)
	var notes []dynamo.Values
	for i := range 6 {
		notes = append(notes, dynamo.Values{"noteId": fmt.Sprintf("n%d", i), "ownerId": "ann", "subject": fmt.Sprintf("old %d", i), "memo": "memo", "score": 10})
	}
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Note": notes})
	// During the migration the runtime writes both names.
	if err := dynamo.NewRollout(lock, client, name).Update(ctx, "Note", dynamo.Values{"noteId": "n0"}, dynamo.Changes{Set: dynamo.Values{"title": "new 0"}}); err != nil {
		t.Fatal(err)
	}
	migrateAll(t, lock, name)
	if got := holding(t, name, "subject"); len(got) != 6 {
		t.Fatalf("before the cleanup %d item(s) hold subject, want 6 (the leftover this test is about)", len(got))
	}
	withSubject := strings.Replace(renameV2, "      note:", "      subject: {type: string, maxLength: 200, optional: true}\n      note:", 1)
	if _, df, ids := planEdit(t, lock, withSubject); !slices.Contains(ids, "KP616") || len(df.Errors()) == 0 {
		t.Fatalf("a new attribute under a renamed one's old name, cleanup pending: %v", ids)
	}
	// The GSIs are the final lock's already: only the table's record of
	// the deploy lets the cleanup run.
	if _, err := Migrate(ctx, engine, name, lock, MigrateOptions{}); !errors.Is(err, ErrNotDeployed) || lock.Cleanup == nil {
		t.Fatalf("the cleanup with no deploy recorded: %v", err)
	}
	if got := holding(t, name, "subject"); len(got) != 6 {
		t.Fatalf("a refused cleanup removed subject from %d item(s)", 6-len(got))
	}
	// The final runtime rewrites n1 between the cleanup's read and write.
	final := dynamo.New(lock.Accepted, client, name)
	ic := &interleave{BackfillClient: engine, write: func() {
		if err := final.Put(ctx, "Note", dynamo.Values{"noteId": "n1", "ownerId": "ann", "title": "put 1", "points": 3}); err != nil {
			t.Error(err)
		}
	}}
	cleanup(t, lock, struct {
		dynamo.IndexAdmin
		BackfillClient
	}{engine, ic}, name)
	for _, old := range []string{"subject", "memo", "score"} {
		if got := holding(t, name, old); len(got) > 0 {
			t.Errorf("after the cleanup %v still hold %s", got, old)
		}
	}
	want := map[string]string{"n0": "new 0", "n1": "put 1", "n2": "old 2", "n5": "old 5"}
	for id, title := range want {
		got, err := final.Get(ctx, "GetNote", dynamo.Params{"noteId": id})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Values["title"]) != title {
			t.Errorf("%s: title %v, want %s", id, got.Values["title"], title)
		}
	}
	// Now the edit is accepted, and the new attribute is absent.
	d3, df, ids := planEdit(t, lock, withSubject)
	if slices.Contains(ids, "KP616") || len(df.Errors()) > 0 {
		t.Fatalf("the edit after the cleanup: %v", df.Errors())
	}
	if err := lock.Apply(d3, df); err != nil {
		t.Fatal(err)
	}
	got, err := dynamo.New(lock.Latest(), client, name).Get(ctx, "GetNote", dynamo.Params{"noteId": "n3"})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := got.Values["subject"]; ok {
		t.Errorf("a new subject reads the old one: %v", s)
	}
}

const cleanupV1 = "\n" + testmodel.Orders

// cleanupNativeV1 is cleanupV1 keyed natively, with returns that carry
// the orders' status, placedAt and orderId: OrdersByStatus's GSI leads with its
// discriminator (GSInEntity), the one attribute it alone puts on items.
const cleanupNativeV1 = testmodel.OrdersAndReturnsNative

// (a) A deleted GSI's keys: gone after the cleanup; a GSI created again
// under its name is refused until then. Keyed synthetic, its keys are
// GSInPK/GSInSK; keyed natively, only its discriminator: the status and
// placedAt it was keyed by are the orders' own and stay.
func TestCleanupRemovesADeletedIndexesKeys(t *testing.T) {
	t.Run("synthetic", func(t *testing.T) {
		testCleanupOfDeletedIndex(t, strings.Replace(cleanupV1, "table: Shop\n", "table: Shop\nindexKeys: synthetic\n", 1))
	})
	t.Run("native", func(t *testing.T) { testCleanupOfDeletedIndex(t, cleanupNativeV1) })
}

func testCleanupOfDeletedIndex(t *testing.T, v1 string) {
	ctx := context.Background()
	m1, err := kpmodel.Parse("v1.yaml", []byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	d1, err := patterns.Plan(m1)
	if err != nil {
		t.Fatal(err)
	}
	needsNative(t, d1)
	lock := patterns.NewLock(d1)
	var orders []dynamo.Values
	for i := range 5 {
		orders = append(orders, dynamo.Values{"orderId": fmt.Sprintf("o%d", i), "customerId": "c", "status": "open", "placedAt": "2026-03-01T09:00:00Z"})
	}
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Order": orders})
	v2 := strings.Replace(v1, "  OrdersByStatus: {query: Order, where: [status], sort: placedAt}\n", "", 1)
	d2, df, ids := planEdit(t, lock, v2)
	if !slices.Contains(ids, "KP602") {
		t.Fatalf("the edit deletes no GSI: %v", ids)
	}
	if err := lock.Apply(d2, df); err != nil {
		t.Fatal(err)
	}
	migrateAll(t, lock, name)
	var deleted *patterns.Index
	for _, ix := range d1.Indexes {
		if !slices.ContainsFunc(d2.Indexes, func(x *patterns.Index) bool { return x.Name == ix.Name }) {
			deleted = ix
		}
	}
	if deleted == nil {
		t.Fatal("no GSI deleted")
	}
	stored := deleted.StoredKeys()
	var own []string // the orders' own attributes it was keyed by
	for _, a := range deleted.KeyAttributes() {
		if !slices.Contains(stored, a) {
			own = append(own, a)
		}
	}
	if want := map[bool]int{false: 2, true: 1}[deleted.Native()]; len(stored) != want {
		t.Fatalf("%s (native %v) puts %v on the items, want %d attribute(s)", deleted.Name, deleted.Native(), stored, want)
	}
	for _, k := range stored {
		if got := holding(t, name, k); len(got) != 5 {
			t.Fatalf("before the cleanup %d item(s) hold %s, want 5", len(got), k)
		}
	}
	if lock.Cleanup == nil || !slices.Equal(lock.Cleanup.Remove["Order"], stored) {
		t.Fatalf("the lock's cleanup %+v, want it to remove %v from the orders", lock.Cleanup, stored)
	}
	// The pattern back: a new GSI, under the deleted one's name.
	d3, df, ids := planEdit(t, lock, v1)
	if slices.ContainsFunc(d3.Indexes, func(x *patterns.Index) bool { return x.Name == deleted.Name }) {
		if !slices.Contains(ids, "KP616") || len(df.Errors()) == 0 {
			t.Fatalf("a GSI created under %s, whose stale keys are not cleaned up: %v", deleted.Name, ids)
		}
	} else {
		t.Logf("the pattern back is planned on another GSI name: %v", ids)
	}
	if why := enginepkg.Lacks(engineName, enginepkg.OnlineIndexes); why != "" {
		t.Skipf("%s: the deleted GSI cannot be deleted from the live table (proved on the in-process engine and DynamoDB Local)", why)
	}
	// Before the final lock is deployed (the deleted GSI still there),
	// the cleanup is refused, whatever the operator says, and records
	// nothing; once the GSI is gone, the table must still record the
	// deploy.
	_, err = Migrate(ctx, engine, name, lock, MigrateOptions{Deployed: true})
	if _, ok := errors.AsType[*dynamo.NotAtPhaseError](err); !ok || lock.Cleanup == nil {
		t.Fatalf("the cleanup with the deleted GSI still there: %v, pending %v", err, lock.Cleanup != nil)
	}
	if ixs, _ := lock.Deployed(); dynamo.ApplyIndexes(ctx, engine, name, ixs) != nil {
		t.Fatal("deploying the final lock")
	}
	if err := CheckDeployed(ctx, engine, lock, name); !errors.Is(err, ErrNotDeployed) {
		t.Fatalf("a refused cleanup recorded the deploy: %v", err)
	}
	if _, err := Migrate(ctx, engine, name, lock, MigrateOptions{}); !errors.Is(err, ErrNotDeployed) || lock.Cleanup == nil {
		t.Fatalf("the cleanup with no deploy recorded: %v", err)
	}
	for _, k := range stored { // a native GSI's own attributes stay: only what it stored
		if got := holding(t, name, k); len(got) != 5 {
			t.Fatalf("a refused cleanup removed %s from %d item(s)", k, 5-len(got))
		}
	}
	cleanup(t, lock, engine, name)
	for _, k := range stored {
		if got := holding(t, name, k); len(got) > 0 {
			t.Errorf("after the cleanup %v still hold %s", got, k)
		}
	}
	for _, a := range own {
		if got := holding(t, name, a); len(got) != 5 {
			t.Errorf("after the cleanup %d order(s) hold %s, their own attribute, want 5", len(got), a)
		}
	}
	if _, df, ids := planEdit(t, lock, v1); slices.Contains(ids, "KP616") || len(df.Errors()) > 0 {
		t.Errorf("the GSI back after the cleanup: %v", df.Errors())
	}
	if got := ids0(t, dynamo.New(lock.Accepted, client, name), "CustomerOrders", dynamo.Params{"customerId": "c"}); len(got) != 5 {
		t.Errorf("CustomerOrders after the cleanup: %v", got)
	}
}

func ids0(t *testing.T, tbl *dynamo.Table, pattern string, p dynamo.Params) []string {
	attr := map[string]string{"CustomerOrders": "orderId", "CustomerTickets": "ticketId"}[pattern]
	return ids(t, tbl, pattern, p, attr)
}

const cleanupSharedV1 = `
table: Desk
entities:
  Ticket:
    id: [ticketId]
    attributes:
      ticketId: {type: string, maxLength: 40}
      customerId: {type: string, maxLength: 40}
      openedAt: time
  Note:
    id: [noteId]
    attributes:
      noteId: {type: string, maxLength: 40}
      ownerId: {type: string, maxLength: 40}
      at: time
patterns:
  GetTicket: {get: Ticket}
  GetNote: {get: Note}
  CustomerTickets: {query: Ticket, where: [customerId], sort: openedAt}
  OwnerNotes: {query: Note, where: [ownerId], sort: at}
`

// (c) An entity's key on a GSI that stays but no longer serves it: the
// backfill keeps it (the accepted design reads it until the migration
// ends), a write during the migration writes it, the cleanup removes it.
func TestCleanupRemovesKeysOnAnIndexThatNoLongerServesTheEntity(t *testing.T) {
	m1, err := kpmodel.Parse("v1.yaml", []byte(cleanupSharedV1))
	if err != nil {
		t.Fatal(err)
	}
	d1, err := patterns.Plan(m1)
	if err != nil {
		t.Fatal(err)
	}
	var shared *patterns.Index
	for _, ix := range d1.Indexes {
		if slices.Contains(ix.Entities, "Ticket") && slices.Contains(ix.Entities, "Note") {
			shared = ix
		}
	}
	if shared == nil {
		t.Fatalf("the planner puts Ticket and Note on no one GSI: %+v", d1.Indexes)
	}
	v2 := strings.Replace(cleanupSharedV1, "  OwnerNotes: {query: Note, where: [ownerId], sort: at}\n", "", 1)
	lock := patterns.NewLock(d1)
	d2, df, ids := planEdit(t, lock, v2)
	if err := lock.Apply(d2, df); err != nil {
		t.Fatal(err)
	}
	if lock.Migration == nil || !slices.Contains(ids, "KP612") {
		t.Fatalf("changes %v: no migration", ids)
	}
	ctx := context.Background()
	name := phaseTable(t, lock, map[string][]dynamo.Values{
		"Ticket": {{"ticketId": "t1", "customerId": "c", "openedAt": "2026-03-01T09:00:00Z"}},
		"Note":   {{"noteId": "n1", "ownerId": "o", "at": "2026-03-01T09:00:00Z"}, {"noteId": "n2", "ownerId": "o", "at": "2026-03-01T09:00:00Z"}},
	})
	if err := dynamo.ApplyIndexes(ctx, engine, name, lock.Migration.Phases[0].Indexes); err != nil {
		t.Fatal(err)
	}
	backfillPhase(t, lock, engine, name)
	// A write during the migration carries the accepted design's key.
	if err := dynamo.NewRollout(lock, client, name).Put(ctx, "Note", dynamo.Values{"noteId": "n2", "ownerId": "o", "at": "2026-03-02T09:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if err := lock.Advance(); err != nil || lock.Migration != nil {
		t.Fatal(err)
	}
	tk, _ := dynamo.New(lock.Accepted, nil, name).Key("Ticket", dynamo.Values{"ticketId": "t1"})
	tkey := fmt.Sprint(tk[lock.Accepted.PK].(*types.AttributeValueMemberS).Value)
	if got := holding(t, name, shared.PK); len(got) != 3 {
		t.Fatalf("before the cleanup %v hold %s, want the ticket and both notes", got, shared.PK)
	}
	cleanup(t, lock, engine, name)
	if got := holding(t, name, shared.PK); len(got) != 1 || !strings.HasPrefix(got[0], tkey) {
		t.Errorf("after the cleanup %v hold %s, want the ticket (%s) alone", got, shared.PK, tkey)
	}
	if got := ids0(t, dynamo.New(lock.Accepted, client, name), "CustomerTickets", dynamo.Params{"customerId": "c"}); !slices.Equal(got, []string{"t1"}) {
		t.Errorf("CustomerTickets after the cleanup: %v", got)
	}
}
