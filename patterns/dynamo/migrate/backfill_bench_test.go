package migrate

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/faults"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// handLoop is the backfill a team writes by hand: one Scan, each item's
// new keys computed with the runtime and written with an unconditional
// UpdateItem (it loses concurrent updates and cannot resume; it is the
// speed baseline).
func handLoop(ctx context.Context, engine BackfillClient, mg *migration) (int, error) {
	rt := dynamo.NewRollout(mg.lock, nil, mg.table)
	newKeys := []string{"GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK"}
	rewritten := 0
	var next map[string]types.AttributeValue
	for {
		page, err := engine.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(mg.table), ExclusiveStartKey: next, Limit: aws.Int32(DefaultPageSize)})
		if err != nil {
			return rewritten, err
		}
		for _, it := range page.Items {
			entity, v, err := rt.Decode(it)
			if err != nil || (entity != "Order" && entity != "Product") {
				continue
			}
			want, err := rt.Item(entity, v)
			if err != nil {
				return rewritten, err
			}
			var upd expression.UpdateBuilder
			set := false
			for _, k := range newKeys {
				if x, ok := want[k]; ok && !dynamo.SameValue(it[k], x) {
					upd = upd.Set(expression.Name(k), expression.Value(x))
					set = true
				}
			}
			if !set {
				continue
			}
			expr, err := expression.NewBuilder().WithUpdate(upd).Build()
			if err != nil {
				return rewritten, err
			}
			if _, err := engine.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(mg.table),
				Key:              map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]},
				UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}); err != nil {
				return rewritten, err
			}
			rewritten++
		}
		if next = page.LastEvaluatedKey; len(next) == 0 {
			return rewritten, nil
		}
	}
}

// BenchmarkBackfillVsHandLoop rewrites the same table twice per
// iteration, once with the rekey engine as keyplan migrate runs it by
// default (DefaultSegments, DefaultPageSize, conditional writes) and once
// with the hand loop, and reports both rates and their ratio
// (engine / hand loop; 1.0 or more is the target). On loopback the
// engine's single Node.js thread is the limit (a conditional write costs
// it more than a plain one); ratio-2ms repeats the race with 2 ms added
// to every request, as a network to DynamoDB adds more.
func BenchmarkBackfillVsHandLoop(b *testing.B) {
	const n = 4000
	ctx := context.Background()
	slow, err := faults.New(engineEndpoint, 0, 1, faults.Latency(2*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer slow.Close()
	far := enginepkg.Client(slow.URL, 0)
	race := func(c BackfillClient) (engineRate, handRate float64) {
		b.StopTimer()
		a, h := newMigration(b, n), newMigration(b, n)
		b.StartTimer()
		start := time.Now()
		r, err := NewRekeyer(a.lock, c, a.table)
		if err != nil {
			b.Fatal(err)
		}
		desc, err := engine.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(a.table)})
		if err != nil {
			b.Fatal(err)
		}
		res, err := r.Backfill(ctx, c, BackfillOptions{Segments: DefaultSegments(desc.Table)})
		if err != nil {
			b.Fatal(err)
		}
		engineRate = float64(res.Stats.Rewritten) / time.Since(start).Seconds()
		start = time.Now()
		done, err := handLoop(ctx, c, h)
		if err != nil {
			b.Fatal(err)
		}
		handRate = float64(done) / time.Since(start).Seconds()
		if done != int(res.Stats.Rewritten) {
			b.Fatalf("the hand loop rewrote %d items, the engine %d", done, res.Stats.Rewritten)
		}
		return engineRate, handRate
	}
	var er, hr, ratio, ratioFar float64
	runs := 0.0
	b.ReportAllocs()
	for b.Loop() {
		e, h := race(engine)
		ef, hf := race(far)
		er, hr, ratio, ratioFar = er+e, hr+h, ratio+e/h, ratioFar+ef/hf
		runs++
	}
	b.ReportMetric(er/runs, "engine-items/s")
	b.ReportMetric(hr/runs, "hand-items/s")
	b.ReportMetric(ratio/runs, "ratio")
	b.ReportMetric(ratioFar/runs, "ratio-2ms")
}
