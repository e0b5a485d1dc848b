package minidyn

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Group 1: a write the engine refuses is not applied.

func TestRefusedWritesAreNotApplied(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{attrs: []types.AttributeDefinition{attr("g", types.ScalarAttributeTypeS)},
			gsis: []types.GlobalSecondaryIndex{gsi("gsi_g", "g", types.ProjectionTypeAll)}})

		// PutItem with a GSI key of the wrong type.
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "g", num("1"))})
		wantAPIError(t, err, "ValidationException", "Type mismatch for Index Key")

		if it := getItem(t, e.db, table, key("a")); it != nil {
			t.Fatalf("a refused PutItem stored %v", it)
		}

		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("b"), "g", str("x"))})
		mustOK(t, err)

		// A batch with one bad item writes none of them.
		_, err = e.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
			{PutRequest: &types.PutRequest{Item: values("p", str("c"), "g", str("ok"))}},
			{PutRequest: &types.PutRequest{Item: values("p", str("d"), "g", num("3"))}},
		}}})
		wantAPIError(t, err, "ValidationException")

		if it := getItem(t, e.db, table, key("c")); it != nil {
			t.Fatalf("a refused batch wrote %v", it)
		}

		// The index still answers.
		out, err := e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gsi_g"),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: values(":g", str("x"))})
		mustOK(t, err)

		if len(out.Items) != 1 {
			t.Fatalf("the index holds %d items for x, want 1", len(out.Items))
		}
	})
}

// An UpdateItem setting a GSI key to another type is refused and leaves
// the item as it was: what AWS does (the Alternator suite's
// test_gsi_wrong_type_attribute_update); DynamoDB Local accepts it and
// drops the item from the index.
func TestRefusedUpdateIsNotApplied(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		e.awsOnly(t, "an UpdateItem giving a GSI key another type is accepted")

		table := makeTable(t, e.db, schema{attrs: []types.AttributeDefinition{attr("g", types.ScalarAttributeTypeS)},
			gsis: []types.GlobalSecondaryIndex{gsi("gsi_g", "g", types.ProjectionTypeAll)}})
		// UpdateItem setting it to the wrong type leaves the item as it was.
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("b"), "g", str("x"), "n", num("1"))})
		mustOK(t, err)

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("b"),
			UpdateExpression: aws.String("SET g = :g, n = :n"), ExpressionAttributeValues: values(":g", num("2"), ":n", num("2"))})
		wantAPIError(t, err, "ValidationException", "Type mismatch for Index Key")

		if it := getItem(t, e.db, table, key("b")); sOf(t, it["g"]) != "x" || nOf(t, it["n"]) != "1" {
			t.Fatalf("a refused UpdateItem changed the item: %v", it)
		}
	})
}

// Group 3: an UpdateExpression's actions read the item as it was.

func TestUpdateActionsReadTheOldItem(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "cur", num("1"))})
		mustOK(t, err)

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression: aws.String("SET cur = :n, prev = cur"), ExpressionAttributeValues: values(":n", num("2"))})
		mustOK(t, err)

		it := getItem(t, e.db, table, key("a"))
		if nOf(t, it["cur"]) != "2" || nOf(t, it["prev"]) != "1" {
			t.Fatalf("SET cur = :n, prev = cur gave cur=%v prev=%v, want 2 and 1", it["cur"], it["prev"])
		}

		// Elements written past a list's end are appended in index order.
		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression:          aws.String("SET l = :l"),
			ExpressionAttributeValues: values(":l", &types.AttributeValueMemberL{Value: []types.AttributeValue{num("0")}})})
		mustOK(t, err)

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression: aws.String("SET l[9] = :b, l[5] = :a"), ExpressionAttributeValues: values(":a", num("5"), ":b", num("9"))})
		mustOK(t, err)

		l := getItem(t, e.db, table, key("a"))["l"].(*types.AttributeValueMemberL).Value
		if len(l) != 3 || nOf(t, l[1]) != "5" || nOf(t, l[2]) != "9" {
			t.Fatalf("appends out of index order: %v", l)
		}

		// Overlapping paths are refused.
		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression: aws.String("SET a = :v REMOVE a"), ExpressionAttributeValues: values(":v", num("1"))})
		wantAPIError(t, err, "ValidationException", "Two document paths overlap")
	})
}

// Group 7: ReturnValues.

