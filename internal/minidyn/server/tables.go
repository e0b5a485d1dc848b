package server

// What keyplan's fork adds to the engine's table operations: the table
// descriptions DynamoDB gives (status, attribute definitions, billing,
// throughput, streams), ListTables, the TTL setting, and consumed
// capacity.

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/keyplan/keyplan/internal/minidyn/core"
	"github.com/keyplan/keyplan/internal/minidyn/types"
)

// tableMeta is what CreateTable and UpdateTable said that the engine's
// tables do not keep.
type tableMeta struct {
	definitions []ddbtypes.AttributeDefinition
	billing     ddbtypes.BillingMode
	throughput  *ddbtypes.ProvisionedThroughput
	stream      *ddbtypes.StreamSpecification
	ttl         *ddbtypes.TimeToLiveSpecification
}

func (m *tableMeta) addDefinitions(defs []ddbtypes.AttributeDefinition) {
	for _, d := range defs {
		known := false

		for i, old := range m.definitions {
			if aws.ToString(old.AttributeName) == aws.ToString(d.AttributeName) {
				m.definitions[i] = d
				known = true
			}
		}

		if !known {
			m.definitions = append(m.definitions, d)
		}
	}
}

// describe is the table's description as DynamoDB gives it; the engine
// has no asynchronous work, so the table and its indexes are ACTIVE (an
// index is CREATING for the activation delay, if one is set).
func (c *Client) describe(name string, table *core.Table, status ddbtypes.TableStatus) *ddbtypes.TableDescription {
	d := mapTableDescriptionToDDB(table.Description(name))
	d.TableStatus = status
	d.TableArn = aws.String("arn:aws:dynamodb:local:000000000000:table/" + name)

	sort.Slice(d.GlobalSecondaryIndexes, func(i, j int) bool {
		return aws.ToString(d.GlobalSecondaryIndexes[i].IndexName) < aws.ToString(d.GlobalSecondaryIndexes[j].IndexName)
	})

	for i := range d.GlobalSecondaryIndexes {
		if d.GlobalSecondaryIndexes[i].IndexStatus == "" {
			d.GlobalSecondaryIndexes[i].IndexStatus = ddbtypes.IndexStatusActive
		}
	}

	m := c.meta[name]
	if m == nil {
		return d
	}

	d.AttributeDefinitions = m.definitions
	d.StreamSpecification = m.stream

	if m.stream != nil && aws.ToBool(m.stream.StreamEnabled) {
		d.LatestStreamArn = aws.String(*d.TableArn + "/stream/1970-01-01T00:00:00.000")
	}

	billing := m.billing
	if billing == "" {
		billing = ddbtypes.BillingModeProvisioned
	}

	d.BillingModeSummary = &ddbtypes.BillingModeSummary{BillingMode: billing}

	if billing == ddbtypes.BillingModeProvisioned && m.throughput != nil {
		d.ProvisionedThroughput = &ddbtypes.ProvisionedThroughputDescription{
			ReadCapacityUnits:  m.throughput.ReadCapacityUnits,
			WriteCapacityUnits: m.throughput.WriteCapacityUnits,
		}
	}

	return d
}

// ListTablesInput mirrors DynamoDB ListTablesInput.
type ListTablesInput struct {
	ExclusiveStartTableName *string `json:"ExclusiveStartTableName,omitempty"`
	Limit                   *int32  `json:"Limit,omitempty"`
}

// ListTablesOutput mirrors DynamoDB ListTablesOutput.
type ListTablesOutput struct {
	TableNames             []string `json:"TableNames"`
	LastEvaluatedTableName *string  `json:"LastEvaluatedTableName,omitempty"`
}

// ListTables lists the tables in name order, a page (Limit, at most 100)
// at a time.
func (c *Client) ListTables(_ context.Context, input *ListTablesInput) (*ListTablesOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	limit := int(aws.ToInt32(input.Limit))
	if limit < 0 || limit > 100 {
		return nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "1 validation error detected: Value at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"}
	}

	if limit == 0 {
		limit = 100
	}

	after := aws.ToString(input.ExclusiveStartTableName)
	names := []string{}

	for name := range c.tables {
		if name > after {
			names = append(names, name)
		}
	}

	sort.Strings(names)

	out := &ListTablesOutput{TableNames: names}
	if len(names) > limit {
		out.TableNames = names[:limit]
		out.LastEvaluatedTableName = aws.String(names[limit-1])
	}

	return out, nil
}

