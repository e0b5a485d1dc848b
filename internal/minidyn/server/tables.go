package server

// Table operations: CreateTable, UpdateTable, DeleteTable, DescribeTable,
// ListTables and the TTL setting, with the descriptions DynamoDB gives;
// and consumed capacity.

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/minidyn/core"
	"github.com/keyplan/keyplan/internal/minidyn/types"
)

// tableMeta is what CreateTable and UpdateTable said that the core's
// tables do not keep.
type tableMeta struct {
	definitions []ddbtypes.AttributeDefinition
	billing     ddbtypes.BillingMode
	throughput  *ddbtypes.ProvisionedThroughput
	stream      *ddbtypes.StreamSpecification
	streamLabel string
	// streamArn is the table's enabled stream ("" when none).
	streamArn     string
	ttl           *ddbtypes.TimeToLiveSpecification
	created       time.Time
	gsiThroughput map[string]*ddbtypes.ProvisionedThroughput
	// tags are the table's tags (tags.go), in the order first given.
	tags []ddbtypes.Tag
}

func toCoreAttrs(in []ddbtypes.AttributeDefinition) []types.AttributeDefinition {
	out := make([]types.AttributeDefinition, len(in))

	for i, a := range in {
		t := string(a.AttributeType)
		out[i] = types.AttributeDefinition{AttributeName: a.AttributeName, AttributeType: &t}
	}

	return out
}

func toCoreKeySchema(in []ddbtypes.KeySchemaElement) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, len(in))

	for i, k := range in {
		out[i] = types.KeySchemaElement{AttributeName: aws.ToString(k.AttributeName), KeyType: string(k.KeyType)}
	}

	return out
}

func toCoreProjection(p *ddbtypes.Projection) *types.Projection {
	if p == nil || p.ProjectionType == "" {
		return nil
	}

	t := string(p.ProjectionType)
	out := &types.Projection{ProjectionType: &t}

	for _, a := range p.NonKeyAttributes {
		out.NonKeyAttributes = append(out.NonKeyAttributes, aws.String(a))
	}

	return out
}

// checkBilling checks BillingMode against ProvisionedThroughput.
func checkBilling(mode ddbtypes.BillingMode, throughput *ddbtypes.ProvisionedThroughput, gsis []ddbtypes.GlobalSecondaryIndex) error {
	switch mode {
	case "", ddbtypes.BillingModeProvisioned:
		if throughput == nil {
			return validation("No provisioned throughput specified for the table")
		}

		for _, g := range gsis {
			if g.ProvisionedThroughput == nil {
				return validation("No provisioned throughput specified for the global secondary index")
			}
		}
	case ddbtypes.BillingModePayPerRequest:
		if throughput != nil {
			return validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}

		for _, g := range gsis {
			if g.ProvisionedThroughput != nil {
				return validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", aws.ToString(g.IndexName))
			}
		}
	default:
		return validation("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", mode)
	}

	return nil
}

func checkStream(s *ddbtypes.StreamSpecification) error {
	if s == nil || !aws.ToBool(s.StreamEnabled) {
		return nil
	}

	switch s.StreamViewType {
	case ddbtypes.StreamViewTypeNewImage, ddbtypes.StreamViewTypeOldImage, ddbtypes.StreamViewTypeNewAndOldImages, ddbtypes.StreamViewTypeKeysOnly:
		return nil
	case "":
		return validation("Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.")
	}

	return validation("Invalid StreamViewType: %s", s.StreamViewType)
}

