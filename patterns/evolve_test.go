package patterns_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// edit is one change to a model's text.
type edit struct {
	name string
	// apply rewrites the model text (it must change it).
	apply func(string) string
	// want are the change rule ids the diff must report (and no error
	// unless the edit is refused).
	want    []string
	refused bool
	// safe: one deploy, no backfill.
	safe bool
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

func addPattern(line string) func(string) string {
	return replace("  GetProduct:         {get: Product, rate: 300}\n", "  GetProduct:         {get: Product, rate: 300}\n"+line+"\n")
}

// shopEdits walk the shop through successive changes: each applies to the
// model the previous ones left (a refused edit is undone).
var shopEdits = []edit{
	{name: "pattern inserted first", apply: replace("patterns:\n", "patterns:\n  OrdersByTotal: {query: Order, where: [total], returns: [customerId]}\n"),
		want: []string{"KP601", "KP610", "KP611"}},
	{name: "pattern served by an existing shape", apply: addPattern("  RecentCustomerOrders: {query: Order, where: [customerId], sort: createdAt desc, limit: 5, returns: [status, total]}"),
		want: []string{"KP611"}, safe: true},
	{name: "new shape on an existing GSI", apply: addPattern("  ProductsByPrice: {query: Product, where: [category], sort: price, returns: [price]}"),
		want: []string{"KP610", "KP611"}},
	{name: "two new GSIs at once", apply: addPattern("  OrdersAt: {query: Order, where: [createdAt]}\n  CustomerOrdersByTotal: {query: Order, where: [customerId], sort: total}"),
		want: []string{"KP601", "KP610", "KP611"}},
	{name: "a wider projection", apply: replace("OrdersByTotal: {query: Order, where: [total], returns: [customerId]}", "OrdersByTotal: {query: Order, where: [total], returns: [customerId, status]}"),
		want: []string{"KP601", "KP602", "KP603", "KP610"}},
	{name: "a widened number", apply: replace("price: {type: number, min: 0, max: 10000000}\n      inventory", "price: {type: number, min: 0, max: 1000000000}\n      inventory"),
		want: []string{"KP604", "KP610"}},
	{name: "a renamed attribute without renamedFrom", apply: renameEmail("{type: string, maxLength: 254}"),
		refused: true, want: []string{"KP605"}},
	{name: "a renamed attribute with renamedFrom", apply: renameEmail("{type: string, maxLength: 254, renamedFrom: email}"),
		want: []string{"KP606"}},
	{name: "a TTL attribute", apply: replace("      shippingAddr: {type: string, maxLength: 1000}\n", "      shippingAddr: {type: string, maxLength: 1000}\n      expiresAt: {type: ttl, optional: true}\n"),
		want: []string{"KP608"}, safe: true},
	{name: "a TTL change", apply: replace("      expiresAt: {type: ttl, optional: true}\n", "      purgeAt: {type: ttl, optional: true}\n"),
		want: []string{"KP608"}},
	{name: "a removed pattern", apply: replace("  OrdersAt: {query: Order, where: [createdAt]}\n", ""),
		want: []string{"KP602", "KP612"}, safe: true},
}

// renameEmail renames Customer.email to emailAddress everywhere (its
// declaration, the pattern, the examples).
func renameEmail(decl string) func(string) string {
	return func(s string) string {
		s = strings.Replace(s, "      email: {type: string, maxLength: 254}", "      emailAddress: "+decl, 1)
		s = strings.Replace(s, "where: [email]", "where: [emailAddress]", 1)
		s = strings.ReplaceAll(s, ", email: ", ", emailAddress: ")
		return strings.ReplaceAll(s, "params: {email: ", "params: {emailAddress: ")
	}
}

func planModel(t *testing.T, src string, lock *patterns.Lock) *patterns.Design {
	t.Helper()
	m, err := patterns.Parse("shop.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	o := patterns.Options{}
	if lock != nil {
		o.Lock = lock.Latest()
	}
	d, err := patterns.PlanWith(m, o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// roundTrip writes a lock and reads it back, as the next command would.
func roundTrip(t *testing.T, l *patterns.Lock) *patterns.Lock {
	t.Helper()
	b, err := l.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	back, err := patterns.ReadLock("shop.lock.json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Bytes()
	if !bytes.Equal(b, again) {
		t.Fatal("the lock's bytes changed on a round trip")
	}
	return back
}

// checkPhases asserts what CloudFormation and DynamoDB accept from one
// deploy to the next: at most one GSI created or deleted, no GSI changing
// its keys or projection under its name.
func checkPhases(t *testing.T, from []*patterns.PhaseIndex, phases []*patterns.Phase) {
	t.Helper()
	prev := from
	for i, p := range phases {
		byName := map[string]*patterns.PhaseIndex{}
		for _, ix := range prev {
			byName[ix.Name] = ix
		}
		created, deleted := 0, 0
		for _, ix := range p.Indexes {
			old, ok := byName[ix.Name]
			if !ok {
				created++
				continue
			}
			if old.PK != ix.PK || old.SK != ix.SK || old.Projection != ix.Projection || !slices.Equal(old.NonKeyAttributes, ix.NonKeyAttributes) {
				t.Errorf("phase %d changes %s in place: %+v → %+v", i+1, ix.Name, old, ix)
			}
			delete(byName, ix.Name)
		}
		deleted = len(byName)
		if created+deleted > 1 {
			t.Errorf("phase %d creates %d and deletes %d GSIs", i+1, created, deleted)
		}
		if created != len(p.Create) || deleted != len(p.Delete) {
			t.Errorf("phase %d says create %v delete %v, its indexes create %d delete %d", i+1, p.Create, p.Delete, created, deleted)
		}
		prev = p.Indexes
	}
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
	lock := roundTrip(t, patterns.NewLock(planModel(t, model, nil)))
	for _, ed := range shopEdits {
		t.Run(ed.name, func(t *testing.T) {
			next := ed.apply(model)
			if next == model {
				t.Fatal("the edit changed nothing")
			}
			d := planModel(t, next, lock)
			df := patterns.Compare(lock, d)
			ids := changeIDs(df)
			for _, id := range ed.want {
				if !slices.Contains(ids, id) {
					t.Errorf("changes %v lack %s:\n%s", ids, id, dump(df))
				}
			}
			if got := len(df.Errors()) > 0; got != ed.refused {
				t.Fatalf("refused %v, want %v:\n%s", got, ed.refused, dump(df))
			}
			if df.Safe != ed.safe {
				t.Errorf("safe %v, want %v:\n%s", df.Safe, ed.safe, dump(df))
			}
			if ed.refused {
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
			checkPhases(t, df.From.Indexes, df.Phases)
			for _, x := range d.Errors() {
				t.Errorf("the plan has an error: %s", x)
			}
			if err := lock.Apply(d, df); err != nil {
				t.Fatal(err)
			}
			// Deploy and backfill each phase.
			for lock.Migration != nil {
				lock = roundTrip(t, lock)
				checkReadable(t, lock)
				if err := lock.Advance(); err != nil {
					t.Fatal(err)
				}
			}
			lock = roundTrip(t, lock)
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
		return name == patterns.Table || slices.ContainsFunc(deployed, func(ix *patterns.PhaseIndex) bool { return ix.Name == name })
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
	last := strings.Replace(base, "examples:\n", line+"examples:\n", 1)
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
		case l == "entities:" || l == "patterns:" || l == "examples:":
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
	files, _ := filepath.Glob("../examples/*.yaml")
	more, _ := filepath.Glob("testdata/models/*.yaml")
	for _, f := range append(files, more...) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, err := patterns.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := patterns.Plan(m)
			if err != nil {
				t.Fatal(err)
			}
			lock := patterns.NewLock(d)
			first, _ := lock.Bytes()
			for _, l := range []*patterns.Lock{lock, roundTrip(t, lock)} {
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
