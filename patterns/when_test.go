package patterns

import (
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns/model"
)

const sparseModel = testmodel.SparseOrders

// A hand-made GSI key may be sparse (when: constants), as seed 003's
// GSI2PK = MERCHANT#<id>#STATUS#PENDING is: the design keeps the
// constants, a pattern filtering on them reads it, one that does not is
// refused (the index holds only those items).
func TestHandMadeSparseKey(t *testing.T) {
	m, err := model.Parse("shop.yaml", []byte(sparseModel))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	k := d.Entity("Order").Key("GSI2")
	if len(k.When) != 1 || k.When[0] != (model.Const{Attr: "status", Value: "PENDING"}) {
		t.Fatalf("GSI2's key is sparse on %v, want status=PENDING", k.When)
	}
	if pp := d.Pattern("PendingOrders"); pp.Index != "GSI2" || !pp.Served() {
		t.Errorf("PendingOrders: %s on %s (%s)", pp.Operation, pp.Index, pp.Reason)
	}
	if errs := d.Errors(); len(errs) > 0 {
		t.Errorf("findings: %v", errs)
	}
	unfiltered := strings.Replace(sparseModel, ", filter: {status: PENDING}", "", 1)
	d2, err := Plan(mustParse(t, unfiltered))
	if err != nil {
		t.Fatal(err)
	}
	if pp := d2.Pattern("PendingOrders"); pp.Served() || !strings.Contains(pp.Reason, "status=PENDING") {
		t.Errorf("an unfiltered read of the sparse index: %s on %s (%s), want refused naming status=PENDING", pp.Operation, pp.Index, pp.Reason)
	}
}

func mustParse(t *testing.T, src string) *model.Model {
	t.Helper()
	m, err := model.Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHandMadeSparseKeyRefusals(t *testing.T) {
	tests := []struct{ name, from, to, want string }{
		{"on the base table", `table: {pk: "ORDER#{orderId}", sk: ORDER}`, `table: {pk: "ORDER#{orderId}", sk: ORDER, when: {status: PENDING}}`,
			"shop.yaml:11:55: entities.Order.keys.table.when: the base table's key is on every item: only a GSI key can be sparse"},
		{"an unknown attribute", `when: {status: PENDING}`, `when: {state: PENDING}`, `entities.Order.keys.GSI2.when: unknown attribute "state"`},
		{"a value the enum lacks", `when: {status: PENDING}`, `when: {status: LOST}`, `entities.Order.keys.GSI2.when.status: `},
		{"not a constant", `when: {status: PENDING}`, `when: {status: [PENDING]}`, `entities.Order.keys.GSI2.when.status: expected a constant value, found a list`},
		{"not a mapping", `when: {status: PENDING}`, `when: PENDING`, `entities.Order.keys.GSI2.when: expected a mapping`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(sparseModel, tt.from, tt.to, 1)
			if src == sparseModel {
				t.Fatal("the edit changed nothing")
			}
			_, err := model.Parse("shop.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant %q", err, tt.want)
			}
		})
	}
}
