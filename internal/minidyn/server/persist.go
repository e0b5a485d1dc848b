package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/minidyn/core"
	"github.com/keyplan/keyplan/internal/minidyn/types"
)

// The engine's state, as Save writes it and Load reads it: each table as
// the CreateTable that makes it again, its TTL setting, its latest
// stream (not the stream's records), and its items in DynamoDB's JSON.
type (
	stateJSON struct {
		Version int         `json:"version"`
		Tables  []tableJSON `json:"tables"`
	}
	tableJSON struct {
		Create     CreateTableInput                  `json:"create"`
		Created    time.Time                         `json:"created"`
		TTL        *ddbtypes.TimeToLiveSpecification `json:"ttl,omitempty"`
		TTLChanged time.Time                         `json:"ttlChanged,omitzero"`
		Stream     *streamStateJSON                  `json:"stream,omitempty"`
		// GSICreated is when UpdateTable created each GSI it created
		// (Backfilling, CREATING until the activation delay passed).
		GSICreated map[string]time.Time         `json:"gsiCreated,omitempty"`
		Items      []map[string]*AttributeValue `json:"items"`
	}
	// streamStateJSON is a table's latest stream: its label (so its ARN)
	// and view type, and whether it is enabled. A state written before
	// it was kept has the stream in Create's StreamSpecification.
	streamStateJSON struct {
		Label    string                  `json:"label"`
		View     ddbtypes.StreamViewType `json:"view"`
		Created  time.Time               `json:"created"`
		Disabled bool                    `json:"disabled,omitempty"`
	}
)

const stateVersion = 1

// Save writes every table and item.
func (s *Server) Save(w io.Writer) error {
	c := s.client

	c.mu.Lock()
	defer c.mu.Unlock()

	st := stateJSON{Version: stateVersion, Tables: []tableJSON{}}

	for _, name := range slices.Sorted(maps.Keys(c.tables)) {
		t, m := c.tables[name], c.meta[name]
		tj := tableJSON{Create: c.createInputOf(t, m), Created: m.created, TTLChanged: m.ttlChanged, GSICreated: m.gsiCreated, Items: []map[string]*AttributeValue{}}
		if m.ttlEnabled() {
			tj.TTL = &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String(m.ttlAttribute), Enabled: aws.Bool(true)}
		}

		if m.streamLabel != "" {
			tj.Stream = &streamStateJSON{Label: m.streamLabel, View: m.streamView, Created: m.streamCreated, Disabled: m.streamArn == ""}
		}

		t.Each(func(item map[string]*types.Item) bool {
			tj.Items = append(tj.Items, toWireMap(item))
			return true
		})

		st.Tables = append(st.Tables, tj)
	}

	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)

	return enc.Encode(st)
}

// createInputOf is the CreateTable that makes table t again.
func (c *Client) createInputOf(t *core.Table, m *tableMeta) CreateTableInput {
	in := CreateTableInput{
		TableName: aws.String(t.Name), AttributeDefinitions: m.definitions, BillingMode: m.billing,
		ProvisionedThroughput: m.throughput, Tags: m.tags,
	}

	for _, k := range t.Description(t.Name).KeySchema {
		in.KeySchema = append(in.KeySchema, ddbtypes.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: ddbtypes.KeyType(k.KeyType)})
	}

	gsis, lsis := t.IndexDefinitions()

	for _, d := range gsis {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, ddbtypes.GlobalSecondaryIndex{
			IndexName: aws.String(d.Name), KeySchema: fromCoreKeySchema(d.KeySchema), Projection: fromCoreProjection(d.Projection),
			ProvisionedThroughput: m.gsiThroughput[d.Name],
		})
	}

	for _, d := range lsis {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, ddbtypes.LocalSecondaryIndex{
			IndexName: aws.String(d.Name), KeySchema: fromCoreKeySchema(d.KeySchema), Projection: fromCoreProjection(d.Projection),
		})
	}

	return in
}

func fromCoreKeySchema(in []types.KeySchemaElement) []ddbtypes.KeySchemaElement {
	out := make([]ddbtypes.KeySchemaElement, len(in))
	for i, k := range in {
		out[i] = ddbtypes.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: ddbtypes.KeyType(k.KeyType)}
	}

	return out
}

func fromCoreProjection(p *types.Projection) *ddbtypes.Projection {
	if p == nil || p.ProjectionType == nil {
		return &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll}
	}

	out := &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionType(*p.ProjectionType)}
	for _, a := range p.NonKeyAttributes {
		out.NonKeyAttributes = append(out.NonKeyAttributes, aws.ToString(a))
	}

	return out
}

// Load replaces the engine's tables with those r holds (written by Save).
// Every table and item is checked as CreateTable and PutItem check them;
// nothing is replaced when any is refused.
func (s *Server) Load(r io.Reader) error {
	var st stateJSON

	dec := json.NewDecoder(r)
	if err := dec.Decode(&st); err != nil {
		return fmt.Errorf("engine state: %w", err)
	}

	if st.Version != stateVersion {
		return fmt.Errorf("engine state: version %d, want %d", st.Version, stateVersion)
	}

	fresh := NewClient()
	fresh.indexActivationDelay = s.client.indexActivationDelay

	for _, tj := range st.Tables {
		in := tj.Create
		if _, err := fresh.CreateTable(context.Background(), &in); err != nil {
			return fmt.Errorf("engine state: table %s: %w", aws.ToString(in.TableName), err)
		}

		name := aws.ToString(in.TableName)
		table, m := fresh.tables[name], fresh.meta[name]
		m.created, m.ttlChanged = tj.Created, tj.TTLChanged
		maps.Copy(m.gsiCreated, tj.GSICreated)

		if tj.TTL != nil && aws.ToBool(tj.TTL.Enabled) {
			m.ttlAttribute = aws.ToString(tj.TTL.AttributeName)
		}

		if st := tj.Stream; st != nil {
			fresh.restoreStream(table, m, st)
		}

		for i, raw := range tj.Items {
			item, err := fromWireMap(raw)
			if err != nil {
				return fmt.Errorf("engine state: table %s, item %d: %w", name, i, err)
			}

			w, err := table.PreparePut(item, nil)
			if err != nil {
				return fmt.Errorf("engine state: table %s, item %d: %w", name, i, apiErr(err))
			}

			w.Commit()
		}
	}

	c := s.client

	c.mu.Lock()
	defer c.mu.Unlock()

	c.tables, c.meta, c.streams, c.seq = fresh.tables, fresh.meta, fresh.streams, fresh.seq

	return nil
}

// restoreStream gives a loaded table its latest stream again: the same
// ARN, enabled or not, with a new shard (the records are not kept).
func (c *Client) restoreStream(table *core.Table, m *tableMeta, st *streamStateJSON) {
	if m.streamArn != "" { // a Create that named the stream too
		delete(c.streams, m.streamArn)
	}

	c.startStream(table, m, st.View, st.Label, st.Created)

	if st.Disabled {
		c.endStream(m)
	}
}
