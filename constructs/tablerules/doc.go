// Package tablerules is a small rule pack for AWS::DynamoDB::GlobalTable,
// which cdk-nag's DynamoDB rules (written for AWS::DynamoDB::Table) never
// look at. Each rule is a pure function over the resolved resource
// properties returning Compliant, NonCompliant or NotApplicable; the
// [Aspect] runs them all and turns every NonCompliant into an error
// annotation, so `cdk synth` fails.
//
//	awscdk.Aspects_Of(app).Add(tablerules.NewAspect(), nil)
package tablerules
