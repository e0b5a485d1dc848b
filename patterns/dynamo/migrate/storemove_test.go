package migrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// keyplan migrate's whole run (Migrate: the phase, its backfill, the
// verifying scan, the lock's advance, the cleanup) of a model change
// that moves a string and a binary (type: blob) into S3 and back.

// filesInline keeps a file's text and its scan (bytes) in the item;
// filesInS3 keeps both in S3.
var filesInline, filesInS3 = testmodel.FilesInline, testmodel.FilesInS3

// fileValue is what one file holds: its text and scan (nil: absent).
type fileValue struct {
	text, scan []byte
}

// storedFiles are the files a store-move test starts with, by id: the
// largest values the inline model takes (maxLength, exactly), bytes that
// are no UTF-8, values that look like keys (not quite), an empty string and an
// empty binary written by hand (DynamoDB takes them outside keys;
// keyplan's runtime does not write them), and absent values.
func storedFiles() map[string]fileValue {
	noUTF8 := bytes.Repeat([]byte{0xff, 0x00, 0xfe, '#'}, 25_000) // 100,000 bytes
	files := map[string]fileValue{
		"at-max":  {text: bytes.Repeat([]byte("m"), 100_000), scan: noUTF8},
		"empty":   {text: []byte{}, scan: []byte{}},
		"absent":  {},
		"keylike": {text: []byte("File/text/" + strings.Repeat("F", 32)), scan: []byte("File/scan/0f")},
	}
	for i := range 8 {
		files[fmt.Sprintf("f%d", i)] = fileValue{text: fmt.Appendf(nil, "text %d #%%{}", i), scan: []byte{byte(i), 0x80, 0}}
	}
	return files
}

// putFiles writes the files as the inline model's items, by hand (the
// empty values are DynamoDB's, not the runtime's).
func putFiles(t *testing.T, lock *patterns.Lock, name string, files map[string]fileValue) {
	t.Helper()
	v1 := dynamo.New(lock.Accepted, nil, name)
	var all []map[string]types.AttributeValue
	for id, f := range files {
		its, err := v1.Items("File", dynamo.Values{"fileId": id, "name": "n"})
		if err != nil {
			t.Fatal(err)
		}
		it := its[0]
		if f.text != nil {
			it["text"] = &types.AttributeValueMemberS{Value: string(f.text)}
		}
		if f.scan != nil {
			it["scan"] = &types.AttributeValueMemberB{Value: f.scan}
		}
		all = append(all, it)
	}
	if err := dynamo.BatchPut(context.Background(), engine, name, all); err != nil {
		t.Fatal(err)
	}
}

// fileItems scans the table's File items by id.
func fileItems(t *testing.T, name string) map[string]map[string]types.AttributeValue {
	t.Helper()
	out := map[string]map[string]types.AttributeValue{}
	p := dynamodb.NewScanPaginator(engine, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if id, ok := it["fileId"].(*types.AttributeValueMemberS); ok {
				out[id.Value] = it
			}
		}
	}
	return out
}

