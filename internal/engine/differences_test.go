package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The differences docs/engines.md lists, each probed on each engine:
// what the engine does, by name. A change in an engine (or a new
// engine) shows here first, and the table is updated with it.
var documented = map[string]map[string]string{
	"projection of an unprojected attribute":           {Memory: "refused", Dynalite: "accepted", DynamoDBLocal: "refused"},
	"INCLUDE index read without projection":            {Memory: "projected", Dynalite: "projected", DynamoDBLocal: "projected"},
	"TransactWriteItems":                               {Memory: "yes", Dynalite: "no", DynamoDBLocal: "yes"},
	"online GSI creation":                              {Memory: "yes", Dynalite: "no", DynamoDBLocal: "yes"},
	"ReturnValuesOnConditionCheckFailure (UpdateItem)": {Memory: "returned", Dynalite: "not returned", DynamoDBLocal: "returned"},
	"ReturnValuesOnConditionCheckFailure (PutItem)":    {Memory: "returned", Dynalite: "not returned", DynamoDBLocal: "returned"},
	"ItemCount":                  {Memory: "exact", Dynalite: "0", DynamoDBLocal: "exact"},
	"item over 400 KB":           {Memory: "refused", Dynalite: "refused", DynamoDBLocal: "refused"},
	"number of 39 digits":        {Memory: "refused", Dynalite: "refused", DynamoDBLocal: "refused"},
	"table name of 2 characters": {Memory: "refused", Dynalite: "refused", DynamoDBLocal: "refused"},
	string(MultiAttributeKeys):   {Memory: "yes", Dynalite: "no", DynamoDBLocal: "no"},
	string(ListMapEquality):      {Memory: "yes", Dynalite: "no", DynamoDBLocal: "yes"},
}

func TestEngineDifferences(t *testing.T) {
	if testing.Short() {
		t.Skip("starts every engine")
	}
	t.Logf("%s", Env())
	wd, _ := os.Getwd()
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			srv, err := Start(name, wd)
			if err != nil {
				t.Fatalf("%v\n%s", err, Hint(err))
			}
			defer srv.Stop()
			c := dynamodb.New(Client(srv.Endpoint, 0).Options(), func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
			got := probe(t, c)
			// An endpoint's Lacks probes for the old item: it agrees with
			// the engine's name.
			if why := probeFeature(context.Background(), c, OldItemOnConditionFailure); (why == "") != (Lacks(name, OldItemOnConditionFailure) == "") {
				t.Errorf("probing %s for %s: %q, Lacks says %q", name, OldItemOnConditionFailure, why, Lacks(name, OldItemOnConditionFailure))
			}
			for what, by := range documented {
				if got[what] != by[name] {
					t.Errorf("%s on %s: %s, docs/engines.md says %s", what, name, got[what], by[name])
				}
			}
		})
	}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// probe finds out what the engine at c does for each documented case.
func probe(t *testing.T, c *dynamodb.Client) map[string]string {
	ctx := context.Background()
	got := map[string]string{}
	attr := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Probe"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{attr("PK"), attr("G")},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("GSI1"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("G"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"kp"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	put := func(item map[string]types.AttributeValue) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Probe"), Item: item})
		return err
	}
	if err := put(map[string]types.AttributeValue{"PK": s("a"), "G": s("g"), "kp": s("k"), "zz": s("z")}); err != nil {
		t.Fatal(err)
	}
	q := &dynamodb.QueryInput{TableName: aws.String("Probe"), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("G = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("g")}}
	out, err := c.Query(ctx, q)
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("Query: %v, %v", out, err)
	}
	_, whole := out.Items[0]["zz"]
	got["INCLUDE index read without projection"] = yesNo(whole, "whole item", "projected")
	q.ProjectionExpression = aws.String("PK, zz")
	_, err = c.Query(ctx, q)
	switch {
	case err == nil:
		got["projection of an unprojected attribute"] = "accepted"
	case strings.Contains(err.Error(), "does not project"):
		got["projection of an unprojected attribute"] = "refused"
	default:
		t.Fatalf("a projection of zz: %v", err)
	}

	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Probe"), Item: map[string]types.AttributeValue{"PK": s("t")}}}}})
	got["TransactWriteItems"] = yesNo(err == nil, "yes", "no")

	failed := func(what string, err error) {
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			t.Fatalf("%s: a failed condition: %v", what, err)
		}
		got["ReturnValuesOnConditionCheckFailure ("+what+")"] = yesNo(ccf.Item != nil, "returned", "not returned")
	}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Probe"), Item: map[string]types.AttributeValue{"PK": s("a")},
		ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	failed("PutItem", err)
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Probe"), Key: map[string]types.AttributeValue{"PK": s("a")},
		UpdateExpression: aws.String("SET kp = :v"), ConditionExpression: aws.String("attribute_not_exists(PK)"),
		ExpressionAttributeValues:           map[string]types.AttributeValue{":v": s("v")},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	failed("UpdateItem", err)

	// A condition comparing a list and a map with the values the item
	// holds (DynamoDB compares them by content).
	m := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": s("1"), "y": &types.AttributeValueMemberN{Value: "2"}}}
	l := &types.AttributeValueMemberL{Value: []types.AttributeValue{s("1"), &types.AttributeValueMemberN{Value: "2"}}}
	if err := put(map[string]types.AttributeValue{"PK": s("lm"), "m": m, "l": l}); err != nil {
		t.Fatal(err)
	}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Probe"), Item: map[string]types.AttributeValue{"PK": s("lm"), "m": m, "l": l},
		ConditionExpression:       aws.String("m = :m AND l = :l"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":m": m, ":l": l}})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		t.Fatalf("a condition on a list and a map: %v", err)
	}
	got[string(ListMapEquality)] = yesNo(err == nil, "yes", "no")

	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Probe")})
	if err != nil {
		t.Fatal(err)
	}
	switch n := aws.ToInt64(desc.Table.ItemCount); n {
	case 3:
		got["ItemCount"] = "exact"
	default:
		got["ItemCount"] = fmt.Sprint(n)
	}

	err = put(map[string]types.AttributeValue{"PK": s("big"), "v": s(strings.Repeat("x", 400<<10))})
	got["item over 400 KB"] = yesNo(err == nil, "accepted", "refused")
	err = put(map[string]types.AttributeValue{"PK": s("n"), "v": &types.AttributeValueMemberN{Value: strings.Repeat("9", 39)}})
	got["number of 39 digits"] = yesNo(err == nil, "accepted", "refused")
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Pr"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{attr("PK")}})
	got["table name of 2 characters"] = yesNo(err == nil, "accepted", "refused")

	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Probe"),
		AttributeDefinitions: []types.AttributeDefinition{attr("PK"), attr("G"), attr("H")},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("GSI2"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("H"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	online := false
	for wait := time.Now().Add(10 * time.Second); err == nil && time.Now().Before(wait) && !online; time.Sleep(50 * time.Millisecond) {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Probe")})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range d.Table.GlobalSecondaryIndexes {
			online = online || aws.ToString(g.IndexName) == "GSI2" && g.IndexStatus == types.IndexStatusActive
		}
	}
	got["online GSI creation"] = yesNo(online, "yes", "no")
	got[string(MultiAttributeKeys)] = yesNo(probeFeature(ctx, c, MultiAttributeKeys) == "", "yes", "no")
	return got
}
