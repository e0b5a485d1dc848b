package migrate

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// LiveReader is what describing a table takes: DescribeTable, and its
// TTL and continuous backups.
type LiveReader interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error)
}

// LiveOptions tune DescribeLive.
type LiveOptions struct {
	// NoBackups skips DescribeContinuousBackups (PointInTimeRecovery
	// stays nil): for a caller that compares only keys, GSIs and TTL (the
	// backfill job, whose role is granted no more).
	NoBackups bool
}

// DescribeLive reads what DynamoDB says a table is: DescribeTable, then
// DescribeTimeToLive and DescribeContinuousBackups. It only reads. The
// point-in-time recovery setting is nil when the engine does not answer
// for it (DynamoDB Local has no backups); a table that does not exist is
// an error naming it.
func DescribeLive(ctx context.Context, c LiveReader, name string, o LiveOptions) (*patterns.LiveTable, error) {
	t, err := dynamo.DescribeTable(ctx, c, name)
	if err != nil {
		return nil, err
	}
	lt := LiveOf(t)
	ttl, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("describing the TTL of table %s: %w", name, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil {
		lt.TTLStatus = string(d.TimeToLiveStatus)
		if d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling {
			lt.TTL = aws.ToString(d.AttributeName)
		}
	}
	if o.NoBackups {
		return lt, nil
	}
	b, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	var nf *types.TableNotFoundException
	switch {
	case errors.As(err, &nf):
		return nil, fmt.Errorf("no such table %s", name)
	case err == nil && b.ContinuousBackupsDescription != nil && b.ContinuousBackupsDescription.PointInTimeRecoveryDescription != nil:
		on := b.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == types.PointInTimeRecoveryStatusEnabled
		lt.PointInTimeRecovery = &on
	}
	return lt, nil
}

// LiveOf is a table's description in keyplan's words (the TTL and the
// point-in-time recovery are DescribeLive's).
func LiveOf(t *types.TableDescription) *patterns.LiveTable {
	lt := &patterns.LiveTable{Name: aws.ToString(t.TableName), ARN: aws.ToString(t.TableArn), Status: string(t.TableStatus),
		Types: map[string]string{}, Indexes: []*patterns.LiveIndex{}, Billing: patterns.BillingProvisioned,
		DeletionProtection: aws.ToBool(t.DeletionProtectionEnabled), Items: aws.ToInt64(t.ItemCount)}
	if t.CreationDateTime != nil {
		lt.Created = t.CreationDateTime.UTC()
	}
	for _, k := range t.KeySchema {
		if k.KeyType == types.KeyTypeHash {
			lt.PK = aws.ToString(k.AttributeName)
		} else {
			lt.SK = aws.ToString(k.AttributeName)
		}
	}
	for _, a := range t.AttributeDefinitions {
		lt.Types[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	if b := t.BillingModeSummary; b != nil && b.BillingMode != "" {
		lt.Billing = string(b.BillingMode)
	}
	if s := t.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		lt.Stream = string(s.StreamViewType)
	}
	if c := t.TableClassSummary; c != nil {
		lt.TableClass = string(c.TableClass)
	}
	for _, r := range t.Replicas {
		lt.Replicas = append(lt.Replicas, aws.ToString(r.RegionName))
	}
	slices.Sort(lt.Replicas)
	for _, g := range t.GlobalSecondaryIndexes {
		ix := liveIndex(aws.ToString(g.IndexName), g.KeySchema, g.Projection)
		ix.Status, ix.Backfilling = string(g.IndexStatus), aws.ToBool(g.Backfilling)
		lt.Indexes = append(lt.Indexes, ix)
	}
	for _, l := range t.LocalSecondaryIndexes {
		lt.Local = append(lt.Local, liveIndex(aws.ToString(l.IndexName), l.KeySchema, l.Projection))
	}
	sort.Slice(lt.Indexes, func(i, j int) bool { return lt.Indexes[i].Name < lt.Indexes[j].Name })
	sort.Slice(lt.Local, func(i, j int) bool { return lt.Local[i].Name < lt.Local[j].Name })
	return lt
}

func liveIndex(name string, schema []types.KeySchemaElement, p *types.Projection) *patterns.LiveIndex {
	ix := &patterns.LiveIndex{Name: name, PartitionKeys: []string{}}
	for _, k := range schema {
		if k.KeyType == types.KeyTypeHash {
			ix.PartitionKeys = append(ix.PartitionKeys, aws.ToString(k.AttributeName))
		} else {
			ix.SortKeys = append(ix.SortKeys, aws.ToString(k.AttributeName))
		}
	}
	if p != nil {
		ix.Projection = patterns.Projection(p.ProjectionType)
		ix.NonKeyAttributes = slices.Sorted(slices.Values(p.NonKeyAttributes))
	}
	return ix
}

// LiveItemOf is an item as keyplan's core reads it (patterns.LiveItem).
func LiveItemOf(item map[string]types.AttributeValue) patterns.LiveItem {
	out := patterns.LiveItem{}
	for name, av := range item {
		out[name] = liveValue(av)
	}
	return out
}

func liveValue(av types.AttributeValue) patterns.LiveValue {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return patterns.LiveValue{Type: "S", Text: v.Value}
	case *types.AttributeValueMemberN:
		return patterns.LiveValue{Type: "N", Text: v.Value}
	case *types.AttributeValueMemberB:
		return patterns.LiveValue{Type: "B", Text: base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return patterns.LiveValue{Type: "BOOL", Text: strconv.FormatBool(v.Value)}
	case *types.AttributeValueMemberNULL:
		return patterns.LiveValue{Type: "NULL"}
	case *types.AttributeValueMemberM:
		return patterns.LiveValue{Type: "M"}
	case *types.AttributeValueMemberL:
		return patterns.LiveValue{Type: "L"}
	case *types.AttributeValueMemberSS:
		return patterns.LiveValue{Type: "SS"}
	case *types.AttributeValueMemberNS:
		return patterns.LiveValue{Type: "NS"}
	case *types.AttributeValueMemberBS:
		return patterns.LiveValue{Type: "BS"}
	}
	return patterns.LiveValue{Type: "?"}
}

// SampleOptions bound a sample of a table's items (SampleTable).
type SampleOptions struct {
	// Items is the most items read.
	// Default: DefaultSampleItems.
	Items int
	// MaxRCU is the read units per second the scan may use.
	// Default: DefaultSampleRCU.
	MaxRCU float64
	// Segments is the number of parallel Scan segments the sample is
	// spread over, each read from its start, one after another.
	// Default: DefaultSampleSegments.
	Segments int
}

// The sample's defaults: a thousand items over eight segments at ten read
// units a second (some 40 KB a second of eventually consistent reads: a
// fraction of one partition's 3,000).
const (
	DefaultSampleItems    = 1000
	DefaultSampleRCU      = 10
	DefaultSampleSegments = 8
	// MaxSampleItems bounds Items: each item becomes an example of the
	// model written, which must load (patterns.MaxModelBytes).
	MaxSampleItems = 10000
)

// Sample is what SampleTable read.
type Sample struct {
	Items []patterns.LiveItem
	// Complete: every segment was read to its end, so Items are the
	// whole table.
	Complete bool
	// Cut are the partition key values (as text) whose partitions may be
	// only partly in Items: the last one read in each segment the budget
	// cut (a Scan returns a partition's items together).
	Cut []string
	// ReadUnits the scan used, Requests it made.
	ReadUnits float64
	Requests  int
}

// Scanner is what sampling a table takes.
type Scanner interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// SampleTable reads a bounded sample of a table's items: at most Items,
// spread over Segments parallel-scan segments (each read from its start,
// so the sample reaches across the key space), eventually consistent,
// rate-limited to MaxRCU read units a second. It only reads.
func SampleTable(ctx context.Context, c Scanner, table, pk string, o SampleOptions) (*Sample, error) {
	if o.Items <= 0 {
		o.Items = DefaultSampleItems
	}
	if o.MaxRCU <= 0 {
		o.MaxRCU = DefaultSampleRCU
	}
	if o.Segments <= 0 {
		o.Segments = DefaultSampleSegments
	}
	if o.Items > MaxSampleItems {
		return nil, fmt.Errorf("a sample of %d items: keyplan samples at most %d", o.Items, MaxSampleItems)
	}
	segments := min(o.Segments, o.Items)
	wait := RateLimiter(o.MaxRCU)
	s := &Sample{Complete: true}
	for seg := range segments {
		budget := o.Items / segments
		if seg < o.Items%segments {
			budget++
		}
		var start map[string]types.AttributeValue
		for budget > 0 {
			out, err := c.Scan(ctx, &dynamodb.ScanInput{
				TableName: aws.String(table), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(int32(segments)),
				Limit: aws.Int32(int32(min(budget, DefaultPageSize))), ExclusiveStartKey: start,
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			})
			if err != nil {
				return nil, fmt.Errorf("scanning table %s (segment %d of %d): %w", table, seg, segments, err)
			}
			s.Requests++
			units := readUnits(out)
			s.ReadUnits += units
			for _, it := range out.Items {
				s.Items = append(s.Items, LiveItemOf(it))
			}
			budget -= len(out.Items)
			start = out.LastEvaluatedKey
			if len(start) == 0 {
				break
			}
			if err := wait(ctx, units); err != nil {
				return nil, err
			}
		}
		if len(start) > 0 {
			s.Complete = false
			if n := len(s.Items); n > 0 {
				if v, ok := s.Items[n-1][pk]; ok {
					s.Cut = append(s.Cut, v.Text)
				}
			}
		}
	}
	return s, nil
}
