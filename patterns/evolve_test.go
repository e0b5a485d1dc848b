package patterns_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// planModel plans the shop with synthetic GSI keys: TestShopEvolves walks
// the synthetic keys' change rules (native_evolve_test.go the native
// ones).
func planModel(t *testing.T, src string, lock *patterns.Lock) *patterns.Design {
	t.Helper()
	return planKeyed(t, src, lock, model.IndexKeysSynthetic)
}

func planKeyed(t *testing.T, src string, lock *patterns.Lock, keys model.IndexKeys) *patterns.Design {
	t.Helper()
	m, err := model.Parse("shop.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	o := patterns.Options{IndexKeys: keys}
	if lock != nil {
		o.Lock = lock.Latest()
	}
	d, err := patterns.PlanWith(m, o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func changeIDs(df *patterns.Diff) []string {
	var ids []string
	for _, c := range df.Changes {
		if !slices.Contains(ids, c.ID) {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// The shop, walked through successive edits: each classified as expected,
// each phase a deploy CloudFormation accepts, every pattern served at the
// end of each migration.
func TestShopEvolves(t *testing.T) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := string(src)
	lock := evolvetest.RoundTrip(t, patterns.NewLock(planModel(t, model, nil)))
	for _, ed := range evolvetest.ShopEdits {
		t.Run(ed.Name, func(t *testing.T) {
			next := ed.Apply(model)
			if next == model {
				t.Fatal("the edit changed nothing")
			}
			d := planModel(t, next, lock)
			df := patterns.Compare(lock, d)
			ids := changeIDs(df)
			for _, id := range ed.Want {
				if !slices.Contains(ids, id) {
					t.Errorf("changes %v lack %s:\n%s", ids, id, dump(df))
				}
			}
			if got := len(df.Errors()) > 0; got != ed.Refused {
				t.Fatalf("refused %v, want %v:\n%s", got, ed.Refused, dump(df))
			}
			if df.Safe != ed.Safe {
				t.Errorf("safe %v, want %v:\n%s", df.Safe, ed.Safe, dump(df))
			}
			if ed.Refused {
				before, _ := lock.Bytes()
				if err := lock.Apply(d, df); err == nil {
					t.Fatal("Apply accepted a refused change")
				}
				after, _ := lock.Bytes()
				if !bytes.Equal(before, after) {
					t.Fatal("a refused Apply changed the lock")
				}
				return // the model stays as it was
			}
			evolvetest.CheckPhases(t, df.From.Indexes, df.Phases)
			for _, x := range d.Errors() {
				t.Errorf("the plan has an error: %s", x)
			}
			if err := lock.Apply(d, df); err != nil {
				t.Fatal(err)
			}
			// Deploy and backfill each phase.
			for lock.Migration != nil {
				lock = evolvetest.RoundTrip(t, lock)
				checkReadable(t, lock)
				if err := lock.Advance(); err != nil {
					t.Fatal(err)
				}
			}
			lock = evolvetest.RoundTrip(t, lock)
			// Once it is deployed, the model is what the lock records.
			if again := patterns.Compare(lock, planModel(t, next, lock)); !again.Safe || len(again.Changes) != 0 || len(again.Phases) != 0 {
				t.Errorf("after the migration the diff is not empty:\n%s", dump(again))
			}
			model = next
		})
	}
}

// checkReadable: at every phase of a migration, each pattern of the
// target is read through an index the phase has, by the target's plan or
// by the accepted one's, and never by the target's while an entity it
// reads has a backfill to come.
func checkReadable(t *testing.T, l *patterns.Lock) {
	t.Helper()
	deployed, _ := l.Deployed()
	has := func(name string) bool {
		return name == model.BaseIndex || slices.ContainsFunc(deployed, func(ix *patterns.PhaseIndex) bool { return ix.Name == name })
	}
	mg := l.Migration
	for _, tp := range mg.Target.Patterns {
		if !tp.Served() {
			continue
		}
		if l.ReadsTarget(tp.Name) {
			if !has(tp.Index) {
				t.Errorf("phase %d: %s reads %s, which the phase does not have", mg.Current+1, tp.Name, tp.Index)
			}
			for _, e := range tp.Entities {
				for _, p := range mg.Phases[mg.Current:] {
					if slices.Contains(p.Backfill, e) {
						t.Errorf("phase %d: %s reads %s before its backfill", mg.Current+1, tp.Name, e)
					}
				}
			}
			continue
		}
		ap := l.Accepted.Pattern(tp.Name)
		if ap == nil {
			continue // new: refused with ErrNotReady until it can be read
		}
		if !has(ap.Index) {
			t.Errorf("phase %d: %s reads %s by the accepted design, which the phase has deleted", mg.Current+1, tp.Name, ap.Index)
		}
	}
}

func dump(df *patterns.Diff) string {
	b, _ := json.MarshalIndent(df, "", "  ")
	return string(b)
}

// The order of the model file never changes a plan or a lock: a pattern
// inserted first or last, entities and patterns reordered.
func TestFileOrderChangesNothing(t *testing.T) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := string(src)
	line := "  OrdersByTotal: {query: Order, where: [total]}\n"
	first := strings.Replace(base, "patterns:\n", "patterns:\n"+line, 1)
	last := strings.Replace(base, "writes:\n", line+"writes:\n", 1)
	// Entities in reverse, patterns in reverse.
	reordered := reverseSections(last)
	lock := patterns.NewLock(planModel(t, base, nil))
	var locks, plans []string
	for _, s := range []string{first, last, reordered} {
		d := planModel(t, s, lock)
		l := patterns.NewLock(d)
		b, _ := l.Bytes()
		locks = append(locks, string(b))
		d.Diagnostics, d.Source = nil, ""
		j, _ := json.Marshal(d)
		plans = append(plans, string(j))
	}
	for i := 1; i < len(locks); i++ {
		if locks[i] != locks[0] {
			t.Errorf("lock %d differs from lock 0", i)
		}
		if plans[i] != plans[0] {
			t.Errorf("plan %d differs from plan 0", i)
		}
	}
}

// reverseSections reverses the order of the entities and of the patterns
// of a model in the example's layout.
func reverseSections(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	var block []string
	flushPatterns := func() {
		slices.Reverse(block)
		out = append(out, block...)
		block = nil
	}
	section := ""
	var entities [][]string
	for _, l := range lines {
		switch {
		case l == "entities:" || l == "patterns:" || l == "writes:" || l == "examples:":
			if section == "entities" {
				slices.Reverse(entities)
				for _, e := range entities {
					out = append(out, e...)
				}
			}
			if section == "patterns" {
				flushPatterns()
			}
			section = strings.TrimSuffix(l, ":")
			out = append(out, l)
		case section == "entities" && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   "):
			entities = append(entities, []string{l})
		case section == "entities" && len(entities) > 0:
			entities[len(entities)-1] = append(entities[len(entities)-1], l)
		case section == "patterns" && strings.HasPrefix(l, "  "):
			block = append(block, l)
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A lock is a fixed point: the model it was written from plans, with it,
// to the design it records (so the construct and keyplan diff see no
// change), read back from its file or not; and writing it again gives the
// same bytes.
func TestLockIsAFixedPoint(t *testing.T) {
	for _, f := range testmodel.Files(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, err := model.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := patterns.Plan(m)
			if err != nil {
				t.Fatal(err)
			}
			lock := patterns.NewLock(d)
			first, _ := lock.Bytes()
			for _, l := range []*patterns.Lock{lock, evolvetest.RoundTrip(t, lock)} {
				again, err := patterns.PlanLocked(m, l)
				if err != nil {
					t.Fatal(err)
				}
				if !l.Accepts(again) {
					t.Fatalf("the lock does not accept the plan of its own model:\n%s", dump(patterns.Compare(l, again)))
				}
				if df := patterns.Compare(l, again); !df.Safe || len(df.Changes) != 0 {
					t.Errorf("diff against its own lock:\n%s", dump(df))
				}
				b, _ := patterns.NewLock(again).Bytes()
				if !bytes.Equal(first, b) {
					t.Error("the lock of the re-planned design differs from the first")
				}
			}
		})
	}
}

// A write pattern added or removed changes no table: the change is safe,
// and says what the write may do.
func TestWriteChangesAreSafe(t *testing.T) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := string(src)
	lock := patterns.NewLock(planModel(t, base, nil))
	next := strings.Replace(base, "  Restock: {update: Product, add: {inventory: $count}, rate: 1}\n", "  Discontinue: {delete: Product}\n", 1)
	df := patterns.Compare(lock, planModel(t, next, lock))
	var got []string
	for _, c := range df.Changes {
		got = append(got, c.ID+" "+c.Subject.String()+": "+c.Message)
	}
	want := []string{"KP611 write Discontinue: new: delete (DeleteItem)", "KP612 write Restock: removed: the application no longer makes this write (grants of it go)"}
	if !df.Safe || !slices.Equal(got, want) {
		t.Errorf("safe %v, changes\n%s\nwant\n%s", df.Safe, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
