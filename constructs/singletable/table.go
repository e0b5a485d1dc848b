package singletable

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
)

// TableNameEnv is the environment variable that carries the table's name
// to application code and stream handlers.
const TableNameEnv = patterns.TableNameEnv

// Table is a DynamoDB global table (CDK TableV2) synthesized from a
// keyplan design: keys, overloaded GSIs with their projections, TTL.
type Table struct {
	constructs.Construct
	// Table is the synthesized table; nil when the model could not be
	// used (synthesis then fails with the reason).
	Table awsdynamodb.TableV2
	// Design is the plan the table was built from; nil with Table.
	Design *patterns.Design
	// Handlers are the stream handlers the model called for, by name
	// (Fanout, Counters, Archive).
	Handlers map[string]*Handler

	props    Props
	problems []string
}

// New builds the table described by props. Every problem with the props,
// the model or the design's checks is collected and fails synthesis once,
// naming each (rule id, model file:line); warnings become CDK warnings,
// which `cdk synth --strict` fails on.
func New(scope constructs.Construct, id string, props *Props) *Table {
	t := &Table{}
	constructs.NewConstruct_Override(t, scope, jsii.String(id))
	if props != nil {
		t.props = *props
	}
	t.Node().AddValidation(&validation{t})
	m, err := t.model()
	if err != nil {
		t.fail(err)
		return t
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.fail(err)
		return t
	}
	t.Design = d
	t.annotate(d.Diagnostics)
	props2, problems := t.tableProps(d)
	t.problems = append(t.problems, problems...)
	if len(problems) > 0 {
		return t
	}
	t.Table = awsdynamodb.NewTableV2(t, jsii.String("Table"), props2)
	t.addHandlers(d)
	return t
}

func (t *Table) model() (*patterns.Model, error) {
	switch {
	case t.props.Model != nil:
		return t.props.Model, nil
	case t.props.ModelFile != "":
		return patterns.Load(t.props.ModelFile)
	}
	return nil, errors.New("singletable: Props.Model or Props.ModelFile is required")
}

// fail records every joined error as its own problem.
func (t *Table) fail(err error) {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		for _, e := range joined.Unwrap() {
			t.problems = append(t.problems, e.Error())
		}
		return
	}
	t.problems = append(t.problems, err.Error())
}

// validation reports the collected problems when the construct tree is
// validated, before synthesis.
type validation struct{ t *Table }

func (v *validation) Validate() *[]*string {
	out := make([]*string, 0, len(v.t.problems))
	for _, p := range v.t.problems {
		out = append(out, jsii.String(p))
	}
	return &out
}

