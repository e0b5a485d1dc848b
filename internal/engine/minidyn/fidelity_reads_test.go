package minidyn

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Group 2: the keys DynamoDB always sends, and empty lists and maps.

func TestResponsesKeepDynamoDBsKeys(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})

		q, err := e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table),
			KeyConditionExpression: aws.String("p = :p"), ExpressionAttributeValues: values(":p", str("none"))})
		mustOK(t, err)

		if q.Items == nil || q.Count != 0 || q.ScannedCount != 0 {
			t.Fatalf("an empty Query lacks Items: %+v", q)
		}

		b, err := e.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
			{PutRequest: &types.PutRequest{Item: values("p", str("a"),
				"l", &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
				"m", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}})}}}}})
		mustOK(t, err)

		if b.UnprocessedItems == nil {
			t.Fatal("BatchWriteItem without UnprocessedItems")
		}

		it := getItem(t, e.db, table, key("a"))
		if _, ok := it["l"].(*types.AttributeValueMemberL); !ok {
			t.Fatalf("an empty list came back as %#v", it["l"])
		}

		if _, ok := it["m"].(*types.AttributeValueMemberM); !ok {
			t.Fatalf("an empty map came back as %#v", it["m"])
		}

		// Select COUNT counts, and sends no items.
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("b"))})
		mustOK(t, err)

		s, err := e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
		mustOK(t, err)

		if s.Count != 2 || s.Items != nil {
			t.Fatalf("Select COUNT: count %d, items %v", s.Count, s.Items)
		}
	})
}

// Group 4: comparisons across types are false, keywords in any case,
// size() and contains() on every type that has them.

func TestConditionSemantics(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"),
			"n", num("5"), "s", str("héllo"), "l", &types.AttributeValueMemberL{Value: []types.AttributeValue{num("1"), num("2")}},
			"m", &types.AttributeValueMemberM{Value: values("k", str("v"))})})
		mustOK(t, err)

		check := func(cond string, vals map[string]types.AttributeValue, want bool) {
			t.Helper()

			_, err := e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
				UpdateExpression: aws.String("SET touched = :t"), ConditionExpression: aws.String(cond),
				ExpressionAttributeValues: merge(vals, values(":t", num("1")))})

			var ccf *types.ConditionalCheckFailedException

			switch {
			case want && err != nil:
				t.Errorf("%s: want true, got %v", cond, err)
			case !want && !asErr(err, &ccf):
				t.Errorf("%s: want false (ConditionalCheckFailedException), got %v", cond, err)
			}
		}

		check("n < :s", values(":s", str("x")), false) // N against S: false, not an error
		check("n = :s", values(":s", str("5")), false) // equality across types: false
		check("n between :a AND :b", values(":a", num("1"), ":b", num("9")), true)
		check("n In (:a, :b)", values(":a", num("4"), ":b", num("5")), true)
		check("size(s) = :five", values(":five", num("5")), true) // characters
		check("size(l) = :two", values(":two", num("2")), true)
		check("size(m) = :one", values(":one", num("1")), true)
		check("contains(l, :x)", values(":x", num("2")), true)
		check("contains(m, :x)", values(":x", str("k")), false) // contains on a map: false
		check("nope <> :x", values(":x", num("2")), true)       // a missing attribute is not equal
		check("l[7] = :x", values(":x", num("2")), false)       // an index past the end: no value

		// Refused before reading the item: a constant of the wrong type.
		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression: aws.String("SET touched = :t"), ConditionExpression: aws.String("n < :l"),
			ExpressionAttributeValues: values(":t", num("1"), ":l", &types.AttributeValueMemberL{Value: []types.AttributeValue{}})})
		wantAPIError(t, err, "ValidationException", "Incorrect operand type")
	})
}

func merge(a, b map[string]types.AttributeValue) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for k, v := range a {
		out[k] = v
	}

	for k, v := range b {
		out[k] = v
	}

	return out
}

// Group 5: what used to drop the connection answers a ValidationException
// or a value.

func TestNoPanics(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"),
			"l", &types.AttributeValueMemberL{Value: []types.AttributeValue{num("1")}})})
		mustOK(t, err)

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression: aws.String("SET l = list_append(:x)"), ExpressionAttributeValues: values(":x", &types.AttributeValueMemberL{})})
		wantAPIError(t, err, "ValidationException", "Incorrect number of operands")

		g, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key("a"), ProjectionExpression: aws.String("l[5]")})
		mustOK(t, err)

		if g.Item == nil || len(g.Item) != 0 {
			t.Fatalf("a projection past a list's end: %v, want an empty item", g.Item)
		}

		s, err := e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("l[5] = :x"),
			ExpressionAttributeValues: values(":x", num("1"))})
		mustOK(t, err)

		if s.Count != 0 {
			t.Fatalf("a filter past a list's end matched %d items", s.Count)
		}
	})
}

