package main

import (
	"os"
	"strconv"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

func main() {
	log := stream.Logger("backfill")
	l, err := stream.Lock()
	if err != nil {
		log.Error("loading the design", "error", err.Error())
		os.Exit(1)
	}
	rate, _ := strconv.ParseFloat(os.Getenv(patterns.BackfillMaxWCUEnv), 64)
	h := &handler{lock: l, client: dynamodb.NewFromConfig(stream.Config(), dynamo.PatientRetries),
		table: os.Getenv(patterns.TableNameEnv), log: log, maxWCU: rate}
	lambda.Start(h.Handle)
}
