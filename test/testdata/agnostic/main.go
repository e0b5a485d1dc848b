// Command agnostic is the README's app (an environment-agnostic stack)
// with the GlobalTable rule pack over it, run by the tests with go run
// and CDK_OUTDIR as the CDK CLI runs an app: agnostic MODEL synthesizes
// the model's table; agnostic MODEL bad adds a table without
// point-in-time recovery, which must fail the run.
package main

import (
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/constructs/tablerules"
)

func main() {
	defer singletable.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Game"), nil)
	singletable.New(stack, "Leaderboard", &singletable.Props{ModelFile: os.Args[1],
		Acknowledge: map[string]string{"KP401": "a test", singletable.NoLockWarning: "a test"}})
	if len(os.Args) > 2 && os.Args[2] == "bad" {
		awsdynamodb.NewTableV2(stack, jsii.String("Raw"), &awsdynamodb.TablePropsV2{
			PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("PK"), Type: awsdynamodb.AttributeType_STRING},
		})
	}
	awscdk.Aspects_Of(app).Add(tablerules.NewAspect(), nil)
	app.Synth(nil)
}