// CreateTable creates a table (ACTIVE at once).
func (c *Client) CreateTable(_ context.Context, in *CreateTableInput) (*CreateTableOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}

	def := core.Definition{
		Name: *in.TableName, Attributes: toCoreAttrs(in.AttributeDefinitions), KeySchema: toCoreKeySchema(in.KeySchema),
		GSIsGiven: in.GlobalSecondaryIndexes != nil, LSIsGiven: in.LocalSecondaryIndexes != nil,
	}

	for _, g := range in.GlobalSecondaryIndexes {
		def.GSIs = append(def.GSIs, core.IndexDefinition{Name: aws.ToString(g.IndexName), KeySchema: toCoreKeySchema(g.KeySchema), Projection: toCoreProjection(g.Projection)})
	}

	for _, l := range in.LocalSecondaryIndexes {
		def.LSIs = append(def.LSIs, core.IndexDefinition{Name: aws.ToString(l.IndexName), KeySchema: toCoreKeySchema(l.KeySchema), Projection: toCoreProjection(l.Projection)})
	}

	table, err := core.NewTable(def)
	if err != nil {
		return nil, apiErr(err)
	}

	if err := checkBilling(in.BillingMode, in.ProvisionedThroughput, in.GlobalSecondaryIndexes); err != nil {
		return nil, err
	}

	if err := checkStream(in.StreamSpecification); err != nil {
		return nil, err
	}

	tags, err := createTags(in.Tags)
	if err != nil {
		return nil, err
	}

	if _, ok := c.tables[*in.TableName]; ok {
		return nil, &apiError{Code: "ResourceInUseException", Message: "Table already exists: " + *in.TableName}
	}

	table.IndexActivationDelay = c.indexActivationDelay
	c.tables[table.Name] = table

	m := &tableMeta{
		definitions: in.AttributeDefinitions, billing: in.BillingMode, throughput: in.ProvisionedThroughput,
		stream: in.StreamSpecification, created: c.now(), gsiThroughput: map[string]*ddbtypes.ProvisionedThroughput{},
		tags: tags,
	}

	if m.stream != nil && aws.ToBool(m.stream.StreamEnabled) {
		c.startStream(table, m, m.stream)
	}

	for _, g := range in.GlobalSecondaryIndexes {
		m.gsiThroughput[aws.ToString(g.IndexName)] = g.ProvisionedThroughput
	}

	c.meta[table.Name] = m

	return &CreateTableOutput{TableDescription: c.describe(table, "ACTIVE")}, nil
}

func streamLabel(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000") }

// UpdateTable changes billing, throughput, streams, and creates or deletes
// GSIs (one per request).
func (c *Client) UpdateTable(_ context.Context, in *UpdateTableInput) (*UpdateTableOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	m := c.meta[table.Name]

	if in.BillingMode == "" && in.ProvisionedThroughput == nil && in.StreamSpecification == nil &&
		len(in.GlobalSecondaryIndexUpdates) == 0 && in.DeletionProtectionEnabled == nil && in.TableClass == "" && in.SSESpecification == nil {
		return nil, validation("Nothing to update")
	}

	changes := 0

	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil || u.Delete != nil {
			changes++
		}
	}

	if changes > 1 {
		return nil, &apiError{Code: "LimitExceededException", Message: "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"}
	}

	if err := checkStream(in.StreamSpecification); err != nil {
		return nil, err
	}

	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Create != nil:
			if len(in.AttributeDefinitions) == 0 {
				return nil, validation("No Attribute Schema Defined")
			}

			d := core.IndexDefinition{Name: aws.ToString(u.Create.IndexName), KeySchema: toCoreKeySchema(u.Create.KeySchema), Projection: toCoreProjection(u.Create.Projection)}
			if err := table.AddGlobalIndex(d, toCoreAttrs(in.AttributeDefinitions)); err != nil {
				return nil, apiErr(err)
			}

			m.gsiThroughput[d.Name] = u.Create.ProvisionedThroughput
			m.mergeDefinitions(in.AttributeDefinitions)
		case u.Delete != nil:
			if err := table.DeleteGlobalIndex(aws.ToString(u.Delete.IndexName)); err != nil {
				return nil, apiErr(err)
			}

			delete(m.gsiThroughput, aws.ToString(u.Delete.IndexName))
		case u.Update != nil:
			name := aws.ToString(u.Update.IndexName)
			if !table.IsGlobal(name) {
				return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found"}
			}

			m.gsiThroughput[name] = u.Update.ProvisionedThroughput
		}
	}

	if in.BillingMode != "" {
		m.billing = in.BillingMode
	}

	if in.ProvisionedThroughput != nil {
		m.throughput = in.ProvisionedThroughput
	}

	if in.StreamSpecification != nil {
		switch on := aws.ToBool(in.StreamSpecification.StreamEnabled); {
		case on && m.streamArn != "":
			return nil, validation("Table already has an enabled stream: %s", m.streamArn)
		case on:
			c.startStream(table, m, in.StreamSpecification)
		default:
			c.endStream(m)
		}

		m.stream = in.StreamSpecification
	}

	return &UpdateTableOutput{TableDescription: c.describe(table, "ACTIVE")}, nil
}