func TestReturnValues(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})

		// ALL_OLD on an update that creates the item returns nothing.
		out, err := e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression: aws.String("SET x = :x"), ExpressionAttributeValues: values(":x", num("1")), ReturnValues: types.ReturnValueAllOld})
		mustOK(t, err)

		if out.Attributes != nil {
			t.Fatalf("ALL_OLD on a created item returned %v", out.Attributes)
		}

		// UPDATED_OLD returns only the written attributes.
		out, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression: aws.String("SET y = :y, x = :x"), ExpressionAttributeValues: values(":x", num("2"), ":y", num("3")),
			ReturnValues: types.ReturnValueUpdatedOld})
		mustOK(t, err)

		if len(out.Attributes) != 1 || nOf(t, out.Attributes["x"]) != "1" {
			t.Fatalf("UPDATED_OLD returned %v, want x=1 only", out.Attributes)
		}

		// An invalid value is refused.
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("b")), ReturnValues: types.ReturnValueAllNew})
		wantAPIError(t, err, "ValidationException")

		// ReturnValuesOnConditionCheckFailure on a single write.
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a")),
			ConditionExpression:                 aws.String("attribute_not_exists(p)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})

		var ccf *types.ConditionalCheckFailedException
		if !asErr(err, &ccf) || ccf.Item == nil || nOf(t, ccf.Item["x"]) != "2" {
			t.Fatalf("want ConditionalCheckFailedException with the item, got %v", err)
		}
	})
}

// UPDATED_NEW on a nested path returns the nested path only: what AWS
// does (the Alternator suite's test_update_item_returnvalues_nested);
// DynamoDB Local returns the whole top-level attribute.
func TestReturnValuesNestedPaths(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		e.awsOnly(t, "UPDATED_NEW on a.b returns all of a")

		table := makeTable(t, e.db, schema{})
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"),
			"m", &types.AttributeValueMemberM{Value: values("x", num("1"), "y", num("1"))})})
		mustOK(t, err)

		out, err := e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			UpdateExpression: aws.String("SET m.x = :v"), ExpressionAttributeValues: values(":v", num("2")), ReturnValues: types.ReturnValueUpdatedNew})
		mustOK(t, err)

		m := out.Attributes["m"].(*types.AttributeValueMemberM).Value
		if len(m) != 1 || nOf(t, m["x"]) != "2" {
			t.Fatalf("UPDATED_NEW on m.x returned %v, want m.x only", m)
		}
	})
}

// Group 9: transactions.

func TestTransactionsReportEveryReasonAndAreIdempotent(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})
		put := func(p string, cond string) types.TransactWriteItem {
			w := &types.Put{TableName: aws.String(table), Item: values("p", str(p))}
			if cond != "" {
				w.ConditionExpression = aws.String(cond)
			}

			return types.TransactWriteItem{Put: w}
		}

		_, err := e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			put("a", ""), put("b", "attribute_exists(p)"), put("c", "attribute_exists(p)"),
		}})

		var tce *types.TransactionCanceledException
		if !asErr(err, &tce) || len(tce.CancellationReasons) != 3 {
			t.Fatalf("want TransactionCanceledException with 3 reasons, got %v", err)
		}

		codes := []string{aws.ToString(tce.CancellationReasons[0].Code), aws.ToString(tce.CancellationReasons[1].Code), aws.ToString(tce.CancellationReasons[2].Code)}
		if codes[0] != "None" || codes[1] != "ConditionalCheckFailed" || codes[2] != "ConditionalCheckFailed" {
			t.Fatalf("reasons %v, want [None ConditionalCheckFailed ConditionalCheckFailed]", codes)
		}

		if it := getItem(t, e.db, table, key("a")); it != nil {
			t.Fatal("a cancelled transaction wrote its first put")
		}

		// Every invalid action has its ValidationError, not only the first
		// (make fuzz's TestDifferential found it with two wrong-typed keys).
		bad := func(p string) types.TransactWriteItem {
			return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: values("p", &types.AttributeValueMemberN{Value: p})}}
		}
		_, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{bad("1"), put("v", ""), bad("2")}})
		if !asErr(err, &tce) || len(tce.CancellationReasons) != 3 {
			t.Fatalf("two wrong-typed keys: want TransactionCanceledException with 3 reasons, got %v", err)
		}
		if codes := []string{aws.ToString(tce.CancellationReasons[0].Code), aws.ToString(tce.CancellationReasons[1].Code), aws.ToString(tce.CancellationReasons[2].Code)}; codes[0] != "ValidationError" || codes[1] != "None" || codes[2] != "ValidationError" {
			t.Fatalf("two wrong-typed keys: reasons %v, want [ValidationError None ValidationError]", codes)
		}

		// The same ClientRequestToken with the same request runs once; with
		// another request it is refused.
		in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(uniqueName(t)), TransactItems: []types.TransactWriteItem{put("t", "attribute_not_exists(p)")}}
		_, err = e.db.TransactWriteItems(ctx, in)
		mustOK(t, err)
		_, err = e.db.TransactWriteItems(ctx, in)
		mustOK(t, err)

		in.TransactItems = []types.TransactWriteItem{put("u", "")}
		_, err = e.db.TransactWriteItems(ctx, in)
		wantAPIError(t, err, "IdempotentParameterMismatchException")

		// Limits: none, and more than 100.
		_, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{}})
		wantAPIError(t, err, "ValidationException")

		many := make([]types.TransactWriteItem, 101)
		for i := range many {
			many[i] = put("m"+string(rune('a'+i%26))+string(rune('a'+i/26)), "")
		}

		_, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: many})
		wantAPIError(t, err, "ValidationException")
	})
}