// filesAre checks the table against want: with inS3, each value is an
// object's key in the attribute's own type (S for text, B for scan)
// whose object holds the value, and the store holds exactly the objects
// the items hold; without, each value is in its item and the store is
// empty. Absent values stay absent. orphans are the objects the store
// may hold beside those (written by a test's own hand).
func filesAre(t *testing.T, name string, store *dynamo.MemoryObjects, want map[string]fileValue, inS3 bool, orphans ...string) {
	t.Helper()
	ctx := context.Background()
	items := fileItems(t, name)
	if len(items) != len(want) {
		t.Errorf("%d files, want %d", len(items), len(want))
	}
	held := map[string]bool{}
	for id, f := range want {
		it := items[id]
		for _, a := range []struct {
			name string
			val  []byte
			b    bool
		}{{"text", f.text, false}, {"scan", f.scan, true}} {
			av, has := it[a.name]
			if a.val == nil {
				if has {
					t.Errorf("%s.%s: absent before, now %v", id, a.name, av)
				}
				continue
			}
			_, isB := av.(*types.AttributeValueMemberB)
			got, ok := dynamo.ObjectBytes(av)
			if !ok || isB != a.b {
				t.Errorf("%s.%s is held as %T", id, a.name, av)
				continue
			}
			if inS3 {
				key := string(got)
				if !dynamo.IsObjectKey("File", a.name, key) {
					t.Errorf("%s.%s holds %.40q, not its object's key", id, a.name, got)
					continue
				}
				held[key] = true
				var err error
				if got, err = store.GetObject(ctx, key); err != nil {
					t.Errorf("%s.%s: %v", id, a.name, err)
					continue
				}
			}
			if !bytes.Equal(got, a.val) {
				t.Errorf("%s.%s holds %d bytes %.20q, want %d bytes %.20q", id, a.name, len(got), got, len(a.val), a.val)
			}
		}
	}
	objects := map[string]bool{}
	for _, k := range store.Keys() {
		objects[k] = !slices.Contains(orphans, k)
	}
	maps.DeleteFunc(objects, func(_ string, held bool) bool { return !held })
	if !maps.Equal(held, objects) {
		t.Errorf("the items hold %d keys; the store holds %d objects (%v)", len(held), len(objects), slices.Sorted(maps.Keys(objects)))
	}
}

// migrateThrough runs keyplan migrate's driver through every phase, then the
// cleanup, and checks the lock ends with neither pending.
func migrateThrough(t *testing.T, c MigrateClient, name string, lock *patterns.Lock, store dynamo.ObjectStore) {
	t.Helper()
	ctx := context.Background()
	o := MigrateOptions{Apply: true, Objects: store, Backfill: BackfillOptions{Segments: 2, PageSize: 3}}
	if res, err := Migrate(ctx, c, name, lock, o); err != nil {
		t.Fatalf("migrate: %v (%v; %v)", err, res.Failed, res.Verify.Examples)
	}
	if lock.Migration != nil {
		t.Fatalf("the migration is at %s", lock.Migration.PhaseName())
	}
	if lock.Cleanup != nil {
		o.Deployed = true
		if _, err := Migrate(ctx, c, name, lock, o); err != nil {
			t.Fatalf("the cleanup: %v", err)
		}
	}
	if lock.Migration != nil || lock.Cleanup != nil {
		t.Fatalf("after the cleanup: migration %v, cleanup %v", lock.Migration, lock.Cleanup)
	}
}

