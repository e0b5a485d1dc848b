// Command archive is keyplan's stream handler for TTL expiries: it keeps
// the expired items of archived entities in S3.
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/keyplan/keyplan/lambdas/stream"
	"github.com/keyplan/keyplan/patterns"
)

func main() {
	stream.Main("archive", func(d *patterns.Design, cfg aws.Config, table string, log *slog.Logger) any {
		return newHandler(d, newS3(cfg), table, os.Getenv(stream.EnvArchiveBucket), log).Handle
	})
}