// mergeDefinitions adds an UpdateTable's attribute definitions.
func (m *tableMeta) mergeDefinitions(defs []ddbtypes.AttributeDefinition) {
	for _, d := range defs {
		i := slices.IndexFunc(m.definitions, func(o ddbtypes.AttributeDefinition) bool {
			return aws.ToString(o.AttributeName) == aws.ToString(d.AttributeName)
		})

		if i < 0 {
			m.definitions = append(m.definitions, d)
		}
	}
}

// DeleteTable removes a table and its items.
func (c *Client) DeleteTable(_ context.Context, in *DeleteTableInput) (*DeleteTableOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}

	table, ok := c.tables[*in.TableName]
	if !ok {
		return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Table: " + *in.TableName + " not found"}
	}

	full := c.describe(table, "DELETING")
	// DeleteTable describes less than DescribeTable: no schema, no
	// indexes, no creation time.
	desc := &deletedTableJSON{
		TableName: full.TableName, TableStatus: full.TableStatus, TableArn: full.TableArn, TableId: full.TableId,
		ProvisionedThroughput: full.ProvisionedThroughput, BillingModeSummary: full.BillingModeSummary,
		TableSizeBytes: full.TableSizeBytes, ItemCount: full.ItemCount,
	}

	c.endStream(c.meta[table.Name])
	delete(c.tables, table.Name)
	delete(c.meta, table.Name)

	return &DeleteTableOutput{TableDescription: desc}, nil
}

// DescribeTable describes a table.
func (c *Client) DescribeTable(_ context.Context, in *DescribeTableInput) (*DescribeTableOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}

	table, ok := c.tables[*in.TableName]
	if !ok {
		return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Table: " + *in.TableName + " not found"}
	}

	return &DescribeTableOutput{Table: c.describe(table, "ACTIVE")}, nil
}

// ClearTable removes every item of a table.
func (c *Client) ClearTable(tableName string) error {
	c.mu.Lock()
	defer c.mu.Unlock()

	table, err := c.getTable(tableName)
	if err != nil {
		return err
	}

	table.Clear()

	return nil
}

// ClearAllTables removes every item of every table.
func (c *Client) ClearAllTables() {
	c.mu.Lock()
	defer c.mu.Unlock()

	for _, t := range c.tables {
		t.Clear()
	}
}

// Reset removes every table.
func (c *Client) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()

	clear(c.tables)
	clear(c.meta)
}

