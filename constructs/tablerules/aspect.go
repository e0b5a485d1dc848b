package tablerules

import (
	"encoding/json"
	"fmt"
	"strings"

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
// Each finding, and a resource the pack cannot read, is an error
// annotation (what `cdk synth` prints) and fails the resource's
// validation, so synthesis fails wherever the app runs: under the CDK
// CLI, and under `go run` with CDK_OUTDIR, where error annotations alone
// would let the app exit 0.
func (a *Aspect) Visit(node constructs.IConstruct) {
	if !*awsdynamodb.CfnGlobalTable_IsCfnGlobalTable(node) {
		return
	}
	cfn, ok := node.(awsdynamodb.CfnGlobalTable)
	if !ok {
		return
	}
	var msgs []string
	if g, err := Resolve(cfn); err != nil {
		msgs = []string{"tablerules: " + err.Error()}
	} else {
		msgs = Evaluate(g)
	}
	msgs = suppressed(cfn, msgs)
	if len(msgs) == 0 {
		return
	}
	for _, msg := range msgs {
		awscdk.Annotations_Of(node).AddError(jsii.String(msg))
	}
	node.Node().AddValidation(findings(msgs))
}

// suppressed drops the findings of the rules the resource is exempt
// from, as cdk-nag records exemptions (the cdk_nag metadata's
// rules_to_suppress, each with its reason: NagSuppressions or the
// keyplan construct's own), leaving an info annotation with the reason.
func suppressed(cfn awscdk.CfnResource, msgs []string) []string {
	meta := cfn.GetMetadata(jsii.String("cdk_nag"))
	if meta == nil {
		return msgs
	}
	var m struct {
		Rules []struct{ ID, Reason string } `json:"rules_to_suppress"`
	}
	if b, err := json.Marshal(meta); err != nil || json.Unmarshal(b, &m) != nil {
		return msgs
	}
	var out []string
	for _, msg := range msgs {
		exempt := false
		for _, r := range m.Rules {
			if strings.HasPrefix(msg, "["+r.ID+"] ") && strings.TrimSpace(r.Reason) != "" {
				awscdk.Annotations_Of(cfn).AddInfo(jsii.String(fmt.Sprintf("suppressed %s (%s)", msg, r.Reason)))
				exempt = true
				break
			}
		}
		if !exempt {
			out = append(out, msg)
		}
	}
	return out
}

// findings fail a resource's validation.
type findings []string

// Validate returns the findings: each fails synthesis.
func (f findings) Validate() *[]*string {
	out := make([]*string, len(f))
	for i, m := range f {
		out[i] = jsii.String(m)
	}
	return &out
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
