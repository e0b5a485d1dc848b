package patterns

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

func TestHandlersTheModelNeeds(t *testing.T) {
	tests := []struct {
		model string
		want  []Handler
	}{
		{"../examples/leaderboard.yaml", []Handler{HandlerCounters, HandlerArchive}},
		{"../examples/ecommerce.yaml", []Handler{HandlerFanout}},
		{"../examples/merchant-orders.yaml", nil},
		{"../lambdas/internal/stream/testdata/blog.yaml", Handlers()},
	}
	for _, tt := range tests {
		if got := plan(t, tt.model).Handlers(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.model, got, tt.want)
		}
	}
}

func TestStreamFilters(t *testing.T) {
	tests := []struct {
		model   string
		handler Handler
		want    []string // each filter's pattern as JSON
	}{
		{"../examples/leaderboard.yaml", HandlerCounters, []string{
			`{"dynamodb":{"Keys":{"SK":{"S":[{"prefix":"MATCH#"}]}}},"eventName":["INSERT","MODIFY","REMOVE"]}`}},
		{"../examples/leaderboard.yaml", HandlerArchive, []string{
			`{"dynamodb":{"Keys":{"SK":{"S":[{"prefix":"MATCH#"}]}}},"eventName":["REMOVE"],"userIdentity":{"principalId":["dynamodb.amazonaws.com"],"type":["Service"]}}`}},
		// A constant sort key is matched exactly, not as a prefix.
		{"../examples/ecommerce.yaml", HandlerFanout, []string{
			`{"dynamodb":{"Keys":{"SK":{"S":["CUSTOMER"]}}},"eventName":["MODIFY"]}`,
			`{"dynamodb":{"Keys":{"SK":{"S":["~FANOUT"]}}},"eventName":["INSERT","MODIFY"]}`}},
		{"../examples/ecommerce.yaml", HandlerCounters, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range plan(t, tt.model).StreamFilters(tt.handler) {
			b, _ := json.Marshal(f.Pattern())
			got = append(got, string(b))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %s:\n got %v\nwant %v", tt.model, tt.handler, got, tt.want)
		}
	}
}

func TestHandlerAccess(t *testing.T) {
	shop := plan(t, "../examples/ecommerce.yaml")
	if a := shop.HandlerAccess(HandlerFanout); !slices.Equal(a.TableActions, []string{"dynamodb:UpdateItem"}) || !slices.Equal(a.Reads, []string{"CustomerOrders"}) ||
		!slices.Equal(a.OwnActions, []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem"}) || a.OwnPrefix != FanoutTag {
		t.Errorf("fanout: %+v", a)
	}
	board := plan(t, "../examples/leaderboard.yaml")
	if a := board.HandlerAccess(HandlerCounters); !slices.Equal(a.TableActions, []string{"dynamodb:PutItem", "dynamodb:UpdateItem"}) || a.Reads != nil {
		t.Errorf("counters: %+v", a)
	}
	if a := board.HandlerAccess(HandlerArchive); a.TableActions != nil || a.Reads != nil {
		t.Errorf("archive touches the table: %+v", a)
	}
}

func TestAccess(t *testing.T) {
	shop := plan(t, "../examples/ecommerce.yaml")
	a, err := shop.Access("GetProduct", "ProductsByCategory", "CustomerOrders")
	var want []string
	for _, p := range []string{"GetProduct", "ProductsByCategory", "CustomerOrders"} {
		if ix := shop.Pattern(p).Index; !slices.Contains(want, ix) {
			want = append(want, ix)
		}
	}
	slices.Sort(want)
	if err != nil || !slices.Equal(a.Actions, []string{"dynamodb:GetItem", "dynamodb:Query"}) || !slices.Equal(a.Indexes, want) || !slices.Contains(want, model.BaseIndex) {
		t.Errorf("Access = %+v, %v; want the indexes %v", a, err, want)
	}
	_, err = shop.Access("GetProdct", "GetOrder")
	if err == nil || !strings.Contains(err.Error(), `unknown pattern "GetProdct" (the design has CustomerByEmail, CustomerOrders,`) {
		t.Errorf("unknown pattern: %v", err)
	}
	if _, err := shop.Access(); !errors.Is(err, ErrNoPatterns) {
		t.Errorf("no pattern: %v", err)
	}
}

// A write pattern is granted exactly its item actions, on the table.
func TestWriteAccess(t *testing.T) {
	desk := plan(t, "testdata/models/tickets.yaml")
	shop := plan(t, "../examples/ecommerce.yaml")
	tests := []struct {
		d     *Design
		names []string
		want  []string
	}{
		{desk, []string{"OpenTicket"}, []string{"dynamodb:PutItem"}},
		{desk, []string{"SetStatus", "Retitle"}, []string{"dynamodb:UpdateItem"}},
		{desk, []string{"DeleteComment"}, []string{"dynamodb:DeleteItem"}},
		{desk, []string{"ImportComments"}, []string{"dynamodb:BatchWriteItem"}},
		{shop, []string{"PlaceOrder"}, []string{"dynamodb:PutItem", "dynamodb:UpdateItem"}},
	}
	for _, tt := range tests {
		a, err := tt.d.Access(tt.names...)
		if err != nil || !slices.Equal(a.Writes, tt.want) || len(a.Actions)+len(a.Indexes) != 0 {
			t.Errorf("%v: %+v %v, want the writes %v and no read", tt.names, a, err, tt.want)
		}
	}
	src := `table: Bank
entities:
  Account:
    id: [accountId]
    attributes: {accountId: {type: string, maxLength: 40}, balance: {type: number, min: 0, max: 1000000}, email: {type: string, maxLength: 200}}
  Hold:
    id: [holdId]
    attributes: {holdId: {type: string, maxLength: 40}, amount: {type: number, min: 0, max: 1000000}}
patterns:
  GetAccount: {get: Account}
  ByEmail: {get: Account, where: [email], unique: true}
  GetHold: {get: Hold}
writes:
  Debit:
    transact:
      - {check: Hold, condition: {amount: {le: $limit}}}
      - {update: Account, add: {balance: -$amount}, condition: {balance: {ge: $amount}}}
  ChangeEmail: {update: Account, set: [email]}
`
	m, err := model.Parse("bank.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	bank, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := bank.Access("Debit", "GetAccount"); err != nil || !slices.Equal(a.Writes, []string{"dynamodb:ConditionCheckItem", "dynamodb:UpdateItem"}) ||
		!slices.Equal(a.Actions, []string{"dynamodb:GetItem"}) || !slices.Equal(a.Indexes, []string{model.BaseIndex}) {
		t.Errorf("Debit + GetAccount: %+v %v", a, err)
	}
	// A unique value's guard moves: its put and delete.
	if a, _ := bank.Access("ChangeEmail"); !slices.Equal(a.Writes, []string{"dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}) {
		t.Errorf("ChangeEmail: %+v", a)
	}
}

// Each read action is granted only on the indexes its patterns read: one
// statement per set of actions (issue 35: a base-table GetItem and a GSI
// Query granted both actions on both ARNs).
func TestAccessStatements(t *testing.T) {
	tracker := plan(t, "../examples/tracker.yaml")
	gsi := func(p string) string { return tracker.Pattern(p).Index }
	tests := []struct {
		names []string
		want  []Statement
	}{
		{[]string{"GetTask"}, []Statement{{[]string{"dynamodb:GetItem"}, []string{model.BaseIndex}}}},
		{[]string{"GetTask", "TasksByStatus"}, []Statement{{[]string{"dynamodb:GetItem"}, []string{model.BaseIndex}}, {[]string{"dynamodb:Query"}, []string{gsi("TasksByStatus")}}}},
		{[]string{"GetTenant", "TenantWithTasks", "TasksByStatus"}, []Statement{{[]string{"dynamodb:GetItem", "dynamodb:Query"}, []string{model.BaseIndex}}, {[]string{"dynamodb:Query"}, []string{gsi("TasksByStatus")}}}},
		{[]string{"TasksByStatus", "TasksByAssignee"}, []Statement{{[]string{"dynamodb:Query"}, slices.Sorted(slices.Values([]string{gsi("TasksByStatus"), gsi("TasksByAssignee")}))}}},
	}
	for _, tt := range tests {
		a, err := tracker.Access(tt.names...)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Statements(); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%v: statements %v, want %v", tt.names, got, tt.want)
		}
	}
	if got := (Access{Actions: []string{"dynamodb:Query"}, Indexes: []string{"GSI1"}}).Statements(); fmt.Sprint(got) != "[{[dynamodb:Query] [GSI1]}]" {
		t.Errorf("an Access made by hand: %v", got)
	}
}
