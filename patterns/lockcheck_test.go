package patterns_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
)

// Every lock keyplan writes re-derives to itself: the example locks, and
// the shop's lock at every state of its successive edits (accepted, and
// each phase of each migration).
func TestLocksRederive(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.lock.json")
	for _, f := range files {
		l, err := patterns.LoadLock(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Check(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := string(src)
	lock := evolvetest.RoundTrip(t, patterns.NewLock(planModel(t, model, nil)))
	for _, ed := range evolvetest.ShopEdits {
		next := ed.Apply(model)
		d := planModel(t, next, lock)
		df := patterns.Compare(lock, d)
		if ed.Refused {
			continue
		}
		if err := lock.Apply(d, df); err != nil {
			t.Fatal(err)
		}
		for {
			lock = evolvetest.RoundTrip(t, lock)
			if err := lock.Check(); err != nil {
				b, _ := lock.Bytes()
				t.Fatalf("after %q: %v\n%s", ed.Name, err, bytes.TrimSpace(b)[:200])
			}
			if lock.Migration == nil {
				break
			}
			lock.Advance()
		}
		model = next
	}
}

// tamper edits a lock's JSON and reads it back, its digest left as it
// was (a hand edit, a bad merge): edit changes the document.
func tamper(t *testing.T, l *patterns.Lock, edit func(doc map[string]any)) (*patterns.Lock, error) {
	t.Helper()
	return edited(t, l, false, edit)
}

// earlier is tamper on the lock as an earlier keyplan wrote it: lock
// format 1, without the version that wrote it and without a digest, so
// only re-deriving it can tell an edit.
func earlier(t *testing.T, l *patterns.Lock, edit func(doc map[string]any)) (*patterns.Lock, error) {
	t.Helper()
	return edited(t, l, true, edit)
}

func edited(t *testing.T, l *patterns.Lock, formatOne bool, edit func(doc map[string]any)) (*patterns.Lock, error) {
	t.Helper()
	b, err := l.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if formatOne {
		doc["format"] = 1
		delete(doc, "keyplan")
		delete(doc, "digest")
	}
	edit(doc)
	b, _ = json.Marshal(doc)
	got, err := patterns.ReadLock("leaderboard.lock.json", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return got, got.Check()
}

func obj(v any, path ...any) map[string]any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v.(map[string]any)
}

// A lock edited by hand, or merged badly, is refused: its digest no
// longer matches, and the error says where it disagrees with what it
// derives from; the same edit of a format 1 lock (which has no digest)
// is refused by re-deriving it. Each case is one the construct would
// otherwise have deployed (every player expiring on its rating, a GSI
// dropped under a pattern's feet, ratings written too narrow to sort).
func TestHandEditedLocksAreRefused(t *testing.T) {
	src, err := os.ReadFile("../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v1 := string(src)
	lock := patterns.NewLock(planModel(t, v1, nil))
	v2 := strings.Replace(v1, "  PlayerByHandle:", "  PlayersByRegion:  {query: Player, where: [region], sort: createdAt}\n  PlayerByHandle:", 1)
	d2 := planModel(t, v2, lock)
	if err := lock.Apply(d2, patterns.Compare(lock, d2)); err != nil || lock.Migration == nil {
		t.Fatalf("starting the migration: %v", err)
	}
	for _, read := range []func(*testing.T, *patterns.Lock, func(map[string]any)) (*patterns.Lock, error){tamper, earlier} {
		if _, err := read(t, lock, func(map[string]any) {}); err != nil {
			t.Fatalf("the lock as written: %v", err)
		}
	}
	cases := []struct {
		name string
		edit func(doc map[string]any)
		want string
		// upgrade: without a digest, the edit is what an earlier
		// keyplan wrote (an upgrade change, not refused).
		upgrade bool
	}{
		{"a phase's TTL on a number attribute", func(doc map[string]any) {
			obj(doc, "migration", "phases", 0)["ttl"] = "rating"
		}, `phase 1.ttl: "rating" recorded, "expiresAt" derived`, false},
		{"a phase dropping a GSI the accepted design reads", func(doc map[string]any) {
			p := obj(doc, "migration", "phases", 0)
			p["indexes"] = p["indexes"].([]any)[1:]
		}, "phase 1.indexes", false},
		{"a key width too narrow for the declared range", func(doc map[string]any) {
			for _, a := range obj(doc, "accepted", "model")["entities"].([]any)[1].(map[string]any)["attributes"].([]any) {
				if a.(map[string]any)["name"] == "rating" {
					a.(map[string]any)["keyWidth"] = 1
				}
			}
		}, "its accepted design", false},
		{"an accepted TTL on a non-ttl attribute", func(doc map[string]any) {
			obj(doc, "accepted")["ttl"] = "rating"
		}, `ttl: "rating" recorded, "expiresAt" derived`, false},
		{"a migration's target from another branch", func(doc map[string]any) {
			obj(doc, "migration")["phases"] = []any{}
		}, "a migration with no phase", false},
		{"a phase's backfill dropped (as an older keyplan left it)", func(doc map[string]any) {
			obj(doc, "migration", "phases", 0)["backfill"] = []any{}
		}, "backfill less than keyplan derives", true},
		{"a pattern's request edited (as an earlier keyplan derived it)", func(doc map[string]any) {
			for _, p := range obj(doc, "accepted")["patterns"].([]any) {
				if p := p.(map[string]any); p["name"] == "RecentMatches" {
					p["condition"] = p["condition"].(string) + " AND x"
				}
			}
		}, "digest does not match", true},
		{"a table renamed", func(doc map[string]any) {
			doc["table"] = "Other"
		}, `the lock is for table "Other"`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tamper(t, lock, c.edit)
			if err == nil || !errors.Is(err, patterns.ErrDesign) || !strings.Contains(err.Error(), "its digest does not match its content") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("with its digest: got %v, want a digest error naming %q", err, c.want)
			}
			l, err := earlier(t, lock, c.edit)
			switch {
			case c.upgrade && (err != nil || len(l.Upgrades()) < 2):
				t.Errorf("format 1: got %v, upgrades %v; want upgrade changes", err, l.Upgrades())
			case !c.upgrade && (err == nil || !errors.Is(err, patterns.ErrDesign) || strings.Contains(err.Error(), "digest")):
				t.Errorf("format 1: got %v, want a re-derivation error", err)
			}
		})
	}
}

// An entity given two new GSIs in one edit is backfilled after each: the
// first phase writes only the keys of the GSIs it has, so the second
// GSI's phase backfills the entity again (its keys there).
func TestEachNewIndexBackfillsItsEntities(t *testing.T) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v1 := string(src)
	lock := patterns.NewLock(planModel(t, v1, nil))
	v2 := strings.Replace(v1, "  GetProduct:         {get: Product, rate: 300}\n",
		"  GetProduct:         {get: Product, rate: 300}\n  OrdersAt: {query: Order, where: [createdAt]}\n  OrdersByTotal: {query: Order, where: [total]}\n", 1)
	d2 := planModel(t, v2, lock)
	df := patterns.Compare(lock, d2)
	var created int
	for i, p := range df.Phases {
		if len(p.Create) == 0 {
			continue
		}
		created++
		ix := d2.Index(p.Create[0])
		for _, e := range ix.Entities {
			if !slices.Contains(p.Backfill, e) {
				t.Errorf("phase %d creates %s, which holds %s, and does not backfill it (%s)", i+1, ix.Name, e, p)
			}
		}
	}
	if created != 2 {
		t.Fatalf("%d GSIs created, want 2: %v", created, df.Phases)
	}
}

// A lock whose phases an older keyplan derived (the same deploys, a
// backfill missing: before every new GSI's phase backfilled its
// entities) is read with this keyplan's phases, keeping the phase the
// migration is at, and says so (KP619): keyplan lock records them. With
// its digest, the same edit is a hand edit, refused; a lock that differs
// otherwise is refused too.
func TestOlderPhasesAreAnUpgrade(t *testing.T) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v1 := string(src)
	lock := patterns.NewLock(planModel(t, v1, nil))
	v2 := strings.Replace(v1, "  GetProduct:         {get: Product, rate: 300}\n",
		"  GetProduct:         {get: Product, rate: 300}\n  OrdersAt: {query: Order, where: [createdAt]}\n  OrdersByTotal: {query: Order, where: [total]}\n", 1)
	d2 := planModel(t, v2, lock)
	if err := lock.Apply(d2, patterns.Compare(lock, d2)); err != nil || lock.Migration == nil {
		t.Fatal(err)
	}
	lock.Advance() // phase 1 done
	drop := func(doc map[string]any) { obj(doc, "migration", "phases", 1)["backfill"] = []any{} }
	older, err := earlier(t, lock, drop)
	if err != nil {
		t.Fatalf("an older keyplan's phases: %v", err)
	}
	ups := older.Upgrades()
	if len(ups) != 2 || ups[1].ID != "KP619" || !strings.Contains(ups[1].Message, "phase 2 also backfills Order") {
		t.Errorf("upgrades %+v, want KP617 and KP619 naming phase 2's backfill", ups)
	}
	if older.Migration.Current != 1 || !slices.Equal(older.Migration.Phases[1].Backfill, []string{"Order"}) || !older.Modified() {
		t.Errorf("re-derived: phase %d, %+v, modified %v", older.Migration.Current, older.Migration.Phases[1], older.Modified())
	}
	if df := patterns.Compare(older, d2); !slices.ContainsFunc(df.Changes, func(c patterns.Change) bool { return c.ID == "KP619" }) {
		t.Errorf("keyplan diff does not list KP619: %+v", df.Changes)
	}
	if _, err := tamper(t, lock, drop); err == nil || !strings.Contains(err.Error(), "digest does not match") {
		t.Errorf("with its digest: %v", err)
	}
	if _, err := earlier(t, lock, func(doc map[string]any) {
		obj(doc, "migration", "phases", 1)["ttl"] = "total"
	}); err == nil || !errors.Is(err, patterns.ErrDesign) {
		t.Errorf("a phase's TTL edited: %v", err)
	}
}

