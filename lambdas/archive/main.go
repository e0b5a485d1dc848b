// Command archive is keyplan's stream handler for TTL expiries: it keeps
// the expired items of archived entities in S3.
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/keyplan/keyplan/lambdas/stream"
	"github.com/keyplan/keyplan/patterns"
)

func main() {
	log := stream.Logger("archive")
	d, err := stream.Design()
	if err != nil {
		log.Error("loading the bundled model", "error", err.Error())
		os.Exit(1)
	}
	cfg := stream.Config()
	h := newHandler(d, newS3(cfg), os.Getenv(patterns.TableNameEnv), os.Getenv(stream.EnvArchiveBucket), log)
	lambda.Start(h.Handle)
}
