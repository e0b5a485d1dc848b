package main

import (
	"testing"

	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
)

// BenchmarkColdStart is the code that runs before the first event.
func BenchmarkColdStart(b *testing.B) {
	streamtest.BenchColdStart(b, patterns.HandlerArchive, "../../examples/leaderboard.lock.json", build)
}
