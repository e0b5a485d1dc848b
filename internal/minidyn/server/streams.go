package server

// DynamoDB Streams: the change records of a table whose
// StreamSpecification is enabled, and the Streams API (ListStreams,
// DescribeStream, GetShardIterator, GetRecords) served on the same
// endpoint as the tables (its X-Amz-Target is DynamoDBStreams_20120810.*).
// A stream has one shard; its records are kept in order, the oldest
// dropped past MaxStreamRecords (as DynamoDB drops them after 24 hours).

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/minidyn/core"
	"github.com/keyplan/keyplan/internal/minidyn/types"
)

// MaxStreamRecords is how many records a stream keeps (the oldest go
// first), so a long-running engine's memory stays bounded.
const MaxStreamRecords = 100_000

// The identity DynamoDB gives the records of items TTL deleted.
const (
	ttlPrincipal    = "dynamodb.amazonaws.com"
	ttlIdentityType = "Service"
	shardID         = "shardId-00000000000000000001-00000001"
	region          = "us-east-1"
)

type streamRecord struct {
	seq       uint64
	eventName string
	keys      map[string]*types.Item
	newImage  map[string]*types.Item
	oldImage  map[string]*types.Item
	at        time.Time
	size      int
	byTTL     bool
}

type stream struct {
	arn, label, table string
	viewType          ddbtypes.StreamViewType
	keySchema         []keySchemaElementJSON
	created           time.Time
	enabled           bool
	records           []streamRecord
	// first is the sequence number the shard starts at (records before it
	// were dropped); end is the last one of a closed shard (0: open).
	first, end uint64
}

// startStream opens a new stream on table (CreateTable or UpdateTable
// enabling one) and makes it the table's current one.
func (c *Client) startStream(table *core.Table, m *tableMeta, spec *ddbtypes.StreamSpecification) {
	label := streamLabel(c.now())

	arn := "arn:aws:dynamodb:local:000000000000:table/" + table.Name + "/stream/" + label
	for c.streams[arn] != nil { // enabled twice within a millisecond
		label += "0"
		arn += "0"
	}

	c.streams[arn] = &stream{
		arn: arn, label: label, table: table.Name, viewType: spec.StreamViewType, created: c.now(), enabled: true,
		keySchema: keySchemaJSON(table.Description(table.Name).KeySchema), first: c.seq + 1,
	}
	m.streamArn, m.streamLabel = arn, label
}

// endStream closes a table's current stream (disabled, or the table
// deleted): its records stay readable.
func (c *Client) endStream(m *tableMeta) {
	s := c.streams[m.streamArn]
	if s == nil || !s.enabled {
		return
	}

	s.enabled = false
	s.end = c.seq
	m.streamArn = ""
}

// commit applies a prepared write and records it on the table's stream.
func (c *Client) commit(w *core.Write, byTTL bool) {
	w.Commit()

	if c.journal != nil {
		c.journalWrite(w, c.seq)
	}

	m := c.meta[w.Table.Name]
	if m == nil || m.streamArn == "" {
		return
	}

	s := c.streams[m.streamArn]

	var name string

	switch {
	case w.Old == nil && w.New == nil:
		return
	case w.Old == nil:
		name = "INSERT"
	case w.New == nil:
		name = "REMOVE"
	case types.Equal(&types.Item{M: w.Old}, &types.Item{M: w.New}):
		return // nothing changed: no record, as on DynamoDB
	default:
		name = "MODIFY"
	}

	c.seq++
	rec := streamRecord{seq: c.seq, eventName: name, at: c.now(), byTTL: byTTL}

	img := w.New
	if img == nil {
		img = w.Old
	}

	rec.keys = keysOf(w.Table, img)

	switch s.viewType {
	case ddbtypes.StreamViewTypeNewImage:
		rec.newImage = w.New
	case ddbtypes.StreamViewTypeOldImage:
		rec.oldImage = w.Old
	case ddbtypes.StreamViewTypeNewAndOldImages:
		rec.newImage, rec.oldImage = w.New, w.Old
	}

	rec.size = types.ItemSize(rec.keys) + types.ItemSize(rec.newImage) + types.ItemSize(rec.oldImage)

	s.records = append(s.records, rec)
	if len(s.records) > MaxStreamRecords {
		drop := len(s.records) - MaxStreamRecords
		s.records = slices.Delete(s.records, 0, drop)
		s.first = s.records[0].seq
	}
}

