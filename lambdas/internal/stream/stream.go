package stream

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

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

// Why a record is skipped: a retry cannot change what a record holds, so
// none of these fails it (it would hold the shard for every retry, then
// go to the failure queue with the rest of its batch); each is logged
// with the item's key and counted (Batch: patterns.MetricUndecodable,
// patterns.MetricNoEntity), and the rest of the batch goes on.
var (
	// ErrMalformed marks a record the handler cannot read: an event it
	// does not know, an image missing, a value that holds nothing.
	ErrMalformed = errors.New("malformed record")
	// ErrUndecodable marks an item whose attributes the handler's job
	// reads do not decode (NULL, another type, another format).
	ErrUndecodable = errors.New("undecodable item")
	// ErrNoEntity marks an item that is no entity of the design (another
	// application's, an earlier model's) and none of keyplan's own.
	ErrNoEntity = errors.New("item of no entity")
)

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

// Attrs converts the named attributes of a stream image (those it holds)
// to SDK attribute values, and no others.
func Attrs(img map[string]events.DynamoDBAttributeValue, names ...string) (map[string]types.AttributeValue, error) {
	if img == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(names))
	for _, k := range names {
		v, ok := img[k]
		if !ok {
			continue
		}
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

// Change is a record, its item identified: the entity, by the item's
// keys alone (Entity "" for keyplan's own items: a guard, a marker), and
// the values those keys hold. The images are read only as far as the
// handler asks (Raw, Values): an attribute its job does not read may hold
// anything.
type Change struct {
	Record events.DynamoDBEventRecord
	Event  patterns.StreamEvent
	Entity string
	// Key are the values the item's base keys hold.
	Key dynamo.Values
	tbl *dynamo.Table
}

// Decode identifies a record's item by its keys (the record's Keys, which
// every stream view carries) and checks that the record holds the images
// its event needs (NEW_AND_OLD_IMAGES). Errors are ErrMalformed (an event
// it does not know, an image missing, keys that hold nothing) and
// ErrNoEntity (keys of no entity, and not keyplan's own).
func Decode(t *dynamo.Table, r events.DynamoDBEventRecord) (*Change, error) {
	c := &Change{Record: r, Event: patterns.StreamEvent(r.EventName), tbl: t}
	switch c.Event {
	case patterns.EventInsert, patterns.EventModify, patterns.EventRemove:
	default:
		return nil, fmt.Errorf("%w: event %q", ErrMalformed, r.EventName)
	}
	if c.Event != patterns.EventRemove && r.Change.NewImage == nil || c.Event != patterns.EventInsert && r.Change.OldImage == nil {
		return nil, fmt.Errorf("%w: %s without the images it needs (stream view NEW_AND_OLD_IMAGES)", ErrMalformed, r.EventName)
	}
	d := t.Design()
	keys := r.Change.Keys
	if keys == nil { // a hand-made record: the image holds the keys too
		keys = r.Change.NewImage
		if keys == nil {
			keys = r.Change.OldImage
		}
	}
	key, err := Attrs(keys, d.PK, d.SK)
	if err != nil {
		return nil, err
	}
	name, v, err := t.Identify(key)
	switch {
	case errors.Is(err, dynamo.ErrNotKeyplan) && reserved(key, d.PK):
		return c, nil // a guard or a marker: nothing to do
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrNoEntity, err)
	}
	c.Entity, c.Key = name, v
	return c, nil
}

// Which image of a change.
type Which int

// A change's images.
const (
	Old Which = iota
	New
)

func (c *Change) image(w Which) map[string]events.DynamoDBAttributeValue {
	if w == Old {
		return c.Record.Change.OldImage
	}
	return c.Record.Change.NewImage
}

// Raw is the named attributes of one image as SDK attribute values, as
// stored (nil for an image the record has not: an INSERT's old one).
func (c *Change) Raw(w Which, attrs ...string) (map[string]types.AttributeValue, error) {
	return Attrs(c.image(w), attrs...)
}

// Values is the item's values in one image: its keys' and the named
// attributes' (those it holds; an attribute its keys hold is read from
// them), decoded; nil for an image the record has
// not. An attribute stored as NULL (what an SDK writes for a nil pointer)
// holds no value: it is left out, as an absent one. An attribute that
// does not decode (another type, another format) is ErrUndecodable,
// naming it.
func (c *Change) Values(w Which, attrs ...string) (dynamo.Values, error) {
	img := c.image(w)
	if img == nil || c.Entity == "" {
		return nil, nil
	}
	// What the keys hold is read from them: the item is where they say.
	attrs = slices.DeleteFunc(slices.Clone(attrs), func(a string) bool { _, ok := c.Key[a]; return ok })
	raw, err := Attrs(img, attrs...)
	if err != nil {
		return nil, err
	}
	maps.DeleteFunc(raw, func(_ string, v types.AttributeValue) bool {
		_, null := v.(*types.AttributeValueMemberNULL)
		return null
	})
	v := maps.Clone(c.Key)
	if err := c.tbl.DecodeAttrs(c.Entity, raw, v, attrs...); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUndecodable, err)
	}
	return v, nil
}

// KeyText names a record's item by its keys, for a log line.
func KeyText(r events.DynamoDBEventRecord) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Change.Keys)) {
		v := r.Change.Keys[k]
		text := "?"
		switch v.DataType() {
		case events.DataTypeString:
			text = v.String()
		case events.DataTypeNumber:
			text = v.Number()
		case events.DataTypeBinary:
			text = base64.StdEncoding.EncodeToString(v.Binary())
		}
		parts = append(parts, k+"="+strconv.Quote(text))
	}
	return strings.Join(parts, " ")
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

