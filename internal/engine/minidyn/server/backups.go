package server

// Backups, as far as a local engine can honestly have them: on-demand
// backups are real (CreateBackup keeps a copy of the table's definition,
// tags, TTL setting and items; RestoreTableFromBackup makes a new table
// of it; DescribeBackup, ListBackups, DeleteBackup), kept in the data
// directory when there is one (a backup is acknowledged once it is on
// disk, as every change is: persist.go), else for the engine's life.
// Point-in-time recovery
// needs a history the engine does not keep: DescribeContinuousBackups
// says it is disabled, and UpdateContinuousBackups refuses to enable it,
// saying so.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// backup is one on-demand backup.
type backup struct {
	arn, name string
	created   time.Time
	// table is the source table's definition (with its tags), items its
	// items in DynamoDB's JSON.
	table        CreateTableInput
	ttl          string // the TTL attribute, "" when disabled
	tableCreated time.Time
	items        []byte
	itemCount    int64
	sizeBytes    int64
	keySchema    []types.KeySchemaElement
	gsis, lsis   []core.IndexDefinition
}

type (
	// DescribeContinuousBackupsInput mirrors DynamoDB's.
	DescribeContinuousBackupsInput struct {
		TableName *string `json:"TableName"`
	}
	// UpdateContinuousBackupsInput mirrors DynamoDB's.
	UpdateContinuousBackupsInput struct {
		TableName                        *string `json:"TableName"`
		PointInTimeRecoverySpecification *struct {
			PointInTimeRecoveryEnabled *bool  `json:"PointInTimeRecoveryEnabled"`
			RecoveryPeriodInDays       *int32 `json:"RecoveryPeriodInDays,omitempty"`
		} `json:"PointInTimeRecoverySpecification"`
	}
	continuousBackupsJSON struct {
		ContinuousBackupsStatus        string `json:"ContinuousBackupsStatus"`
		PointInTimeRecoveryDescription struct {
			PointInTimeRecoveryStatus string `json:"PointInTimeRecoveryStatus"`
		} `json:"PointInTimeRecoveryDescription"`
	}
	// ContinuousBackupsOutput is DescribeContinuousBackups' and
	// UpdateContinuousBackups' answer.
	ContinuousBackupsOutput struct {
		ContinuousBackupsDescription continuousBackupsJSON `json:"ContinuousBackupsDescription"`
	}
	// CreateBackupInput mirrors DynamoDB's.
	CreateBackupInput struct {
		TableName  *string `json:"TableName"`
		BackupName *string `json:"BackupName"`
	}
	backupDetailsJSON struct {
		BackupArn              string  `json:"BackupArn"`
		BackupName             string  `json:"BackupName"`
		BackupSizeBytes        int64   `json:"BackupSizeBytes"`
		BackupStatus           string  `json:"BackupStatus"`
		BackupType             string  `json:"BackupType"`
		BackupCreationDateTime float64 `json:"BackupCreationDateTime"`
	}
	// CreateBackupOutput mirrors DynamoDB's.
	CreateBackupOutput struct {
		BackupDetails backupDetailsJSON `json:"BackupDetails"`
	}
	// BackupArnInput is DescribeBackup's and DeleteBackup's input.
	BackupArnInput struct {
		BackupArn *string `json:"BackupArn"`
	}
	sourceTableJSON struct {
		TableName             string                 `json:"TableName"`
		TableId               string                 `json:"TableId"`
		TableArn              string                 `json:"TableArn"`
		TableSizeBytes        int64                  `json:"TableSizeBytes"`
		KeySchema             []keySchemaElementJSON `json:"KeySchema"`
		TableCreationDateTime float64                `json:"TableCreationDateTime"`
		ProvisionedThroughput throughputJSON         `json:"ProvisionedThroughput"`
		ItemCount             int64                  `json:"ItemCount"`
		BillingMode           string                 `json:"BillingMode"`
	}
	backupIndexJSON struct {
		IndexName  string                 `json:"IndexName"`
		KeySchema  []keySchemaElementJSON `json:"KeySchema"`
		Projection projectionJSON         `json:"Projection"`
	}
	featuresJSON struct {
		LocalSecondaryIndexes  []backupIndexJSON `json:"LocalSecondaryIndexes,omitempty"`
		GlobalSecondaryIndexes []backupIndexJSON `json:"GlobalSecondaryIndexes,omitempty"`
		StreamDescription      *streamJSON       `json:"StreamDescription,omitempty"`
		TimeToLiveDescription  *ttlJSON          `json:"TimeToLiveDescription,omitempty"`
	}
	ttlJSON struct {
		TimeToLiveStatus string `json:"TimeToLiveStatus"`
		AttributeName    string `json:"AttributeName,omitempty"`
	}
	backupDescriptionJSON struct {
		BackupDetails             backupDetailsJSON `json:"BackupDetails"`
		SourceTableDetails        sourceTableJSON   `json:"SourceTableDetails"`
		SourceTableFeatureDetails featuresJSON      `json:"SourceTableFeatureDetails"`
	}
	// BackupDescriptionOutput is DescribeBackup's and DeleteBackup's answer.
	BackupDescriptionOutput struct {
		BackupDescription backupDescriptionJSON `json:"BackupDescription"`
	}
	// ListBackupsInput mirrors DynamoDB's.
	ListBackupsInput struct {
		TableName               *string  `json:"TableName,omitempty"`
		Limit                   *int32   `json:"Limit,omitempty"`
		TimeRangeLowerBound     *float64 `json:"TimeRangeLowerBound,omitempty"`
		TimeRangeUpperBound     *float64 `json:"TimeRangeUpperBound,omitempty"`
		ExclusiveStartBackupArn *string  `json:"ExclusiveStartBackupArn,omitempty"`
		BackupType              string   `json:"BackupType,omitempty"`
	}
	backupSummaryJSON struct {
		TableName              string  `json:"TableName"`
		TableId                string  `json:"TableId"`
		TableArn               string  `json:"TableArn"`
		BackupArn              string  `json:"BackupArn"`
		BackupName             string  `json:"BackupName"`
		BackupCreationDateTime float64 `json:"BackupCreationDateTime"`
		BackupStatus           string  `json:"BackupStatus"`
		BackupType             string  `json:"BackupType"`
		BackupSizeBytes        int64   `json:"BackupSizeBytes"`
	}
	// ListBackupsOutput mirrors DynamoDB's.
	ListBackupsOutput struct {
		BackupSummaries        []backupSummaryJSON `json:"BackupSummaries"`
		LastEvaluatedBackupArn string              `json:"LastEvaluatedBackupArn,omitempty"`
	}
	// RestoreTableFromBackupInput mirrors DynamoDB's.
	RestoreTableFromBackupInput struct {
		TargetTableName               *string                         `json:"TargetTableName"`
		BackupArn                     *string                         `json:"BackupArn"`
		BillingModeOverride           ddbtypes.BillingMode            `json:"BillingModeOverride,omitempty"`
		ProvisionedThroughputOverride *ddbtypes.ProvisionedThroughput `json:"ProvisionedThroughputOverride,omitempty"`
		GlobalSecondaryIndexOverride  []ddbtypes.GlobalSecondaryIndex `json:"GlobalSecondaryIndexOverride,omitempty"`
		LocalSecondaryIndexOverride   []ddbtypes.LocalSecondaryIndex  `json:"LocalSecondaryIndexOverride,omitempty"`
	}
	restoreSummaryJSON struct {
		SourceBackupArn   string  `json:"SourceBackupArn"`
		SourceTableArn    string  `json:"SourceTableArn"`
		RestoreDateTime   float64 `json:"RestoreDateTime"`
		RestoreInProgress bool    `json:"RestoreInProgress"`
	}
	restoredTableJSON struct {
		*tableDescriptionJSON
		RestoreSummary restoreSummaryJSON `json:"RestoreSummary"`
	}
	// RestoreTableFromBackupOutput mirrors DynamoDB's.
	RestoreTableFromBackupOutput struct {
		TableDescription restoredTableJSON `json:"TableDescription"`
	}
)

