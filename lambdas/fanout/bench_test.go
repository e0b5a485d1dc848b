package main

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// nopClient answers every CustomerOrders query with one order, and finds
// no continuation.
type nopClient struct {
	dynamo.Client
	order map[string]types.AttributeValue
}

func (c nopClient) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{c.order}}, nil
}

func (nopClient) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return &dynamodb.GetItemOutput{}, nil
}

func (nopClient) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return &dynamodb.UpdateItemOutput{}, nil
}

// BenchmarkRecord is the handler's own cost for a renamed customer with
// one order, without I/O.
func BenchmarkRecord(b *testing.B) {
	ev := fixtureFor(b)
	d := designFor(b)
	order, _ := dynamo.New(d, nil, "Shop").Item("Order", order("A1", "c1", "Ada"))
	h := newHandler(patterns.NewLock(d), nopClient{order: order}, "Shop", quiet)
	batch := events.DynamoDBEvent{Records: ev.Records[:1]}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Handle(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch.Records)), "ns/record")
}
