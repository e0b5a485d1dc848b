package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/engine/ddblocal"
)

// Feature is something of DynamoDB's that a local engine may lack.
type Feature string

// MultiAttributeKeys: GSI keys of up to four partition and four sort
// attributes (DynamoDB, November 2025; DynamoDB Local from 3.3.0).
const MultiAttributeKeys Feature = "multi-attribute GSI keys"

// OldItemOnConditionFailure: a write whose condition fails returns the
// item as it was when asked (ReturnValuesOnConditionCheckFailure
// ALL_OLD). Without it keyplan's runtime reads the item (GetItem) to
// explain the failure, a read a write pattern's grant does not hold.
const OldItemOnConditionFailure Feature = "ReturnValuesOnConditionCheckFailure"

// ListMapEquality: a condition's = and <> compare lists and maps by
// content (DynamoDB does; a Replace of an item holding a list or a map
// conditions on them).
const ListMapEquality Feature = "list and map equality in conditions"

// OnlineIndexes: UpdateTable creates and deletes GSIs of a live table
// (docs/engines.md's "online GSI creation" row, probed by
// TestEngineDifferences).
const OnlineIndexes Feature = "online GSI creation"

// lacking says why each named engine lacks a feature.
var lacking = map[string]map[Feature]string{
	Dynalite: {MultiAttributeKeys: "dynalite 4.0.0 has no multi-attribute GSI keys",
		OldItemOnConditionFailure: "dynalite 4.0.0 does not return the old item when a write's condition fails (ReturnValuesOnConditionCheckFailure)",
		OnlineIndexes:             "dynalite 4.0.0 takes no online index changes (UpdateTable creates or deletes no GSI of a live table)",
		ListMapEquality:           "dynalite 4.0.0 never finds a list or a map equal to a value in a condition (m = :m fails with the value the item holds)"},
	DynamoDBLocal: {MultiAttributeKeys: "DynamoDB Local " + ddblocal.EngineVersion + " has no multi-attribute GSI keys (they came in 3.3.0)"},
}

// Lacks says why the named engine lacks f, "" when it has it (memory has
// every Feature). A test skips with it; a command refuses with it.
func Lacks(name string, f Feature) string {
	return lacking[name][f]
}

// Lacks says why the connected engine lacks f ("" when it has it): a named
// engine's answer is known; an endpoint's is probed once, by creating a
// table that needs f.
func (c *Conn) Lacks(ctx context.Context, f Feature) string {
	if c.Name != "endpoint" {
		return Lacks(c.Name, f)
	}
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if why, ok := c.probed[f]; ok {
		return why
	}
	why, err := probeFeature(ctx, c.Raw, f)
	if err != nil {
		// A probe that failed found neither: it says so, and the next
		// Lacks probes again.
		return err.Error()
	}
	if c.probed == nil {
		c.probed = map[Feature]string{}
	}
	c.probed[f] = why
	return why
}

// probeFeature creates a table that needs f, tries f there, and deletes
// the table: multi-attribute keys are a GSI keyed on two partition and two
// sort attributes (a ValidationException says the engine lacks them); the
// old item is a PutItem refused by its condition, asked for ALL_OLD.
// It returns why the engine lacks f ("" when it has it), or an error
// when the probe found neither (a request failed otherwise than by the
// refusal that says the engine lacks f).
func probeFeature(ctx context.Context, db *dynamodb.Client, f Feature) (string, error) {
	if f != MultiAttributeKeys && f != OldItemOnConditionFailure {
		return fmt.Sprintf("keyplan cannot probe for %s", f), nil
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "keyplan_probe_" + hex.EncodeToString(b)
	el := func(n string, t types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(n), KeyType: t}
	}
	def := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{def("p")},
		KeySchema:            []types.KeySchemaElement{el("p", types.KeyTypeHash)},
	}
	if f == MultiAttributeKeys {
		in.AttributeDefinitions = append(in.AttributeDefinitions, def("a"), def("b"), def("c"), def("d"))
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("probe"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			KeySchema: []types.KeySchemaElement{el("a", types.KeyTypeHash), el("b", types.KeyTypeHash),
				el("c", types.KeyTypeRange), el("d", types.KeyTypeRange)}}}
	}
	_, err := db.CreateTable(ctx, in)
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "ValidationException" {
		return fmt.Sprintf("the engine has no %s: %s", f, api.ErrorMessage()), nil
	}
	if err != nil {
		return "", fmt.Errorf("probing the engine for %s: %w", f, err)
	}
	// A table is deleted once it is ACTIVE (DynamoDB creates it a while).
	_ = dynamodb.NewTableExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 2*time.Minute)
	defer func() { _, _ = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) }()
	if f == OldItemOnConditionFailure {
		return probeOldItem(ctx, db, name)
	}
	return "", nil
}

// probeOldItem writes an item to the probe table, then writes it again on
// the condition that it does not exist, asking for the item as it was.
func probeOldItem(ctx context.Context, db *dynamodb.Client, table string) (string, error) {
	item := map[string]types.AttributeValue{"p": &types.AttributeValueMemberS{Value: "p"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		return "", fmt.Errorf("probing the engine for %s: %w", OldItemOnConditionFailure, err)
	}
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item,
		ConditionExpression:                 aws.String("attribute_not_exists(p)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case !errors.As(err, &ccf):
		return "", fmt.Errorf("probing the engine for %s: a refused PutItem answered %v", OldItemOnConditionFailure, err)
	case ccf.Item == nil:
		return fmt.Sprintf("the engine has no %s: a refused PutItem does not return the item as it was", OldItemOnConditionFailure), nil
	}
	return "", nil
}
