package stream

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/keyplan/keyplan/patterns"
)

// Func is a stream handler's entry point, as aws-lambda-go types it.
type Func func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// Env is what a handler is built from at cold start: the table's lock
// (its design, and during a migration the target and phase), the SDK
// configuration, the table's name and a logger.
type Env struct {
	Lock   *patterns.Lock
	Config aws.Config
	Table  string
	Log    *slog.Logger
}

// Main is a handler binary's main: it loads the lock the construct
// ships, builds the handler once (clients included) and serves it. A lock
// that does not load ends the process with the reason logged.
func Main(h patterns.Handler, build func(Env) Func) {
	e, err := Init(h)
	if err != nil {
		e.Log.Error("starting", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(build(e))
}

// Init is what a handler does at cold start before building itself: the
// logger, the lock, the SDK configuration, the table's name.
func Init(h patterns.Handler) (Env, error) {
	e := Env{Log: Logger(h), Table: os.Getenv(patterns.TableNameEnv)}
	l, err := Lock()
	if err != nil {
		return e, err
	}
	cfg, err := Config(context.Background())
	if err != nil {
		return e, fmt.Errorf("the SDK configuration: %w", err)
	}
	e.Lock, e.Config = l, cfg
	return e, nil
}