// Group 11: legacy parameters are obeyed, not ignored.

func TestLegacyExpectedIsAConditionAndAttributeUpdatesAnUpdate(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "v", num("1"))})
		mustOK(t, err)

		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "v", num("2")),
			Expected: map[string]types.ExpectedAttributeValue{"v": {Value: num("7")}}})

		var ccf *types.ConditionalCheckFailedException
		if !asErr(err, &ccf) {
			t.Fatalf("Expected v = 7 on v = 1: want ConditionalCheckFailedException, got %v", err)
		}

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"),
			AttributeUpdates: map[string]types.AttributeValueUpdate{"v": {Action: types.AttributeActionAdd, Value: num("5")}},
			Expected:         map[string]types.ExpectedAttributeValue{"v": {ComparisonOperator: types.ComparisonOperatorLt, AttributeValueList: []types.AttributeValue{num("2")}}}})
		mustOK(t, err)

		if v := nOf(t, getItem(t, e.db, table, key("a"))["v"]); v != "6" {
			t.Fatalf("ADD 5 to 1 gave %s", v)
		}

		// Mixing legacy and expression parameters is refused.
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a")),
			Expected: map[string]types.ExpectedAttributeValue{"v": {Exists: aws.Bool(false)}}, ConditionExpression: aws.String("attribute_exists(p)")})
		wantAPIError(t, err, "ValidationException", "Can not use both expression and non-expression parameters")
	})
}

// Group 12: numbers normalized; empty keys and duplicate batch keys
// refused.

func TestNumbersEmptyKeysAndDuplicates(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})

		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "n", num("1e3"), "f", num("-0.50"))})
		mustOK(t, err)

		it := getItem(t, e.db, table, key("a"))
		if nOf(t, it["n"]) != "1000" || nOf(t, it["f"]) != "-0.5" {
			t.Fatalf("numbers stored as %v %v, want 1000 and -0.5", it["n"], it["f"])
		}

		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str(""))})
		wantAPIError(t, err, "ValidationException", "empty string")

		_, err = e.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
			{PutRequest: &types.PutRequest{Item: values("p", str("d"))}},
			{DeleteRequest: &types.DeleteRequest{Key: key("d")}},
		}}})
		wantAPIError(t, err, "ValidationException", "duplicates")

		_, err = e.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {
			Keys: []map[string]types.AttributeValue{key("a"), key("a")}}}})
		wantAPIError(t, err, "ValidationException", "duplicates")

		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"),
			"s", &types.AttributeValueMemberSS{Value: []string{"x", "x"}})})
		wantAPIError(t, err, "ValidationException", "duplicates")
	})
}

// Group 13: table names, and what DescribeTable says.

func TestTableNamesAndDescriptions(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		_, err := e.db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("ab"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{attr("p", types.ScalarAttributeTypeS)},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}}})
		wantAPIError(t, err, "ValidationException")

		table := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeN})
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "c", num("1"), "x", str("hello"))})
		mustOK(t, err)

		d, err := e.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		mustOK(t, err)

		td := d.Table
		if td.TableArn == nil || td.CreationDateTime == nil || td.ItemCount == nil || td.TableSizeBytes == nil ||
			td.BillingModeSummary == nil || td.BillingModeSummary.BillingMode != types.BillingModePayPerRequest ||
			len(td.AttributeDefinitions) != 2 || td.TableStatus != types.TableStatusActive {
			t.Fatalf("DescribeTable lacks fields: %+v", td)
		}
	})
}

// A TransactGetItems whose key does not match the table's schema (of
// another type, an attribute missing, extra or misnamed) is canceled,
// TransactionCanceledException without reasons, as DynamoDB Local 1.25.1
// answers; an empty key value is a ValidationException.
func TestTransactGetItemsWithAnInvalidKey(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeS})

		get := func(k map[string]types.AttributeValue) error {
			_, err := e.db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: aws.String(table), Key: values("p", str("a"), "c", str("1"))}},
				{Get: &types.Get{TableName: aws.String(table), Key: k}}}})

			return err
		}

		for name, k := range map[string]map[string]types.AttributeValue{
			"another type": values("p", num("1"), "c", str("1")),
			"missing":      values("p", str("b")),
			"extra":        values("p", str("b"), "c", str("1"), "x", str("1")),
			"misnamed":     values("p", str("b"), "x", str("1")),
		} {
			var tce *types.TransactionCanceledException
			if err := get(k); !asErr(err, &tce) || len(tce.CancellationReasons) != 0 {
				t.Errorf("a key %s: %v; want TransactionCanceledException without reasons", name, err)
			}
		}

		wantAPIError(t, get(values("p", str(""), "c", str("1"))), "ValidationException", "empty string")
	})
}

