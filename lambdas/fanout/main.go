// Command fanout is keyplan's stream handler for copies: when a source
// attribute changes it updates every denormalized copy of it.
package main

import (
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/lambdas/stream"
	"github.com/keyplan/keyplan/patterns"
)

func main() {
	stream.Main("fanout", func(d *patterns.Design, cfg aws.Config, table string, log *slog.Logger) any {
		return newHandler(d, dynamodb.NewFromConfig(cfg), table, log).Handle
	})
}