// Group 6: index projections, consistent reads and index keys.

func TestIndexProjectionsAreEnforced(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeS,
			attrs: []types.AttributeDefinition{attr("g", types.ScalarAttributeTypeS), attr("h", types.ScalarAttributeTypeS), attr("l", types.ScalarAttributeTypeS)},
			gsis:  []types.GlobalSecondaryIndex{gsi("gsi_keys", "g", types.ProjectionTypeKeysOnly), gsi("gsi_incl", "h", types.ProjectionTypeInclude, "x")},
			lsis: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi_keys"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}}}},
		})

		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "c", str("1"),
			"g", str("G"), "h", str("H"), "l", str("L"), "x", str("X"), "y", str("Y"))})
		mustOK(t, err)

		q := func(index, attrName, v string, mod func(*dynamodb.QueryInput)) (*dynamodb.QueryOutput, error) {
			in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index),
				KeyConditionExpression: aws.String(attrName + " = :v"), ExpressionAttributeValues: values(":v", str(v))}
			if mod != nil {
				mod(in)
			}

			return e.db.Query(ctx, in)
		}

		out, err := q("gsi_keys", "g", "G", nil)
		mustOK(t, err)

		if len(out.Items) != 1 || len(out.Items[0]) != 3 {
			t.Fatalf("a KEYS_ONLY GSI returned %v, want p, c and g", out.Items)
		}

		out, err = q("gsi_incl", "h", "H", nil)
		mustOK(t, err)

		if len(out.Items) != 1 || len(out.Items[0]) != 4 || out.Items[0]["x"] == nil {
			t.Fatalf("an INCLUDE GSI returned %v, want p, c, h and x", out.Items)
		}

		// Asking a GSI for what it does not project is refused.
		_, err = q("gsi_incl", "h", "H", func(in *dynamodb.QueryInput) { in.ProjectionExpression = aws.String("y") })
		wantAPIError(t, err, "ValidationException", "does not project")

		_, err = q("gsi_keys", "g", "G", func(in *dynamodb.QueryInput) { in.Select = types.SelectAllAttributes })
		wantAPIError(t, err, "ValidationException")

		_, err = q("gsi_keys", "g", "G", func(in *dynamodb.QueryInput) { in.ConsistentRead = aws.Bool(true) })
		wantAPIError(t, err, "ValidationException")

		// An LSI fetches what it does not project from the table.
		out, err = q("lsi_keys", "p", "a", func(in *dynamodb.QueryInput) { in.ProjectionExpression = aws.String("y") })
		mustOK(t, err)

		if len(out.Items) != 1 || sOf(t, out.Items[0]["y"]) != "Y" {
			t.Fatalf("an LSI's non-projected attribute: %v", out.Items)
		}

		// Index key values: not empty.
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("b"), "c", str("1"), "g", str(""))})
		wantAPIError(t, err, "ValidationException", "empty string")
	})
}

func TestBadIndexDefinitionsAreRefused(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		bad := []types.GlobalSecondaryIndex{
			gsi("gsi_a", "g", types.ProjectionTypeInclude),       // INCLUDE without attributes
			gsi("gsi_b", "g", types.ProjectionTypeKeysOnly, "x"), // attributes without INCLUDE
			gsi("gsi_c", "undefined", types.ProjectionTypeAll),   // a key not in AttributeDefinitions
			gsi("gs", "g", types.ProjectionTypeAll),              // a name too short
		}

		for _, g := range bad {
			_, err := e.db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(uniqueName(t)), BillingMode: types.BillingModePayPerRequest,
				AttributeDefinitions:   []types.AttributeDefinition{attr("p", types.ScalarAttributeTypeS), attr("g", types.ScalarAttributeTypeS)},
				KeySchema:              []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}},
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{g}})
			wantAPIError(t, err, "ValidationException")
		}
	})
}

// Groups 8 and 10: BatchGetItem, TransactGetItems, and what Query and
// Scan refuse.