// DescribeTimeToLiveInput mirrors DynamoDB DescribeTimeToLiveInput.
type DescribeTimeToLiveInput struct {
	TableName *string `json:"TableName,omitempty"`
}

// DescribeTimeToLiveOutput mirrors DynamoDB DescribeTimeToLiveOutput.
type DescribeTimeToLiveOutput struct {
	TimeToLiveDescription *ddbtypes.TimeToLiveDescription `json:"TimeToLiveDescription"`
}

// DescribeTimeToLive reports the table's TTL setting. The engine never
// expires items itself.
func (c *Client) DescribeTimeToLive(_ context.Context, input *DescribeTimeToLiveInput) (*DescribeTimeToLiveOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	name := aws.ToString(input.TableName)
	if _, err := c.getTable(name); err != nil {
		return nil, err
	}

	desc := &ddbtypes.TimeToLiveDescription{TimeToLiveStatus: ddbtypes.TimeToLiveStatusDisabled}
	if m := c.meta[name]; m != nil && m.ttl != nil && aws.ToBool(m.ttl.Enabled) {
		desc = &ddbtypes.TimeToLiveDescription{TimeToLiveStatus: ddbtypes.TimeToLiveStatusEnabled, AttributeName: m.ttl.AttributeName}
	}

	return &DescribeTimeToLiveOutput{TimeToLiveDescription: desc}, nil
}

// UpdateTimeToLiveInput mirrors DynamoDB UpdateTimeToLiveInput.
type UpdateTimeToLiveInput struct {
	TableName               *string                           `json:"TableName,omitempty"`
	TimeToLiveSpecification *ddbtypes.TimeToLiveSpecification `json:"TimeToLiveSpecification,omitempty"`
}

// UpdateTimeToLiveOutput mirrors DynamoDB UpdateTimeToLiveOutput.
type UpdateTimeToLiveOutput struct {
	TimeToLiveSpecification *ddbtypes.TimeToLiveSpecification `json:"TimeToLiveSpecification,omitempty"`
}

// UpdateTimeToLive records the table's TTL setting.
func (c *Client) UpdateTimeToLive(_ context.Context, input *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	name := aws.ToString(input.TableName)
	if _, err := c.getTable(name); err != nil {
		return nil, err
	}

	spec := input.TimeToLiveSpecification
	if spec == nil || aws.ToString(spec.AttributeName) == "" {
		return nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "TimeToLiveSpecification needs an AttributeName and Enabled"}
	}

	c.meta[name].ttl = spec

	return &UpdateTimeToLiveOutput{TimeToLiveSpecification: spec}, nil
}

// Capacity: DynamoDB charges a read per 4 KB of the items it evaluates
// (half for an eventually consistent read) and a write per 1 KB of the
// larger of the old and new item. The engine counts the table's units;
// index writes are not added.

func wantsCapacity(mode ddbtypes.ReturnConsumedCapacity) bool {
	return mode == ddbtypes.ReturnConsumedCapacityTotal || mode == ddbtypes.ReturnConsumedCapacityIndexes
}

func readCapacity(mode ddbtypes.ReturnConsumedCapacity, table string, bytes int64, consistent *bool) *ddbtypes.ConsumedCapacity {
	if !wantsCapacity(mode) {
		return nil
	}

	units := math.Max(1, math.Ceil(float64(bytes)/4096))
	if !aws.ToBool(consistent) {
		units /= 2
	}

	return &ddbtypes.ConsumedCapacity{TableName: aws.String(table), CapacityUnits: aws.Float64(units), ReadCapacityUnits: aws.Float64(units)}
}

func writeCapacity(mode ddbtypes.ReturnConsumedCapacity, table string, oldItem, newItem map[string]*types.Item) *ddbtypes.ConsumedCapacity {
	if !wantsCapacity(mode) {
		return nil
	}

	size := max(types.ItemSize(oldItem), types.ItemSize(newItem))
	units := math.Max(1, math.Ceil(float64(size)/1024))

	return &ddbtypes.ConsumedCapacity{TableName: aws.String(table), CapacityUnits: aws.Float64(units), WriteCapacityUnits: aws.Float64(units)}
}

// operation is the API operation an X-Amz-Target names
// ("DynamoDB_20120810.Query" → "Query").
func operation(target string) string {
	return target[strings.LastIndex(target, ".")+1:]
}
