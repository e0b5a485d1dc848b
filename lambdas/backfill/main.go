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
		var rate float64
		if rate, err = maxWCU(os.Getenv); err == nil {
			h := &handler{lock: e.Lock, client: dynamodb.NewFromConfig(e.Config, migrate.PatientRetries),
				table: e.Table, log: e.Log, maxWCU: rate}
			lambda.Start(h.Handle)
			return
		}
	}
	e.Log.Error("starting", "error", err.Error())
	os.Exit(1)
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