func keysOf(t *core.Table, item map[string]*types.Item) map[string]*types.Item {
	out := map[string]*types.Item{}

	for _, k := range t.Description(t.Name).KeySchema {
		if v, ok := item[k.AttributeName]; ok {
			out[k.AttributeName] = v
		}
	}

	return out
}

func seqString(n uint64) string { return fmt.Sprintf("%021d", n) }

// The Streams API's shapes.
type (
	// ListStreamsInput mirrors DynamoDB Streams' ListStreamsInput.
	ListStreamsInput struct {
		TableName               *string `json:"TableName,omitempty"`
		Limit                   *int32  `json:"Limit,omitempty"`
		ExclusiveStartStreamArn *string `json:"ExclusiveStartStreamArn,omitempty"`
	}
	streamJSONEntry struct {
		StreamArn   string `json:"StreamArn"`
		TableName   string `json:"TableName"`
		StreamLabel string `json:"StreamLabel"`
	}
	// ListStreamsOutput mirrors DynamoDB Streams' ListStreamsOutput.
	ListStreamsOutput struct {
		Streams                []streamJSONEntry `json:"Streams"`
		LastEvaluatedStreamArn *string           `json:"LastEvaluatedStreamArn,omitempty"`
	}
	// DescribeStreamInput mirrors DynamoDB Streams' DescribeStreamInput.
	DescribeStreamInput struct {
		StreamArn             *string `json:"StreamArn,omitempty"`
		Limit                 *int32  `json:"Limit,omitempty"`
		ExclusiveStartShardId *string `json:"ExclusiveStartShardId,omitempty"`
	}
	sequenceRangeJSON struct {
		StartingSequenceNumber string `json:"StartingSequenceNumber"`
		EndingSequenceNumber   string `json:"EndingSequenceNumber,omitempty"`
	}
	shardJSON struct {
		ShardId             string            `json:"ShardId"`
		SequenceNumberRange sequenceRangeJSON `json:"SequenceNumberRange"`
	}
	streamDescriptionJSON struct {
		StreamArn               string                 `json:"StreamArn"`
		StreamLabel             string                 `json:"StreamLabel"`
		StreamStatus            string                 `json:"StreamStatus"`
		StreamViewType          string                 `json:"StreamViewType"`
		CreationRequestDateTime float64                `json:"CreationRequestDateTime"`
		TableName               string                 `json:"TableName"`
		KeySchema               []keySchemaElementJSON `json:"KeySchema"`
		Shards                  []shardJSON            `json:"Shards"`
	}
	// DescribeStreamOutput mirrors DynamoDB Streams' DescribeStreamOutput.
	DescribeStreamOutput struct {
		StreamDescription streamDescriptionJSON `json:"StreamDescription"`
	}
	// GetShardIteratorInput mirrors DynamoDB Streams' GetShardIteratorInput.
	GetShardIteratorInput struct {
		StreamArn         *string `json:"StreamArn,omitempty"`
		ShardId           *string `json:"ShardId,omitempty"`
		ShardIteratorType string  `json:"ShardIteratorType,omitempty"`
		SequenceNumber    *string `json:"SequenceNumber,omitempty"`
	}
	// GetShardIteratorOutput mirrors DynamoDB Streams' GetShardIteratorOutput.
	GetShardIteratorOutput struct {
		ShardIterator string `json:"ShardIterator"`
	}
	// GetRecordsInput mirrors DynamoDB Streams' GetRecordsInput.
	GetRecordsInput struct {
		ShardIterator *string `json:"ShardIterator,omitempty"`
		Limit         *int32  `json:"Limit,omitempty"`
	}
	identityJSON struct {
		PrincipalId string `json:"PrincipalId"`
		Type        string `json:"Type"`
	}
	streamRecordJSON struct {
		ApproximateCreationDateTime float64                    `json:"ApproximateCreationDateTime"`
		Keys                        map[string]*AttributeValue `json:"Keys"`
		NewImage                    map[string]*AttributeValue `json:"NewImage,omitempty"`
		OldImage                    map[string]*AttributeValue `json:"OldImage,omitempty"`
		SequenceNumber              string                     `json:"SequenceNumber"`
		SizeBytes                   int                        `json:"SizeBytes"`
		StreamViewType              string                     `json:"StreamViewType"`
	}
	recordJSON struct {
		AwsRegion    string           `json:"awsRegion"`
		Dynamodb     streamRecordJSON `json:"dynamodb"`
		EventID      string           `json:"eventID"`
		EventName    string           `json:"eventName"`
		EventSource  string           `json:"eventSource"`
		EventVersion string           `json:"eventVersion"`
		UserIdentity *identityJSON    `json:"userIdentity,omitempty"`
	}
	// GetRecordsOutput mirrors DynamoDB Streams' GetRecordsOutput.
	GetRecordsOutput struct {
		Records           []recordJSON `json:"Records"`
		NextShardIterator *string      `json:"NextShardIterator,omitempty"`
	}
)

