package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	return LockTableInput(patterns.NewLock(d), name)
}

// LockTableInput is the table as a lock's current phase deploys it (the
// accepted base keys, the phase's GSIs), on-demand. Engines without online
// index changes (dynalite) start a migration's table here.
func LockTableInput(l *patterns.Lock, name string) *dynamodb.CreateTableInput {
	d := l.Accepted
	indexes, _ := l.Deployed()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            keySchema(d.PK, d.SK),
		AttributeDefinitions: stringAttrs(d.PK, d.SK),
	}
	for _, ix := range indexes {
		in.AttributeDefinitions = append(in.AttributeDefinitions, stringAttrs(ix.PK, ix.SK)...)
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.PK, ix.SK),
			Projection: projection(ix),
		})
	}
	return in
}

func keySchema(pk, sk string) []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
	}
}

func stringAttrs(names ...string) []types.AttributeDefinition {
	out := make([]types.AttributeDefinition, 0, len(names))
	for _, n := range names {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS})
	}
	return out
}

func projection(ix *patterns.PhaseIndex) *types.Projection {
	p := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)}
	if len(ix.NonKeyAttributes) > 0 {
		p.NonKeyAttributes = ix.NonKeyAttributes
	}
	return p
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
	return CreateLockTable(ctx, c, patterns.NewLock(d), name)
}

// CreateLockTable creates the table as the lock's current phase deploys
// it (LockTableInput) and waits (at most a minute) until it and its
// indexes are active.
func CreateLockTable(ctx context.Context, c TableAdmin, l *patterns.Lock, name string) error {
	if _, err := c.CreateTable(ctx, LockTableInput(l, name)); err != nil {
		return fmt.Errorf("creating table %s: %w", name, err)
	}
	return waitActive(ctx, c, name)
}

// waitActive waits (at most a minute) until a table and its indexes are
// ACTIVE.
func waitActive(ctx context.Context, c TableAdmin, name string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("describing table %s: %w", name, err)
		}
		if out.Table == nil {
			return fmt.Errorf("describing table %s: the engine returned no table", name)
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

// IndexAdmin is what changing a table's GSIs takes.
type IndexAdmin interface {
	TableAdmin
	UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
}

// ApplyIndexes brings a table's GSIs to a phase's list (patterns.Phase
// Indexes): it creates the missing ones and deletes the others, one
// UpdateTable at a time (DynamoDB takes one GSI change per update),
// waiting after each until the table and its indexes are ACTIVE, then
// checks the engine did it: dynalite accepts the call and changes
// nothing, which is an error here, not a silent success. For local
// engines and `keyplan migrate --apply-indexes`: on AWS, cdk deploy does
// this.
func ApplyIndexes(ctx context.Context, c IndexAdmin, name string, want []*patterns.PhaseIndex) error {
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("describing table %s: %w", name, err)
	}
	if out.Table == nil {
		return fmt.Errorf("describing table %s: the engine returned no table", name)
	}
	// A provisioned table's new index takes the table's capacity; an
	// on-demand table's takes none (DynamoDB refuses it there).
	var capacity *types.ProvisionedThroughput
	if b := out.Table.BillingModeSummary; (b == nil || b.BillingMode == types.BillingModeProvisioned) && out.Table.ProvisionedThroughput != nil &&
		aws.ToInt64(out.Table.ProvisionedThroughput.ReadCapacityUnits) > 0 {
		capacity = &types.ProvisionedThroughput{
			ReadCapacityUnits:  out.Table.ProvisionedThroughput.ReadCapacityUnits,
			WriteCapacityUnits: out.Table.ProvisionedThroughput.WriteCapacityUnits,
		}
	}
	have := map[string]bool{}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		have[aws.ToString(g.IndexName)] = true
	}
	wanted := map[string]bool{}
	for _, ix := range want {
		wanted[ix.Name] = true
		if have[ix.Name] {
			continue
		}
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: stringAttrs(ix.PK, ix.SK),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName:             aws.String(ix.Name),
				KeySchema:             keySchema(ix.PK, ix.SK),
				Projection:            projection(ix),
				ProvisionedThroughput: capacity,
			}}},
		})
		if err != nil {
			return fmt.Errorf("creating index %s on %s: %w", ix.Name, name, err)
		}
		if err := waitActive(ctx, c, name); err != nil {
			return err
		}
	}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		ix := aws.ToString(g.IndexName)
		if wanted[ix] {
			continue
		}
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:                   aws.String(name),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(ix)}}},
		})
		if err != nil {
			return fmt.Errorf("deleting index %s on %s: %w", ix, name, err)
		}
		if err := waitActive(ctx, c, name); err != nil {
			return err
		}
	}
	after, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("describing table %s: %w", name, err)
	}
	if after.Table == nil {
		return fmt.Errorf("describing table %s: the engine returned no table", name)
	}
	var got []string
	for _, g := range after.Table.GlobalSecondaryIndexes {
		got = append(got, aws.ToString(g.IndexName))
	}
	slices.Sort(got)
	var exp []string
	for n := range wanted {
		exp = append(exp, n)
	}
	slices.Sort(exp)
	if !slices.Equal(got, exp) {
		return fmt.Errorf("table %s has indexes %v after the changes, want %v: the engine does not apply online index changes (dynalite does not); create the table at the phase instead (dynamo.LockTableInput)", name, got, exp)
	}
	return nil
}
