package stream

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/keyplan/keyplan/patterns"
)

// Main is a handler binary's main: it loads the bundled design, builds
// the handler once (clients included) and serves it. A design that does
// not load ends the process with the reason logged.
func Main(name string, build func(d *patterns.Design, cfg aws.Config, table string, log *slog.Logger) any) {
	log := Logger(name)
	d, err := Design()
	if err != nil {
		log.Error("loading the bundled model", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(build(d, Config(), os.Getenv(patterns.TableNameEnv), log))
}
