package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo/migrate"
)

func main() {
	e, err := stream.Init("backfill")
	if err == nil {
		var h *handler
		if h, err = newHandler(e, os.Getenv); err == nil {
			lambda.Start(h.Handle)
			return
		}
	}
	e.Log.Error("starting", "error", err.Error())
	os.Exit(1)
}

// newHandler is the worker built once at its start from what stream.Init
// read (the lock, the SDK configuration loaded once, the table) and its
// environment: the write-rate limit, and the objects bucket
// ($KEYPLAN_OBJECTS_BUCKET, on S3 as that configuration reaches it).
func newHandler(e stream.Env, getenv func(string) string) (*handler, error) {
	rate, err := maxWCU(getenv)
	if err != nil {
		return nil, err
	}
	return &handler{lock: e.Lock, client: dynamodb.NewFromConfig(e.Config, migrate.PatientRetries),
		table: e.Table, log: e.Log, maxWCU: rate, objects: migrate.ObjectsFromConfig(e.Config, getenv(patterns.ObjectsBucketEnv))}, nil
}

// maxWCU is the worker's write-rate limit, from its environment
// (patterns.BackfillMaxWCUEnv, which the construct sets): unset or empty
// is 0, no limit; anything but a finite number of 0 or more
// (migrate.CheckMaxWCU) fails the worker's start, naming the variable.
func maxWCU(getenv func(string) string) (float64, error) {
	s := getenv(patterns.BackfillMaxWCUEnv)
	if s == "" {
		return 0, nil
	}
	rate, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: expected a number of write units per second", patterns.BackfillMaxWCUEnv, s)
	}
	if err := migrate.CheckMaxWCU(rate); err != nil {
		return 0, fmt.Errorf("%s=%q: %w", patterns.BackfillMaxWCUEnv, s, err)
	}
	return rate, nil
}
