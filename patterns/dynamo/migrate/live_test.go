package migrate

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

const liveModel = testmodel.LiveOrders

// DescribeLive reads a table as DynamoDB describes it: a table made from
// a lock compares clean with it; a GSI added by hand and TTL enabled by
// hand are each a drift (on every engine that changes GSIs online).
func TestDescribeLiveDrift(t *testing.T) {
	d := mustDesign(t, liveModel)
	lock := patterns.NewLock(d)
	tbl := fresh(t, d)
	ctx := context.Background()
	live, err := DescribeLive(ctx, engine, tbl.Name(), LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if live.PK != "PK" || live.SK != "SK" || live.Billing != patterns.BillingOnDemand || len(live.Indexes) != 1 || live.Created.IsZero() {
		t.Fatalf("described %+v", live)
	}
	if g := live.Indexes[0]; g.Projection != patterns.ProjectInclude || !slices.Equal(g.NonKeyAttributes, []string{"total"}) || g.Status != patterns.StatusActive {
		t.Errorf("GSI1 described %+v", g)
	}
	if ld := patterns.CompareLive(lock, live); !ld.Clean() {
		t.Fatalf("the lock's own table drifts: %v", ld.Drifts)
	}
	if why := conn.Lacks(ctx, enginepkg.OnlineIndexes); why != "" {
		t.Skip(why)
	}
	// A GSI and TTL by hand: what a console user does.
	_, err = engine.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(tbl.Name()),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("email"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("ByEmail"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("email"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := waitActive(ctx, tbl.Name()); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(tbl.Name()),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	live, err = DescribeLive(ctx, engine, tbl.Name(), LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ld := patterns.CompareLive(lock, live)
	var got []patterns.DriftKind
	for _, x := range ld.Drifts {
		got = append(got, x.Kind)
	}
	if want := []patterns.DriftKind{patterns.DriftGSIExtra, patterns.DriftTTL}; !slices.Equal(got, want) {
		t.Errorf("drifts %v, want %v: %v", got, want, ld.Drifts)
	}
	if _, err := DescribeLive(ctx, engine, "no-such-table", LiveOptions{}); err == nil || err.Error() != "no such table no-such-table" {
		t.Errorf("a missing table: %v", err)
	}
}

func mustDesign(t testing.TB, src string) *patterns.Design {
	t.Helper()
	m, err := model.Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// SampleTable reads at most its budget, spread over its segments, says
// whether it read the whole table and which partitions it may have cut,
// and reads items of every type as they are.
func TestSampleTable(t *testing.T) {
	d := mustDesign(t, liveModel)
	tbl := fresh(t, d)
	ctx := context.Background()
	const n = 60
	for i := range n {
		item := map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("P%02d", i/3)}, "SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("S%d", i%3)},
			"n": &types.AttributeValueMemberN{Value: "12.5"}, "b": &types.AttributeValueMemberB{Value: []byte{0, 255}},
			"ok": &types.AttributeValueMemberBOOL{Value: true}, "m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		}
		if _, err := engine.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := SampleTable(ctx, engine, tbl.Name(), "PK", SampleOptions{Items: 1000, MaxRCU: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Items) != n || !all.Complete || len(all.Cut) != 0 {
		t.Errorf("the whole table: %d items, complete %v, cut %v", len(all.Items), all.Complete, all.Cut)
	}
	it := all.Items[0]
	if it["n"] != (patterns.LiveValue{Type: "N", Text: "12.5"}) || it["b"] != (patterns.LiveValue{Type: "B", Text: "AP8="}) ||
		it["ok"] != (patterns.LiveValue{Type: "BOOL", Text: "true"}) || it["m"].Type != "M" {
		t.Errorf("an item read as %v", it)
	}
	some, err := SampleTable(ctx, engine, tbl.Name(), "PK", SampleOptions{Items: 10, Segments: 4, MaxRCU: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(some.Items) > 10 || some.Complete || len(some.Cut) == 0 {
		t.Errorf("a budget of 10: %d items, complete %v, cut %v", len(some.Items), some.Complete, some.Cut)
	}
	if _, err := SampleTable(ctx, engine, tbl.Name(), "PK", SampleOptions{Items: MaxSampleItems + 1}); err == nil {
		t.Error("a sample over the bound is taken")
	}
}
