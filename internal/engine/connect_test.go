package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

// Connect starts each engine, and its DB emulates TransactWriteItems
// exactly where the engine lacks it (docs/engines.md); a transaction
// through DB is all or nothing either way. Connecting to an endpoint
// starts nothing, and its Stop leaves the engine running. keyplan's
// client reads every answer, even one that overtakes its request
// (overtakenAnswersAreRead).
func TestConnect(t *testing.T) {
	names := Names
	if testing.Short() {
		names = []string{Memory}
	}
	ctx := context.Background()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c, err := Connect(ctx, Options{Name: name})
			if err != nil {
				t.Fatalf("%v\n%s", err, Hint(err))
			}
			defer c.Stop()
			if want := documented["TransactWriteItems"][name] == "no"; c.Name != name || c.DB.Emulated() != want {
				t.Errorf("Connect(%s): name %s, emulated %v; want emulated %v", name, c.Name, c.DB.Emulated(), want)
			}
			if _, err := c.Raw.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("connect"), BillingMode: types.BillingModePayPerRequest,
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: types.KeyTypeHash}},
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("k"), AttributeType: types.ScalarAttributeTypeS}}}); err != nil {
				t.Fatal(err)
			}
			put := func(k string) types.TransactWriteItem {
				return types.TransactWriteItem{Put: &types.Put{TableName: aws.String("connect"), Item: map[string]types.AttributeValue{"k": s(k)},
					ConditionExpression: aws.String("attribute_not_exists(k)")}}
			}
			if _, err := c.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("a")}}); err != nil {
				t.Fatal(err)
			}
			_, err = c.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("b"), put("a")}})
			if err == nil || !strings.Contains(err.Error(), "TransactionCanceled") {
				t.Errorf("a transaction with a failing condition: %v", err)
			}
			if out, _ := c.Raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("connect"), Key: map[string]types.AttributeValue{"k": s("b")}}); out == nil || out.Item != nil {
				t.Errorf("the cancelled transaction wrote b: %v", out)
			}
			other, err := Connect(ctx, Options{Endpoint: c.Endpoint})
			if err != nil || other.Name != "endpoint" || other.DB.Emulated() != c.DB.Emulated() {
				t.Fatalf("Connect(endpoint): %+v, %v", other, err)
			}
			other.Stop()
			if _, err := c.Raw.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
				t.Errorf("the engine stopped with a connection that did not start it: %v", err)
			}
			overtakenAnswersAreRead(t, c)
		})
	}
}

// overtakenAnswersAreRead: keyplan's client (httpClient's) reads answers
// longer than 4 KB that come before the transport is done with their
// request, on the engine c, over connections kept alive; the SDK's own
// loses every one (sdkhttp's tests show it).
func overtakenAnswersAreRead(t *testing.T, c *Conn) {
	ctx := context.Background()
	value := strings.Repeat("v", 9000)
	if _, err := c.Raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("connect"), Item: map[string]types.AttributeValue{"k": s("large"), "v": s(value)}}); err != nil {
		t.Fatal(err)
	}
	overtaking := sdkhttp.NewOvertaking()
	db := dynamodb.New(c.Raw.Options(), func(o *dynamodb.Options) {
		o.HTTPClient = httpClientOver(overtaking.Transport, 0)
		o.RetryMaxAttempts = 1
	})
	for i := range 3 {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("connect"), Key: map[string]types.AttributeValue{"k": s("large")}})
		if err != nil {
			t.Fatalf("GetItem %d of an item of 9 KB, answered before the request was done: %v", i+1, err)
		}
		if v, _ := out.Item["v"].(*types.AttributeValueMemberS); v == nil || v.Value != value {
			t.Fatalf("GetItem %d: the answer's value is not the one put", i+1)
		}
	}
	if c := overtaking.Closed(); c > 0 {
		t.Errorf("3 GetItems closed %d of the %d connections they opened", c, overtaking.Dials())
	}
}
