// Command fanout is keyplan's stream handler for copies: when a source
// attribute changes it updates every denormalized copy of it.
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/lambdas/stream"
	"github.com/keyplan/keyplan/patterns"
)

func main() {
	log := stream.Logger("fanout")
	d, err := stream.Design()
	if err != nil {
		log.Error("loading the bundled model", "error", err.Error())
		os.Exit(1)
	}
	cfg := stream.Config()
	h := newHandler(d, dynamodb.NewFromConfig(cfg), os.Getenv(patterns.TableNameEnv), log)
	lambda.Start(h.Handle)
}
