package migrate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// inlineDocs keeps the body in the item; s3Docs (the next model) in S3.
const inlineDocs = testmodel.DocsInline

var s3Docs = strings.Replace(inlineDocs, "maxLength: 100000}", "maxLength: 100000, store: s3}", 1)

// diffSays plans next against a lock of prev and returns what diff says
// of entity Doc, and whether the change backfills it.
func diffSays(t *testing.T, prev, next string) (string, bool) {
	t.Helper()
	return diffSaysOf(t, prev, next, "Doc")
}

// diffSaysOf is what diff says of entity of the change from prev to
// next, and whether the change backfills.
func diffSaysOf(t *testing.T, prev, next, entity string) (string, bool) {
	t.Helper()
	m1, err := model.Parse("v1.yaml", []byte("indexKeys: synthetic\n"+prev))
	if err != nil {
		t.Fatal(err)
	}
	d1, err := patterns.Plan(m1)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := model.Parse("v2.yaml", []byte("indexKeys: synthetic\n"+next))
	if err != nil {
		t.Fatal(err)
	}
	d2, err := patterns.PlanLocked(m2, patterns.NewLock(d1))
	if err != nil {
		t.Fatal(err)
	}
	df := patterns.Compare(patterns.NewLock(d1), d2)
	var said []string
	for _, c := range df.Changes {
		if c.Subject.Name == entity {
			said = append(said, c.ID+" "+c.Message)
		}
	}
	return strings.Join(said, "; "), df.Backfills()
}

// bucketMatches compares the store's objects with the keys the table's
// items hold: every key an object, every object held.
func bucketMatches(t *testing.T, name string, store *dynamo.MemoryObjects, attr string) map[string]string {
	t.Helper()
	out, err := engine.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]string{} // docId → attr's value in the item
	for _, it := range out.Items {
		id, _ := it["docId"].(*types.AttributeValueMemberS)
		v, _ := it[attr].(*types.AttributeValueMemberS)
		if id != nil && v != nil {
			held[id.Value] = v.Value
		}
	}
	keys := map[string]bool{}
	for _, v := range held {
		if strings.HasPrefix(v, "Doc/"+attr+"/") {
			keys[v] = true
		}
	}
	objects := map[string]bool{}
	for _, k := range store.Keys() {
		objects[k] = true
	}
	if !maps.Equal(keys, objects) {
		t.Errorf("the items hold the keys %v; the bucket holds %v", slices.Sorted(maps.Keys(keys)), slices.Sorted(maps.Keys(objects)))
	}
	return held
}

