package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// Client is what the handler needs of DynamoDB: reading the copies, and
// updating each.
type Client interface {
	dynamo.Client
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// copyOf is one model copy: target.Attr mirrors source.FromAttr.
type copyOf struct {
	target *patterns.Entity
	c      *patterns.Copy
}

// handler keeps denormalized copies in step: when a source attribute
// changes, it reads the copies with the copy's pattern, page by page, and
// updates each one in place, on condition that it still exists (a deleted
// copy is not re-created).
type handler struct {
	tbl      *dynamo.Table
	d        *patterns.Design
	name     string
	client   Client
	log      *slog.Logger
	bySource map[string][]copyOf
	updated  int
}

func newHandler(l *patterns.Lock, client Client, table string, log *slog.Logger) *handler {
	d := l.Latest()
	h := &handler{tbl: dynamo.NewRollout(l, client, table), d: d, name: table, client: client, log: log, bySource: map[string][]copyOf{}}
	for _, e := range d.Model().Entities {
		for _, c := range e.Copies {
			h.bySource[c.FromEntity] = append(h.bySource[c.FromEntity], copyOf{e, c})
		}
	}
	return h
}

// Handle processes a batch, reporting failed records by sequence number.
func (h *handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	return stream.Process(ctx, h.log, ev, h.record), nil
}

func (h *handler) record(ctx context.Context, r events.DynamoDBEventRecord) error {
	switch patterns.StreamEvent(r.EventName) {
	case patterns.EventModify:
	case patterns.EventInsert, patterns.EventRemove:
		return nil // a new source has no copies yet; a removed one keeps its last value on them
	}
	ch, err := stream.Decode(h.tbl, r)
	if err != nil {
		return err
	}
	for _, cp := range h.bySource[ch.Entity] {
		before, after := ch.OldRaw[cp.c.FromAttr], ch.NewRaw[cp.c.FromAttr]
		if dynamo.SameValue(before, after) {
			continue
		}
		if err := h.fan(ctx, cp, ch.New, after); err != nil {
			return err
		}
	}
	return nil
}

// fan updates every copy the pattern finds from the source's values.
func (h *handler) fan(ctx context.Context, cp copyOf, source dynamo.Values, value types.AttributeValue) error {
	p := h.d.Model().Pattern(cp.c.Via)
	params := dynamo.Params{}
	for _, a := range p.Where {
		params[a] = source[a]
	}
	var upd expression.UpdateBuilder
	if value == nil {
		upd = expression.Remove(expression.Name(cp.c.Attr))
	} else {
		upd = expression.Set(expression.Name(cp.c.Attr), expression.Value(value))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(expression.AttributeExists(expression.Name(h.d.PK))).Build()
	if err != nil {
		return err
	}
	for it, err := range h.tbl.All(ctx, cp.c.Via, dynamo.Request{Params: params}) {
		if err != nil {
			return err
		}
		if it.Entity != cp.target.Name {
			continue
		}
		key, err := h.tbl.Key(it.Entity, it.Values)
		if err != nil {
			return err
		}
		_, err = h.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(h.name), Key: key,
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			continue // deleted since it was read: not re-created
		}
		if err != nil {
			return err
		}
		h.updated++
	}
	return nil
}