// One lock, two environments: each phase is verified by staging, then
// prod, and only then does the lock advance; prod cannot go first, an
// environment the lock does not name is refused, and the lock as written
// reads back (with a hand edit claiming an order it never had refused).
func TestEnvironmentsAdvanceInLockstep(t *testing.T) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v1 := string(src)
	lock := patterns.NewLock(planModel(t, v1, nil))
	if err := lock.SetEnvironments([]string{"staging", "prod"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"Prod"}, {"a", "a"}, {""}} {
		if err := patterns.NewLock(lock.Accepted).SetEnvironments(bad); err == nil {
			t.Errorf("environments %q accepted", bad)
		}
	}
	v2 := strings.Replace(v1, "  GetProduct:         {get: Product, rate: 300}\n",
		"  GetProduct:         {get: Product, rate: 300}\n  OrdersAt: {query: Order, where: [createdAt]}\n  OrdersByTotal: {query: Order, where: [total]}\n", 1)
	d2 := planModel(t, v2, lock)
	if err := lock.Apply(d2, patterns.Compare(lock, d2)); err != nil || lock.Migration == nil {
		t.Fatal(err)
	}
	if err := lock.SetEnvironments([]string{"prod"}); err == nil {
		t.Error("environments changed during a migration")
	}
	phases := len(lock.Migration.Phases)
	for phase := range phases {
		if _, err := lock.Verify("prod"); !errors.Is(err, patterns.ErrNotItsTurn) {
			t.Fatalf("phase %d: prod before staging: %v", phase+1, err)
		}
		if _, err := lock.Verify("qa"); err == nil {
			t.Fatal("an environment the lock does not name verified a phase")
		}
		if adv, err := lock.Verify("staging"); adv || err != nil || lock.Migration.Current != phase {
			t.Fatalf("phase %d: staging: advanced %v, %v", phase+1, adv, err)
		}
		if adv, err := lock.Verify("staging"); adv || err != nil {
			t.Fatalf("phase %d: staging again: advanced %v, %v", phase+1, adv, err)
		}
		back := evolvetest.RoundTrip(t, lock)
		if got := back.Next(); got != "prod" {
			t.Fatalf("phase %d: next %q, want prod", phase+1, got)
		}
		adv, err := lock.Verify("prod")
		if !adv || err != nil {
			t.Fatalf("phase %d: prod: advanced %v, %v", phase+1, adv, err)
		}
		if phase+1 < phases && (lock.Migration == nil || lock.Migration.Current != phase+1 || len(lock.Migration.Verified) != 0) {
			t.Fatalf("after phase %d: %+v", phase+1, lock.Migration)
		}
	}
	if lock.Migration != nil {
		t.Fatal("the migration is not over after prod verified its last phase")
	}
	// A lock claiming prod verified before staging is refused.
	lock2 := patterns.NewLock(planModel(t, v1, nil))
	lock2.SetEnvironments([]string{"staging", "prod"})
	lock2.Apply(d2, patterns.Compare(lock2, d2))
	if _, err := tamper(t, lock2, func(doc map[string]any) { obj(doc, "migration")["verified"] = []any{"prod"} }); err == nil || !strings.Contains(err.Error(), "prod before staging") {
		t.Errorf("prod verified before staging, by hand: %v", err)
	}
}

