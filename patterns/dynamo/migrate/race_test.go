package migrate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

const raceV1 = testmodel.NotesRaced

// raceV2 renames two attributes, one the sort key of OwnerNotes, and
// reads notes by their (immutable) category: one new GSI.
const raceV2 = testmodel.NotesRacedRenamed

// Writers race the backfill with every kind of write the rollout runtime
// makes (updates that set and remove renamed attributes, replaces that
// move a note to another owner, deletes and creates that change its
// immutable category, puts): afterwards each note is as its writer last
// left it, carries exactly the keys of both designs, the verifying scan
// finds nothing to rewrite, and once the lock advances every read of the
// target returns exactly the notes the writers' views say.
func TestBackfillRacesEveryWrite(t *testing.T) {
	t.Parallel()
	const n, writers = 400, 4
	ctx := context.Background()
	lock := startMigration(t, raceV1, raceV2)
	if p := lock.Migration.Phases; len(p) != 1 || !slices.Equal(p[0].Backfill, []string{"Note"}) {
		t.Fatalf("phases %+v, want one backfilling Note", p)
	}
	categories := []string{"home", "work", "misc"}
	owners := []string{"a", "ab", "a#b"} // prefixes of each other
	var notes []dynamo.Values
	for i := range n {
		v := dynamo.Values{"noteId": fmt.Sprintf("n%d", i), "ownerId": owners[i%3], "category": categories[i%3],
			"subject": fmt.Sprintf("subject %d", i), "score": i % 7}
		if i%2 == 0 {
			v["memo"] = "m%"
		}
		notes = append(notes, v)
	}
	name := phaseTable(t, lock, map[string][]dynamo.Values{"Note": notes})
	rt := dynamo.NewRollout(lock, client, name)
	// Each writer's notes, under the target's names, as it last wrote
	// them (nil: deleted).
	views := make([]map[string]dynamo.Values, writers)
	for w := range views {
		views[w] = map[string]dynamo.Values{}
	}
	for i, v := range notes {
		tv := dynamo.Values{"noteId": v["noteId"], "ownerId": v["ownerId"], "category": v["category"], "title": v["subject"], "points": v["score"]}
		if v["memo"] != nil {
			tv["note"] = v["memo"]
		}
		views[i%writers][v["noteId"].(string)] = tv
	}
	var (
		stop   atomic.Bool
		writes atomic.Int64
		wg     sync.WaitGroup
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 23))
			ids := slices.Sorted(maps.Keys(views[w]))
			for !stop.Load() {
				id := ids[rnd.IntN(len(ids))]
				cur := views[w][id]
				var next dynamo.Values
				var err error
				switch op := rnd.IntN(6); {
				case cur == nil:
					next = dynamo.Values{"noteId": id, "ownerId": owners[rnd.IntN(3)], "category": categories[rnd.IntN(3)], "title": "re-created", "points": rnd.IntN(1000)}
					err = rt.Create(ctx, "Note", next)
				case op == 0:
					next = with(cur, "title", fmt.Sprintf("t%d#%%", rnd.IntN(100)))
					err = rt.Update(ctx, "Note", dynamo.Values{"noteId": id}, dynamo.Changes{Set: dynamo.Values{"title": next["title"]}})
				case op == 1:
					next = maps.Clone(cur)
					if cur["note"] != nil {
						delete(next, "note")
						err = rt.Update(ctx, "Note", dynamo.Values{"noteId": id}, dynamo.Changes{Remove: []string{"note"}})
					} else {
						next["note"] = "n"
						err = rt.Update(ctx, "Note", dynamo.Values{"noteId": id}, dynamo.Changes{Set: dynamo.Values{"note": "n"}})
					}
				case op == 2:
					next = with(with(cur, "ownerId", owners[rnd.IntN(3)]), "points", rnd.IntN(1000))
					err = rt.Replace(ctx, "Note", cur, next)
				case op == 3:
					// A new category: delete, then create.
					if err = rt.Delete(ctx, "Note", cur); err == nil {
						views[w][id] = nil
						next = with(cur, "category", categories[(slices.Index(categories, cur["category"].(string))+1)%3])
						err = rt.Create(ctx, "Note", next)
					}
				case op == 4:
					next = with(with(cur, "category", categories[rnd.IntN(3)]), "title", "put")
					err = rt.Put(ctx, "Note", next)
				default:
					err = rt.Delete(ctx, "Note", cur)
				}
				if err != nil {
					t.Errorf("writer %d on %s: %v", w, id, err)
					return
				}
				views[w][id] = next
				writes.Add(1)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	r, err := NewRekeyer(lock, engine, name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Backfill(ctx, engine, BackfillOptions{Segments: 3, PageSize: 9})
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if writes.Load() < 200 {
		t.Fatalf("only %d concurrent writes: the test proves nothing", writes.Load())
	}
	t.Logf("%d concurrent writes; %+v", writes.Load(), res.Stats)
	// The rollout's writes carry exactly what the phase requires: the
	// verification that ran beside them found nothing to rewrite.
	if !res.Verify.Verified {
		t.Errorf("the verification beside the writers: %+v", res.Verify)
	}
	// The verification ran while the writers did: run it again now.
	v, _ := NewRekeyer(lock, engine, name)
	vr, err := v.Verify(ctx, engine, VerifyOptions{Segments: 2})
	if err != nil || !vr.Verified {
		t.Fatalf("verifying after the writers stopped: %v, %+v", err, vr)
	}
	items := evolvetest.ScanAll(t, engine, name)
	checkTarget(t, lock, items)
	all := map[string]dynamo.Values{}
	for _, view := range views {
		for id, v := range view {
			if v != nil {
				all[id] = v
			}
		}
	}
	lost := 0
	for id, v := range all {
		got, err := rt.Get(ctx, "GetNote", dynamo.Params{"noteId": id})
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || !sameNote(got.Values, v) {
			if lost++; lost < 5 {
				t.Errorf("%s: %v, its writer last wrote %v", id, got, v)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d note(s) are not as their writer left them", lost)
	}
	// The target's reads, once the lock advances.
	if err := lock.Advance(); err != nil || lock.Migration != nil {
		t.Fatal(err)
	}
	done := dynamo.New(lock.Accepted, client, name)
	for _, c := range categories {
		var want []string
		for id, v := range all {
			if v["category"] == c {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		if got := readAll(t, done, "NotesByCategory", dynamo.Params{"category": c}); !slices.Equal(got, want) {
			t.Errorf("NotesByCategory(%s): %d notes, want %d (%v)", c, len(got), len(want), diffIDs(got, want))
		}
	}
	for _, o := range owners {
		var want []string
		for id, v := range all {
			if v["ownerId"] == o {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		if got := readAll(t, done, "OwnerNotes", dynamo.Params{"ownerId": o}); !slices.Equal(got, want) {
			t.Errorf("OwnerNotes(%s): %d notes, want %d (%v)", o, len(got), len(want), diffIDs(got, want))
		}
	}
}

func sameNote(got, want dynamo.Values) bool {
	for _, a := range []string{"ownerId", "category", "title", "note", "points"} {
		if fmt.Sprint(got[a]) != fmt.Sprint(want[a]) {
			return false
		}
	}
	return true
}

// readAll reads a pattern to its end and lists the ids it returns.
func readAll(t testing.TB, tbl *dynamo.Table, pattern string, params dynamo.Params) []string {
	t.Helper()
	var out []string
	for it, err := range tbl.All(context.Background(), pattern, dynamo.Request{Params: params}) {
		if err != nil {
			if errors.Is(err, dynamo.ErrNotReady) {
				t.Fatalf("%s: %v", pattern, err)
			}
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(it.Values["noteId"]))
	}
	slices.Sort(out)
	return out
}

func diffIDs(got, want []string) string {
	var missing, extra []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	return fmt.Sprintf("missing %v, extra %v", missing, extra)
}
