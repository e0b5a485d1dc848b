package singletable

import (
	"encoding/json"
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// nagMetadata is the metadata key cdk-nag reads suppressions from.
const nagMetadata = "cdk_nag"

// suppression is one cdk-nag rule a resource is exempt from, with why.
type suppression struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	// AppliesTo narrows a granular rule to findings (strings or
	// {"regex": "/…/"}).
	AppliesTo []any `json:"applies_to,omitempty"`
}

// suppress records cdk-nag suppressions on every CloudFormation resource
// of c (c's own and its children's), in the metadata cdk-nag's packs read
// (rules_to_suppress, as NagSuppressions.addResourceSuppressions writes
// it). The library needs no cdk-nag import for this: an app that runs the
// packs honours the suppressions, one that does not ignores them.
func suppress(c constructs.IConstruct, rules ...suppression) {
	for _, child := range *c.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		l1 := child
		if dc := child.Node().DefaultChild(); dc != nil {
			l1 = dc
		}
		cfn, ok := l1.(awscdk.CfnResource)
		if !ok {
			continue
		}
		var meta struct {
			Rules []suppression `json:"rules_to_suppress"`
		}
		if old := cfn.GetMetadata(jsii.String(nagMetadata)); old != nil {
			b, _ := json.Marshal(old)
			_ = json.Unmarshal(b, &meta)
		}
		for _, r := range rules {
			if !slices.ContainsFunc(meta.Rules, func(x suppression) bool { return x.ID == r.ID && x.Reason == r.Reason }) {
				meta.Rules = append(meta.Rules, r)
			}
		}
		var out map[string]any
		b, _ := json.Marshal(meta)
		_ = json.Unmarshal(b, &out)
		cfn.AddMetadata(jsii.String(nagMetadata), out)
	}
}
