package patterns_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// orders is a locked table of orders, keyed as the model says (auto:
// natively where it can be); %s is where the edits put their lines.
const orders = testmodel.OrdersToEdit

// The change rules of native keys: a new native index over attributes
// the items hold is built by DynamoDB (KP615, no backfill, one deploy);
// over an attribute new to the entity, or with a discriminator the items
// lack, it is backfilled (KP610); a deployed native index takes no new
// shape, and a deployed synthetic one stays synthetic.
func TestNativeChangeRules(t *testing.T) {
	lockOf := func(src string, keys model.IndexKeys) *patterns.Lock {
		return patterns.NewLock(planKeyed(t, src, nil, keys))
	}
	base := func(attrs, pats string) string {
		return strings.Replace(strings.Replace(orders, "%s\n", attrs, 1), "%s", pats, 1)
	}
	before := base("", "")
	refunds := "      refundId: {type: string, maxLength: 40, optional: true}\n  Refund:\n    id: [refundId]\n" +
		"    attributes: {refundId: {type: string, maxLength: 40}, customerId: {type: string, maxLength: 40}, createdAt: time}\n"
	tests := []struct {
		name        string
		before      string
		beforeKeys  model.IndexKeys
		after       string
		want        []string // change ids, at least these
		not         []string
		backfill    []string
		phase       string
		safe        bool
		nativeIndex bool // the new pattern's index is native
	}{
		{name: "over attributes the items hold", before: before, beforeKeys: model.IndexKeysAuto,
			after: base("", "  OrdersByStatus: {query: Order, where: [status], sort: createdAt}\n"),
			want:  []string{"KP601", "KP611", "KP615"}, not: []string{"KP610"}, phase: "create GSI2 (index build)", safe: true, nativeIndex: true},
		{name: "over an attribute new to the entity", before: before, beforeKeys: model.IndexKeysAuto,
			after: base("      region: {values: [eu, us]}\n", "  OrdersByRegion: {query: Order, where: [region], sort: createdAt}\n"),
			want:  []string{"KP601", "KP610"}, not: []string{"KP615"}, backfill: []string{"Order"}, phase: "create GSI2 (index build); backfill Order", nativeIndex: true},
		// Orders can carry a refundId too: the new index needs GSI2Entity.
		{name: "with a discriminator the items lack", before: base(refunds, ""), beforeKeys: model.IndexKeysAuto,
			after: base(refunds, "  RefundsOf: {query: Refund, where: [customerId], sort: createdAt}\n"),
			want:  []string{"KP601", "KP610"}, not: []string{"KP615"}, backfill: []string{"Refund"}, nativeIndex: true},
		{name: "synthetic keys", before: before, beforeKeys: model.IndexKeysAuto,
			after: "indexKeys: synthetic\n" + base("", "  OrdersByStatus: {query: Order, where: [status], sort: createdAt}\n"),
			want:  []string{"KP601", "KP610"}, not: []string{"KP615"}, backfill: []string{"Order"}, phase: "create GSI2; backfill Order"},
		{name: "a locked synthetic table", before: before, beforeKeys: model.IndexKeysSynthetic,
			after: base("", "  CustomerOrdersByTotal: {query: Order, where: [customerId], sort: total}\n"),
			want:  []string{"KP601", "KP615"}, not: []string{"KP610"}, phase: "create GSI2 (index build)", safe: true, nativeIndex: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lock := lockOf(tt.before, tt.beforeKeys)
			d := planKeyed(t, tt.after, lock, "")
			if errs := d.Errors(); len(errs) > 0 {
				t.Fatalf("the edit does not plan: %v", errs)
			}
			df := patterns.Compare(lock, d)
			ids := changeIDs(df)
			for _, id := range tt.want {
				if !slices.Contains(ids, id) {
					t.Errorf("%s not raised: %v", id, df.Changes)
				}
			}
			for _, id := range tt.not {
				if slices.Contains(ids, id) {
					t.Errorf("%s raised: %v", id, df.Changes)
				}
			}
			var bf []string
			var texts []string
			for _, p := range df.Phases {
				bf = append(bf, p.Backfill...)
				texts = append(texts, p.String())
			}
			if !slices.Equal(bf, tt.backfill) || df.Safe != tt.safe || len(df.Phases) != 1 {
				t.Errorf("phases %q (backfill %v), safe %v; want backfill %v, safe %v", texts, bf, df.Safe, tt.backfill, tt.safe)
			}
			if tt.phase != "" && (len(texts) != 1 || texts[0] != tt.phase) {
				t.Errorf("the phase says %q, want %q", texts, tt.phase)
			}
			// Every locked index is as deployed.
			for _, ix := range lock.Accepted.Indexes {
				now := d.Index(ix.Name)
				if now == nil || now.Native() != ix.Native() || now.KeyText() != ix.KeyText() || !slices.Equal(now.Entities, ix.Entities) {
					t.Errorf("locked index %s (%s, %v) became %+v", ix.Name, ix.KeyText(), ix.Entities, now)
				}
			}
			for _, p := range d.Patterns {
				if lock.Accepted.Pattern(p.Name) != nil {
					continue
				}
				if ix := d.Index(p.Index); ix == nil || ix.Native() != tt.nativeIndex || lock.Accepted.Index(p.Index) != nil {
					t.Errorf("new pattern %s on %s; want a new index, native %v", p.Name, p.Index, tt.nativeIndex)
				}
			}
		})
	}
}

// A deployed native index has one key schema: a new pattern of another
// entity whose shape would fit beside it synthetically gets an index of
// its own, and the locked index keeps its entities.
func TestLockedNativeIndexTakesNoNewShape(t *testing.T) {
	src := strings.Replace(strings.Replace(orders, "%s\n", "  Product:\n    id: [productId]\n    attributes: {productId: {type: string, maxLength: 40}, category: {type: string, maxLength: 40}}\n", 1), "%s", "", 1)
	lock := patterns.NewLock(planKeyed(t, src, nil, model.IndexKeysAuto))
	gsi1 := lock.Accepted.Index("GSI1")
	if gsi1 == nil || !gsi1.Native() {
		t.Fatalf("the locked GSI1 is not native: %+v", gsi1)
	}
	next := strings.Replace(src, "patterns:\n", "patterns:\n  ByCategory: {query: Product, where: [category]}\n", 1)
	d := planKeyed(t, next, lock, "")
	if p := d.Pattern("ByCategory"); p.Index == "GSI1" {
		t.Fatalf("ByCategory joined the deployed native GSI1")
	}
	if now := d.Index("GSI1"); !slices.Equal(now.Entities, []string{"Order"}) || now.KeyText() != gsi1.KeyText() {
		t.Errorf("GSI1 became %s for %v", now.KeyText(), now.Entities)
	}
	// Synthetic, the same edit shares GSI1 (one GSI fewer): the rule is
	// native keys' own.
	slock := patterns.NewLock(planKeyed(t, src, nil, model.IndexKeysSynthetic))
	if p := planKeyed(t, next, slock, "").Pattern("ByCategory"); p.Index != "GSI1" {
		t.Errorf("synthetic: ByCategory on %s, want the locked GSI1", p.Index)
	}
}
