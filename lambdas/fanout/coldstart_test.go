package main

import (
	"testing"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
)

// BenchmarkColdStart is the code that runs before the first event: the
// lock read and checked, the SDK configuration, the handler and its
// clients built.
func BenchmarkColdStart(b *testing.B) {
	b.Setenv(patterns.LockEnv, "../../examples/ecommerce.lock.json")
	b.Setenv("AWS_REGION", "us-east-1")
	b.ReportAllocs()
	for b.Loop() {
		e, err := stream.Init(patterns.HandlerFanout)
		if err != nil {
			b.Fatal(err)
		}
		if build(e) == nil {
			b.Fatal("no handler")
		}
	}
}