// The table description, as DynamoDB's JSON gives it (dates in epoch
// seconds).
type (
	attributeDefinitionJSON struct {
		AttributeName string `json:"AttributeName"`
		AttributeType string `json:"AttributeType"`
	}
	keySchemaElementJSON struct {
		AttributeName string `json:"AttributeName"`
		KeyType       string `json:"KeyType"`
	}
	projectionJSON struct {
		ProjectionType   string   `json:"ProjectionType"`
		NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
	}
	throughputJSON struct {
		LastIncreaseDateTime   *float64 `json:"LastIncreaseDateTime,omitempty"`
		LastDecreaseDateTime   *float64 `json:"LastDecreaseDateTime,omitempty"`
		NumberOfDecreasesToday int64    `json:"NumberOfDecreasesToday"`
		ReadCapacityUnits      int64    `json:"ReadCapacityUnits"`
		WriteCapacityUnits     int64    `json:"WriteCapacityUnits"`
	}
	gsiJSON struct {
		IndexName             string                 `json:"IndexName"`
		KeySchema             []keySchemaElementJSON `json:"KeySchema"`
		Projection            projectionJSON         `json:"Projection"`
		IndexStatus           string                 `json:"IndexStatus"`
		ProvisionedThroughput throughputJSON         `json:"ProvisionedThroughput"`
		IndexSizeBytes        int64                  `json:"IndexSizeBytes"`
		ItemCount             int64                  `json:"ItemCount"`
		IndexArn              string                 `json:"IndexArn"`
	}
	lsiJSON struct {
		IndexName      string                 `json:"IndexName"`
		KeySchema      []keySchemaElementJSON `json:"KeySchema"`
		Projection     projectionJSON         `json:"Projection"`
		IndexSizeBytes int64                  `json:"IndexSizeBytes"`
		ItemCount      int64                  `json:"ItemCount"`
		IndexArn       string                 `json:"IndexArn"`
	}
	billingJSON struct {
		BillingMode                       string  `json:"BillingMode"`
		LastUpdateToPayPerRequestDateTime float64 `json:"LastUpdateToPayPerRequestDateTime,omitempty"`
	}
	streamJSON struct {
		StreamEnabled  bool   `json:"StreamEnabled"`
		StreamViewType string `json:"StreamViewType,omitempty"`
	}
	tableDescriptionJSON struct {
		AttributeDefinitions      []attributeDefinitionJSON `json:"AttributeDefinitions"`
		TableName                 string                    `json:"TableName"`
		KeySchema                 []keySchemaElementJSON    `json:"KeySchema"`
		TableStatus               string                    `json:"TableStatus"`
		CreationDateTime          float64                   `json:"CreationDateTime"`
		ProvisionedThroughput     throughputJSON            `json:"ProvisionedThroughput"`
		TableSizeBytes            int64                     `json:"TableSizeBytes"`
		ItemCount                 int64                     `json:"ItemCount"`
		TableArn                  string                    `json:"TableArn"`
		TableId                   string                    `json:"TableId"`
		BillingModeSummary        *billingJSON              `json:"BillingModeSummary,omitempty"`
		LocalSecondaryIndexes     []lsiJSON                 `json:"LocalSecondaryIndexes,omitempty"`
		GlobalSecondaryIndexes    []gsiJSON                 `json:"GlobalSecondaryIndexes,omitempty"`
		StreamSpecification       *streamJSON               `json:"StreamSpecification,omitempty"`
		LatestStreamLabel         string                    `json:"LatestStreamLabel,omitempty"`
		LatestStreamArn           string                    `json:"LatestStreamArn,omitempty"`
		DeletionProtectionEnabled bool                      `json:"DeletionProtectionEnabled"`
	}
)

// deletedTableJSON is DeleteTable's description.
type deletedTableJSON struct {
	TableName             string         `json:"TableName"`
	TableStatus           string         `json:"TableStatus"`
	TableArn              string         `json:"TableArn"`
	TableId               string         `json:"TableId"`
	ProvisionedThroughput throughputJSON `json:"ProvisionedThroughput"`
	BillingModeSummary    *billingJSON   `json:"BillingModeSummary,omitempty"`
	TableSizeBytes        int64          `json:"TableSizeBytes"`
	ItemCount             int64          `json:"ItemCount"`
}

