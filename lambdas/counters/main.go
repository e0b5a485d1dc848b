package main

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
)

func main() {
	stream.Main(patterns.HandlerCounters, build)
}

// build makes the handler at cold start, its clients included.
func build(e stream.Env) stream.Func {
	return newHandler(e.Lock, dynamodb.NewFromConfig(e.Config), e.Table, e.Log).Handle
}