// Into S3 and back, end to end: keyplan migrate moves every value into
// an object (the item then holds its key, a binary's as B), its
// verifying scan finds every item moved, the lock advances and the
// cleanup runs; taking store: s3 off again moves every value back into
// its item, byte for byte, and the store ends empty. Values at the
// inline model's maxLength, empty values, bytes that are no UTF-8 and
// values shaped like keys all come back as they were.
func TestMigrateMovesStringsAndBinariesIntoS3AndBack(t *testing.T) {
	for _, s := range []string{filesInline, filesInS3} {
		if m, err := model.Parse("files.yaml", []byte(s)); err != nil {
			t.Fatal(err)
		} else if _, err := patterns.Plan(m); err != nil {
			t.Fatal(err)
		}
	}
	said, _ := diffSaysOf(t, filesInline, filesInS3, "File")
	for _, want := range []string{"attribute scan: maxLength 100000 → 1000000, store (not set) → s3 (the migration's backfill moves each value the items hold into S3",
		"attribute text: maxLength 100000 → 1000000, store (not set) → s3"} {
		if !strings.Contains(said, want) {
			t.Errorf("diff says %q, want %q", said, want)
		}
	}
	lock := startMigration(t, filesInline, filesInS3)
	name := phaseTable(t, lock, nil)
	files := storedFiles()
	// A value that is exactly a key's shape names no object: keyplan
	// cannot tell it from a key whose object is gone, so it moves
	// nothing of that item, says so, and the phase is not complete until
	// the item holds a value (the application writes it again).
	keyShaped := fileValue{text: []byte("File/text/" + strings.Repeat("0f", 16)), scan: []byte{1}}
	putFiles(t, lock, name, files)
	putFiles(t, lock, name, map[string]fileValue{"keyshape": keyShaped})
	store := &dynamo.MemoryObjects{}
	ctx := context.Background()
	res, err := Migrate(ctx, engine, name, lock, MigrateOptions{Objects: store, Backfill: BackfillOptions{Segments: 2, PageSize: 3}})
	if !errors.Is(err, ErrIncomplete) || res == nil || res.Stats.Failed != 1 || len(res.Failed) != 1 ||
		!strings.Contains(res.Failed[0].Error(), "item FILE#keyshape FILE: File.text holds File/text/0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f: an object's key that names no object in the bucket") {
		t.Fatalf("migrate with a key-shaped value: %v (%+v)", err, res)
	}
	if got := fileItems(t, name)["keyshape"]; !dynamo.SameValue(got["text"], &types.AttributeValueMemberS{Value: string(keyShaped.text)}) || !dynamo.SameValue(got["scan"], &types.AttributeValueMemberB{Value: keyShaped.scan}) {
		t.Errorf("keyshape was written: %v", got)
	}
	rt := dynamo.NewRollout(lock, engine, name, dynamo.WithObjects(store))
	files["keyshape"] = fileValue{text: []byte("a value"), scan: []byte{2}}
	if err := rt.Write(ctx, "PutFile", dynamo.Params{"fileId": "keyshape", "name": "n", "text": "a value", "scan": []byte{2}}); err != nil {
		t.Fatal(err)
	}
	migrateThrough(t, engine, name, lock, store)
	filesAre(t, name, store, files, true)

	// The application reads each value through the accepted design.
	tbl := dynamo.New(lock.Accepted, engine, name, dynamo.WithObjects(store))
	it, err := tbl.Get(ctx, "GetFile", dynamo.Params{"fileId": "at-max"})
	if err != nil || it == nil {
		t.Fatalf("GetFile at-max: %v, %v", it, err)
	}
	if b, err := tbl.Object(ctx, "File", "scan", it.Values); err != nil || !bytes.Equal(b, files["at-max"].scan) {
		t.Errorf("at-max's scan through the runtime: %d bytes, %v", len(b), err)
	}

	// And back out of S3.
	back := startMigrationFrom(t, lock, "indexKeys: synthetic\n"+filesInline)
	migrateThrough(t, engine, name, back, store)
	filesAre(t, name, store, files, false)
}

// The verifying scan refuses a phase whose values are not all moved: a
// value the application (the accepted design, still deployed) wrote
// inline after the backfill passed its item is found, and the lock
// stays at the phase until a run moves it.
func TestVerifyFindsAValueNotMovedIntoS3(t *testing.T) {
	lock := startMigration(t, filesInline, filesInS3)
	name := phaseTable(t, lock, nil)
	putFiles(t, lock, name, map[string]fileValue{"a": {text: []byte("a")}, "b": {text: []byte("b"), scan: []byte{1}}})
	store := &dynamo.MemoryObjects{}
	backfillPhaseWith(t, lock, engine, name, store)
	// An instance still running the accepted design writes b inline: the
	// objects b held are no item's now.
	var orphans []string
	for _, av := range fileItems(t, name)["b"] {
		if k, ok := dynamo.ObjectBytes(av); ok && strings.HasPrefix(string(k), "File/") {
			orphans = append(orphans, string(k))
		}
	}
	if len(orphans) != 2 {
		t.Fatalf("b holds the keys %v", orphans)
	}
	putFiles(t, lock, name, map[string]fileValue{"b": {text: []byte("b again")}})
	_, err := Migrate(context.Background(), engine, name, lock, MigrateOptions{Verify: true, Objects: store})
	if !errors.Is(err, ErrIncomplete) || lock.Migration == nil || lock.Migration.Current != 0 {
		t.Fatalf("verify with b inline: %v (migration %v)", err, lock.Migration)
	}
	if _, err := Migrate(context.Background(), engine, name, lock, MigrateOptions{Objects: store}); err != nil || lock.Migration != nil {
		t.Fatalf("migrate: %v", err)
	}
	filesAre(t, name, store, map[string]fileValue{"a": {text: []byte("a")}, "b": {text: []byte("b again")}}, true, orphans...)
}

