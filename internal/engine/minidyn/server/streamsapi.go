package server

// The DynamoDB Streams API (ListStreams, DescribeStream,
// GetShardIterator, GetRecords), served on the same endpoint as the
// tables (its X-Amz-Target is DynamoDBStreams_20120810.*), with the
// validation, errors and limits of AWS's API reference.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

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
	// ShardFilter mirrors DynamoDB Streams' ShardFilter.
	ShardFilter struct {
		Type    *string `json:"Type,omitempty"`
		ShardId *string `json:"ShardId,omitempty"`
	}
	// DescribeStreamInput mirrors DynamoDB Streams' DescribeStreamInput.
	DescribeStreamInput struct {
		StreamArn             *string      `json:"StreamArn,omitempty"`
		Limit                 *int32       `json:"Limit,omitempty"`
		ExclusiveStartShardId *string      `json:"ExclusiveStartShardId,omitempty"`
		ShardFilter           *ShardFilter `json:"ShardFilter,omitempty"`
	}
	sequenceRangeJSON struct {
		StartingSequenceNumber string `json:"StartingSequenceNumber"`
		EndingSequenceNumber   string `json:"EndingSequenceNumber,omitempty"`
	}
	shardJSON struct {
		ShardId             string            `json:"ShardId"`
		ParentShardId       string            `json:"ParentShardId,omitempty"`
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
		LastEvaluatedShardId    string                 `json:"LastEvaluatedShardId,omitempty"`
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

// maxRecordsBytes is how much one GetRecords returns at most (1 MB).
const maxRecordsBytes = 1 << 20

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// A stream ARN's form: arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL.
var streamARNForm = regexp.MustCompile(`^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[a-zA-Z0-9_.-]{3,255}/stream/[0-9A-Za-z:._-]+$`)

func checkStreamARN(field string, arn *string) error {
	if arn == nil {
		return validation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}

	if n := len(*arn); n < 37 || n > 1024 {
		return validation("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length between 37 and 1024", *arn, field)
	}

	if !streamARNForm.MatchString(*arn) {
		return validation("Invalid StreamArn: %s", *arn)
	}

	return nil
}

func checkShardID(field string, id *string) error {
	if id == nil {
		return validation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}

	if n := len(*id); n < 28 || n > 65 {
		return validation("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length between 28 and 65", *id, field)
	}

	return nil
}

func checkLimit(limit *int32, most int) (int, error) {
	if limit == nil {
		return most, nil
	}

	if *limit < 1 || int(*limit) > most {
		return 0, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and %d", *limit, most)
	}

	return int(*limit), nil
}

func streamNotFound(arn string) error {
	return &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Stream: " + arn + " not found"}
}

func trimmedData() error {
	return &apiError{Code: "TrimmedDataAccessException", Message: "The operation attempted to read past the oldest stream record in a shard."}
}

// ListStreams lists the streams (of one table, or all) in ARN order, a
// page (Limit, at most 100) at a time.
func (c *Client) ListStreams(_ context.Context, in *ListStreamsInput) (*ListStreamsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	limit, err := checkLimit(in.Limit, 100)
	if err != nil {
		return nil, err
	}

	if in.ExclusiveStartStreamArn != nil {
		if err := checkStreamARN("exclusiveStartStreamArn", in.ExclusiveStartStreamArn); err != nil {
			return nil, err
		}
	}

	if in.TableName != nil {
		if err := checkTableName(in.TableName); err != nil {
			return nil, err
		}
	}

	for _, arn := range sortedKeys(c.streams) {
		c.maintain(c.streams[arn])
	}

	out := &ListStreamsOutput{Streams: []streamJSONEntry{}}

	for _, arn := range sortedKeys(c.streams) {
		s := c.streams[arn]
		if in.TableName != nil && s.table != *in.TableName {
			continue
		}

		// An ARN no longer listed (its table deleted) still marks where
		// the last page ended.
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

// streamFor checks a request's stream ARN and finds the stream, rolled
// and trimmed as of now.
func (c *Client) streamFor(arn *string) (*stream, error) {
	if err := checkStreamARN("streamArn", arn); err != nil {
		return nil, err
	}

	s, ok := c.streams[*arn]
	if ok {
		c.maintain(s)
		_, ok = c.streams[*arn]
	}

	if !ok {
		return nil, streamNotFound(*arn)
	}

	return s, nil
}

func (s *stream) shard(id string) *shard {
	for _, sh := range s.shards {
		if sh.id == id {
			return sh
		}
	}

	return nil
}

// DescribeStream describes a stream and its shards, a page (Limit, at
// most 100) at a time, or a shard's children (ShardFilter CHILD_SHARDS).
func (c *Client) DescribeStream(_ context.Context, in *DescribeStreamInput) (*DescribeStreamOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	limit, err := checkLimit(in.Limit, 100)
	if err != nil {
		return nil, err
	}

	if in.ExclusiveStartShardId != nil {
		if err := checkShardID("exclusiveStartShardId", in.ExclusiveStartShardId); err != nil {
			return nil, err
		}
	}

	var parent *string

	if f := in.ShardFilter; f != nil {
		if f.Type == nil {
			return nil, validation("1 validation error detected: Value null at 'shardFilter.type' failed to satisfy constraint: Member must not be null")
		}

		if *f.Type != "CHILD_SHARDS" {
			return nil, validation("1 validation error detected: Value '%s' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]", *f.Type)
		}

		if err := checkShardID("shardFilter.shardId", f.ShardId); err != nil {
			return nil, err
		}

		parent = f.ShardId
	}

	s, err := c.streamFor(in.StreamArn)
	if err != nil {
		return nil, err
	}

	status := "ENABLED"
	if !s.enabled {
		status = "DISABLED"
	}

	d := streamDescriptionJSON{
		StreamArn: s.arn, StreamLabel: s.label, StreamStatus: status, StreamViewType: string(s.viewType),
		CreationRequestDateTime: epoch(s.created), TableName: s.table, KeySchema: s.keySchema, Shards: []shardJSON{},
	}

	for _, sh := range s.shards {
		if in.ExclusiveStartShardId != nil && sh.id <= *in.ExclusiveStartShardId || parent != nil && sh.parent != *parent {
			continue
		}

		if len(d.Shards) == limit {
			d.LastEvaluatedShardId = d.Shards[limit-1].ShardId
			break
		}

		j := shardJSON{ShardId: sh.id, ParentShardId: sh.parent, SequenceNumberRange: sequenceRangeJSON{StartingSequenceNumber: seqString(sh.start)}}
		if !sh.open() {
			j.SequenceNumberRange.EndingSequenceNumber = seqString(sh.end)
		}

		d.Shards = append(d.Shards, j)
	}

	return &DescribeStreamOutput{StreamDescription: d}, nil
}

// shardIterator is what a ShardIterator stands for: the next record of
// a shard to read, and when the iterator was handed out.
type shardIterator struct {
	Arn    string `json:"a"`
	Shard  string `json:"s"`
	Next   uint64 `json:"n"`
	Issued int64  `json:"t"`
}

func (it shardIterator) String() string {
	b, _ := json.Marshal(it)
	return base64.RawURLEncoding.EncodeToString(b)
}

// GetShardIterator returns an iterator into a stream's shard: at its
// oldest untrimmed record (TRIM_HORIZON), after its newest (LATEST), or
// at or after a sequence number of the shard.
func (c *Client) GetShardIterator(_ context.Context, in *GetShardIteratorInput) (*GetShardIteratorOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	switch in.ShardIteratorType {
	case "TRIM_HORIZON", "LATEST":
		if in.SequenceNumber != nil {
			return nil, validation("Invalid Request: SequenceNumber must not be given with ShardIteratorType %s", in.ShardIteratorType)
		}
	case "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER":
		if in.SequenceNumber == nil {
			return nil, validation("Invalid Request: SequenceNumber is required with ShardIteratorType %s", in.ShardIteratorType)
		}
	default:
		return nil, validation("1 validation error detected: Value '%s' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, AT_SEQUENCE_NUMBER, LATEST, TRIM_HORIZON]", in.ShardIteratorType)
	}

	var seq uint64

	if in.SequenceNumber != nil {
		n, err := strconv.ParseUint(*in.SequenceNumber, 10, 64)
		if err != nil || len(*in.SequenceNumber) < 21 || len(*in.SequenceNumber) > 40 {
			return nil, validation("Invalid SequenceNumber: %s", *in.SequenceNumber)
		}

		seq = n
	}

	if err := checkShardID("shardId", in.ShardId); err != nil {
		return nil, err
	}

	s, err := c.streamFor(in.StreamArn)
	if err != nil {
		return nil, err
	}

	sh := s.shard(*in.ShardId)
	if sh == nil {
		return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Shard does not exist"}
	}

	it := shardIterator{Arn: s.arn, Shard: sh.id, Issued: c.now().UnixMilli()}

	switch in.ShardIteratorType {
	case "TRIM_HORIZON":
		it.Next = max(sh.start, sh.trimmed+1)
	case "LATEST":
		it.Next = c.seq + 1
		if !sh.open() {
			it.Next = sh.end + 1
		}
	default:
		if seq < sh.start || !sh.open() && seq > sh.end {
			return nil, validation("Invalid SequenceNumber: %s is not in the range of shard %s", *in.SequenceNumber, sh.id)
		}

		if seq <= sh.trimmed {
			return nil, trimmedData()
		}

		it.Next = seq
		if in.ShardIteratorType == "AFTER_SEQUENCE_NUMBER" {
			it.Next++
		}
	}

	return &GetShardIteratorOutput{ShardIterator: it.String()}, nil
}

// GetRecords reads a shard from an iterator: at most Limit records (1000
// by default) and 1 MB, and the iterator to read on from (none past the
// end of a closed shard).
func (c *Client) GetRecords(_ context.Context, in *GetRecordsInput) (*GetRecordsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	limit, err := checkLimit(in.Limit, 1000)
	if err != nil {
		return nil, err
	}

	if in.ShardIterator == nil {
		return nil, validation("1 validation error detected: Value null at 'shardIterator' failed to satisfy constraint: Member must not be null")
	}

	var it shardIterator

	raw, err := base64.RawURLEncoding.DecodeString(*in.ShardIterator)
	if err != nil || json.Unmarshal(raw, &it) != nil || it.Arn == "" || it.Shard == "" {
		return nil, validation("Invalid ShardIterator")
	}

	now := c.now()
	if issued := time.UnixMilli(it.Issued); now.Sub(issued) > IteratorLifetime {
		return nil, &apiError{Code: "ExpiredIteratorException", Message: fmt.Sprintf(
			"The provided iterator exceeds the maximum age allowed: it was handed out at %s, more than %s before %s",
			issued.UTC().Format(time.RFC3339), IteratorLifetime, now.UTC().Format(time.RFC3339))}
	}

	s, err := c.streamFor(&it.Arn)
	if err != nil {
		return nil, err
	}

	sh := s.shard(it.Shard)
	if sh == nil {
		return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Shard does not exist"}
	}

	if it.Next <= sh.trimmed {
		return nil, trimmedData()
	}

	out := &GetRecordsOutput{Records: []recordJSON{}}
	size := 0

	for i := sort.Search(len(sh.records), func(i int) bool { return sh.records[i].seq >= it.Next }); i < len(sh.records); i++ {
		r := sh.records[i]
		if len(out.Records) == limit || len(out.Records) > 0 && size+r.size > maxRecordsBytes {
			break
		}

		out.Records = append(out.Records, r.json(s.viewType))
		size += r.size
		it.Next = r.seq + 1
	}

	if !sh.open() && (len(sh.records) == 0 || it.Next > sh.records[len(sh.records)-1].seq) {
		return out, nil // the closed shard is read to its end
	}

	it.Issued = now.UnixMilli()
	next := it.String()
	out.NextShardIterator = &next

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
