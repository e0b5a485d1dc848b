package server

// Table operations: CreateTable, UpdateTable, DeleteTable, DescribeTable,
// ListTables and the TTL setting, with the descriptions DynamoDB gives.

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// tableMeta is what CreateTable and UpdateTable said that the core's
// tables do not keep.
type tableMeta struct {
	definitions []ddbtypes.AttributeDefinition
	billing     ddbtypes.BillingMode
	throughput  *ddbtypes.ProvisionedThroughput
	// streamLabel, streamView and streamCreated are the table's latest
	// stream's; streamArn is its enabled stream ("" when none).
	streamLabel   string
	streamView    ddbtypes.StreamViewType
	streamCreated time.Time
	streamArn     string
	// The TTL setting: its attribute while enabled, and when it last
	// changed (a second change within TTLChangeInterval is refused).
	ttlAttribute  string
	ttlChanged    time.Time
	created       time.Time
	gsiThroughput map[string]*ddbtypes.ProvisionedThroughput
	// gsiCreated holds when UpdateTable created each of its GSIs;
	// gsiDeleting the GSIs it is deleting.
	gsiCreated  map[string]time.Time
	gsiDeleting []deletingIndex
	// payPerRequestSwitches are when the table switched to on-demand;
	// payPerRequestSince the last (zero: created so).
	payPerRequestSwitches []time.Time
	payPerRequestSince    time.Time
	// tags are the table's tags (tags.go), in the order first given.
	tags []ddbtypes.Tag
}

func (m *tableMeta) ttlEnabled() bool { return m.ttlAttribute != "" }

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

	c.tables[table.Name] = table

	m := &tableMeta{
		definitions: in.AttributeDefinitions, billing: in.BillingMode, throughput: in.ProvisionedThroughput,
		created: c.now(), gsiThroughput: map[string]*ddbtypes.ProvisionedThroughput{}, gsiCreated: map[string]time.Time{},
		tags: tags,
	}

	if spec := in.StreamSpecification; spec != nil && aws.ToBool(spec.StreamEnabled) {
		c.startStream(table, m, spec.StreamViewType, streamLabel(m.created), m.created)
	}

	for _, g := range in.GlobalSecondaryIndexes {
		m.gsiThroughput[aws.ToString(g.IndexName)] = g.ProvisionedThroughput
	}

	c.meta[table.Name] = m

	return &CreateTableOutput{TableDescription: c.describe(table, "ACTIVE")}, nil
}

func streamLabel(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000") }

// UpdateTable changes billing, throughput, streams, and creates or deletes
// a GSI (one per request, and none while another is being created or
// deleted). Everything is checked before anything changes.
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

	change, err := c.checkIndexUpdates(table, m, in)
	if err != nil {
		return nil, err
	}

	if err := checkStream(in.StreamSpecification); err != nil {
		return nil, err
	}

	if spec := in.StreamSpecification; spec != nil {
		switch on := aws.ToBool(spec.StreamEnabled); {
		case on && m.streamArn != "":
			return nil, validation("Table already has an enabled stream: TableName: %s", table.Name)
		case !on && m.streamArn == "":
			return nil, validation("Table has no stream to disable: TableName: %s", table.Name)
		case !on && spec.StreamViewType != "":
			return nil, validation("One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified")
		}
	}

	billing, err := c.checkBillingUpdate(table, m, in)
	if err != nil {
		return nil, err
	}

	if err := c.applyIndexUpdates(table, m, in, &change); err != nil {
		return nil, err
	}

	billing.apply(m)

	if spec := in.StreamSpecification; spec != nil {
		if aws.ToBool(spec.StreamEnabled) {
			now := c.now()
			c.startStream(table, m, spec.StreamViewType, streamLabel(now), now)
		} else {
			c.endStream(m)
		}
	}

	d := c.describe(table, "ACTIVE")
	// The response shows the index change as it starts: CREATING (not yet
	// backfilling) or DELETING, whatever DescribeTable says next.
	deleting := false

	for i, g := range d.GlobalSecondaryIndexes {
		switch g.IndexName {
		case change.created:
			d.GlobalSecondaryIndexes[i].IndexStatus, d.GlobalSecondaryIndexes[i].Backfilling = "CREATING", aws.Bool(false)
		case change.deleted:
			deleting = true
		}
	}

	if change.deleted != "" && !deleting {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, change.gone)
	}

	return &UpdateTableOutput{TableDescription: d}, nil
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

	return c.journalCleared(tableName)
}