// annotate turns check errors into problems and warnings into CDK
// warnings, unless acknowledged.
func (t *Table) annotate(ds []patterns.Diagnostic) {
	used := map[string]bool{}
	for _, d := range ds {
		if d.Severity == patterns.SeverityError {
			t.problems = append(t.problems, d.String())
			continue
		}
		name := d.Subject[strings.LastIndex(d.Subject, " ")+1:]
		reason, ok := t.props.Acknowledge[d.ID+":"+name]
		key := d.ID + ":" + name
		if !ok {
			reason, ok = t.props.Acknowledge[d.ID]
			key = d.ID
		}
		id := jsii.String("keyplan:" + d.ID + ":" + name)
		awscdk.Annotations_Of(t).AddWarningV2(id, jsii.String(d.String()))
		if ok {
			used[key] = true
			awscdk.Annotations_Of(t).AcknowledgeWarning(id, jsii.String(reason))
		}
	}
	var stale []string
	for key, reason := range t.props.Acknowledge {
		if strings.TrimSpace(reason) == "" {
			t.problems = append(t.problems, fmt.Sprintf("Acknowledge[%q]: give the reason the warning is accepted", key))
		}
		if !used[key] {
			stale = append(stale, key)
		}
	}
	sort.Strings(stale)
	for _, key := range stale {
		t.problems = append(t.problems, fmt.Sprintf("Acknowledge[%q] matches no warning of this design; remove it", key))
	}
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// tableProps translates the design and props into TableV2 props,
// collecting every props problem.
func (t *Table) tableProps(d *patterns.Design) (*awsdynamodb.TablePropsV2, []string) {
	p := t.props
	var problems []string
	str := func(name string) *awsdynamodb.Attribute {
		return &awsdynamodb.Attribute{Name: jsii.String(name), Type: awsdynamodb.AttributeType_STRING}
	}
	pitr := &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(boolOr(p.PointInTimeRecovery, true))}
	if *pitr.PointInTimeRecoveryEnabled {
		days := p.RecoveryPeriodDays
		if days == 0 {
			days = 35
		}
		if days < 1 || days > 35 {
			problems = append(problems, fmt.Sprintf("RecoveryPeriodDays %v: expected 1 to 35", p.RecoveryPeriodDays))
		}
		pitr.RecoveryPeriodInDays = jsii.Number(days)
	}
	protect := jsii.Bool(boolOr(p.DeletionProtection, true))
	var insights *awsdynamodb.ContributorInsightsSpecification
	if p.ContributorInsights {
		insights = &awsdynamodb.ContributorInsightsSpecification{Enabled: jsii.Bool(true)}
	}
	tags := t.tags()
	out := &awsdynamodb.TablePropsV2{
		PartitionKey:                     str(d.PK),
		SortKey:                          str(d.SK),
		PointInTimeRecoverySpecification: pitr,
		DeletionProtection:               protect,
		RemovalPolicy:                    p.RemovalPolicy,
		ContributorInsightsSpecification: insights,
		TableClass:                       p.TableClass,
		Tags:                             tags,
	}
	if out.RemovalPolicy == "" {
		out.RemovalPolicy = awscdk.RemovalPolicy_RETAIN
	}
	if p.TableName != "" {
		if !validName(p.TableName) {
			problems = append(problems, fmt.Sprintf("TableName %q: expected 3-255 characters of [a-zA-Z0-9_.-]", p.TableName))
		}
		out.TableName = jsii.String(p.TableName)
	}
	if d.TTL != "" {
		out.TimeToLiveAttribute = jsii.String(d.TTL)
	}
	billing, capacity, bp := t.billing(d)
	problems = append(problems, bp...)
	out.Billing = billing
	var gsis []*awsdynamodb.GlobalSecondaryIndexPropsV2
	for _, ix := range d.Indexes {
		g := &awsdynamodb.GlobalSecondaryIndexPropsV2{
			IndexName:      jsii.String(ix.Name),
			PartitionKey:   str(ix.PK),
			SortKey:        str(ix.SK),
			ProjectionType: awsdynamodb.ProjectionType(ix.Projection),
		}
		if len(ix.NonKeyAttributes) > 0 {
			g.NonKeyAttributes = jsii.Strings(ix.NonKeyAttributes...)
		}
		if c, ok := capacity[ix.Name]; ok {
			g.ReadCapacity, g.WriteCapacity = c[0], c[1]
		}
		gsis = append(gsis, g)
	}
	if len(gsis) > 0 {
		out.GlobalSecondaryIndexes = &gsis
	}
	enc, ep := t.encryption()
	problems = append(problems, ep...)
	out.Encryption = enc
	seen := map[string]bool{}
	var replicas []*awsdynamodb.ReplicaTableProps
	for i, r := range p.Replicas {
		switch {
		case r.Region == "":
			problems = append(problems, fmt.Sprintf("Replicas[%d].Region: expected a region such as eu-west-1", i))
			continue
		case seen[r.Region]:
			problems = append(problems, fmt.Sprintf("Replicas[%d].Region: %s is listed twice", i, r.Region))
			continue
		}
		seen[r.Region] = true
		if p.Encryption != nil && p.Encryption.Kind == CustomerManaged && r.KeyArn == "" {
			problems = append(problems, fmt.Sprintf("Replicas[%d].KeyArn: a customer managed table needs a key for replica %s", i, r.Region))
		}
		rp := &awsdynamodb.ReplicaTableProps{
			Region:                           jsii.String(r.Region),
			PointInTimeRecoverySpecification: pitr,
			DeletionProtection:               protect,
			ContributorInsightsSpecification: insights,
			Tags:                             tags,
		}
		replicas = append(replicas, rp)
	}
	if len(replicas) > 0 {
		out.Replicas = &replicas
	}
	if len(p.Replicas) > 0 {
		region := awscdk.Stack_Of(t).Region()
		if region == nil || *awscdk.Token_IsUnresolved(region) {
			problems = append(problems, "Replicas need the stack's region: give the stack an env with Region")
		} else if seen[*region] {
			problems = append(problems, fmt.Sprintf("Replicas: %s is the stack's own region", *region))
		}
	}
	handlers := (p.StreamHandlers == nil || !p.StreamHandlers.Disabled) && len(neededHandlers(d.Model())) > 0
	stream := p.Stream
	if stream == "" && (len(p.Replicas) > 0 || handlers) {
		stream = awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES
	}
	if len(p.Replicas) > 0 && stream != awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES {
		problems = append(problems, fmt.Sprintf("Stream %s: a table with replicas streams NEW_AND_OLD_IMAGES", stream))
	} else if handlers && stream != awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES {
		problems = append(problems, fmt.Sprintf("Stream %s: the stream handlers read NEW_AND_OLD_IMAGES", stream))
	}
	out.DynamoStream = stream
	return out, problems
}

