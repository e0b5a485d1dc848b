package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
)

// CreateTableInput is the table of a design (on-demand), for engines that
// are not deployed with the singletable construct: keyplan validate, tests,
// DynamoDB Local.
func CreateTableInput(d *patterns.Design, name string) *dynamodb.CreateTableInput {
	attr := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	key := func(pk, sk string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
		}
	}
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            key(d.PK, d.SK),
		AttributeDefinitions: []types.AttributeDefinition{attr(d.PK), attr(d.SK)},
	}
	for _, ix := range d.Indexes {
		in.AttributeDefinitions = append(in.AttributeDefinitions, attr(ix.PK), attr(ix.SK))
		g := types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  key(ix.PK, ix.SK),
			Projection: &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)},
		}
		if len(ix.NonKeyAttributes) > 0 {
			g.Projection.NonKeyAttributes = ix.NonKeyAttributes
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, g)
	}
	return in
}

// TableAdmin is what creating and dropping a table takes.
type TableAdmin interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
}

// CreateTable creates the design's table and waits (at most a minute)
// until it and its indexes are active.
func CreateTable(ctx context.Context, c TableAdmin, d *patterns.Design, name string) error {
	if _, err := c.CreateTable(ctx, CreateTableInput(d, name)); err != nil {
		return fmt.Errorf("creating table %s: %w", name, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("describing table %s: %w", name, err)
		}
		active := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			active = active && g.IndexStatus == types.IndexStatusActive
		}
		if active {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("table " + name + " is not active after a minute")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
