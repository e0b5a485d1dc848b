package minidyn

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Consumed capacity as AWS's "Capacity unit consumption" rules give it:
// reads per 4 KB (half when eventually consistent), writes per 1 KB of the
// larger image, index writes per entry put or removed, each item of a
// batch rounded alone, a Query's items rounded together, transactions
// doubled.

func units(c *types.ConsumedCapacity) float64 { return aws.ToFloat64(c.CapacityUnits) }

func indexUnits(m map[string]types.Capacity) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		out[k] = aws.ToFloat64(v.CapacityUnits)
	}

	return out
}

func TestConsumedCapacity(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeS, attrs: []types.AttributeDefinition{attr("x", types.ScalarAttributeTypeS)},
			gsis: []types.GlobalSecondaryIndex{gsi("gsi", "x", types.ProjectionTypeKeysOnly)},
			lsis: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("x"), KeyType: types.KeyTypeRange}}}}})
		tn, idx := aws.String(table), types.ReturnConsumedCapacityIndexes
		k := values("p", str("a"), "c", str("b"))

		type want struct {
			total, table float64
			gsi, lsi     float64
		}

		check := func(what string, c *types.ConsumedCapacity, w want) {
			t.Helper()

			if c == nil {
				t.Fatalf("%s: no ConsumedCapacity", what)
			}

			got := want{total: units(c), gsi: indexUnits(c.GlobalSecondaryIndexes)["gsi"], lsi: indexUnits(c.LocalSecondaryIndexes)["lsi"]}
			if c.Table != nil {
				got.table = aws.ToFloat64(c.Table.CapacityUnits)
			}

			if got != w || aws.ToString(c.TableName) != table {
				t.Fatalf("%s: %+v of %s, want %+v", what, got, aws.ToString(c.TableName), w)
			}
		}

		// A new item: the table, and an entry in each index.
		put, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: values("p", str("a"), "c", str("b"), "x", str("x1")), ReturnConsumedCapacity: idx})
		mustOK(t, err)
		check("PutItem", put.ConsumedCapacity, want{total: 3, table: 1, gsi: 1, lsi: 1})

		// The index key changes: each index removes an entry and puts one.
		upd, err := e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tn, Key: k, UpdateExpression: aws.String("SET x = :x"),
			ExpressionAttributeValues: values(":x", str("x2")), ReturnConsumedCapacity: idx})
		mustOK(t, err)
		check("UpdateItem of the index key", upd.ConsumedCapacity, want{total: 5, table: 1, gsi: 2, lsi: 2})

		// A non-key attribute: only the index projecting it is written.
		upd, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tn, Key: k, UpdateExpression: aws.String("SET q = :q"),
			ExpressionAttributeValues: values(":q", str("q")), ReturnConsumedCapacity: idx})
		mustOK(t, err)
		check("UpdateItem of a non-key attribute", upd.ConsumedCapacity, want{total: 2, table: 1, lsi: 1})

		get, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tn, Key: k, ReturnConsumedCapacity: idx})
		mustOK(t, err)
		check("GetItem, eventually consistent", get.ConsumedCapacity, want{total: 0.5, table: 0.5})

		q, err := e.db.Query(ctx, &dynamodb.QueryInput{TableName: tn, IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("x = :x"),
			ExpressionAttributeValues: values(":x", str("x2")), ReturnConsumedCapacity: idx})
		mustOK(t, err)
		// (DynamoDB Local adds a Table share of 0.)
		check("Query of the GSI", q.ConsumedCapacity, want{total: 0.5, gsi: 0.5})

		del, err := e.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tn, Key: k, ReturnConsumedCapacity: idx})
		mustOK(t, err)
		check("DeleteItem", del.ConsumedCapacity, want{total: 3, table: 1, gsi: 1, lsi: 1})

		del, err = e.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tn, Key: k, ReturnConsumedCapacity: idx})
		mustOK(t, err)
		check("DeleteItem of nothing", del.ConsumedCapacity, want{total: 1, table: 1})

		// Sizes: a unit per KB written, per 4 KB read; TOTAL has no shares.
		big := strings.Repeat("z", 5000)
		put, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: values("p", str("big"), "c", str("b"), "v", str(big)),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		mustOK(t, err)

		if units(put.ConsumedCapacity) != 5 || put.ConsumedCapacity.Table != nil {
			t.Fatalf("a 5 KB PutItem: %+v", put.ConsumedCapacity)
		}

		get, err = e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tn, Key: values("p", str("big"), "c", str("b")), ConsistentRead: aws.Bool(true),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		mustOK(t, err)

		if units(get.ConsumedCapacity) != 2 {
			t.Fatalf("a 5 KB consistent GetItem: %+v", get.ConsumedCapacity)
		}

		// A batch rounds each item; a Query rounds them together.
		var reqs []types.WriteRequest
		for _, p := range []string{"s1", "s2", "s3"} {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: values("p", str("small"), "c", str(p))}})
		}

		bw, err := e.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		mustOK(t, err)

		if len(bw.ConsumedCapacity) != 1 || units(&bw.ConsumedCapacity[0]) != 3 {
			t.Fatalf("BatchWriteItem of 3 small items: %+v", bw.ConsumedCapacity)
		}

		var keys []map[string]types.AttributeValue
		for _, p := range []string{"s1", "s2", "s3"} {
			keys = append(keys, values("p", str("small"), "c", str(p)))
		}

		bg, err := e.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: keys, ConsistentRead: aws.Bool(true)}},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		mustOK(t, err)

		if len(bg.ConsumedCapacity) != 1 || units(&bg.ConsumedCapacity[0]) != 3 {
			t.Fatalf("BatchGetItem of 3 small items: %+v", bg.ConsumedCapacity)
		}

		q, err = e.db.Query(ctx, &dynamodb.QueryInput{TableName: tn, KeyConditionExpression: aws.String("p = :p"), ConsistentRead: aws.Bool(true),
			ExpressionAttributeValues: values(":p", str("small")), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		mustOK(t, err)

		if units(q.ConsumedCapacity) != 1 {
			t.Fatalf("a Query of 3 small items: %+v", q.ConsumedCapacity)
		}

		_, err = e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tn, Key: k, ReturnConsumedCapacity: "EVERYTHING"})
		wantAPIError(t, err, "ValidationException")

		e.awsOnly(t, "it charges a transaction's writes four times over, where AWS charges them twice (2 WCU per KB)")

		tw, err := e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: tn, Item: values("p", str("t"), "c", str("1"))}},
			{Update: &types.Update{TableName: tn, Key: values("p", str("small"), "c", str("s1")), UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: values(":v", num("1"))}},
		}})
		mustOK(t, err)

		if len(tw.ConsumedCapacity) != 1 || units(&tw.ConsumedCapacity[0]) != 4 {
			t.Fatalf("TransactWriteItems of 2 small items: %+v", tw.ConsumedCapacity)
		}

		tg, err := e.db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: tn, Key: values("p", str("big"), "c", str("b"))}},
		}})
		mustOK(t, err)

		if len(tg.ConsumedCapacity) != 1 || units(&tg.ConsumedCapacity[0]) != 4 {
			t.Fatalf("TransactGetItems of a 5 KB item: %+v", tg.ConsumedCapacity)
		}
	})
}

