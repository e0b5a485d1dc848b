// Command counters is keyplan's stream handler for counters: it keeps each
// parent's count (or sum) of its children, once per stream record.
package main

import (
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/lambdas/stream"
	"github.com/keyplan/keyplan/patterns"
)

func main() {
	stream.Main("counters", func(d *patterns.Design, cfg aws.Config, table string, log *slog.Logger) any {
		return newHandler(d, dynamodb.NewFromConfig(cfg), table, log).Handle
	})
}