func tableNotFound(name string) error {
	return &apiError{Code: "TableNotFoundException", Message: "Table not found: " + name}
}

// continuousBackups is what DescribeContinuousBackups says of every
// table: no point-in-time recovery.
func continuousBackups() *ContinuousBackupsOutput {
	out := &ContinuousBackupsOutput{}
	out.ContinuousBackupsDescription.ContinuousBackupsStatus = "DISABLED"
	out.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus = "DISABLED"

	return out
}

// DescribeContinuousBackups says a table has no point-in-time recovery.
func (c *Client) DescribeContinuousBackups(_ context.Context, in *DescribeContinuousBackupsInput) (*ContinuousBackupsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}

	if _, ok := c.tables[*in.TableName]; !ok {
		return nil, tableNotFound(*in.TableName)
	}

	return continuousBackups(), nil
}

// UpdateContinuousBackups disables point-in-time recovery (it is) and
// refuses to enable it: the engine keeps no history to restore from.
func (c *Client) UpdateContinuousBackups(_ context.Context, in *UpdateContinuousBackupsInput) (*ContinuousBackupsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}

	spec := in.PointInTimeRecoverySpecification
	switch {
	case spec == nil:
		return nil, validation("1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: Member must not be null")
	case spec.PointInTimeRecoveryEnabled == nil:
		return nil, validation("1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null")
	}

	if _, ok := c.tables[*in.TableName]; !ok {
		return nil, tableNotFound(*in.TableName)
	}

	if *spec.PointInTimeRecoveryEnabled {
		return nil, validation("Point-in-time recovery is not available on this local engine: it keeps no history of the table to restore from (CreateBackup and RestoreTableFromBackup are)")
	}

	return continuousBackups(), nil
}