// racer writes files through the rollout runtime while a migration runs,
// and keeps each file's last acknowledged value. A file has one writer
// at a time: the hooks write the files whose number is 0 or 1 modulo 3
// (once each, when the backfill reaches them: synchronously, between
// the backfill's read and its write, or concurrently beside it), the
// background writer those 2 modulo 3, one after another.
type racer struct {
	t    *testing.T
	rt   *dynamo.Table
	mu   sync.Mutex
	last map[string]fileValue
	done map[string]bool
	n    atomic.Int64
	wg   sync.WaitGroup
}

func (w *racer) write(id string) {
	n := w.n.Add(1)
	f := fileValue{text: fmt.Appendf(nil, "write %d of %s", n, id), scan: []byte{byte(n), 0xff}}
	if err := w.rt.Write(context.Background(), "PutFile", dynamo.Params{"fileId": id, "name": "n", "text": string(f.text), "scan": f.scan}); err != nil {
		w.t.Errorf("PutFile %s: %v", id, err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last[id] = f
}

// reached is the backfill reaching file id (about to read its object or
// write its item): the file's hook write, once.
func (w *racer) reached(id string) {
	var i int
	if _, err := fmt.Sscanf(id, "f%d", &i); err != nil || i%3 == 2 {
		return
	}
	w.mu.Lock()
	first := !w.done[id]
	w.done[id] = true
	w.mu.Unlock()
	switch {
	case !first:
	case i%3 == 0:
		w.write(id)
	default:
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.write(id)
		}()
	}
}

// background writes the files 2 modulo 3 in turn until stop is closed.
func (w *racer) background(ids []string, stop chan struct{}) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if id := ids[i%len(ids)]; idMod(id) == 2 {
				w.write(id)
			}
		}
	}()
}

func idMod(id string) int {
	var i int
	fmt.Sscanf(id, "f%d", &i)
	return i % 3
}

// racingClient calls reached before the backfill's UpdateItem of a file.
type racingClient struct {
	MigrateClient
	reached func(id string)
}

func (c *racingClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	for _, v := range in.Key {
		if s, ok := v.(*types.AttributeValueMemberS); ok && strings.HasPrefix(s.Value, "FILE#") {
			c.reached(strings.TrimPrefix(s.Value, "FILE#"))
		}
	}
	return c.MigrateClient.UpdateItem(ctx, in, opts...)
}

// racingObjects calls reached before the backfill reads an object of a
// file (moving it back out of S3): the write racing it deletes it. With
// forbidden it answers for a key it does not hold as S3 answers a caller
// that may not list the bucket: 403, not "no such key".
type racingObjects struct {
	*dynamo.MemoryObjects
	owner     func(key string) string
	reached   func(id string)
	forbidden bool
}

var errForbidden = errors.New("403 Forbidden")

func (o *racingObjects) GetObject(ctx context.Context, key string) ([]byte, error) {
	if id := o.owner(key); id != "" {
		o.reached(id)
	}
	b, err := o.MemoryObjects.GetObject(ctx, key)
	if o.forbidden && errors.Is(err, dynamo.ErrNoObject) {
		return nil, errForbidden
	}
	return b, err
}

func (o *racingObjects) HasObject(ctx context.Context, key string) (bool, error) {
	held, err := o.MemoryObjects.HasObject(ctx, key)
	if o.forbidden && !held && err == nil {
		return false, errForbidden
	}
	return held, err
}

// Writes racing the backfill both ways lose nothing: the application
// (the rollout runtime) writes files while keyplan migrate moves them
// into S3, and again while it moves them back: between the backfill's
// read of an item and its write, between its read of an object and its
// write (the racing write deletes that object), and beside it all the
// while. Each file ends holding its last acknowledged value, and the
// store exactly the objects the items hold (none left behind); so too
// when the store answers 403 for a key it does not hold (S3 to a caller
// without s3:ListBucket). go test -race runs it for the data races.
func TestMigrateRacesWritesIntoS3AndBack(t *testing.T) {
	for _, forbidden := range []bool{false, true} {
		t.Run(map[bool]string{false: "404", true: "403"}[forbidden], func(t *testing.T) { racesIntoS3AndBack(t, forbidden) })
	}
}