// ListStreams lists the streams (of one table, or all), newest label last.
func (c *Client) ListStreams(_ context.Context, in *ListStreamsInput) (*ListStreamsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100", *in.Limit)
		}

		limit = int(*in.Limit)
	}

	out := &ListStreamsOutput{Streams: []streamJSONEntry{}}

	for _, arn := range slices.Sorted(maps.Keys(c.streams)) {
		s := c.streams[arn]
		if in.TableName != nil && s.table != *in.TableName {
			continue
		}

		if in.ExclusiveStartStreamArn != nil && arn <= *in.ExclusiveStartStreamArn {
			continue
		}

		if len(out.Streams) == limit {
			out.LastEvaluatedStreamArn = aws.String(out.Streams[limit-1].StreamArn)
			break
		}

		out.Streams = append(out.Streams, streamJSONEntry{StreamArn: arn, TableName: s.table, StreamLabel: s.label})
	}

	return out, nil
}

func (c *Client) streamFor(arn *string) (*stream, error) {
	if arn == nil {
		return nil, validation("1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: Member must not be null")
	}

	s, ok := c.streams[*arn]
	if !ok {
		return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Stream: " + *arn + " not found"}
	}

	return s, nil
}

// DescribeStream describes a stream and its shard.
func (c *Client) DescribeStream(_ context.Context, in *DescribeStreamInput) (*DescribeStreamOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	s, err := c.streamFor(in.StreamArn)
	if err != nil {
		return nil, err
	}

	status := "ENABLED"
	shard := shardJSON{ShardId: shardID, SequenceNumberRange: sequenceRangeJSON{StartingSequenceNumber: seqString(s.first)}}

	if !s.enabled {
		status = "DISABLED"
		shard.SequenceNumberRange.EndingSequenceNumber = seqString(s.end)
	}

	return &DescribeStreamOutput{StreamDescription: streamDescriptionJSON{
		StreamArn: s.arn, StreamLabel: s.label, StreamStatus: status, StreamViewType: string(s.viewType),
		CreationRequestDateTime: epoch(s.created), TableName: s.table, KeySchema: s.keySchema, Shards: []shardJSON{shard},
	}}, nil
}

// shardIterator is what a ShardIterator stands for: the next record to
// read.
type shardIterator struct {
	Arn  string `json:"a"`
	Next uint64 `json:"n"`
}

func (it shardIterator) String() string {
	b, _ := json.Marshal(it)
	return base64.RawURLEncoding.EncodeToString(b)
}

// GetShardIterator returns an iterator into a stream's shard.
func (c *Client) GetShardIterator(_ context.Context, in *GetShardIteratorInput) (*GetShardIteratorOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	s, err := c.streamFor(in.StreamArn)
	if err != nil {
		return nil, err
	}

	if aws.ToString(in.ShardId) != shardID {
		return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Shard: " + aws.ToString(in.ShardId) + " not found"}
	}

	var seq uint64

	if in.SequenceNumber != nil {
		if seq, err = strconv.ParseUint(*in.SequenceNumber, 10, 64); err != nil {
			return nil, validation("Invalid SequenceNumber: %s", *in.SequenceNumber)
		}
	}

	it := shardIterator{Arn: s.arn}

	switch in.ShardIteratorType {
	case "TRIM_HORIZON":
		it.Next = s.first
	case "LATEST":
		it.Next = c.seq + 1
		if !s.enabled {
			it.Next = s.end + 1
		}
	case "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER":
		if in.SequenceNumber == nil {
			return nil, validation("SequenceNumber is required for ShardIteratorType %s", in.ShardIteratorType)
		}

		if seq < s.first {
			return nil, &apiError{Code: "TrimmedDataAccessException", Message: "The operation attempted to read past the oldest stream record in a shard."}
		}

		it.Next = seq
		if in.ShardIteratorType == "AFTER_SEQUENCE_NUMBER" {
			it.Next++
		}
	default:
		return nil, validation("1 validation error detected: Value '%s' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, AT_SEQUENCE_NUMBER, LATEST, TRIM_HORIZON]", in.ShardIteratorType)
	}

	return &GetShardIteratorOutput{ShardIterator: it.String()}, nil
}

