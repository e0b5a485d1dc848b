package minidyn

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BatchGetItem's consumed capacity, when asked for: each item read is
// rounded up to 4 KB on its own (not their sum), halved when eventually
// consistent, summed per table, as DynamoDB Local 1.25.1 reports it
// (keyplan's runtime reports it, `keyplan validate` prints it). A key
// with no item: DynamoDB Local 1.25.1 charges it nothing; the engine,
// following AWS (patch 18), charges it as a GetItem of nothing, one
// unit (half when eventually consistent). Both are asserted, each on
// its own engine.
func TestBatchGetItemConsumedCapacity(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})
		put := func(p, v string) {
			_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str(p), "v", str(v))})
			mustOK(t, err)
		}
		put("small", "x")
		put("large", strings.Repeat("y", 5000)) // two 4 KB units
		keys := []map[string]types.AttributeValue{values("p", str("small")), values("p", str("large")), values("p", str("none"))}
		for consistent, want := range map[bool]float64{false: 1.5, true: 3} {
			if !e.ref {
				want += map[bool]float64{false: 0.5, true: 1}[consistent] // the missing key, as AWS charges it
			}
			out, err := e.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
				RequestItems:           map[string]types.KeysAndAttributes{table: {Keys: keys, ConsistentRead: aws.Bool(consistent)}},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			})
			mustOK(t, err)
			if len(out.ConsumedCapacity) != 1 || aws.ToString(out.ConsumedCapacity[0].TableName) != table || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != want {
				var got []float64
				for _, c := range out.ConsumedCapacity {
					got = append(got, aws.ToFloat64(c.CapacityUnits))
				}
				t.Errorf("consistent %v: consumed %v units in %d entries, want %v units of %s", consistent, got, len(out.ConsumedCapacity), want, table)
			}
		}
		out, err := e.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: keys}}})
		mustOK(t, err)
		if out.ConsumedCapacity != nil {
			t.Errorf("consumed capacity not asked for: %+v", out.ConsumedCapacity)
		}
	})
}