func racesIntoS3AndBack(t *testing.T, forbidden bool) {
	lock := startMigration(t, filesInline, filesInS3)
	name := phaseTable(t, lock, nil)
	files := map[string]fileValue{}
	var ids []string
	for i := range 30 {
		id := fmt.Sprintf("f%d", i)
		ids = append(ids, id)
		files[id] = fileValue{text: fmt.Appendf(nil, "first of %s", id), scan: []byte{byte(i)}}
	}
	putFiles(t, lock, name, files)
	store := &dynamo.MemoryObjects{}
	for _, step := range []struct {
		name string
		next string // the model the migration after this one goes to
		inS3 bool
	}{{"into S3", filesInline, true}, {"back", "", false}} {
		w := &racer{t: t, rt: dynamo.NewRollout(lock, engine, name, dynamo.WithObjects(store)), last: files, done: map[string]bool{}}
		owners := map[string]string{} // object key → file, as the items hold them before the run
		for id, it := range fileItems(t, name) {
			for _, a := range []string{"text", "scan"} {
				if k := dynamo.HeldKey("File", a, it[a]); k != "" {
					owners[k] = id
				}
			}
		}
		objects := &racingObjects{MemoryObjects: store, owner: func(k string) string { return owners[k] }, reached: w.reached, forbidden: forbidden}
		stop := make(chan struct{})
		w.background(ids, stop)
		c := &racingClient{MigrateClient: engine, reached: w.reached}
		res, err := Migrate(context.Background(), c, name, lock, MigrateOptions{Apply: true, Objects: objects, Backfill: BackfillOptions{Segments: 3, PageSize: 2}})
		close(stop)
		w.wg.Wait()
		if err != nil || lock.Migration != nil {
			t.Fatalf("%s: migrate: %v (%v)", step.name, err, res)
		}
		t.Logf("%s: %+v; %d writes", step.name, res.Stats, w.n.Load())
		if res.Stats.Conflicts == 0 {
			t.Errorf("%s: no write raced the backfill", step.name)
		}
		filesAre(t, name, store, w.last, step.inS3)
		files = w.last
		if lock.Cleanup != nil {
			if _, err := Migrate(context.Background(), engine, name, lock, MigrateOptions{Deployed: true, Objects: store}); err != nil {
				t.Fatal(err)
			}
		}
		if step.next != "" {
			startMigrationFrom(t, lock, "indexKeys: synthetic\n"+step.next)
		}
	}
}

