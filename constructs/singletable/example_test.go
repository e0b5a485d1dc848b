package singletable_test

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
)

// A table from a YAML model, in a CDK app of your own.
func ExampleNew() {
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Game"), nil)
	table := singletable.New(stack, "Leaderboard", &singletable.Props{ModelFile: "../../examples/leaderboard.yaml",
		Acknowledge: map[string]string{"KP401": "eight seasons, cached reads"}})

	tmpl := assertions.Template_FromStack(stack, nil)
	tmpl.ResourceCountIs(jsii.String("AWS::DynamoDB::GlobalTable"), jsii.Number(1))
	for _, ix := range table.Design.Indexes {
		fmt.Println(ix.Name, ix.ProjectionText())
	}
	// Output:
	// GSI1 ALL
	// GSI2 INCLUDE (handle)
}
