// Package tablerules is a small rule pack for AWS::DynamoDB::GlobalTable,
// which cdk-nag's DynamoDB rules (written for AWS::DynamoDB::Table) never
// look at. Each rule is a pure function over the resolved resource
// properties returning Compliant, NonCompliant or NotApplicable; the
// [Aspect] runs them all and turns every NonCompliant into an error
// annotation and a validation error, so synthesis fails (under `cdk
// synth`, and under `go run` too). It works on any stack: a property
// CloudFormation resolves at deploy time ({"Ref": "AWS::Region"}, the
// region of an environment-agnostic stack) is read as such, and a rule
// that needs it true says it cannot prove it. A resource exempt from a
// rule says so as cdk-nag's suppressions do (the cdk_nag metadata's
// rules_to_suppress, with a reason, which stays an info annotation).
//
//	awscdk.Aspects_Of(app).Add(tablerules.NewAspect(), nil)
package tablerules
