package minidyn

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Each PartiQL statement form against the request it stands for, on the
// same items, on every engine: what it returns and what it leaves.
func TestPartiQLIsTheEquivalentRequest(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		name := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeN})
		tbl := aws.String(name)
		q := `"` + name + `"`

		for _, c := range []string{"1", "2", "3", "10"} {
			_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{
				"p": str("a"), "c": num(c), "x": str("x" + c), "n": num(c),
			}})
			mustOK(t, err)
		}

		stmt := func(s string, params ...types.AttributeValue) []map[string]types.AttributeValue {
			t.Helper()

			out, err := e.db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(s), Parameters: params, ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}

			return out.Items
		}
		same := func(what string, got, want []map[string]types.AttributeValue) {
			t.Helper()

			if len(got) == 0 && len(want) == 0 {
				return
			}

			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\n got %v\nwant %v", what, got, want)
			}
		}
		query := func(in *dynamodb.QueryInput) []map[string]types.AttributeValue {
			t.Helper()

			in.TableName, in.ConsistentRead = tbl, aws.Bool(true)
			out, err := e.db.Query(ctx, in)
			mustOK(t, err)

			return out.Items
		}
		get := func(c string) map[string]types.AttributeValue {
			t.Helper()

			out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"p": str("a"), "c": num(c)}, ConsistentRead: aws.Bool(true)})
			mustOK(t, err)

			return out.Item
		}

		// SELECT: the partition, a sort key range, a filter, a projection,
		// descending order, parameters.
		same("SELECT by partition", stmt(`SELECT * FROM `+q+` WHERE p = 'a'`),
			query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("p = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("a")}}))
		same("SELECT a sort key range", stmt(`SELECT * FROM `+q+` WHERE p = ? AND c BETWEEN ? AND ?`, str("a"), num("2"), num("10")),
			query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("p = :p AND c BETWEEN :lo AND :hi"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("a"), ":lo": num("2"), ":hi": num("10")}}))
		same("SELECT with a filter", stmt(`SELECT * FROM `+q+` WHERE p = 'a' AND n > 1 AND x <> 'x3'`),
			query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("p = :p"), FilterExpression: aws.String("n > :one AND x <> :x3"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("a"), ":one": num("1"), ":x3": str("x3")}}))
		same("SELECT a projection", stmt(`SELECT x, c FROM `+q+` WHERE p = 'a'`),
			query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("p = :p"), ProjectionExpression: aws.String("x, c"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("a")}}))
		// (DynamoDB Local 1.25.1 fails a projection with ORDER BY: 500.)
		same("SELECT in descending order", stmt(`SELECT * FROM `+q+` WHERE p = 'a' ORDER BY c DESC`),
			query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("p = :p"), ScanIndexForward: aws.Bool(false),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("a")}}))

		scanned := stmt(`SELECT * FROM ` + q + ` WHERE x = 'x2'`)
		if len(scanned) != 1 || !reflect.DeepEqual(scanned[0], get("2")) {
			t.Errorf("SELECT without the key (a scan): %v", scanned)
		}

		// Paging: Limit and NextToken walk the partition as Query's pages do.
		var paged []map[string]types.AttributeValue

		var token *string

		for range 10 {
			out, err := e.db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM ` + q + ` WHERE p = 'a'`), Limit: aws.Int32(3), NextToken: token})
			mustOK(t, err)

			paged = append(paged, out.Items...)
			if token = out.NextToken; token == nil {
				break
			}
		}

		same("SELECT in pages of 3", paged, stmt(`SELECT * FROM `+q+` WHERE p = 'a'`))

		// INSERT is PutItem of a new key, refused for an existing one.
		stmt(`INSERT INTO `+q+` VALUE {'p': 'a', 'c': 20, 'l': [1, 'two'], 'm': {'k': 7}, 's': <<'y', 'x'>>, 'q': ?}`, str("param"))

		want := map[string]types.AttributeValue{"p": str("a"), "c": num("20"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{num("1"), str("two")}},
			"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": num("7")}}, "s": &types.AttributeValueMemberSS{Value: []string{"x", "y"}}, "q": str("param")}
		got := get("20")
		if ss, ok := got["s"].(*types.AttributeValueMemberSS); ok && e.ref {
			// DynamoDB Local keeps a set PartiQL inserts in the order
			// written (every other set it sorts).
			slices.Sort(ss.Value)
		}

		if !reflect.DeepEqual(got, want) {
			t.Errorf("INSERT: %v, want %v", got, want)
		}

		_, err := e.db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO ` + q + ` VALUE {'p': 'a', 'c': 20}`)})
		if e.ref {
			wantAPIError(t, err, "DuplicateItem") // DynamoDB Local's name; AWS's (the SDK's model) DuplicateItemException
		} else {
			wantAPIError(t, err, "DuplicateItemException")
		}

		// UPDATE is UpdateItem of the WHERE's key, the rest its condition.
		stmt(`UPDATE ` + q + ` SET n = n + 5, y = 'new' REMOVE x WHERE p = 'a' AND c = 1 AND x = 'x1'`)

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"p": str("a"), "c": num("2")},
			UpdateExpression: aws.String("SET n = n + :five, y = :new REMOVE x"), ConditionExpression: aws.String("x = :x"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":five": num("5"), ":new": str("new"), ":x": str("x2")}})
		mustOK(t, err)

		one, two := get("1"), get("2")
		two["c"], two["n"] = one["c"], num("6") // the same update, on c = 2 (n 2 + 5 = 7)
		if got := get("2")["n"]; !reflect.DeepEqual(got, num("7")) || !reflect.DeepEqual(one, two) {
			t.Errorf("UPDATE: %v, the request gave %v", one, get("2"))
		}

		_, err = e.db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`UPDATE ` + q + ` SET y = 'z' WHERE p = 'a' AND c = 99`)})
		wantAPIError(t, err, "ConditionalCheckFailedException")

		if get("99") != nil {
			t.Errorf("an UPDATE of no item created one")
		}

		_, err = e.db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`UPDATE ` + q + ` SET y = 'z' WHERE p = 'a'`)})
		wantAPIError(t, err, "ValidationException", "key attributes")

		returned := stmt(`UPDATE ` + q + ` SET y = 'r' WHERE p = 'a' AND c = 3 RETURNING ALL NEW *`)
		if len(returned) != 1 || !reflect.DeepEqual(returned[0], get("3")) {
			t.Errorf("RETURNING ALL NEW *: %v", returned)
		}

		// DELETE is DeleteItem of the WHERE's key.
		old := get("3")
		if got := stmt(`DELETE FROM ` + q + ` WHERE p = 'a' AND c = 3 RETURNING ALL OLD *`); len(got) != 1 || !reflect.DeepEqual(got[0], old) || get("3") != nil {
			t.Errorf("DELETE: %v, the item %v", got, get("3"))
		}

		stmt(`DELETE FROM ` + q + ` WHERE p = 'a' AND c = 3`) // nothing there: no error

		// BatchExecuteStatement: reads by key, each its own answer.
		b, err := e.db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`SELECT * FROM ` + q + ` WHERE p = 'a' AND c = 10`), ConsistentRead: aws.Bool(true)},
			{Statement: aws.String(`SELECT * FROM ` + q + ` WHERE p = 'nope' AND c = 1`)},
			{Statement: aws.String(`SELECT * FROM ` + q + ` WHERE p = 'a'`)},
		}})
		mustOK(t, err)

		if len(b.Responses) != 3 || !reflect.DeepEqual(b.Responses[0].Item, get("10")) || b.Responses[1].Item != nil || b.Responses[1].Error != nil ||
			b.Responses[2].Error == nil || b.Responses[2].Error.Code != types.BatchStatementErrorCodeEnumValidationError {
			t.Errorf("a batch of reads: %+v", b.Responses)
		}

		bw, err := e.db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`INSERT INTO ` + q + ` VALUE {'p': 'b', 'c': 1}`)},
			{Statement: aws.String(`INSERT INTO ` + q + ` VALUE {'p': 'a', 'c': 10}`)},
		}})
		mustOK(t, err)

		if bw.Responses[0].Error != nil || bw.Responses[1].Error == nil || bw.Responses[1].Error.Code != types.BatchStatementErrorCodeEnumDuplicateItem {
			t.Errorf("a batch of writes: %+v", bw.Responses)
		}

		_, err = e.db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`INSERT INTO ` + q + ` VALUE {'p': 'b', 'c': 2}`)}, {Statement: aws.String(`SELECT * FROM ` + q + ` WHERE p = 'a' AND c = 10`)},
		}})
		wantAPIError(t, err, "ValidationException", "Read and write")

		// ExecuteTransaction: all or nothing, with the reasons.
		_, err = e.db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			{Statement: aws.String(`INSERT INTO ` + q + ` VALUE {'p': 't', 'c': 1}`)},
			{Statement: aws.String(`UPDATE ` + q + ` SET v = 1 WHERE p = 'none' AND c = 1`)},
		}})

		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[0].Code) != "None" ||
			aws.ToString(tce.CancellationReasons[1].Code) != "ConditionalCheckFailed" {
			t.Fatalf("a cancelled transaction: %v", err)
		}

		if out, _ := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"p": str("t"), "c": num("1")}}); out.Item != nil {
			t.Errorf("a cancelled transaction wrote")
		}

		tx, err := e.db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			{Statement: aws.String(`SELECT * FROM ` + q + ` WHERE p = 'a' AND c = 10`)}, {Statement: aws.String(`SELECT * FROM ` + q + ` WHERE p = 'b' AND c = 1`)},
		}})
		mustOK(t, err)

		if len(tx.Responses) != 2 || !reflect.DeepEqual(tx.Responses[0].Item, get("10")) {
			t.Errorf("a read transaction: %+v", tx.Responses)
		}

		// DynamoDB's refusals.
		for s, code := range map[string]string{
			"SELEC * FROM " + q:                         "ValidationException",
			"SELECT * FROM " + q + " WHERE p = ?":       "ValidationException",
			`SELECT * FROM "fid_no_such_table"`:         "ResourceNotFoundException",
			"INSERT INTO " + q + " VALUE {'p': 'only'}": "ValidationException",
		} {
			_, err := e.db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(s)})
			wantAPIError(t, err, code)
		}
	})
}
