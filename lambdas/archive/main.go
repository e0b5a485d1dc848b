package main

import (
	"os"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
)

func main() {
	stream.Main(patterns.HandlerArchive, build)
}

// build makes the handler at cold start, its clients included.
func build(e stream.Env) stream.Func {
	return newHandler(e.Lock, newS3(e.Config), e.Table, os.Getenv(patterns.ArchiveBucketEnv), e.Log).Handle
}
