package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// Lock reads the lock the construct ships: the path in patterns.LockEnv
// (absolute, or relative to the task root), else the design layer's
// patterns.DesignPath. Its designs are read as planned (patterns.ReadLock
// checks them): nothing is re-planned at cold start.
func Lock() (*patterns.Lock, error) {
	path := os.Getenv(patterns.LockEnv)
	if path == "" {
		path = patterns.DesignPath
	}
	if !filepath.IsAbs(path) {
		if root := os.Getenv("LAMBDA_TASK_ROOT"); root != "" {
			path = filepath.Join(root, path)
		}
	}
	l, err := patterns.LoadLock(path)
	if err == nil && l == nil {
		err = fmt.Errorf("%s: no lock there (the construct's design layer ships it; %s points elsewhere)", path, patterns.LockEnv)
	}
	return l, err
}

// Logger writes JSON lines to stdout (CloudWatch Logs).
func Logger(h patterns.Handler) *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stdout, nil)).With("handler", string(h))
}

// ErrMalformed marks a record the handler cannot read; it is reported as
// a failure on its own, and the rest of the batch goes on.
var ErrMalformed = errors.New("malformed record")

// Image converts a stream image to SDK attribute values.
func Image(img map[string]events.DynamoDBAttributeValue) (map[string]types.AttributeValue, error) {
	if img == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(img))
	for k, v := range img {
		av, err := value(v)
		if err != nil {
			return nil, fmt.Errorf("%w: attribute %s: %v", ErrMalformed, k, err)
		}
		out[k] = av
	}
	return out, nil
}

func value(v events.DynamoDBAttributeValue) (av types.AttributeValue, err error) {
	// aws-lambda-go panics on a value that holds nothing (its zero value
	// reads as binary): one bad attribute is a malformed record, never a
	// lost batch.
	defer func() {
		if r := recover(); r != nil {
			av, err = nil, fmt.Errorf("an attribute value without data (%v)", r)
		}
	}()
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}, nil
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}, nil
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}, nil
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case events.DataTypeList:
		var l []types.AttributeValue
		for _, x := range v.List() {
			av, err := value(x)
			if err != nil {
				return nil, err
			}
			l = append(l, av)
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case events.DataTypeMap:
		m := map[string]types.AttributeValue{}
		for k, x := range v.Map() {
			av, err := value(x)
			if err != nil {
				return nil, err
			}
			m[k] = av
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown data type %v", v.DataType())
}

// Change is a record's before and after, decoded. Entity is "" for an
// item that is no entity of the design (a guard or a marker).
type Change struct {
	Record   events.DynamoDBEventRecord
	Entity   string
	Old, New dynamo.Values
	// OldRaw and NewRaw are the images as SDK attribute values.
	OldRaw, NewRaw map[string]types.AttributeValue
}

// Decode reads a record against the design. Items that are no entity of
// it come back with Entity "".
func Decode(t *dynamo.Table, r events.DynamoDBEventRecord) (*Change, error) {
	c := &Change{Record: r}
	var err error
	if c.OldRaw, err = Image(r.Change.OldImage); err != nil {
		return nil, err
	}
	if c.NewRaw, err = Image(r.Change.NewImage); err != nil {
		return nil, err
	}
	event := patterns.StreamEvent(r.EventName)
	switch event {
	case patterns.EventInsert, patterns.EventModify, patterns.EventRemove:
	default:
		return nil, fmt.Errorf("%w: event %q", ErrMalformed, r.EventName)
	}
	if event != patterns.EventRemove && c.NewRaw == nil || event != patterns.EventInsert && c.OldRaw == nil {
		return nil, fmt.Errorf("%w: %s without the images it needs (stream view NEW_AND_OLD_IMAGES)", ErrMalformed, r.EventName)
	}
	for _, img := range []struct {
		raw map[string]types.AttributeValue
		out *dynamo.Values
	}{{c.OldRaw, &c.Old}, {c.NewRaw, &c.New}} {
		if img.raw == nil {
			continue
		}
		name, v, err := t.Decode(img.raw)
		if errors.Is(err, dynamo.ErrNotKeyplan) && reserved(img.raw, t.Design().PK) {
			return c, nil // a guard or a marker: nothing to do
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		if c.Entity != "" && c.Entity != name {
			return nil, fmt.Errorf("%w: old image is %s, new image is %s", ErrMalformed, c.Entity, name)
		}
		c.Entity, *img.out = name, v
	}
	return c, nil
}

// Expiry reports whether a record is a removal by the table's TTL.
func Expiry(r events.DynamoDBEventRecord) bool {
	return patterns.StreamEvent(r.EventName) == patterns.EventRemove && r.UserIdentity != nil &&
		r.UserIdentity.Type == patterns.TTLIdentityType && r.UserIdentity.PrincipalID == patterns.TTLPrincipal
}

// reserved reports whether an item is one of keyplan's own (a guard, a
// marker): its partition key starts with patterns.ReservedPrefix. Any
// other item the design cannot decode is a malformed record.
func reserved(item map[string]types.AttributeValue, pk string) bool {
	s, ok := item[pk].(*types.AttributeValueMemberS)
	return ok && strings.HasPrefix(s.Value, patterns.ReservedPrefix)
}

// Failures collects the records to report back by sequence number.
type Failures struct {
	log  *slog.Logger
	resp events.DynamoDBEventResponse
}

// NewFailures starts a batch's report.
func NewFailures(log *slog.Logger) *Failures {
	return &Failures{log: log, resp: events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}}
}

// Fail reports one record as failed, with why.
func (f *Failures) Fail(ctx context.Context, r events.DynamoDBEventRecord, err error) {
	f.log.ErrorContext(ctx, "record failed", "eventID", r.EventID, "sequenceNumber", r.Change.SequenceNumber,
		"eventName", r.EventName, "error", err.Error(), "malformed", errors.Is(err, ErrMalformed))
	f.resp.BatchItemFailures = append(f.resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
}

// Response is the batch's partial failure report.
func (f *Failures) Response() events.DynamoDBEventResponse { return f.resp }

// Process runs record on each record of a batch, reports the failed ones
// alone, and logs the batch.
func Process(ctx context.Context, log *slog.Logger, ev events.DynamoDBEvent, record func(context.Context, events.DynamoDBEventRecord) error) events.DynamoDBEventResponse {
	f := NewFailures(log)
	for _, r := range ev.Records {
		if err := guarded(ctx, r, record); err != nil {
			f.Fail(ctx, r, err)
		}
	}
	log.InfoContext(ctx, "batch done", "records", len(ev.Records), "failed", len(f.resp.BatchItemFailures))
	return f.Response()
}

// guarded runs record on r, turning a panic into that record's failure:
// one record never takes its batch down.
func guarded(ctx context.Context, r events.DynamoDBEventRecord, record func(context.Context, events.DynamoDBEventRecord) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrMalformed, p)
		}
	}()
	return record(ctx, r)
}
