package singletable

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// The table's settings the model decides (patterns/settings.go,
// patterns/throughput.go): each index's most throughput (the model's
// headroom) and warm throughput (its peaks), multi-Region strong
// consistency, and the resource policy granting the model's principals
// their patterns.

// direction is read or write capacity.
type direction bool

const (
	read  direction = false
	write direction = true
)

// bounds are each index's throughput settings as the model decides them.
type bounds map[string]*patterns.IndexThroughput

// bounds are the settings of each index, from the design that has it: the
// target, or (for one a migration deletes later) the accepted design.
func (t *Table) bounds(d *patterns.Design) bounds {
	out := bounds{}
	for _, c := range []*patterns.Cost{t.Lock.Accepted.Cost, d.Cost} {
		if c == nil {
			continue
		}
		for _, it := range c.Throughput {
			out[it.Name] = it
		}
	}
	return out
}

// most is an index's most request units per second in one direction (0:
// unbounded).
func (b bounds) most(index string, dir direction) float64 {
	it := b[index]
	switch {
	case it == nil:
		return 0
	case dir == write:
		return it.MaxWriteUnits
	}
	return it.MaxReadUnits
}

// warmOf is an index's warm throughput, nil when the model's peaks leave
// DynamoDB's default.
func (b bounds) warmOf(index string) *awsdynamodb.WarmThroughput {
	it := b[index]
	if it == nil || it.WarmReadUnits == 0 && it.WarmWriteUnits == 0 {
		return nil
	}
	return &awsdynamodb.WarmThroughput{ReadUnitsPerSecond: positive(it.WarmReadUnits), WriteUnitsPerSecond: positive(it.WarmWriteUnits)}
}

// warm: the table's and each GSI's warm throughput, from the model's
// peaks.
func (t *Table) warm(d *patterns.Design, out *awsdynamodb.TablePropsV2) {
	b := t.bounds(d)
	out.WarmThroughput = b.warmOf(model.BaseIndex)
	if out.GlobalSecondaryIndexes != nil {
		for _, g := range *out.GlobalSecondaryIndexes {
			g.WarmThroughput = b.warmOf(*g.IndexName)
		}
	}
}

// consistency: multi-Region strong consistency when the model asks for it
// (checkStrong has checked the Regions), with the witness Region.
func (t *Table) consistency(d *patterns.Design, out *awsdynamodb.TablePropsV2) {
	if !d.Model().Strong() {
		return
	}
	out.MultiRegionConsistency = awsdynamodb.MultiRegionConsistency_STRONG
	if w := t.props.WitnessRegion; w != "" {
		out.WitnessRegion = jsii.String(w)
	}
}

// checkStrong: a table the model makes strongly consistent spans three
// Regions of one Region set (the stack's, the replicas', the witness's):
// two replicas, or one and a witness; a witness only then.
func (t *Table) checkStrong(d *patterns.Design, ps *problems) {
	m, p := d.Model(), t.props
	if !m.Strong() {
		if p.WitnessRegion != "" {
			ps.add("WitnessRegion %s: a witness serves a multi-Region strongly consistent table; the model (%s) asks for none (consistency: strong)", p.WitnessRegion, modelName(m))
		}
		return
	}
	at := modelName(m)
	region := awscdk.Stack_Of(t).Region()
	if region == nil || *awscdk.Token_IsUnresolved(region) {
		ps.add("the model (%s) asks for consistency: strong: a multi-Region strongly consistent table needs the stack's region; give the stack an env with Region", at)
		return
	}
	regions := []string{*region}
	for _, r := range p.Replicas {
		regions = append(regions, r.Region)
	}
	if p.WitnessRegion != "" {
		if slices.Contains(regions, p.WitnessRegion) {
			ps.add("WitnessRegion %s: a replica's Region (or the stack's); the witness is a Region of its own", p.WitnessRegion)
		}
		regions = append(regions, p.WitnessRegion)
	}
	want := "two Replicas, or one and a WitnessRegion"
	switch {
	case p.WitnessRegion != "" && len(p.Replicas) != 1:
		ps.add("Replicas: %d, with WitnessRegion %s: a multi-Region strongly consistent table (consistency: strong, %s) spans %d Regions: the stack's, %s", len(p.Replicas), p.WitnessRegion, at, model.StrongRegions, want)
	case p.WitnessRegion == "" && len(p.Replicas) != 2:
		ps.add("Replicas: %d: a multi-Region strongly consistent table (consistency: strong, %s) spans %d Regions: the stack's, %s", len(p.Replicas), at, model.StrongRegions, want)
	}
	set, members, ok := model.StrongRegionSet(*region)
	if !ok {
		ps.add("the stack's region %s: a multi-Region strongly consistent table (consistency: strong, %s) lives in one Region set: %s", *region, at, strongSets())
		return
	}
	for _, r := range regions[1:] {
		if !slices.Contains(members, r) {
			ps.add("Region %s: not in the %s Region set of the stack's region %s (%s); a multi-Region strongly consistent table's Regions all lie in one", r, set, *region, strings.Join(members, ", "))
		}
	}
}

