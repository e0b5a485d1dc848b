package patterns

import (
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// needsModel is a table of three entities; needs are given per entity.
func needsModel(user, order, audit string) string {
	ent := func(name, id, needs string) string {
		s := "  " + name + ":\n    id: [" + id + "]\n    attributes: {" + id + ": {type: string, maxLength: 40}}\n"
		if needs != "" {
			s += "    needs: " + needs + "\n"
		}
		return s
	}
	return "table: Shop\nentities:\n" + ent("User", "userId", user) + ent("Order", "orderId", order) + ent("Audit", "auditId", audit) +
		"patterns:\n  GetUser: {get: User, rate: 10}\n  GetOrder: {get: Order, rate: 10}\n  GetAudit: {get: Audit}\n" +
		"writes:\n  AddOrder: {put: Order, rate: 4}\n"
}

func kp310(t *testing.T, src string) []string {
	t.Helper()
	m, err := model.Parse("shop.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, dg := range d.Diagnostics {
		if dg.ID == "KP310" {
			got = append(got, dg.Subject.String()+" "+dg.Pos.String()+": "+dg.Message+" | "+dg.Fix)
		}
	}
	return got
}

// KP310 proposes a split for each need entities of one table state
// differently (point-in-time recovery, backup plan, billing, replicas),
// with the cost of keeping one table and of splitting; entities that
// agree, or state nothing, are no finding.
func TestSplitOnNeeds(t *testing.T) {
	for _, tc := range []struct {
		name               string
		user, order, audit string
		want               []string // in the one finding; none: no finding
	}{
		{"pitr", "{pointInTimeRecovery: false}", "{pointInTimeRecovery: true}", "{pointInTimeRecovery: true}",
			[]string{"entity Order 10:34:", "need different point-in-time recovery (User: off; Order, Audit: on)", "point-in-time recovery on for the whole table", "tables: {Shop: {}, ShopPointInTimeRecovery: {}} and table: ShopPointInTimeRecovery on Order, Audit", "breaks no pattern"}},
		{"pitr agrees", "{pointInTimeRecovery: true}", "{pointInTimeRecovery: true}", "", nil},
		{"backup", "{backup: daily}", "{backup: none}", "{backup: hourly-7y}",
			[]string{"entity Order", "need different backup plan (User: daily; Order: none; Audit: hourly-7y)", "the table in every plan (daily, none, hourly-7y", "table: ShopBackup on Order, Audit"}},
		{"backup agrees", "{backup: daily}", "{backup: daily}", "{backup: daily}", nil},
		{"billing", "{billing: onDemand}", "{billing: provisioned}", "",
			[]string{"entity Order 10:22:", "need different billing mode (User: onDemand; Order: provisioned)", "on demand $", "provisioned $", "table: ShopBilling on Order"}},
		{"billing agrees", "", "{billing: provisioned}", "{billing: provisioned}", nil},
		{"replicas", "{replicas: [eu-west-1, us-west-2]}", "{replicas: [us-west-2, eu-west-1]}", "{replicas: []}",
			[]string{"entity Audit", "need different replica Regions (User, Order: eu-west-1+us-west-2; Audit: none)", "every Region any entity needs (2)", "per Region on demand", "table: ShopReplicas on Audit"}},
		{"replicas agree, in another order", "{replicas: [eu-west-1, us-west-2]}", "{replicas: [us-west-2, eu-west-1]}", "", nil},
		{"no needs", "", "", "", nil},
		{"different needs, each agreed", "{billing: provisioned}", "{pointInTimeRecovery: true}", "{backup: daily}", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := kp310(t, needsModel(tc.user, tc.order, tc.audit))
			if tc.want == nil {
				if len(got) != 0 {
					t.Fatalf("KP310 where the entities agree: %q", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("KP310: %q; want one finding", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("lacks %q:\n%s", w, got[0])
				}
			}
		})
	}
	// all four at once: four findings
	if got := kp310(t, needsModel("{pointInTimeRecovery: true, backup: a, billing: onDemand, replicas: []}", "{pointInTimeRecovery: false, backup: b, billing: provisioned, replicas: [eu-west-1]}", "")); len(got) != 4 {
		t.Errorf("four needs differ: %d finding(s) %q", len(got), got)
	}
}

// Bad needs are refused where they are written.
func TestNeedsBadInput(t *testing.T) {
	for needs, want := range map[string]string{
		"{pointInTimeRecovery: yes please}":  "shop.yaml:9:34: entities.Order.needs.pointInTimeRecovery: expected true or false",
		"{backup: 'a plan'}":                 `entities.Order.needs.backup: expected none or an AWS Backup plan's name (1 to 50 of a-z, A-Z, 0-9, _, . and -), found "a plan"`,
		"{billing: payPerRequest}":           `shop.yaml:9:22: entities.Order.needs.billing: expected onDemand or provisioned, found "payPerRequest"`,
		"{replicas: [eu-west-1, mars]}":      `shop.yaml:9:35: entities.Order.needs.replicas: expected a list of AWS Regions (like eu-west-1), found "mars"`,
		"{replicas: [eu-west-1, eu-west-1]}": `entities.Order.needs.replicas: duplicate name "eu-west-1"`,
		"{pitr: true}":                       "entities.Order.needs: unknown field",
		"true":                               "entities.Order.needs",
	} {
		_, err := model.Parse("shop.yaml", []byte(needsModel("", needs, "")))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("needs: %s: %v; want %q", needs, err, want)
		}
	}
}
