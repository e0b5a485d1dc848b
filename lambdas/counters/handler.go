package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// Writer is what the handler needs of DynamoDB.
type Writer interface {
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// marker starts the keys of a record's once-only marker item.
const marker = patterns.MarkerTag + string(patterns.Sep)

// MarkerTTL is how long a record's once-only marker lives: longer than a
// stream keeps records (24 h), so a redelivered record finds it.
const MarkerTTL = 72 * time.Hour

// counter is one model counter, on its parent.
type counter struct {
	parent *patterns.Entity
	c      *patterns.Counter
	child  *patterns.Entity
}

// handler keeps parents' counters equal to their children: each record
// adds the difference its change makes, once, in a transaction with a
// marker item named after the record (at-least-once delivery must not
// count twice).
type handler struct {
	tbl     *dynamo.Table
	d       *patterns.Design
	name    string
	client  Writer
	log     *slog.Logger
	now     func() time.Time
	byChild map[string][]counter
	applied int
	skipped int
}

func newHandler(l *patterns.Lock, client Writer, table string, log *slog.Logger) *handler {
	d := l.Latest()
	h := &handler{tbl: dynamo.NewRollout(l, nil, table), d: d, name: table, client: client, log: log, now: time.Now, byChild: map[string][]counter{}}
	for _, e := range d.Model().Entities {
		for _, c := range e.Counters {
			h.byChild[c.Child] = append(h.byChild[c.Child], counter{e, c, d.Model().Entity(c.Child)})
		}
	}
	return h
}

// Handle processes a batch, reporting failed records by sequence number.
func (h *handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	return stream.Process(ctx, h.log, ev, h.record), nil
}

// contribution is what one child item adds to a counter (0 when absent or
// not matching the counter's constants).
func contribution(c counter, v dynamo.Values) (float64, error) {
	if v == nil {
		return 0, nil
	}
	for _, w := range c.c.Where {
		a := c.child.Attr(w.Attr)
		want, _ := a.EncodeKey(w.Value)
		got, err := a.EncodeKey(v[w.Attr])
		if err != nil || got != want {
			return 0, nil
		}
	}
	if c.c.Sum == "" {
		return 1, nil
	}
	switch x := v[c.c.Sum].(type) {
	case nil:
		return 0, nil
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("%w: %s.%s is not a number", stream.ErrMalformed, c.child.Name, c.c.Sum)
}

func (h *handler) record(ctx context.Context, r events.DynamoDBEventRecord) error {
	ch, err := stream.Decode(h.tbl, r)
	if err != nil {
		return err
	}
	cs := h.byChild[ch.Entity]
	if len(cs) == 0 {
		return nil
	}
	type update struct {
		key  map[string]types.AttributeValue
		adds map[string]float64
	}
	var updates []*update
	byKey := map[string]*update{}
	for _, c := range cs {
		after, err := contribution(c, ch.New)
		if err != nil {
			return err
		}
		before, err := contribution(c, ch.Old)
		if err != nil {
			return err
		}
		if after == before {
			continue
		}
		v := ch.New
		if v == nil {
			v = ch.Old
		}
		key, err := h.tbl.Key(c.parent.Name, v)
		if err != nil {
			return fmt.Errorf("%w: %v", stream.ErrMalformed, err)
		}
		id := key[h.d.PK].(*types.AttributeValueMemberS).Value + "\x00" + key[h.d.SK].(*types.AttributeValueMemberS).Value
		u := byKey[id]
		if u == nil {
			u = &update{key: key, adds: map[string]float64{}}
			byKey[id] = u
			updates = append(updates, u)
		}
		u.adds[c.c.Attr] += after - before
	}
	for _, u := range updates {
		if err := h.apply(ctx, r, u.key, u.adds); err != nil {
			return err
		}
	}
	return nil
}

// apply adds to one parent's counters and writes the record's marker, in
// one transaction; a marker already there means the record was applied.
func (h *handler) apply(ctx context.Context, r events.DynamoDBEventRecord, key map[string]types.AttributeValue, adds map[string]float64) error {
	pk := key[h.d.PK].(*types.AttributeValueMemberS).Value
	sk := key[h.d.SK].(*types.AttributeValueMemberS).Value
	marker := map[string]types.AttributeValue{
		h.d.PK:  &types.AttributeValueMemberS{Value: marker + r.EventID},
		h.d.SK:  &types.AttributeValueMemberS{Value: marker + pk + string(patterns.Sep) + sk},
		h.d.TTL: &types.AttributeValueMemberN{Value: strconv.FormatInt(h.now().Add(MarkerTTL).Unix(), 10)},
	}
	absent, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(h.d.PK))).Build()
	if err != nil {
		return err
	}
	var upd expression.UpdateBuilder
	for _, attr := range slices.Sorted(maps.Keys(adds)) {
		upd = upd.Add(expression.Name(attr), expression.Value(&types.AttributeValueMemberN{Value: strconv.FormatFloat(adds[attr], 'f', -1, 64)}))
	}
	exists, err := expression.NewBuilder().WithUpdate(upd).WithCondition(expression.AttributeExists(expression.Name(h.d.PK))).Build()
	if err != nil {
		return err
	}
	_, err = h.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(h.name), Item: marker,
			ConditionExpression: absent.Condition(), ExpressionAttributeNames: absent.Names()}},
		{Update: &types.Update{TableName: aws.String(h.name), Key: key,
			UpdateExpression: exists.Update(), ConditionExpression: exists.Condition(),
			ExpressionAttributeNames: exists.Names(), ExpressionAttributeValues: exists.Values()}},
	}})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) && len(tce.CancellationReasons) == 2 {
		switch {
		case aws.ToString(tce.CancellationReasons[0].Code) == "ConditionalCheckFailed":
			h.skipped++
			h.log.DebugContext(ctx, "record applied before", "eventID", r.EventID)
			return nil
		case aws.ToString(tce.CancellationReasons[1].Code) == "ConditionalCheckFailed":
			h.log.WarnContext(ctx, "parent is gone; counter dropped", "eventID", r.EventID, "parent", pk+" "+sk)
			return nil
		}
	}
	if err == nil {
		h.applied++
	}
	return err
}