// CreateBackup keeps a copy of a table.
func (c *Client) CreateBackup(_ context.Context, in *CreateBackupInput) (*CreateBackupOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}

	switch {
	case in.BackupName == nil:
		return nil, validation("1 validation error detected: Value null at 'backupName' failed to satisfy constraint: Member must not be null")
	case !core.ValidName(*in.BackupName):
		return nil, validation("1 validation error detected: Value '%s' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+ and have length between 3 and 255", *in.BackupName)
	}

	t, ok := c.tables[*in.TableName]
	if !ok {
		return nil, tableNotFound(*in.TableName)
	}

	m := c.meta[t.Name]

	var items []map[string]*AttributeValue

	t.Each(func(item map[string]*types.Item) bool {
		items = append(items, toWireMap(item))
		return true
	})

	raw, err := json.Marshal(items)
	if err != nil {
		return nil, &apiError{Code: "InternalServerError", Message: "backup: " + err.Error()}
	}

	now := c.now()
	b := &backup{
		arn:  fmt.Sprintf("%s/backup/%014d-%08x", tableArn(t.Name), now.UnixMilli(), rand.Uint32()),
		name: *in.BackupName, created: now, table: c.createInputOf(t, m), ttl: m.ttlAttribute, tableCreated: m.created,
		items: raw, itemCount: t.ItemCount(), sizeBytes: t.SizeBytes(), keySchema: t.Description(t.Name).KeySchema,
	}
	b.gsis, b.lsis = t.IndexDefinitions()

	if c.backups == nil {
		c.backups = map[string]*backup{}
	}

	c.backups[b.arn] = b

	return &CreateBackupOutput{BackupDetails: b.details("AVAILABLE")}, nil
}

// backupJSON is a backup as the data directory keeps it (its record).
type backupJSON struct {
	Arn          string                   `json:"arn"`
	Name         string                   `json:"name"`
	Created      time.Time                `json:"created"`
	Table        CreateTableInput         `json:"table"`
	TTL          string                   `json:"ttl,omitempty"`
	TableCreated time.Time                `json:"tableCreated"`
	Items        json.RawMessage          `json:"items"`
	ItemCount    int64                    `json:"itemCount"`
	SizeBytes    int64                    `json:"sizeBytes"`
	KeySchema    []types.KeySchemaElement `json:"keySchema"`
	GSIs         []core.IndexDefinition   `json:"gsis,omitempty"`
	LSIs         []core.IndexDefinition   `json:"lsis,omitempty"`
}

// record is b encoded as its record.
func (b *backup) record() ([]byte, error) {
	rec, err := json.Marshal(backupJSON{Arn: b.arn, Name: b.name, Created: b.created, Table: b.table, TTL: b.ttl, TableCreated: b.tableCreated,
		Items: b.items, ItemCount: b.itemCount, SizeBytes: b.sizeBytes, KeySchema: b.keySchema, GSIs: b.gsis, LSIs: b.lsis})
	if err != nil {
		return nil, fmt.Errorf("encoding backup %s's record: %w", b.arn, err)
	}

	return rec, nil
}

// backupOfRecord is the backup stored at arn, checked: its record must
// name it, and its items must be DynamoDB JSON.
func backupOfRecord(arn string, rec []byte) (*backup, error) {
	dec := json.NewDecoder(bytes.NewReader(rec))
	dec.DisallowUnknownFields()

	var bj backupJSON
	if err := dec.Decode(&bj); err != nil {
		return nil, fmt.Errorf("backup %s: its record: %w", arn, err)
	}

	var items []map[string]*AttributeValue

	switch {
	case bj.Arn != arn:
		return nil, fmt.Errorf("backup %s: its record is backup %q's", arn, bj.Arn)
	case json.Unmarshal(bj.Items, &items) != nil:
		return nil, fmt.Errorf("backup %s: its items are not a list of items in DynamoDB's JSON", arn)
	}

	return &backup{arn: bj.Arn, name: bj.Name, created: bj.Created, table: bj.Table, ttl: bj.TTL, tableCreated: bj.TableCreated,
		items: bj.Items, itemCount: bj.ItemCount, sizeBytes: bj.SizeBytes, keySchema: bj.KeySchema, gsis: bj.GSIs, lsis: bj.LSIs}, nil
}

