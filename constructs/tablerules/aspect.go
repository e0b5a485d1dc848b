package tablerules

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Aspect runs the pack over every AWS::DynamoDB::GlobalTable in scope.
type Aspect struct{}

// NewAspect returns the pack as a CDK aspect.
func NewAspect() awscdk.IAspect { return &Aspect{} }

// Visit evaluates a GlobalTable resource; other constructs are skipped.
func (a *Aspect) Visit(node constructs.IConstruct) {
	if !*awsdynamodb.CfnGlobalTable_IsCfnGlobalTable(node) {
		return
	}
	cfn, ok := node.(awsdynamodb.CfnGlobalTable)
	if !ok {
		return
	}
	g, err := Resolve(cfn)
	if err != nil {
		awscdk.Annotations_Of(node).AddError(jsii.String("tablerules: " + err.Error()))
		return
	}
	for _, msg := range Evaluate(g) {
		awscdk.Annotations_Of(node).AddError(jsii.String(msg))
	}
}

// Resolve reads a GlobalTable's properties as CloudFormation will see them.
func Resolve(cfn awsdynamodb.CfnGlobalTable) (*GlobalTable, error) {
	stack := awscdk.Stack_Of(cfn)
	props := map[string]any{}
	resolve := func(name string, v any) {
		// jsii refuses nil arguments: an unset property stays absent.
		if v == nil {
			return
		}
		if s, ok := v.(*string); ok && s == nil {
			return
		}
		props[name] = stack.Resolve(v)
	}
	resolve("BillingMode", cfn.BillingMode())
	resolve("StreamSpecification", cfn.StreamSpecification())
	resolve("Replicas", cfn.Replicas())
	resolve("WriteProvisionedThroughputSettings", cfn.WriteProvisionedThroughputSettings())
	resolve("GlobalSecondaryIndexes", cfn.GlobalSecondaryIndexes())
	b, err := json.Marshal(props)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", *cfn.Node().Path(), err)
	}
	g := &GlobalTable{}
	if err := json.Unmarshal(b, g); err != nil {
		return nil, fmt.Errorf("reading %s: %w", *cfn.Node().Path(), err)
	}
	return g, nil
}