func validName(s string) bool {
	if len(s) < 3 || len(s) > 255 {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == ""
}

func (t *Table) tags() *[]*awscdk.CfnTag {
	if len(t.props.Tags) == 0 {
		return nil
	}
	keys := make([]string, 0, len(t.props.Tags))
	for k := range t.props.Tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*awscdk.CfnTag, 0, len(keys))
	for _, k := range keys {
		out = append(out, &awscdk.CfnTag{Key: jsii.String(k), Value: jsii.String(t.props.Tags[k])})
	}
	return &out
}

func (t *Table) encryption() (awsdynamodb.TableEncryptionV2, []string) {
	e := t.props.Encryption
	if e == nil {
		return awsdynamodb.TableEncryptionV2_DynamoOwnedKey(), nil
	}
	switch e.Kind {
	case AWSOwned, "":
		return awsdynamodb.TableEncryptionV2_DynamoOwnedKey(), nil
	case AWSManaged:
		return awsdynamodb.TableEncryptionV2_AwsManagedKey(), nil
	case CustomerManaged:
		if e.Key == nil {
			return nil, []string{"Encryption.Key: a customer managed table needs a KMS key in the stack's region"}
		}
		keys := map[string]*string{}
		for _, r := range t.props.Replicas {
			if r.KeyArn != "" {
				keys[r.Region] = jsii.String(r.KeyArn)
			}
		}
		return awsdynamodb.TableEncryptionV2_CustomerManagedKey(e.Key, &keys), nil
	}
	return nil, []string{fmt.Sprintf("Encryption.Kind %q: expected %s, %s or %s", e.Kind, AWSOwned, AWSManaged, CustomerManaged)}
}

