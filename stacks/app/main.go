package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/keyplan/keyplan/stacks"
)

func main() {
	app := awscdk.NewApp(nil)
	stacks.New(app, stacks.DefaultConfig())
	app.Synth(nil)
}