// Batch is one invocation's account of its records: the failures to
// report back by sequence number (to be retried), the records skipped and
// why (logged with the item's key, counted), and at the end one log line
// with the batch's metrics (Done).
type Batch struct {
	log  *slog.Logger
	resp events.DynamoDBEventResponse
	// records is the batch's size; noEntity and undecodable the records
	// skipped for those reasons.
	records, noEntity, undecodable int
}

// NewBatch starts a batch's account.
func NewBatch(log *slog.Logger, ev events.DynamoDBEvent) *Batch {
	return &Batch{log: log, records: len(ev.Records), resp: events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}}
}

// Fail reports one record as failed, with why: Lambda delivers it again.
func (b *Batch) Fail(ctx context.Context, r events.DynamoDBEventRecord, err error) {
	b.log.ErrorContext(ctx, "record failed", "eventID", r.EventID, "sequenceNumber", r.Change.SequenceNumber,
		"eventName", r.EventName, "key", KeyText(r), "error", err.Error())
	b.resp.BatchItemFailures = append(b.resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
}

// Skip accounts for a record the handler does not act on, or on all of
// (what it could not read is said), by why (an error of ErrNoEntity,
// ErrUndecodable or ErrMalformed): logged with the item's key and
// counted; never failed.
func (b *Batch) Skip(ctx context.Context, r events.DynamoDBEventRecord, err error) {
	level, msg := slog.LevelError, "record skipped: undecodable"
	if errors.Is(err, ErrNoEntity) {
		level, msg = slog.LevelWarn, "record skipped: no entity"
		b.noEntity++
	} else {
		b.undecodable++
	}
	b.log.Log(ctx, level, msg, "eventID", r.EventID, "sequenceNumber", r.Change.SequenceNumber,
		"eventName", r.EventName, "key", KeyText(r), "error", err.Error())
}

// Skippable reports whether err is why a record is skipped, not failed.
func Skippable(err error) bool {
	return errors.Is(err, ErrNoEntity) || errors.Is(err, ErrUndecodable) || errors.Is(err, ErrMalformed)
}

// Record accounts for one record's outcome: nothing (nil), a skip
// (Skippable) or a failure.
func (b *Batch) Record(ctx context.Context, r events.DynamoDBEventRecord, err error) {
	switch {
	case err == nil:
	case Skippable(err):
		b.Skip(ctx, r, err)
	default:
		b.Fail(ctx, r, err)
	}
}

// Done logs the batch (attrs add to its line) with its metrics, in
// CloudWatch's embedded metric format, and returns the partial failure
// report.
func (b *Batch) Done(ctx context.Context, attrs ...any) events.DynamoDBEventResponse {
	fn := os.Getenv("AWS_LAMBDA_FUNCTION_NAME")
	if fn == "" {
		fn = "local"
	}
	counts := []struct {
		name string
		n    int
	}{{patterns.MetricRecords, b.records}, {patterns.MetricFailed, len(b.resp.BatchItemFailures)},
		{patterns.MetricNoEntity, b.noEntity}, {patterns.MetricUndecodable, b.undecodable}}
	d := emfDirective{Namespace: patterns.MetricNamespace, Dimensions: [][]string{{patterns.MetricDimension}}}
	line := []any{slog.String(patterns.MetricDimension, fn)}
	for _, c := range counts {
		d.Metrics = append(d.Metrics, emfMetric{Name: c.name, Unit: "Count"})
		line = append(line, slog.Int(c.name, c.n))
	}
	line = append(line, slog.Any("_aws", emf{Timestamp: time.Now().UnixMilli(), CloudWatchMetrics: []emfDirective{d}}))
	b.log.InfoContext(ctx, "batch done", append(line, attrs...)...)
	return b.resp
}

// Failed is how many records the batch reports failed so far.
func (b *Batch) Failed() int { return len(b.resp.BatchItemFailures) }

// The embedded metric format's _aws member.
type emf struct {
	Timestamp         int64          `json:"Timestamp"`
	CloudWatchMetrics []emfDirective `json:"CloudWatchMetrics"`
}

type emfDirective struct {
	Namespace  string      `json:"Namespace"`
	Dimensions [][]string  `json:"Dimensions"`
	Metrics    []emfMetric `json:"Metrics"`
}

type emfMetric struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

// Process runs record on each record of a batch, accounts for each
// outcome (Batch.Record: skipped records are counted, failed ones
// reported alone), and logs the batch.
func Process(ctx context.Context, log *slog.Logger, ev events.DynamoDBEvent, record func(context.Context, events.DynamoDBEventRecord) error) events.DynamoDBEventResponse {
	b := NewBatch(log, ev)
	for _, r := range ev.Records {
		b.Record(ctx, r, guarded(ctx, r, record))
	}
	return b.Done(ctx)
}

// errPanic: a record whose handling panicked (a bug, not the record's
// fault): failed, so that it is retried once the handler is fixed.
var errPanic = errors.New("handling the record panicked")

// guarded runs record on r, turning a panic into that record's failure:
// one record never takes its batch down.
func guarded(ctx context.Context, r events.DynamoDBEventRecord, record func(context.Context, events.DynamoDBEventRecord) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errPanic, p)
		}
	}()
	return record(ctx, r)
}
