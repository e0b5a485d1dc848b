package main

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns"
)

type nopWriter struct{}

func (nopWriter) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

// BenchmarkRecord is the handler's own cost per record, without I/O:
// decoding the images, computing the deltas, building the transaction.
func BenchmarkRecord(b *testing.B) {
	ev := fixtureFor(b)
	h := newHandler(patterns.NewLock(designFor(b)), nopWriter{}, "Leaderboard", quiet)
	batch := events.DynamoDBEvent{Records: ev.Records[:5]} // INSERT, INSERT, MODIFY, REMOVE, TTL REMOVE
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Handle(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch.Records)), "ns/record")
}