// A model change that keeps an attribute in S3 (store: s3 added) is a
// migration: diff says the backfill moves the values; keyplan's backfill
// writes each value as an object, then the item with its key, on
// condition it still holds the value (a write racing it wins, the
// object the backfill wrote is deleted), resumes without moving anything
// twice, and the rollout runtime reads each item's value whether or not
// the backfill has reached it. Without a store the backfill stops,
// saying so.
func TestMigrationMovesValuesIntoS3(t *testing.T) {
	said, backfills := diffSays(t, inlineDocs, s3Docs)
	if !backfills || !strings.Contains(said, "KP621") || !strings.Contains(said, "attribute body: store (not set) → s3 (the migration's backfill moves each value the items hold into S3") {
		t.Fatalf("diff says %q (backfills: %v)", said, backfills)
	}
	lock := startMigration(t, inlineDocs, s3Docs)
	var docs []dynamo.Values
	bodies := map[string]string{}
	for i := range 12 {
		id := fmt.Sprintf("d%d", i)
		// Values that only look like keys stay values.
		body := []string{fmt.Sprintf("plain %d", i), fmt.Sprintf("Doc/body/%d", i), "Doc/body/" + strings.Repeat("F", 32), fmt.Sprintf("{%d}#%%", i)}[i%4]
		bodies[id] = body + strings.Repeat("x", i*1000)
		docs = append(docs, dynamo.Values{"docId": id, "title": "t", "body": bodies[id]})
	}
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Doc": docs})
	ctx := context.Background()
	store := &dynamo.MemoryObjects{}
	rt := dynamo.NewRollout(lock, engine, name, dynamo.WithObjects(store))
	read := func(id string) string {
		t.Helper()
		it, err := rt.Get(ctx, "GetDoc", dynamo.Params{"docId": id})
		if err != nil || it == nil {
			t.Fatalf("GetDoc %s: %v, %v", id, it, err)
		}
		b, err := rt.Object(ctx, "Doc", "body", it.Values)
		if err != nil {
			t.Fatalf("the body of %s: %v", id, err)
		}
		return string(b)
	}
	if got := read("d1"); got != bodies["d1"] {
		t.Errorf("before the backfill d1's body reads %.20q", got)
	}

	// No store: the run stops before it writes anything.
	r, err := NewRekeyer(lock, engine, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 1}); !errors.Is(err, ErrNoObjectsForMigration) {
		t.Fatalf("a backfill without a store: %v", err)
	}

	// The application writes d3 between the backfill's read of it and its
	// update: its value wins, the backfill's object for d3 goes.
	race := &raceOn{BackfillClient: engine, id: "d3", write: func() {
		bodies["d3"] = "the application's"
		if err := rt.Write(ctx, "PutDoc", dynamo.Params{"docId": "d3", "title": "t", "body": bodies["d3"]}); err != nil {
			t.Error(err)
		}
	}}
	r, err = NewRekeyer(lock, race, name)
	if err != nil {
		t.Fatal(err)
	}
	r.Objects = store
	res, err := r.Backfill(ctx, race, BackfillOptions{Segments: 2, PageSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Failed > 0 || res.Stats.Rewritten != 11 || res.Stats.Conflicts != 1 {
		t.Errorf("backfill: %+v, want 11 rewritten (d3 written by the application), 1 conflict, none failed", res.Stats)
	}
	held := bucketMatches(t, name, store, "body")
	for id, want := range bodies {
		if !dynamo.IsObjectKey("Doc", "body", held[id]) {
			t.Errorf("%s holds %.30q, not its object's key", id, held[id])
		}
		if got := read(id); got != want {
			t.Errorf("%s's body reads %.20q (%d bytes), want %.20q (%d bytes)", id, got, len(got), want, len(want))
		}
	}

	// Again: every item is moved, nothing is written.
	before := store.Keys()
	res = backfillPhaseWith(t, lock, engine, name, store)
	if res.Stats.Rewritten != 0 || res.Stats.Unchanged != 12 {
		t.Errorf("the second run: %+v, want 12 unchanged", res.Stats)
	}
	if after := store.Keys(); len(after) != len(before) {
		t.Errorf("the second run wrote objects: %d, then %d", len(before), len(after))
	}
}

// And back: store: s3 taken off moves each object's value into its item
// (on condition it still holds the key) and deletes the object after.
func TestMigrationMovesValuesOutOfS3(t *testing.T) {
	said, backfills := diffSays(t, s3Docs, inlineDocs)
	if !backfills || !strings.Contains(said, "attribute body: store s3 → (not set) (the migration's backfill moves each value back into its item") {
		t.Fatalf("diff says %q (backfills: %v)", said, backfills)
	}
	lock := startMigration(t, s3Docs, inlineDocs)
	name := phaseTable(t, lock, nil)
	ctx := context.Background()
	store := &dynamo.MemoryObjects{}
	v1 := dynamo.New(lock.Accepted, engine, name, dynamo.WithObjects(store))
	bodies := map[string]string{}
	for i := range 6 {
		id := fmt.Sprintf("d%d", i)
		bodies[id] = fmt.Sprintf("body %d ", i) + strings.Repeat("y", i*2000)
		if err := v1.Write(ctx, "PutDoc", dynamo.Params{"docId": id, "title": "t", "body": bodies[id]}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(store.Keys()); n != 6 {
		t.Fatalf("%d objects", n)
	}
	rt := dynamo.NewRollout(lock, engine, name, dynamo.WithObjects(store))
	if it, err := rt.Get(ctx, "GetDoc", dynamo.Params{"docId": "d2"}); err != nil || it == nil {
		t.Fatal(err)
	} else if b, err := rt.Object(ctx, "Doc", "body", it.Values); err != nil || string(b) != bodies["d2"] {
		t.Errorf("during the migration d2's body: %.20q, %v", b, err)
	}
	// The application writes d5 with the new design (its value inline)
	// before the backfill reaches it: the object it held goes after.
	bodies["d5"] = "written inline"
	if err := rt.Write(ctx, "PutDoc", dynamo.Params{"docId": "d5", "title": "t", "body": bodies["d5"]}); err != nil {
		t.Fatal(err)
	}
	if n := len(store.Keys()); n != 5 {
		t.Errorf("after d5 was written inline the bucket holds %d objects, want 5", n)
	}
	res := backfillPhaseWith(t, lock, engine, name, store)
	if res.Stats.Rewritten != 5 {
		t.Errorf("backfill: %+v, want 5 rewritten (d5 was written inline)", res.Stats)
	}
	held := bucketMatches(t, name, store, "body")
	if !maps.Equal(held, bodies) {
		t.Errorf("after the backfill the items hold %d bodies, want their values back", len(held))
	}
	if n := len(store.Keys()); n != 0 {
		t.Errorf("%d objects left", n)
	}
	if res := backfillPhaseWith(t, lock, engine, name, store); res.Stats.Unchanged != 6 {
		t.Errorf("the second run: %+v", res.Stats)
	}
}

// raceOn runs write before the first UpdateItem of the item whose key
// ends with id.
type raceOn struct {
	BackfillClient
	id    string
	done  atomic.Bool
	write func()
}

func (c *raceOn) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	for _, v := range in.Key {
		if s, ok := v.(*types.AttributeValueMemberS); ok && strings.HasSuffix(s.Value, c.id) && !c.done.Swap(true) {
			c.write()
		}
	}
	return c.BackfillClient.UpdateItem(ctx, in, opts...)
}

func backfillPhaseWith(t *testing.T, lock *patterns.Lock, c BackfillClient, name string, store dynamo.ObjectStore) *BackfillResult {
	t.Helper()
	r, err := NewRekeyer(lock, c, name)
	if err != nil {
		t.Fatal(err)
	}
	r.Objects = store
	res, err := r.Backfill(context.Background(), c, BackfillOptions{Segments: 2, PageSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Failed > 0 {
		t.Fatalf("%d item(s) failed: %v", res.Stats.Failed, res.Failed)
	}
	return res
}
