package main

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/keyplan/keyplan/patterns"
)

type nopPutter struct{}

func (nopPutter) Put(context.Context, Object) error { return nil }

// BenchmarkRecord is the handler's own cost per expired item, without
// I/O: decoding, JSON lines, gzip.
func BenchmarkRecord(b *testing.B) {
	ev := fixtureFor(b)
	h := newHandler(patterns.NewLock(designFor(b)), nopPutter{}, "Leaderboard", "bucket", quiet)
	batch := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{ev.Records[0], ev.Records[5]}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Handle(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch.Records)), "ns/record")
}
