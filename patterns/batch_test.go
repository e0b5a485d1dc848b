package patterns

import (
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// A batch pattern is granted BatchGetItem on the table alone: not
// GetItem, no index.
func TestBatchAccess(t *testing.T) {
	desk := plan(t, "testdata/models/tickets.yaml")
	for _, name := range []string{"GetTickets", "GetComments"} {
		a, err := desk.Access(name)
		if err != nil || !slices.Equal(a.Actions, []string{"dynamodb:BatchGetItem"}) || !slices.Equal(a.Indexes, []string{model.BaseIndex}) || a.Writes != nil {
			t.Errorf("%s: %+v, %v", name, a, err)
		}
	}
	if a, _ := desk.Access("GetTicket", "GetTickets"); !slices.Equal(a.Actions, []string{"dynamodb:BatchGetItem", "dynamodb:GetItem"}) {
		t.Errorf("a get and a batch: %+v", a.Actions)
	}
}

// A batch costs each item rounded up to a read unit on its own, for its
// limit of ids (25 without), halved when eventually consistent.
func TestBatchCost(t *testing.T) {
	desk := plan(t, "testdata/models/tickets.yaml")
	var tickets, comments *PatternCost
	for _, pc := range desk.Cost.Patterns {
		switch pc.Name {
		case "GetTickets":
			tickets = pc
		case "GetComments":
			comments = pc
		}
	}
	// a Ticket is under 4 KB: 20 ids × 1 unit / 2; a Comment is over 4 KB
	// (a 4,000-byte body): 25 ids × 2 units / 2
	if tickets.Items != 20 || tickets.ReadUnits != 10 || comments.Items != 25 || comments.ReadUnits != 25 || comments.ItemBytes <= model.ReadUnitBytes {
		t.Errorf("GetTickets %+v, GetComments %+v", tickets, comments)
	}
	if !slices.Contains(desk.Cost.Assumptions, "a batch read without limit passes 25 ids") {
		t.Errorf("assumptions %v", desk.Cost.Assumptions)
	}
}

// A batch is a get of one entity by its id: anything else is refused
// where it is written.
func TestBatchBadInput(t *testing.T) {
	base := `table: Shop
entities:
  Product:
    id: [productId]
    attributes: {productId: {type: string, maxLength: 40}, category: {type: string, maxLength: 40}}
patterns:
  ByCategory: {query: Product, where: [category]}
`
	tests := []struct{ name, pattern, want string }{
		{"a query", "  P: {query: Product, where: [category], batch: true}", "model.yaml:8:49: patterns.P.batch: batch reads many items of a get by id (BatchGetItem); a query reads many already"},
		{"an alternate key", "  P: {get: Product, where: [category], batch: true}", "patterns.P.where: a batch reads Product items by their id ([productId])"},
		{"unique", "  P: {get: Product, where: [productId], unique: true, batch: true}", "patterns.P.unique: unique does not apply to a batch"},
		{"not a bool", "  P: {get: Product, batch: many}", `patterns.P.batch: expected true or false, found "many"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.Parse("model.yaml", []byte(base+tt.pattern+"\n"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
	// an expectation of a batch names one item per id
	bad := base + "  P: {get: Product, batch: true}\nexamples:\n  items:\n    p1: {Product: {productId: p1, category: c}}\n  expect:\n" +
		"    - {pattern: P, ids: [{productId: p1}, {sku: x}], items: [p1]}\n    - {pattern: P, params: {productId: p1}, items: [p1]}\n    - {pattern: ByCategory, params: {category: c}, ids: [{productId: p1}], items: [p1]}\n"
	_, err := model.Parse("model.yaml", []byte(bad))
	for _, want := range []string{`examples.expect[0].ids[1].productId: missing`, `examples.expect[0].ids[1]: unknown id attribute "sku"`,
		"examples.expect[0].items: 1 item name(s) for 2 id(s)", "examples.expect[1].params: pattern P is a batch: it takes ids",
		"examples.expect[2].ids: ids are a batch pattern's (batch: true); ByCategory takes params"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant %s", err, want)
		}
	}
}
