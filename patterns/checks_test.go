package patterns

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// docExample is a rule's documented failing or passing model. A change
// rule's example is an edit: the model before (locked), optionally the
// model a migration in progress leads to, and the edited model.
type docExample struct {
	rule, kind, model string
	before, migrating string
	// migrated: the migration to the migrating model has ended (its
	// cleanup pending).
	migrated bool
	// deployed is a model locked as it is, before a check rule's example
	// is planned with the lock (a design the table is deployed with).
	deployed string
	// lock is an upgrade rule's example: a model of the compatibility
	// corpus (testdata/compat), beside the lock an earlier keyplan wrote.
	lock string
}

var (
	docSection = regexp.MustCompile(`(?m)^## (KP\d{3})$`)
	docBlock   = regexp.MustCompile("(?s)```(yaml|lock) (fail|pass|before|migrating|migrated|deployed)\n(.*?)\n```")
)

func docExamples(t *testing.T) []docExample {
	t.Helper()
	src, err := os.ReadFile("../docs/checks.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []docExample
	idx := docSection.FindAllStringSubmatchIndex(string(src), -1)
	for i, m := range idx {
		end := len(src)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		rule := string(src[m[2]:m[3]])
		var before, migrating, deployed string
		migrated := false
		for _, b := range docBlock.FindAllStringSubmatch(string(src[m[1]:end]), -1) {
			switch lang, kind, text := b[1], b[2], b[3]; {
			case lang == "lock":
				out = append(out, docExample{rule: rule, kind: kind, lock: text})
			case kind == "before":
				before = text
			case kind == "deployed":
				deployed = text
			case kind == "migrating", kind == "migrated":
				migrating, migrated = text, kind == "migrated"
			default:
				out = append(out, docExample{rule: rule, kind: kind, model: text, before: before, migrating: migrating, migrated: migrated, deployed: deployed})
			}
		}
	}
	return out
}

// Every rule of the catalog is documented with a failing and a passing
// example, and each example does what the documentation says.
func TestRulesFireAndStayQuiet(t *testing.T) {
	examples := docExamples(t)
	seen := map[string]map[string]bool{}
	for _, x := range examples {
		if x.before != "" || x.lock != "" {
			continue // a change rule (changes_test.go)
		}
		if seen[x.rule] == nil {
			seen[x.rule] = map[string]bool{}
		}
		seen[x.rule][x.kind] = true
		t.Run(x.rule+"/"+x.kind, func(t *testing.T) {
			m, err := model.Parse("checks.md", []byte(x.model))
			if err != nil {
				t.Fatal(err)
			}
			var lock *Lock
			if x.deployed != "" {
				dm, err := model.Parse("checks.md", []byte(x.deployed))
				if err != nil {
					t.Fatal(err)
				}
				dd, err := Plan(dm)
				if err != nil {
					t.Fatal(err)
				}
				lock = NewLock(dd) // as an earlier keyplan accepted it
			}
			d, err := PlanLocked(m, lock)
			if err != nil {
				t.Fatal(err)
			}
			var hits []Diagnostic
			for _, dg := range d.Diagnostics {
				if dg.ID == x.rule {
					hits = append(hits, dg)
				}
			}
			switch x.kind {
			case "fail":
				if len(hits) == 0 {
					t.Fatalf("%s did not fire; findings: %v", x.rule, d.Diagnostics)
				}
				r, _ := RuleByID(x.rule)
				for _, h := range hits {
					if h.Severity != r.Severity || h.Subject.Name == "" || h.Message == "" || h.Fix == "" || h.Pos.Line == 0 {
						t.Errorf("finding lacks a field: %+v", h)
					}
				}
			case "pass":
				if len(hits) > 0 {
					t.Fatalf("%s fired: %v", x.rule, hits)
				}
				for _, dg := range d.Errors() {
					t.Errorf("the passing example has an error: %s", dg)
				}
			}
		})
	}
	for _, r := range Rules() {
		if r.Retired() != "" {
			if seen[r.ID] != nil {
				t.Errorf("%s is retired (%s): docs/checks.md gives it examples", r.ID, r.Retired())
			}
			continue
		}
		if !seen[r.ID]["fail"] || !seen[r.ID]["pass"] {
			t.Errorf("%s lacks a documented failing or passing example in docs/checks.md", r.ID)
		}
		delete(seen, r.ID)
	}
	for id := range seen {
		t.Errorf("docs/checks.md documents %s, which is not in the catalog", id)
	}
}

// Ids are stable: released ids keep their meaning and severity.
func TestRuleIDsStable(t *testing.T) {
	want := "KP101 error,KP102 error,KP103 error,KP104 error,KP105 error,KP106 warning,KP107 warning,KP108 error,KP109 warning,KP201 error,KP202 error,KP203 error,KP204 warning,KP205 warning,KP206 error,KP210 error,KP211 error,KP212 error," +
		"KP301 error,KP302 warning,KP303 error,KP304 error,KP305 error,KP306 error,KP307 error,KP308 warning,KP309 error,KP310 warning,KP401 warning,KP402 warning,KP403 warning,KP404 warning,KP405 warning,KP406 warning,KP407 warning,KP408 warning,KP501 error,KP502 warning," +
		"KP701 error,KP702 error,KP703 error,KP704 error,KP705 warning,KP706 error,KP707 error,KP708 error"
	var got []string
	for _, r := range Rules() {
		got = append(got, r.ID+" "+string(r.Severity))
	}
	if strings.Join(got, ",") != want {
		t.Errorf("catalog changed:\n got %s\nwant %s", strings.Join(got, ","), want)
	}
}

// The seed examples pass with no error. Orders in a status draw the hot
// partition warning unless sharded; pending orders for a merchant do not
// (the merchant id spreads the key).
func TestSeedHotPartitions(t *testing.T) {
	hot := func(d *Design, pattern string) bool {
		for _, x := range d.Diagnostics {
			if x.ID == "KP401" && x.Subject == (Subject{SubjectPattern, pattern}) {
				return true
			}
		}
		return false
	}
	shop := plan(t, "../examples/ecommerce.yaml")
	if !hot(shop, "OrdersByStatus") {
		t.Error("OrdersByStatus: no hot-partition warning")
	}
	merchant := plan(t, "../examples/merchant-orders.yaml")
	if hot(merchant, "PendingOrdersForMerchant") {
		t.Error("PendingOrdersForMerchant: hot-partition warning, but merchantId spreads the key")
	}
	src, _ := os.ReadFile("../examples/ecommerce.yaml")
	sharded := strings.Replace(string(src), "sort: createdAt desc, returns: [customerName, total], rate: 5}", "sort: createdAt desc, returns: [customerName, total], rate: 5, shards: 4}", 1)
	m, err := model.Parse("ecommerce.yaml", []byte(sharded))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := Plan(m)
	if hot(d, "OrdersByStatus") {
		t.Error("sharded OrdersByStatus still warned")
	}
	if p := d.Pattern("OrdersByStatus"); p.Requests != 4 {
		t.Errorf("sharded OrdersByStatus: %d requests", p.Requests)
	}
	for _, d := range []*Design{shop, merchant, plan(t, "../examples/leaderboard.yaml")} {
		for _, x := range d.Errors() {
			t.Errorf("%s: %s", d.Table, x)
		}
	}
}

// A sort on a counter is KP206's (no key holds a counter), not KP204's:
// no maxLength makes a counter fit in a key, so KP204's advice to
// declare one was wrong.
func TestCounterSortIsNotAnUnboundedKey(t *testing.T) {
	d, err := Plan(mustParse(t, `table: Shop
entities:
  Event:
    id: [eventId]
    attributes:
      eventId: {type: string, maxLength: 40}
      venueId: {type: string, maxLength: 40}
      ticketsSold: {type: counter, shards: 4}
patterns:
  GetEvent: {get: Event}
  BestSellers: {query: Event, where: [venueId], sort: ticketsSold}
writes:
  SellTicket: {update: Event, add: {ticketsSold: 1}}
`))
	if err != nil {
		t.Fatal(err)
	}
	kp206 := false
	for _, f := range d.Diagnostics {
		kp206 = kp206 || f.ID == "KP206"
		if f.ID == "KP204" && strings.Contains(f.Message, "ticketsSold") {
			t.Errorf("KP204 on a counter: %s (%s)", f.Message, f.Fix)
		}
	}
	if !kp206 {
		t.Errorf("findings %v: want KP206 on the counter's sort", d.Diagnostics)
	}
}
