package singletable

import (
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
)

// Adopting a table that exists (Props.Adopt): CloudFormation's resource
// import (cdk import) takes a resource only when the template describes
// it as it is, so the table is synthesized from its lock as keyplan
// import table wrote it (Lock.Adopted): its physical name, key schema and
// GSIs (the lock's, which are the table's), billing mode, stream, table
// class, point-in-time recovery and replicas as the table has them, kept
// on removal (RETAIN) and protected from deletion. docs/adopt.md.

// checkAdopt collects what keeps the table from being adopted as it is.
func (t *Table) checkAdopt(ps *problems) {
	p := t.props
	if !p.Adopt {
		return
	}
	a := t.Lock.Adopted
	if p.TableName == "" {
		ps.add("Adopt: TableName is required: the existing table's physical name, which CloudFormation imports")
	}
	if a == nil {
		ps.add("Adopt: the lock records no adopted table: keyplan import table NAME writes the lock of a table as deployed")
		return
	}
	for _, u := range a.Unheld {
		ps.add("Adopt: the table cannot be adopted as it is: %s", u)
	}
	if p.RemovalPolicy != "" && p.RemovalPolicy != awscdk.RemovalPolicy_RETAIN {
		ps.add("Adopt: RemovalPolicy %s: an adopted table is retained (RETAIN), so that leaving the stack never deletes it", p.RemovalPolicy)
	}
	if p.DeletionProtection != nil && !*p.DeletionProtection {
		ps.add("Adopt: DeletionProtection false: an adopted table is protected from deletion")
	}
	if want := a.Billing == patterns.BillingProvisioned; want != t.provisioned() {
		ps.add("Adopt: Billing: the table is billed %s; give Billing the same mode (and, provisioned, its capacities), as resource import needs the template to match", a.Billing)
	}
	if p.Stream != "" && string(p.Stream) != a.Stream {
		ps.add("Adopt: Stream %s: the table's stream is %s", p.Stream, orNoneText(a.Stream))
	}
	if d := t.Design; d != nil && a.Stream != "" && a.Stream != patterns.StreamNewAndOld && len(d.Handlers()) > 0 && (p.StreamHandlers == nil || !p.StreamHandlers.Disabled) {
		ps.add("Adopt: the table's stream is %s; the design's stream handlers read %s: change the stream once adopted", a.Stream, patterns.StreamNewAndOld)
	}
	if p.TableClass != "" && string(p.TableClass) != a.TableClass {
		ps.add("Adopt: TableClass %s: the table's class is %s", p.TableClass, a.TableClass)
	}
	if p.PointInTimeRecovery != nil && *p.PointInTimeRecovery != a.PointInTimeRecovery {
		ps.add("Adopt: PointInTimeRecovery %t: the table has it %s; change it once adopted", *p.PointInTimeRecovery, onOffText(a.PointInTimeRecovery))
	}
	var regions []string
	for _, r := range p.Replicas {
		regions = append(regions, r.Region)
	}
	slices.Sort(regions)
	if !slices.Equal(regions, a.Replicas) {
		ps.add("Adopt: Replicas %v: the table's replicas are %v", regions, a.Replicas)
	}
}

// adopt makes the table's props the adopted table's settings.
func (t *Table) adopt(out *awsdynamodb.TablePropsV2) {
	a := t.Lock.Adopted
	if !t.props.Adopt || a == nil {
		return
	}
	out.RemovalPolicy = awscdk.RemovalPolicy_RETAIN
	out.DeletionProtection = jsii.Bool(true)
	out.DynamoStream = awsdynamodb.StreamViewType(a.Stream)
	out.TableClass = awsdynamodb.TableClass(a.TableClass)
	pitr := &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(a.PointInTimeRecovery)}
	if a.PointInTimeRecovery && t.props.RecoveryPeriodDays > 0 {
		pitr.RecoveryPeriodInDays = jsii.Number(t.props.RecoveryPeriodDays)
	}
	out.PointInTimeRecoverySpecification = pitr
}

func orNoneText(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func onOffText(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