// strongSets lists the Region sets for messages.
func strongSets() string {
	var out []string
	seen := map[string]bool{}
	for _, r := range []string{"us-east-1", "eu-west-1", "ap-northeast-1"} {
		name, members, _ := model.StrongRegionSet(r)
		if !seen[name] {
			seen[name] = true
			out = append(out, name+" ("+strings.Join(members, ", ")+")")
		}
	}
	return strings.Join(out, "; ")
}

// resourcePolicy: the model's principals, each granted its patterns'
// actions on what they use, in the table's resource policy (a principal
// of another account needs no IAM policy of this one). A resource policy
// cannot name its own table (its ARN is not known before it is made), so
// the table's own actions are on "*" (the table and its indexes: only
// Query of them applies to an index), each index's Query on that index's
// ARN, and a principal that may query the table is denied Query on every
// other index.
func (t *Table) resourcePolicy(d *patterns.Design, out *awsdynamodb.TablePropsV2) {
	m := d.Model()
	if len(m.Principals) == 0 {
		return
	}
	deployed := t.monitoredIndexes()
	var statements []awsiam.PolicyStatement
	for _, pr := range m.Principals {
		onTable, onIndex := t.principalActions(pr)
		principal := []awsiam.IPrincipal{principalOf(pr.ARN)}
		allow := func(sid string, actions []string, resources ...string) {
			statements = append(statements, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid: jsii.String(sid), Effect: awsiam.Effect_ALLOW, Principals: &principal,
				Actions: jsii.Strings(actions...), Resources: jsii.Strings(resources...),
			}))
		}
		if len(onTable) > 0 {
			allow(pr.Name+"Table", onTable, "*")
		}
		var queried []string
		for _, ix := range deployed[1:] {
			if actions := onIndex[ix]; len(actions) > 0 {
				allow(pr.Name+strings.NewReplacer(".", "", "-", "", "_", "").Replace(ix), actions, indexARN(ix))
				queried = append(queried, ix)
			}
		}
		var others []string
		for _, ix := range deployed[1:] {
			if !slices.Contains(queried, ix) {
				others = append(others, indexARN(ix))
			}
		}
		if slices.Contains(onTable, "dynamodb:Query") && len(others) > 0 {
			statements = append(statements, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid: jsii.String(pr.Name + "OtherIndexes"), Effect: awsiam.Effect_DENY, Principals: &principal,
				Actions: jsii.Strings("dynamodb:Query"), Resources: jsii.Strings(others...),
			}))
		}
	}
	out.ResourcePolicy = awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &statements})
}

// principalActions are a principal's actions on the table and on each
// GSI (every design's plan during a migration, as GrantPatterns grants).
func (t *Table) principalActions(pr *model.Principal) (onTable []string, onIndex map[string][]string) {
	onIndex = map[string][]string{}
	add := func(list []string, actions ...string) []string {
		for _, a := range actions {
			if !slices.Contains(list, a) {
				list = append(list, a)
			}
		}
		return list
	}
	for _, name := range pr.Patterns {
		a, err := t.Lock.Access(name)
		if err != nil {
			t.problems = append(t.problems, fmt.Sprintf("principals.%s: %v", pr.Name, err))
			continue
		}
		onTable = add(onTable, a.Writes...)
		for _, ix := range a.Indexes {
			if ix == model.BaseIndex {
				onTable = add(onTable, a.Actions...)
			} else {
				onIndex[ix] = add(onIndex[ix], a.Actions...)
			}
		}
	}
	slices.Sort(onTable)
	for ix := range onIndex {
		slices.Sort(onIndex[ix])
	}
	return onTable, onIndex
}

// principalOf is a principal of the model: a 12-digit account is its
// root (in the stack's partition).
func principalOf(arn string) awsiam.IPrincipal {
	if len(arn) == 12 && strings.Trim(arn, "0123456789") == "" {
		return awsiam.NewAccountPrincipal(jsii.String(arn))
	}
	return awsiam.NewArnPrincipal(jsii.String(arn))
}

// indexARN is a GSI's ARN in the policy of its table, whatever the
// table's name and Region (each replica holds the policy).
func indexARN(index string) string {
	return "arn:" + *awscdk.Aws_PARTITION() + ":dynamodb:*:" + *awscdk.Aws_ACCOUNT_ID() + ":table/*/index/" + index
}
