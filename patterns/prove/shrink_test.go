package prove

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// crowdShy refuses a Query that finds three items or more, and drops the
// last of two: a table that refuses some reads and answers others wrong.
type crowdShy struct{ dynamo.Client }

func (c crowdShy) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := c.Client.Query(ctx, in, opts...)
	switch {
	case err != nil:
		return out, err
	case len(out.Items) >= 3:
		return nil, errors.New("too many items for this table")
	case len(out.Items) == 2:
		out.Items, out.Count = out.Items[:1], 1
	}
	return out, nil
}

// Shrinking keeps the difference it started from: a read the table
// refuses shrinks to the fewest writes after which the table still
// refuses it, not to a shorter sequence that shows another difference
// (an answer that differs).
func TestShrinkKeepsWhoRefused(t *testing.T) {
	ctx := context.Background()
	d := planned(t, "table: Store\nindexKeys: synthetic\nentities:\n  Item:\n    id: [sku]\n    attributes: {sku: {type: string, maxLength: 40}, shelf: {type: string, maxLength: 40}, price: number}\npatterns:\n  ByPrice: {query: Item, where: [shelf], sort: price}\n")
	var ops []*oracle.Op
	for i, sku := range []string{"i1", "i2", "i3", "i4"} {
		ops = append(ops, &oracle.Op{Kind: oracle.OpCreate, Entity: "Item", Params: map[string]any{"sku": sku, "shelf": "s", "price": i}})
	}
	o := ProveOptions{Fresh: Tables(engine, crowdShy{client}, d, "shrink"), ShrinkRuns: 50}
	rd := &oracle.Read{Pattern: "ByPrice", Params: map[string]any{"shelf": "s"}}
	mm, err := replay(ctx, o, ops, &Mismatch{Kind: "read", Read: rd})
	if err != nil || mm == nil {
		t.Fatalf("four items on one shelf: %v, %v", mm, err)
	}
	if !strings.Contains(mm.Detail, "the table refused it") {
		t.Fatalf("four items on one shelf: %s", mm.Detail)
	}
	if err := shrink(ctx, d.Model(), o, ops, mm); err != nil {
		t.Fatal(err)
	}
	if len(mm.Ops) != 3 || !strings.Contains(mm.Detail, "the table refused it") {
		t.Errorf("shrunk to %d write(s): %s", len(mm.Ops), mm.Detail)
	}
}