func epoch(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

func keySchemaJSON(in []types.KeySchemaElement) []keySchemaElementJSON {
	out := make([]keySchemaElementJSON, len(in))
	for i, k := range in {
		out[i] = keySchemaElementJSON{AttributeName: k.AttributeName, KeyType: k.KeyType}
	}

	return out
}

func projectionOf(p *types.Projection) projectionJSON {
	if p == nil || p.ProjectionType == nil {
		return projectionJSON{ProjectionType: core.ProjectionAll}
	}

	out := projectionJSON{ProjectionType: *p.ProjectionType}
	for _, a := range p.NonKeyAttributes {
		out.NonKeyAttributes = append(out.NonKeyAttributes, aws.ToString(a))
	}

	return out
}

func throughputOf(t *ddbtypes.ProvisionedThroughput) throughputJSON {
	if t == nil {
		return throughputJSON{}
	}

	return throughputJSON{ReadCapacityUnits: aws.ToInt64(t.ReadCapacityUnits), WriteCapacityUnits: aws.ToInt64(t.WriteCapacityUnits)}
}

// tableID is a stable UUID-shaped id derived from the table's name and
// creation time.
func tableID(name string, created time.Time) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", name, created.UnixNano()))
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// describe is the table's description as DynamoDB gives it.
func (c *Client) describe(table *core.Table, status string) *tableDescriptionJSON {
	m := c.meta[table.Name]
	arn := tableArn(table.Name)
	d := &tableDescriptionJSON{
		TableName: table.Name, TableStatus: status, CreationDateTime: epoch(m.created),
		KeySchema: keySchemaJSON(table.Description(table.Name).KeySchema), TableSizeBytes: table.SizeBytes(), ItemCount: table.ItemCount(),
		TableArn: arn, TableId: tableID(table.Name, m.created), ProvisionedThroughput: throughputOf(m.throughput),
		AttributeDefinitions: []attributeDefinitionJSON{},
	}

	for _, a := range m.definitions {
		d.AttributeDefinitions = append(d.AttributeDefinitions, attributeDefinitionJSON{AttributeName: aws.ToString(a.AttributeName), AttributeType: string(a.AttributeType)})
	}

	if m.billing == ddbtypes.BillingModePayPerRequest {
		d.BillingModeSummary = &billingJSON{BillingMode: string(m.billing), LastUpdateToPayPerRequestDateTime: epoch(m.created)}
		d.ProvisionedThroughput = throughputJSON{}
	} else {
		d.BillingModeSummary = &billingJSON{BillingMode: string(ddbtypes.BillingModeProvisioned)}
	}

	gsis, lsis := table.IndexesDescription()

	for _, g := range gsis {
		name := aws.ToString(g.IndexName)
		tp := throughputJSON{}

		if m.billing != ddbtypes.BillingModePayPerRequest {
			tp = throughputOf(m.gsiThroughput[name])
		}

		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, gsiJSON{
			IndexName: name, KeySchema: keySchemaJSON(g.KeySchema), Projection: projectionOf(g.Projection),
			IndexStatus: aws.ToString(g.IndexStatus), ProvisionedThroughput: tp, ItemCount: g.ItemCount,
			IndexArn: arn + "/index/" + name,
		})
	}

	for _, l := range lsis {
		name := aws.ToString(l.IndexName)
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, lsiJSON{
			IndexName: name, KeySchema: keySchemaJSON(l.KeySchema), Projection: projectionOf(l.Projection),
			ItemCount: l.ItemCount, IndexArn: arn + "/index/" + name,
		})
	}

	if m.streamArn != "" {
		d.StreamSpecification = &streamJSON{StreamEnabled: true, StreamViewType: string(m.stream.StreamViewType)}
	}

	if m.streamLabel != "" {
		d.LatestStreamLabel = m.streamLabel
		d.LatestStreamArn = arn + "/stream/" + m.streamLabel
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
func (c *Client) ListTables(_ context.Context, in *ListTablesInput) (*ListTablesOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	limit := 100

	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100", *in.Limit)
		}

		limit = int(*in.Limit)
	}

	after := aws.ToString(in.ExclusiveStartTableName)
	names := []string{}

	for name := range c.tables {
		if name > after {
			names = append(names, name)
		}
	}

	slices.Sort(names)

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

// DescribeTimeToLive reports the table's TTL setting.
func (c *Client) DescribeTimeToLive(_ context.Context, in *DescribeTimeToLiveInput) (*DescribeTimeToLiveOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	desc := &ddbtypes.TimeToLiveDescription{TimeToLiveStatus: ddbtypes.TimeToLiveStatusDisabled}
	if m := c.meta[table.Name]; m.ttl != nil && aws.ToBool(m.ttl.Enabled) {
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
func (c *Client) UpdateTimeToLive(_ context.Context, in *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	spec := in.TimeToLiveSpecification
	if spec == nil || aws.ToString(spec.AttributeName) == "" || spec.Enabled == nil {
		return nil, validation("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	}

	c.meta[table.Name].ttl = spec

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