// billing returns the table's billing and, when provisioned, each GSI's
// read and write capacity, sized from the design's cost estimate unless
// given.
func (t *Table) billing(d *patterns.Design) (awsdynamodb.Billing, map[string][2]awsdynamodb.Capacity, []string) {
	b := t.props.Billing
	if b == nil || b.Mode == OnDemand || b.Mode == "" {
		if b != nil && len(b.Indexes) > 0 {
			return awsdynamodb.Billing_OnDemand(nil), nil, []string{"Billing.Indexes: per-index capacity applies to Provisioned billing"}
		}
		return awsdynamodb.Billing_OnDemand(nil), nil, nil
	}
	if b.Mode != Provisioned {
		return nil, nil, []string{fmt.Sprintf("Billing.Mode %q: expected %q or %q", b.Mode, OnDemand, Provisioned)}
	}
	var problems []string
	load := map[string]*patterns.IndexLoad{}
	for _, l := range d.Cost.Indexes {
		load[l.Name] = l
	}
	// Check every dimension before creating any CDK capacity: CDK throws
	// on bad values, and problems must fail synthesis all at once instead.
	scaled := func(where string, s Scaling, units float64) *awsdynamodb.AutoscaledCapacityOptions {
		target := s.TargetUtilization
		if target == 0 {
			target = DefaultTargetUtilization
		}
		if target < 20 || target > 90 {
			problems = append(problems, fmt.Sprintf("%s.TargetUtilization %v: expected 20 to 90 (percent)", where, target))
		}
		lo := s.Min
		if lo == 0 {
			lo = math.Max(1, math.Ceil(units*100/target))
		}
		hi := s.Max
		if hi == 0 {
			hi = math.Max(10, 10*lo)
		}
		if lo < 1 || hi < lo {
			problems = append(problems, fmt.Sprintf("%s: expected 1 <= Min <= Max, got Min %v, Max %v", where, lo, hi))
		}
		return &awsdynamodb.AutoscaledCapacityOptions{
			MinCapacity: jsii.Number(lo), MaxCapacity: jsii.Number(hi), TargetUtilizationPercent: jsii.Number(target),
		}
	}
	table := load[patterns.Table]
	read := scaled("Billing.Read", b.Read, table.ReadUnits)
	write := scaled("Billing.Write", b.Write, table.WriteUnits)
	indexes := map[string][2]*awsdynamodb.AutoscaledCapacityOptions{}
	for _, ix := range d.Indexes {
		s, ok := b.Indexes[ix.Name]
		if !ok {
			s = IndexScaling{Read: Scaling{TargetUtilization: b.Read.TargetUtilization}, Write: Scaling{TargetUtilization: b.Write.TargetUtilization}}
		}
		l := load[ix.Name]
		indexes[ix.Name] = [2]*awsdynamodb.AutoscaledCapacityOptions{
			scaled("Billing.Indexes["+ix.Name+"].Read", s.Read, l.ReadUnits),
			scaled("Billing.Indexes["+ix.Name+"].Write", s.Write, l.WriteUnits),
		}
	}
	var names []string
	for name := range b.Indexes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if d.Index(name) == nil {
			problems = append(problems, fmt.Sprintf("Billing.Indexes[%q]: the design has no such GSI", name))
		}
	}
	if len(problems) > 0 {
		return nil, nil, problems
	}
	billing := awsdynamodb.Billing_Provisioned(&awsdynamodb.ThroughputProps{
		ReadCapacity:  awsdynamodb.Capacity_Autoscaled(read),
		WriteCapacity: awsdynamodb.Capacity_Autoscaled(write),
	})
	capacity := map[string][2]awsdynamodb.Capacity{}
	for name, o := range indexes {
		capacity[name] = [2]awsdynamodb.Capacity{awsdynamodb.Capacity_Autoscaled(o[0]), awsdynamodb.Capacity_Autoscaled(o[1])}
	}
	return billing, capacity, nil
}

// built reports whether there is a table to grant on.
func (t *Table) built() bool { return t.Table != nil && t.Design != nil }

// Environment returns the variables application code needs: the table's
// name under TableNameEnv.
func (t *Table) Environment() map[string]*string {
	if !t.built() {
		return map[string]*string{}
	}
	return map[string]*string{TableNameEnv: t.Table.TableName()}
}

// GrantReadData grants every read action on the table and its indexes.
func (t *Table) GrantReadData(grantee awsiam.IGrantable) awsiam.Grant {
	if !t.built() {
		return nil
	}
	return t.Table.GrantReadData(grantee)
}

// GrantWriteData grants every write action on the table.
func (t *Table) GrantWriteData(grantee awsiam.IGrantable) awsiam.Grant {
	if !t.built() {
		return nil
	}
	return t.Table.GrantWriteData(grantee)
}

// GrantStreamRead grants reading the table's stream.
func (t *Table) GrantStreamRead(grantee awsiam.IGrantable) awsiam.Grant {
	if !t.built() {
		return nil
	}
	return t.Table.GrantStreamRead(grantee)
}