const cleanupShop = testmodel.OrdersWithSubject

// A lock's pending cleanup is derived (from the designs the table was at
// and the accepted one), not trusted: a record edited by hand is refused,
// naming what disagrees. The dangerous edit is one that removes a key a
// live GSI reads (every item would vanish from it); the quiet one drops
// an attribute, which then stays in the items for a later edit to read.
func TestHandEditedCleanupsAreRefused(t *testing.T) {
	lock := patterns.NewLock(planModel(t, cleanupShop, nil))
	// OrdersByStatus goes (its GSI is deleted in one deploy), subject is
	// renamed title: the cleanup removes the GSI's keys and subject.
	v2 := strings.Replace(cleanupShop, "  OrdersByStatus: {query: Order, where: [status], sort: placedAt}\n", "", 1)
	d2 := planModel(t, v2, lock)
	if err := lock.Apply(d2, patterns.Compare(lock, d2)); err != nil || lock.Migration != nil || lock.Cleanup == nil {
		t.Fatalf("deleting a GSI: %v, cleanup %+v", err, lock.Cleanup)
	}
	v3 := strings.Replace(v2, "      subject: {type: string, maxLength: 80}", "      title: {type: string, maxLength: 80, renamedFrom: subject}", 1)
	d3 := planModel(t, v3, lock)
	if err := lock.Apply(d3, patterns.Compare(lock, d3)); err != nil {
		t.Fatal(err)
	}
	for lock.Migration != nil {
		lock.Advance()
	}
	remove := lock.Cleanup.Remove["Order"]
	if len(remove) != 3 || !slices.Contains(remove, "subject") || len(lock.Cleanup.Before) != 2 {
		t.Fatalf("the cleanup after two edits: remove %v, %d design(s) before", remove, len(lock.Cleanup.Before))
	}
	if _, err := tamper(t, lock, func(map[string]any) {}); err != nil {
		t.Fatalf("the lock as written: %v", err)
	}
	live := lock.Accepted.Indexes[0]
	cases := []struct {
		name string
		edit func(doc map[string]any)
		want string
	}{
		{"an attribute dropped from the cleanup", func(doc map[string]any) {
			obj(doc, "cleanup", "remove")["Order"] = []any{remove[0], remove[1]}
		}, `cleanup.remove.Order: ["` + remove[0] + `","` + remove[1] + `"] recorded`},
		{"the key of a live GSI added (it would delete live data)", func(doc map[string]any) {
			obj(doc, "cleanup", "remove")["Order"] = []any{live.PK, remove[0], remove[1], remove[2]}
		}, "removes " + live.PK + " from Order's items, which the accepted design writes"},
		{"a key attribute the design writes for nobody added", func(doc map[string]any) {
			obj(doc, "cleanup", "remove")["Order"] = []any{remove[0], remove[1], remove[2], "status"}
		}, "which the accepted design writes"},
		{"another attribute added", func(doc map[string]any) {
			obj(doc, "cleanup", "remove")["Order"] = []any{remove[0], remove[1], remove[2], "zzz"}
		}, "cleanup.remove.Order"},
		{"the cleanup of another entity's items removed", func(doc map[string]any) {
			delete(obj(doc, "cleanup", "remove"), "Order")
		}, "cleanup.remove"},
		{"the designs before dropped", func(doc map[string]any) {
			delete(obj(doc, "cleanup"), "before")
		}, "digest does not match"},
		{"a design before edited (the GSI never deleted)", func(doc map[string]any) {
			obj(doc, "cleanup", "before", 0)["indexes"] = obj(doc, "cleanup", "before", 1)["indexes"]
		}, "cleanup's design before, 1"},
		{"the designs before dropped but the last", func(doc map[string]any) {
			obj(doc, "cleanup")["before"] = obj(doc, "cleanup")["before"].([]any)[1:]
		}, "its cleanup is not what its designs leave: cleanup.remove.Order"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tamper(t, lock, c.edit)
			if err == nil || !errors.Is(err, patterns.ErrDesign) || !strings.Contains(err.Error(), "digest does not match") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("with its digest: got %v, want an error naming %q", err, c.want)
			}
			// Without a digest, re-deriving the cleanup refuses the same
			// edits, but one: a cleanup recorded without its designs
			// before is what keyplan wrote for a while (KP620).
			l, err := earlier(t, lock, c.edit)
			if c.name == "the designs before dropped" {
				if err != nil || !slices.ContainsFunc(l.Upgrades(), func(u patterns.Change) bool { return u.ID == "KP620" }) {
					t.Errorf("format 1: got %v, want KP620 among %+v", err, l)
				}
				return
			}
			if err == nil || !errors.Is(err, patterns.ErrDesign) {
				t.Errorf("format 1: got %v, want a refusal", err)
			}
		})
	}
}