// Taking store: s3 off with a lower maxLength: a value exactly at the
// new maxLength moves back into its item; one byte more stays in S3
// (the item keeps its key, the object stays), counted failed with what
// to do, and the phase is not complete until the application writes a
// shorter value.
func TestMigrateKeepsInS3AValueTooLongForItsItem(t *testing.T) {
	lock := startMigration(t, filesInS3, filesInline)
	name := phaseTable(t, lock, nil)
	ctx := context.Background()
	store := &dynamo.MemoryObjects{}
	v1 := dynamo.New(lock.Accepted, engine, name, dynamo.WithObjects(store))
	files := map[string]fileValue{
		"max":  {text: bytes.Repeat([]byte("x"), 100_000), scan: bytes.Repeat([]byte{0xfe}, 100_000)},
		"long": {text: bytes.Repeat([]byte("y"), 100_001), scan: []byte{1}},
	}
	for id, f := range files {
		if err := v1.Write(ctx, "PutFile", dynamo.Params{"fileId": id, "name": "n", "text": string(f.text), "scan": f.scan}); err != nil {
			t.Fatal(err)
		}
	}
	long := fileItems(t, name)["long"]
	key := dynamo.HeldKey("File", "text", long["text"])
	res, err := Migrate(ctx, engine, name, lock, MigrateOptions{Objects: store})
	want := "item FILE#long FILE: File.text: too long to move back into its item: its object " + key + " holds 100001 bytes, above the maxLength 100000 the model gives it in the item; it stays in S3 and the item keeps its key"
	if !errors.Is(err, ErrIncomplete) || res == nil || len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), want) {
		t.Fatalf("migrate: %v (%v), want %q", err, res, want)
	}
	if now := fileItems(t, name)["long"]; !maps.EqualFunc(now, long, dynamo.SameValue) {
		t.Errorf("long was rewritten: %v", now)
	}
	if b, err := store.GetObject(ctx, key); err != nil || len(b) != 100_001 {
		t.Errorf("long's object: %d bytes, %v", len(b), err)
	}
	rt := dynamo.NewRollout(lock, engine, name, dynamo.WithObjects(store))
	files["long"] = fileValue{text: []byte("short"), scan: []byte{1}}
	if err := rt.Write(ctx, "PutFile", dynamo.Params{"fileId": "long", "name": "n", "text": "short", "scan": []byte{1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Migrate(ctx, engine, name, lock, MigrateOptions{Objects: store}); err != nil || lock.Migration != nil {
		t.Fatalf("migrate: %v", err)
	}
	filesAre(t, name, store, files, false)
}

// refusingClient refuses the backfill's UpdateItem of one file as
// DynamoDB refuses an item (a validation error: the item's fault).
type refusingClient struct {
	MigrateClient
	id string
}

func (c *refusingClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	for _, v := range in.Key {
		if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == "FILE#"+c.id {
			return nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "refused by the test", Fault: smithy.FaultClient}
		}
	}
	return c.MigrateClient.UpdateItem(ctx, in, opts...)
}

// An item DynamoDB refuses to rewrite holds its value still, and the
// objects the backfill wrote for it first are deleted: no item holds
// them. The item is counted failed, naming DynamoDB's reason.
func TestMigrateDeletesTheObjectsOfARefusedRewrite(t *testing.T) {
	lock := startMigration(t, filesInline, filesInS3)
	name := phaseTable(t, lock, nil)
	files := map[string]fileValue{"a": {text: []byte("a"), scan: []byte{1}}, "b": {text: []byte("b"), scan: []byte{2}}}
	putFiles(t, lock, name, files)
	store := &dynamo.MemoryObjects{}
	res, err := Migrate(context.Background(), &refusingClient{MigrateClient: engine, id: "b"}, name, lock, MigrateOptions{Objects: store})
	if !errors.Is(err, ErrIncomplete) || res == nil || len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), "item FILE#b FILE: api error ValidationException: refused by the test") {
		t.Fatalf("migrate: %v (%+v)", err, res)
	}
	items := fileItems(t, name)
	for _, a := range []string{"text", "scan"} {
		if k := dynamo.HeldKey("File", a, items["a"][a]); k == "" {
			t.Errorf("a.%s was not moved: %v", a, items["a"][a])
		}
	}
	if got, _ := dynamo.ObjectBytes(items["b"]["text"]); string(got) != "b" {
		t.Errorf("b's text is now %q", got)
	}
	if keys := store.Keys(); len(keys) != 2 {
		t.Errorf("the store holds %v, want a's two objects", keys)
	}
}

// unreachableObjects is a bucket S3 cannot be asked about.
type unreachableObjects struct{ *dynamo.MemoryObjects }

var errUnreachable = errors.New("S3 unreachable")

func (unreachableObjects) HasObject(context.Context, string) (bool, error) {
	return false, errUnreachable
}

// S3 failing while the backfill or the verifying scan asks it about a
// key stops the run (to resume) with S3's error: no item is counted
// failed, and the lock does not advance.
func TestMigrateStopsWhenS3CannotBeAsked(t *testing.T) {
	lock := startMigration(t, filesInline, filesInS3)
	name := phaseTable(t, lock, nil)
	putFiles(t, lock, name, map[string]fileValue{"a": {text: []byte("a")}, "b": {scan: []byte{2}}})
	store := &dynamo.MemoryObjects{}
	backfillPhaseWith(t, lock, engine, name, store)
	for _, verify := range []bool{false, true} {
		res, err := Migrate(context.Background(), engine, name, lock, MigrateOptions{Verify: verify, Objects: unreachableObjects{store}})
		if !errors.Is(err, errUnreachable) || lock.Migration == nil || res != nil && res.Stats.Failed > 0 {
			t.Errorf("verify %v: %v (%+v)", verify, err, res)
		}
	}
}