func (b *backup) details(status string) backupDetailsJSON {
	return backupDetailsJSON{
		BackupArn: b.arn, BackupName: b.name, BackupSizeBytes: b.sizeBytes, BackupStatus: status,
		BackupType: "USER", BackupCreationDateTime: epoch(b.created),
	}
}

func (b *backup) tableName() string { return aws.ToString(b.table.TableName) }

func (b *backup) description(status string) backupDescriptionJSON {
	name := b.tableName()
	d := backupDescriptionJSON{
		BackupDetails: b.details(status),
		SourceTableDetails: sourceTableJSON{
			TableName: name, TableId: tableID(name, b.tableCreated), TableArn: tableArn(name), TableSizeBytes: b.sizeBytes,
			KeySchema: keySchemaJSON(b.keySchema), TableCreationDateTime: epoch(b.tableCreated),
			ProvisionedThroughput: throughputOf(b.table.ProvisionedThroughput), ItemCount: b.itemCount,
			BillingMode: string(ddbtypes.BillingModeProvisioned),
		},
	}

	if b.table.BillingMode == ddbtypes.BillingModePayPerRequest {
		d.SourceTableDetails.BillingMode = string(b.table.BillingMode)
	}

	for _, g := range b.gsis {
		d.SourceTableFeatureDetails.GlobalSecondaryIndexes = append(d.SourceTableFeatureDetails.GlobalSecondaryIndexes,
			backupIndexJSON{IndexName: g.Name, KeySchema: keySchemaJSON(g.KeySchema), Projection: projectionOf(g.Projection)})
	}

	for _, l := range b.lsis {
		d.SourceTableFeatureDetails.LocalSecondaryIndexes = append(d.SourceTableFeatureDetails.LocalSecondaryIndexes,
			backupIndexJSON{IndexName: l.Name, KeySchema: keySchemaJSON(l.KeySchema), Projection: projectionOf(l.Projection)})
	}

	if s := b.table.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		d.SourceTableFeatureDetails.StreamDescription = &streamJSON{StreamEnabled: true, StreamViewType: string(s.StreamViewType)}
	}

	if b.ttl != "" {
		d.SourceTableFeatureDetails.TimeToLiveDescription = &ttlJSON{TimeToLiveStatus: "ENABLED", AttributeName: b.ttl}
	}

	return d
}

// backupOf finds the backup an ARN names. c.mu is held.
func (c *Client) backupOf(arn *string) (*backup, error) {
	if arn == nil {
		return nil, validation("1 validation error detected: Value null at 'backupArn' failed to satisfy constraint: Member must not be null")
	}

	b, ok := c.backups[*arn]
	if !ok {
		return nil, &apiError{Code: "BackupNotFoundException", Message: "Backup not found: " + *arn}
	}

	return b, nil
}

// DescribeBackup describes a backup.
func (c *Client) DescribeBackup(_ context.Context, in *BackupArnInput) (*BackupDescriptionOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	b, err := c.backupOf(in.BackupArn)
	if err != nil {
		return nil, err
	}

	return &BackupDescriptionOutput{BackupDescription: b.description("AVAILABLE")}, nil
}

// DeleteBackup deletes a backup.
func (c *Client) DeleteBackup(_ context.Context, in *BackupArnInput) (*BackupDescriptionOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	b, err := c.backupOf(in.BackupArn)
	if err != nil {
		return nil, err
	}

	delete(c.backups, b.arn)

	return &BackupDescriptionOutput{BackupDescription: b.description("DELETED")}, nil
}

