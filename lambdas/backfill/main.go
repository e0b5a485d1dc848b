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
	e, err := stream.Init("backfill")
	if err != nil {
		e.Log.Error("starting", "error", err.Error())
		os.Exit(1)
	}
	rate, _ := strconv.ParseFloat(os.Getenv(patterns.BackfillMaxWCUEnv), 64)
	h := &handler{lock: e.Lock, client: dynamodb.NewFromConfig(e.Config, dynamo.PatientRetries),
		table: e.Table, log: e.Log, maxWCU: rate}
	lambda.Start(h.Handle)
}