// An update of a key attribute is refused after its condition is checked:
// a false condition fails it (ConditionalCheckFailed), a true one refuses
// the key update; in a transaction, a ValidationError reason for that
// action (DynamoDB Local 1.25.1 answers so).
func TestAnUpdateOfAKeyAttributeChecksItsConditionFirst(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})

		update := func(cond string) *dynamodb.UpdateItemInput {
			return &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("a"), UpdateExpression: aws.String("SET p = :v"),
				ConditionExpression: aws.String(cond), ExpressionAttributeValues: values(":v", str("b"))}
		}

		var ccf *types.ConditionalCheckFailedException
		if _, err := e.db.UpdateItem(ctx, update("attribute_exists(x)")); !asErr(err, &ccf) {
			t.Fatalf("a false condition on an update of the key: %v; want ConditionalCheckFailedException", err)
		}

		_, err := e.db.UpdateItem(ctx, update("attribute_not_exists(x)"))
		wantAPIError(t, err, "ValidationException", "part of the key")

		transact := func(cond string) []string {
			u := update(cond)
			_, err := e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
				TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression,
				ExpressionAttributeValues: u.ExpressionAttributeValues}}}})

			var tce *types.TransactionCanceledException
			if !asErr(err, &tce) {
				t.Fatalf("a transaction updating the key (%s): %v; want TransactionCanceledException", cond, err)
			}

			var codes []string
			for _, r := range tce.CancellationReasons {
				codes = append(codes, aws.ToString(r.Code))
			}

			return codes
		}

		if got := transact("attribute_exists(x)"); len(got) != 1 || got[0] != "ConditionalCheckFailed" {
			t.Errorf("a transaction's false condition on an update of the key: reasons %v", got)
		}

		if got := transact("attribute_not_exists(x)"); len(got) != 1 || got[0] != "ValidationError" {
			t.Errorf("a transaction's update of the key: reasons %v", got)
		}
	})
}

// A cancelled transaction words each failed condition as DynamoDB Local
// does: "The conditional request failed" for a Put, Update or Delete,
// with a period for a ConditionCheck (ElectroDB's transaction tests,
// written against DynamoDB Local, expect both in one test).
func TestACancelledConditionCheckIsWordedWithAPeriod(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})
		tn := aws.String(table)
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: values("p", str("have"), "h", &types.AttributeValueMemberBOOL{Value: false})})
		mustOK(t, err)

		isTrue := aws.String("h = :t")
		tv := values(":t", &types.AttributeValueMemberBOOL{Value: true})

		for _, c := range []struct {
			what string
			item types.TransactWriteItem
			want string
		}{
			{"a ConditionCheck of a missing item", types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: tn, Key: key("missing"), ConditionExpression: isTrue, ExpressionAttributeValues: tv}}, "The conditional request failed."},
			{"a ConditionCheck of an item", types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: tn, Key: key("have"), ConditionExpression: isTrue, ExpressionAttributeValues: tv,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}}, "The conditional request failed."},
			{"a Put", types.TransactWriteItem{Put: &types.Put{TableName: tn, Item: values("p", str("have")), ConditionExpression: aws.String("attribute_not_exists(p)")}}, "The conditional request failed"},
			{"an Update", types.TransactWriteItem{Update: &types.Update{TableName: tn, Key: key("missing"), UpdateExpression: aws.String("SET x = :t"), ConditionExpression: aws.String("attribute_exists(p)"), ExpressionAttributeValues: tv}}, "The conditional request failed"},
			{"a Delete", types.TransactWriteItem{Delete: &types.Delete{TableName: tn, Key: key("have"), ConditionExpression: isTrue, ExpressionAttributeValues: tv}}, "The conditional request failed"},
		} {
			_, err := e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: tn, Item: values("p", str("new"))}}, c.item}})

			var tce *types.TransactionCanceledException
			if !asErr(err, &tce) || len(tce.CancellationReasons) != 2 {
				t.Fatalf("%s: want TransactionCanceledException with 2 reasons, got %v", c.what, err)
			}

			r := tce.CancellationReasons[1]
			if aws.ToString(r.Code) != "ConditionalCheckFailed" || aws.ToString(r.Message) != c.want || tce.CancellationReasons[0].Message != nil {
				t.Fatalf("%s: reasons [%v %v: %q], want [None, ConditionalCheckFailed: %q]", c.what, aws.ToString(tce.CancellationReasons[0].Code), aws.ToString(r.Code), aws.ToString(r.Message), c.want)
			}
		}
	})
}