// A TransactWriteItems repeated with its ClientRequestToken writes
// nothing and is charged what reading its items costs, as transactional
// reads (2 units per 4 KB): "Subsequent TransactWriteItems calls with the
// same client token return the number of read capacity units consumed in
// reading the item" (the API reference, ClientRequestToken). guregu/dynamo's
// TestTx checks the repeat's read units grow.
func TestARepeatedTransactionIsChargedItsReads(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})
		tn := aws.String(table)

		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: values("p", str("checked"))})
		mustOK(t, err)

		in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(uniqueName(t)), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: tn, Item: values("p", str("small"), "v", str("first"))}},
				{Put: &types.Put{TableName: tn, Item: values("p", str("big"), "v", str(strings.Repeat("x", 5000)))}},
				{ConditionCheck: &types.ConditionCheck{TableName: tn, Key: key("checked"), ConditionExpression: aws.String("attribute_exists(p)")}},
			}}
		first, err := e.db.TransactWriteItems(ctx, in)
		mustOK(t, err)

		if len(first.ConsumedCapacity) != 1 || first.ConsumedCapacity[0].WriteCapacityUnits == nil || first.ConsumedCapacity[0].ReadCapacityUnits != nil {
			t.Fatalf("the first run: %+v, want write units only", first.ConsumedCapacity)
		}

		// Changed in between: a repeat that wrote again would put "first" back.
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: values("p", str("small"), "v", str("second"))})
		mustOK(t, err)

		again, err := e.db.TransactWriteItems(ctx, in)
		mustOK(t, err)

		if len(again.ConsumedCapacity) != 1 {
			t.Fatalf("the repeat: %+v, want one table's", again.ConsumedCapacity)
		}

		c := again.ConsumedCapacity[0]
		if aws.ToFloat64(c.ReadCapacityUnits) <= 0 || units(&c) != aws.ToFloat64(c.ReadCapacityUnits) || c.WriteCapacityUnits != nil || aws.ToString(c.TableName) != table {
			t.Fatalf("the repeat: %v units (read %v, write %v), want read units only", units(&c), aws.ToFloat64(c.ReadCapacityUnits), c.WriteCapacityUnits)
		}

		if v := sOf(t, getItem(t, e.db, table, key("small"))["v"]); v != "second" {
			t.Fatalf("the repeat wrote again: v = %q", v)
		}

		e.awsOnly(t, "it charges the repeat 6 units, rounding its reads otherwise than TransactGetItems of the three items (8)")

		// small 2, big (5 KB: two 4 KB units) 4, checked 2.
		if units(&c) != 8 {
			t.Fatalf("the repeat: %v read units, want 8", units(&c))
		}
	})
}
