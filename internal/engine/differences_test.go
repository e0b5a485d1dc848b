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
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
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
			// The engine's own client: its retries take a transient
			// failure (DynamoDB Local under load answers a 500 now and
			// then), which says nothing of what the engine does.
			c := probeClient(srv.Endpoint)
			got, err := probe(c)
			if err != nil {
				t.Fatal(err)
			}
			// An endpoint's Lacks probes for the old item: it agrees with
			// the engine's name.
			why, err := probeFeature(context.Background(), c, OldItemOnConditionFailure)
			if err != nil {
				t.Fatal(err)
			}
			if (why == "") != (Lacks(name, OldItemOnConditionFailure) == "") {
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

// engineRefused says whether err is the engine refusing a request (an API
// error of the client's fault, a 4xx); any other error (a 5xx left after
// the client's retries, a broken connection) is returned: a probe
// concludes nothing from it.
func engineRefused(err error) (bool, error) {
	if err == nil {
		return false, nil
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() >= 400 && re.HTTPStatusCode() < 500 {
		return true, nil
	}
	return false, err
}

// probe finds out what the engine at c does for each documented case;
// an error when a request fails otherwise than the case expects.
func probe(c *dynamodb.Client) (map[string]string, error) {
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
		return nil, err
	}
	put := func(item map[string]types.AttributeValue) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Probe"), Item: item})
		return err
	}
	if err := put(map[string]types.AttributeValue{"PK": s("a"), "G": s("g"), "kp": s("k"), "zz": s("z")}); err != nil {
		return nil, err
	}
	q := &dynamodb.QueryInput{TableName: aws.String("Probe"), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("G = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("g")}}
	out, err := c.Query(ctx, q)
	if err != nil || len(out.Items) != 1 {
		return nil, fmt.Errorf("Query: %v, %v", out, err)
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
		return nil, fmt.Errorf("a projection of zz: %v", err)
	}

	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Probe"), Item: map[string]types.AttributeValue{"PK": s("t")}}}}})
	no, err := engineRefused(err)
	if err != nil {
		return nil, fmt.Errorf("TransactWriteItems: %w", err)
	}
	got["TransactWriteItems"] = yesNo(!no, "yes", "no")

	failed := func(what string, err error) error {
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			return fmt.Errorf("%s: a failed condition: %v", what, err)
		}
		got["ReturnValuesOnConditionCheckFailure ("+what+")"] = yesNo(ccf.Item != nil, "returned", "not returned")
		return nil
	}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Probe"), Item: map[string]types.AttributeValue{"PK": s("a")},
		ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	if err := failed("PutItem", err); err != nil {
		return nil, err
	}
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Probe"), Key: map[string]types.AttributeValue{"PK": s("a")},
		UpdateExpression: aws.String("SET kp = :v"), ConditionExpression: aws.String("attribute_not_exists(PK)"),
		ExpressionAttributeValues:           map[string]types.AttributeValue{":v": s("v")},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	if err := failed("UpdateItem", err); err != nil {
		return nil, err
	}

	// A condition comparing a list and a map with the values the item
	// holds (DynamoDB compares them by content).
	m := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": s("1"), "y": &types.AttributeValueMemberN{Value: "2"}}}
	l := &types.AttributeValueMemberL{Value: []types.AttributeValue{s("1"), &types.AttributeValueMemberN{Value: "2"}}}
	if err := put(map[string]types.AttributeValue{"PK": s("lm"), "m": m, "l": l}); err != nil {
		return nil, err
	}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Probe"), Item: map[string]types.AttributeValue{"PK": s("lm"), "m": m, "l": l},
		ConditionExpression:       aws.String("m = :m AND l = :l"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":m": m, ":l": l}})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return nil, fmt.Errorf("a condition on a list and a map: %v", err)
	}
	got[string(ListMapEquality)] = yesNo(err == nil, "yes", "no")

	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Probe")})
	if err != nil {
		return nil, err
	}
	switch n := aws.ToInt64(desc.Table.ItemCount); n {
	case 3:
		got["ItemCount"] = "exact"
	default:
		got["ItemCount"] = fmt.Sprint(n)
	}

	// A case an engine may refuse: "refused" only when it does (a 4xx).
	accepted := func(what string, err error) error {
		no, err := engineRefused(err)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		got[what] = yesNo(!no, "accepted", "refused")
		return nil
	}
	if err := accepted("item over 400 KB", put(map[string]types.AttributeValue{"PK": s("big"), "v": s(strings.Repeat("x", 400<<10))})); err != nil {
		return nil, err
	}
	if err := accepted("number of 39 digits", put(map[string]types.AttributeValue{"PK": s("n"), "v": &types.AttributeValueMemberN{Value: strings.Repeat("9", 39)}})); err != nil {
		return nil, err
	}
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Pr"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{attr("PK")}})
	if err := accepted("table name of 2 characters", err); err != nil {
		return nil, err
	}

	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Probe"),
		AttributeDefinitions: []types.AttributeDefinition{attr("PK"), attr("G"), attr("H")},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("GSI2"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("H"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	// An engine that lacks online index changes refuses the UpdateTable
	// (or never makes the index ACTIVE); any other failure is no answer.
	no, err = engineRefused(err)
	if err != nil {
		return nil, fmt.Errorf("UpdateTable creating a GSI: %w", err)
	}
	online := false
	for wait := time.Now().Add(10 * time.Second); !no && time.Now().Before(wait) && !online; time.Sleep(50 * time.Millisecond) {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Probe")})
		if err != nil {
			return nil, err
		}
		for _, g := range d.Table.GlobalSecondaryIndexes {
			online = online || aws.ToString(g.IndexName) == "GSI2" && g.IndexStatus == types.IndexStatusActive
		}
	}
	got["online GSI creation"] = yesNo(online, "yes", "no")
	why, err := probeFeature(ctx, c, MultiAttributeKeys)
	if err != nil {
		return nil, err
	}
	got[string(MultiAttributeKeys)] = yesNo(why == "", "yes", "no")
	return got, nil
}