// ClearAllTables removes every item of every table (in memory only:
// Server.ClearAllTables also clears a store's).
func (c *Client) ClearAllTables() {
	c.mu.Lock()
	defer c.mu.Unlock()

	for _, t := range c.tables {
		t.Clear()
	}
}

// Reset removes every table and stream.
func (c *Client) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()

	clear(c.tables)
	clear(c.meta)
	clear(c.streams)
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
		Backfilling           *bool                  `json:"Backfilling,omitempty"`
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
		since := m.payPerRequestSince
		if since.IsZero() {
			since = m.created
		}

		d.BillingModeSummary = &billingJSON{BillingMode: string(m.billing), LastUpdateToPayPerRequestDateTime: epoch(since)}
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

		status, backfilling := c.indexStatus(m, name)
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, gsiJSON{
			IndexName: name, KeySchema: keySchemaJSON(g.KeySchema), Projection: projectionOf(g.Projection),
			IndexStatus: status, Backfilling: backfilling, ProvisionedThroughput: tp, ItemCount: g.ItemCount,
			IndexArn: arn + "/index/" + name,
		})
	}

	d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, c.deletingIndexes(m)...)

	for _, l := range lsis {
		name := aws.ToString(l.IndexName)
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, lsiJSON{
			IndexName: name, KeySchema: keySchemaJSON(l.KeySchema), Projection: projectionOf(l.Projection),
			ItemCount: l.ItemCount, IndexArn: arn + "/index/" + name,
		})
	}

	if m.streamArn != "" {
		d.StreamSpecification = &streamJSON{StreamEnabled: true, StreamViewType: string(m.streamView)}
	}

	if m.streamLabel != "" {
		d.LatestStreamLabel = m.streamLabel
		d.LatestStreamArn = streamARN(table.Name, m.streamLabel)
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

// TTLChangeInterval is how long after a change of a table's TTL setting
// another is refused, as DynamoDB refuses one within an hour.
const TTLChangeInterval = time.Hour

// DescribeTimeToLive reports the table's TTL setting.
func (c *Client) DescribeTimeToLive(_ context.Context, in *DescribeTimeToLiveInput) (*DescribeTimeToLiveOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	desc := &ddbtypes.TimeToLiveDescription{TimeToLiveStatus: ddbtypes.TimeToLiveStatusDisabled}
	if m := c.meta[table.Name]; m.ttlEnabled() {
		desc = &ddbtypes.TimeToLiveDescription{TimeToLiveStatus: ddbtypes.TimeToLiveStatusEnabled, AttributeName: aws.String(m.ttlAttribute)}
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

// UpdateTimeToLive enables or disables the table's TTL, as DynamoDB
// does: enabling names the attribute, disabling must name the enabled
// one, neither may repeat the current state, and a change within
// TTLChangeInterval of the last is refused.
func (c *Client) UpdateTimeToLive(_ context.Context, in *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	spec := in.TimeToLiveSpecification

	switch {
	case spec == nil:
		return nil, validation("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	case spec.AttributeName == nil:
		return nil, validation("1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null")
	case spec.Enabled == nil:
		return nil, validation("1 validation error detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null")
	case len(*spec.AttributeName) < 1 || len(*spec.AttributeName) > 255:
		return nil, validation("1 validation error detected: Value '%s' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length between 1 and 255", *spec.AttributeName)
	}

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	m, attr, now := c.meta[table.Name], *spec.AttributeName, c.now()

	switch on := *spec.Enabled; {
	case on && m.ttlAttribute == attr:
		return nil, validation("TimeToLive is already enabled")
	case m.ttlEnabled() && m.ttlAttribute != attr:
		return nil, validation("TimeToLive is active on a different AttributeName: current AttributeName is %s", m.ttlAttribute)
	case !on && !m.ttlEnabled():
		return nil, validation("TimeToLive is already disabled")
	case !m.ttlChanged.IsZero() && now.Sub(m.ttlChanged) < TTLChangeInterval:
		return nil, validation("Time to live has been modified multiple times within a fixed interval")
	case on:
		m.ttlAttribute = attr
	default:
		m.ttlAttribute = ""
	}

	m.ttlChanged = now

	return &UpdateTimeToLiveOutput{TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: spec.Enabled}}, nil
}

// operation is the API operation an X-Amz-Target names
// ("DynamoDB_20120810.Query" → "Query").
func operation(target string) string {
	return target[strings.LastIndex(target, ".")+1:]
}