// ListBackups lists backups, oldest first: of a table, created in
// [TimeRangeLowerBound, TimeRangeUpperBound), after ExclusiveStartBackupArn,
// at most Limit (1 to 100).
func (c *Client) ListBackups(_ context.Context, in *ListBackupsInput) (*ListBackupsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	switch in.BackupType {
	case "", "USER", "ALL":
	case "SYSTEM", "AWS_BACKUP":
		return &ListBackupsOutput{BackupSummaries: []backupSummaryJSON{}}, nil
	default:
		return nil, validation("1 validation error detected: Value '%s' at 'backupType' failed to satisfy constraint: Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]", in.BackupType)
	}

	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100", *in.Limit)
		}

		limit = int(*in.Limit)
	}

	all := slices.SortedFunc(func(yield func(*backup) bool) {
		for _, b := range c.backups {
			if !yield(b) {
				return
			}
		}
	}, func(a, b *backup) int {
		if n := a.created.Compare(b.created); n != 0 {
			return n
		}

		return strings.Compare(a.arn, b.arn)
	})

	out := &ListBackupsOutput{BackupSummaries: []backupSummaryJSON{}}
	started := in.ExclusiveStartBackupArn == nil

	for _, b := range all {
		if !started {
			started = b.arn == *in.ExclusiveStartBackupArn
			continue
		}

		at := epoch(b.created)
		if in.TableName != nil && b.tableName() != *in.TableName ||
			in.TimeRangeLowerBound != nil && at < *in.TimeRangeLowerBound ||
			in.TimeRangeUpperBound != nil && at >= *in.TimeRangeUpperBound {
			continue
		}

		if len(out.BackupSummaries) == limit {
			out.LastEvaluatedBackupArn = out.BackupSummaries[limit-1].BackupArn
			break
		}

		name := b.tableName()
		out.BackupSummaries = append(out.BackupSummaries, backupSummaryJSON{
			TableName: name, TableId: tableID(name, b.tableCreated), TableArn: tableArn(name), BackupArn: b.arn, BackupName: b.name,
			BackupCreationDateTime: at, BackupStatus: "AVAILABLE", BackupType: "USER", BackupSizeBytes: b.sizeBytes,
		})
	}

	return out, nil
}

// RestoreTableFromBackup creates a new table from a backup: its
// definition (with the overrides given), tags, TTL setting and items.
func (c *Client) RestoreTableFromBackup(ctx context.Context, in *RestoreTableFromBackupInput) (*RestoreTableFromBackupOutput, error) {
	c.mu.Lock()
	if err := checkTableName(in.TargetTableName); err != nil {
		c.mu.Unlock()
		return nil, err
	}

	b, err := c.backupOf(in.BackupArn)
	if err == nil {
		if _, exists := c.tables[*in.TargetTableName]; exists {
			err = &apiError{Code: "TableAlreadyExistsException", Message: "Table already exists: " + *in.TargetTableName}
		}
	}
	c.mu.Unlock()

	if err != nil {
		return nil, err
	}

	def := b.table
	def.TableName = in.TargetTableName
	def.GlobalSecondaryIndexes = slices.Clone(def.GlobalSecondaryIndexes)

	if in.BillingModeOverride != "" {
		def.BillingMode = in.BillingModeOverride
		if def.BillingMode == ddbtypes.BillingModePayPerRequest {
			def.ProvisionedThroughput = nil
			for i := range def.GlobalSecondaryIndexes {
				def.GlobalSecondaryIndexes[i].ProvisionedThroughput = nil
			}
		}
	}

	if in.ProvisionedThroughputOverride != nil {
		def.ProvisionedThroughput = in.ProvisionedThroughputOverride
	}

	if in.GlobalSecondaryIndexOverride != nil {
		def.GlobalSecondaryIndexes = in.GlobalSecondaryIndexOverride
	}

	if in.LocalSecondaryIndexOverride != nil {
		def.LocalSecondaryIndexes = in.LocalSecondaryIndexOverride
	}

	if _, err := c.CreateTable(ctx, &def); err != nil {
		var api *apiError
		if errors.As(err, &api) && api.Code == "ResourceInUseException" {
			return nil, &apiError{Code: "TableAlreadyExistsException", Message: "Table already exists: " + *in.TargetTableName}
		}

		return nil, err
	}

	var items []map[string]*AttributeValue
	if err := json.Unmarshal(b.items, &items); err != nil {
		return nil, &apiError{Code: "InternalServerError", Message: "restore: " + err.Error()}
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	name := *in.TargetTableName
	t, m := c.tables[name], c.meta[name]
	m.ttlAttribute = b.ttl

	for _, raw := range items {
		item, err := fromWireMap(raw)
		if err != nil {
			return nil, err
		}

		w, err := t.PreparePut(item, nil)
		if err != nil {
			return nil, apiErr(err)
		}

		c.commitUnrecorded(w)
	}

	return &RestoreTableFromBackupOutput{TableDescription: restoredTableJSON{
		tableDescriptionJSON: c.describe(t, "ACTIVE"),
		RestoreSummary:       restoreSummaryJSON{SourceBackupArn: b.arn, SourceTableArn: tableArn(b.tableName()), RestoreDateTime: epoch(c.now())},
	}}, nil
}
