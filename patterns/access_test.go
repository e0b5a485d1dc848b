package patterns

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
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
			`{"dynamodb":{"Keys":{"SK":{"S":["CUSTOMER"]}}},"eventName":["MODIFY"]}`}},
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
	if a := shop.HandlerAccess(HandlerFanout); !slices.Equal(a.TableActions, []string{"dynamodb:UpdateItem"}) || !slices.Equal(a.Reads, []string{"CustomerOrders"}) {
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
	if err != nil || !slices.Equal(a.Actions, []string{"dynamodb:GetItem", "dynamodb:Query"}) || !slices.Equal(a.Indexes, want) || !slices.Contains(want, Table) {
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