func TestReadsAndWhatTheyRefuse(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeN})

		for _, c := range []string{"1", "2", "3"} {
			_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "c", num(c), "v", str("x"))})
			mustOK(t, err)
		}

		k := func(c string) map[string]types.AttributeValue { return values("p", str("a"), "c", num(c)) }

		bg, err := e.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {
			Keys: []map[string]types.AttributeValue{k("1"), k("9")}}}})
		mustOK(t, err)

		if len(bg.Responses[table]) != 1 {
			t.Fatalf("BatchGetItem returned %v", bg.Responses)
		}

		tg, err := e.db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(table), Key: k("2")}}, {Get: &types.Get{TableName: aws.String(table), Key: k("9")}}}})
		mustOK(t, err)

		if len(tg.Responses) != 2 || tg.Responses[0].Item == nil || tg.Responses[1].Item != nil {
			t.Fatalf("TransactGetItems returned %+v", tg.Responses)
		}

		query := func(mod func(*dynamodb.QueryInput)) error {
			in := &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("p = :p"), ExpressionAttributeValues: values(":p", str("a"))}
			mod(in)
			_, err := e.db.Query(ctx, in)

			return err
		}

		wantAPIError(t, query(func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(0) }), "ValidationException")
		wantAPIError(t, query(func(in *dynamodb.QueryInput) {
			in.FilterExpression = aws.String("c = :c")
			in.ExpressionAttributeValues = values(":p", str("a"), ":c", num("1"))
		}), "ValidationException", "key attribute")
		wantAPIError(t, query(func(in *dynamodb.QueryInput) { in.KeyConditionExpression = aws.String("p = :p OR c = :p") }), "ValidationException")
		wantAPIError(t, query(func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = values("p", str("a")) }), "ValidationException")
		wantAPIError(t, query(func(in *dynamodb.QueryInput) {
			in.Select = types.SelectCount
			in.ProjectionExpression = aws.String("v")
		}), "ValidationException")
	})
}

// A filter on what an index does not project: a Query refuses it, a Scan
// runs it on the whole item and returns what the index projects, on a GSI
// and an LSI alike, as DynamoDB Local 1.25.1 does (enginediff's known
// differences had the engine refusing a GSI's Scan and running an LSI's
// Query, returning the whole item).
func TestIndexFiltersOnUnprojectedAttributes(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeS,
			attrs: []types.AttributeDefinition{attr("g", types.ScalarAttributeTypeS), attr("l", types.ScalarAttributeTypeS)},
			gsis:  []types.GlobalSecondaryIndex{gsi("gsi_keys", "g", types.ProjectionTypeKeysOnly)},
			lsis: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi_keys"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}}}},
		})

		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "c", str("1"),
			"g", str("G"), "l", str("L"), "x", str("X"))})
		mustOK(t, err)

		for _, ix := range []struct{ name, keyAttr, v string }{{"gsi_keys", "g", "G"}, {"lsi_keys", "p", "a"}} {
			_, err := e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(ix.name),
				KeyConditionExpression: aws.String(ix.keyAttr + " = :v"), FilterExpression: aws.String("x = :x"),
				ExpressionAttributeValues: values(":v", str(ix.v), ":x", str("X"))})
			wantAPIError(t, err, "ValidationException", "does not project one or more filter attributes")

			scan := func(filter string, vals map[string]types.AttributeValue) *dynamodb.ScanOutput {
				t.Helper()

				out, err := e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(ix.name),
					FilterExpression: aws.String(filter), ExpressionAttributeValues: vals})
				mustOK(t, err)

				return out
			}

			// The filter sees the item's x; the index's keys come back.
			out := scan("x = :x", values(":x", str("X")))
			if out.Count != 1 || out.ScannedCount != 1 || len(out.Items[0]) != 3 || out.Items[0]["x"] != nil {
				t.Fatalf("a Scan of %s filtered on x: %+v; want the item's three key attributes", ix.name, out.Items)
			}

			if out := scan("attribute_not_exists(x)", nil); out.Count != 0 || out.ScannedCount != 1 {
				t.Fatalf("a Scan of %s filtered on attribute_not_exists(x): count %d, scanned %d; want 0 of 1", ix.name, out.Count, out.ScannedCount)
			}
		}
	})
}

// A Query of a table without a sort key from an ExclusiveStartKey is
// refused on AWS (ScyllaDB's test_query_no_sort_key_exclusive_start_key,
// written against AWS); DynamoDB Local reads the empty page after it. An
// empty start key is refused by both.
func TestQueryStartKeyWithoutASortKey(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})

		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "x", str("X"))})
		mustOK(t, err)

		in := &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("p = :p"),
			ExpressionAttributeValues: values(":p", str("a")), ExclusiveStartKey: map[string]types.AttributeValue{}}

		_, err = e.db.Query(ctx, in)
		wantAPIError(t, err, "ValidationException")

		e.awsOnly(t, "DynamoDB Local reads the page after a start key on a table without a sort key")

		in.ExclusiveStartKey = key("a")

		_, err = e.db.Query(ctx, in)
		wantAPIError(t, err, "ValidationException", "exclusive start key is invalid")
	})
}