// GetRecords reads a shard from an iterator: at most Limit records (1000
// by default), and the iterator to read on from (none past the end of a
// closed shard).
func (c *Client) GetRecords(_ context.Context, in *GetRecordsInput) (*GetRecordsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	limit := 1000
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 1000 {
			return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 1000", *in.Limit)
		}

		limit = int(*in.Limit)
	}

	var it shardIterator

	raw, err := base64.RawURLEncoding.DecodeString(aws.ToString(in.ShardIterator))
	if err != nil || json.Unmarshal(raw, &it) != nil || it.Arn == "" {
		return nil, validation("Invalid ShardIterator")
	}

	s, ok := c.streams[it.Arn]
	if !ok {
		return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Stream: " + it.Arn + " not found"}
	}

	if it.Next < s.first {
		return nil, &apiError{Code: "TrimmedDataAccessException", Message: "The operation attempted to read past the oldest stream record in a shard."}
	}

	out := &GetRecordsOutput{Records: []recordJSON{}}

	for _, r := range s.records {
		if r.seq < it.Next {
			continue
		}

		if len(out.Records) == limit {
			break
		}

		out.Records = append(out.Records, r.json(s.viewType))
		it.Next = r.seq + 1
	}

	if s.enabled || it.Next <= s.end {
		next := it.String()
		out.NextShardIterator = &next
	}

	return out, nil
}

func (r streamRecord) json(view ddbtypes.StreamViewType) recordJSON {
	out := recordJSON{
		AwsRegion: region, EventID: fmt.Sprintf("%032x", r.seq), EventName: r.eventName, EventSource: "aws:dynamodb", EventVersion: "1.1",
		Dynamodb: streamRecordJSON{
			ApproximateCreationDateTime: float64(r.at.Unix()), Keys: toWireMap(r.keys), NewImage: toWireMap(r.newImage),
			OldImage: toWireMap(r.oldImage), SequenceNumber: seqString(r.seq), SizeBytes: r.size, StreamViewType: string(view),
		},
	}

	if r.byTTL {
		out.UserIdentity = &identityJSON{PrincipalId: ttlPrincipal, Type: ttlIdentityType}
	}

	return out
}

// ExpireTTL deletes the items whose TTL attribute (a number of epoch
// seconds) is at or before now, on every table with TTL enabled, as
// DynamoDB's TTL process does: each deletion is a stream REMOVE record
// whose userIdentity is the DynamoDB service. A TTL more than five years
// in the past is ignored, as DynamoDB ignores it. It returns how many
// items it deleted.
func (c *Client) ExpireTTL() int {
	c.mu.Lock()
	defer c.mu.Unlock()

	now := c.now()
	deleted := 0

	for _, name := range slices.Sorted(maps.Keys(c.tables)) {
		t, m := c.tables[name], c.meta[name]
		if m.ttl == nil || !aws.ToBool(m.ttl.Enabled) {
			continue
		}

		attr := aws.ToString(m.ttl.AttributeName)

		var expired []map[string]*types.Item

		t.Each(func(item map[string]*types.Item) bool {
			if expiredAt(item[attr], now) {
				expired = append(expired, item)
			}

			return true
		})

		for _, item := range expired {
			w, err := t.PrepareDelete(keysOf(t, item), nil)
			if err != nil {
				continue
			}

			c.commit(w, true)
			deleted++
		}
	}

	return deleted
}

// TTLHorizon is how far in the past a TTL may be and still expire an item.
const TTLHorizon = 5 * 365 * 24 * time.Hour

func expiredAt(v *types.Item, now time.Time) bool {
	if types.TypeOf(v) != types.TypeN {
		return false
	}

	r, err := types.ParseNumber(*v.N)
	if err != nil {
		return false
	}

	secs, _ := r.Float64()
	at := time.Unix(int64(secs), 0)

	return !at.After(now) && now.Sub(at) <= TTLHorizon
}

// SetClock sets the clock TTL expiry, stream records and transaction
// tokens read (tests move it).
func (c *Client) SetClock(now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()

	c.now = now
}
