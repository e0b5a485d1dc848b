package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/stacks"
)

func main() {
	defer singletable.Close() // no node process, temporary directory or error line left behind
	app := awscdk.NewApp(nil)
	stacks.New(app, stacks.DefaultConfig())
	app.Synth(nil)
}