// What DynamoDB refuses before reading an item: a nested path into a key
// attribute (of the table or of an index) in any expression, a BETWEEN or
// if_not_exists whose first operand is repeated, a key condition comparing
// a key attribute with an empty string (DynamoDB Local 1.25.1's answers).
func TestExpressionsDynamoDBRefuses(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeS,
			attrs: []types.AttributeDefinition{attr("g", types.ScalarAttributeTypeS)},
			gsis:  []types.GlobalSecondaryIndex{gsi("by_g", "g", types.ProjectionTypeAll)}})

		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "c", str("1"), "g", str("G"), "m", &types.AttributeValueMemberM{Value: values("x", str("1"))})})
		mustOK(t, err)

		k := values("p", str("a"), "c", str("1"))

		// Nested paths into p (the table's key), c and g (the index's):
		// refused in a projection, a condition and a filter; into m, not.
		_, err = e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: k, ProjectionExpression: aws.String("p.x")})
		wantAPIError(t, err, "ValidationException", "Key attributes must be scalars")

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: k, UpdateExpression: aws.String("SET b = :v"),
			ConditionExpression: aws.String("attribute_exists(g[0])"), ExpressionAttributeValues: values(":v", str("v"))})
		wantAPIError(t, err, "ValidationException", "Key attributes must be scalars")

		_, err = e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("c.x = :v"), ExpressionAttributeValues: values(":v", str("v"))})
		wantAPIError(t, err, "ValidationException", "Key attributes must be scalars")

		// In an update's value: refused after the condition (a false one
		// fails the update first).
		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: k, UpdateExpression: aws.String("SET b = if_not_exists(g[2], :v)"),
			ExpressionAttributeValues: values(":v", str("v"))})
		wantAPIError(t, err, "ValidationException", "Key attributes must be scalars")

		var ccf *types.ConditionalCheckFailedException
		if _, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: k, UpdateExpression: aws.String("SET b = if_not_exists(g[2], :v)"),
			ConditionExpression: aws.String("attribute_exists(zz)"), ExpressionAttributeValues: values(":v", str("v"))}); !asErr(err, &ccf) {
			t.Fatalf("a false condition on an update reading g[2]: %v; want ConditionalCheckFailedException", err)
		}

		_, err = e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: k, ProjectionExpression: aws.String("m.x, p")})
		mustOK(t, err)

		// In a transaction: a Put's, Update's or Delete's condition with one
		// refuses the request, true or false and before any condition is
		// evaluated (the other action is not written); a ConditionCheck's
		// is evaluated (TestDifferential found the LSI and GSI cases).
		other := types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: values("p", str("tx"), "c", str("1"))}}
		for _, ti := range []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(table), Item: k, ConditionExpression: aws.String("attribute_exists(g.x)")}},
			{Delete: &types.Delete{TableName: aws.String(table), Key: k, ConditionExpression: aws.String("attribute_not_exists(c[0])")}},
			{Update: &types.Update{TableName: aws.String(table), Key: k, UpdateExpression: aws.String("SET b = :v"),
				ConditionExpression: aws.String("attribute_exists(p.x)"), ExpressionAttributeValues: values(":v", str("v"))}},
		} {
			_, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{other, ti}})
			wantAPIError(t, err, "ValidationException", "Key attributes must be scalars")
		}

		var canceled *types.TransactionCanceledException
		if _, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{other,
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: k, ConditionExpression: aws.String("attribute_exists(g.x)")}}}}); !asErr(err, &canceled) {
			t.Fatalf("a ConditionCheck reading g.x: %v; want TransactionCanceledException (its condition evaluated, false)", err)
		}

		if out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: values("p", str("tx"), "c", str("1"))}); err != nil || out.Item != nil {
			t.Fatalf("the refused transactions wrote their other action: %v, %v", out, err)
		}

		// A repeated first operand.
		_, err = e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("b BETWEEN b AND :v"), ExpressionAttributeValues: values(":v", str("v"))})
		wantAPIError(t, err, "ValidationException", "first operand must be distinct")

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: k, UpdateExpression: aws.String("SET b = if_not_exists(b, b)")})
		wantAPIError(t, err, "ValidationException", "first operand must be distinct")

		// An empty key value in a key condition, on the table and an index.
		_, err = e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("p = :p AND c >= :c"),
			ExpressionAttributeValues: values(":p", str("a"), ":c", str(""))})
		wantAPIError(t, err, "ValidationException", "cannot contain an empty string value")

		_, err = e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("by_g"), KeyConditionExpression: aws.String("g = :g"),
			ExpressionAttributeValues: values(":g", str(""))})
		wantAPIError(t, err, "ValidationException", "cannot contain an empty string value")
	})
}