// withDigest is a lock document with its digest computed as
// docs/compatibility.md says: SHA-256 over the document without its
// digest, members sorted by name, no white space, as encoding/json
// writes a map.
func withDigest(t *testing.T, doc map[string]any) []byte {
	t.Helper()
	delete(doc, "digest")
	canon, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	doc["digest"] = "sha256:" + hex.EncodeToString(sum[:])
	b, _ := json.Marshal(doc)
	return b
}

// A lock whose digest holds is read as keyplan wrote it, whatever this
// keyplan derives from it: the digest is computed as the documentation
// says (an edit with its digest computed again reads; the digest is a
// checksum, not a signature). Where this keyplan cannot serve a pattern
// on the deployed keys at all, the lock records a served request that
// it does not take: the pattern is unserved (its reads answer an
// error), KP618 says so, and planning the model with the lock plans the
// migration to a key that serves it.
func TestADigestThatHoldsIsTrusted(t *testing.T) {
	src, err := os.ReadFile("../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lock := patterns.NewLock(planModel(t, string(src), nil))
	b, _ := lock.Bytes()
	var doc map[string]any
	json.Unmarshal(b, &doc)
	if again := withDigest(t, doc); !bytes.Contains(b, []byte(doc["digest"].(string))) {
		t.Fatalf("the documented digest %s is not the lock's:\n%.300s", doc["digest"], again)
	}
	// RecentMatches is read by result, which no deployed key holds.
	for _, p := range obj(doc, "accepted", "model")["patterns"].([]any) {
		if p := p.(map[string]any); p["name"] == "RecentMatches" {
			p["where"] = []any{"result"}
		}
	}
	l, err := patterns.ReadLock("leaderboard.lock.json", bytes.NewReader(withDigest(t, doc)))
	if err != nil || l.Check() != nil {
		t.Fatalf("a lock whose digest holds: %v, %v", err, l.Check())
	}
	if p := l.Accepted.Pattern("RecentMatches"); p.Served() {
		t.Errorf("served as %s", p.Text)
	}
	ups := l.Upgrades()
	if !slices.ContainsFunc(ups, func(c patterns.Change) bool {
		return c.ID == "KP618" && c.Subject.Name == "RecentMatches" && strings.Contains(c.Message, "which this keyplan does not serve on the deployed keys")
	}) {
		t.Errorf("upgrades %+v", ups)
	}
	m := l.Accepted.Model()
	d, err := patterns.PlanLocked(m, l)
	if err != nil {
		t.Fatal(err)
	}
	df := patterns.Compare(l, d)
	if !d.Pattern("RecentMatches").Served() || len(df.Phases) == 0 || len(df.Errors()) > 0 {
		t.Errorf("planned with the lock: %s, %d phase(s), errors %v", d.Pattern("RecentMatches").Text, len(df.Phases), df.Errors())
	}
}
