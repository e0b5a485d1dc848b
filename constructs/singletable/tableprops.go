package singletable

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// tableProps translates the design and the props into TableV2 props, one
// concern at a time. The props were checked first (checkProps,
// checkWithDesign: propcheck.go): it is called only when they hold, and
// reports nothing.
func (t *Table) tableProps(d *patterns.Design) *awsdynamodb.TablePropsV2 {
	out := &awsdynamodb.TablePropsV2{}
	t.keys(d, out)
	t.protection(out)
	if name := t.props.TableName; name != "" {
		out.TableName = jsii.String(name)
	}
	t.billing(d, out)
	t.warm(d, out)
	t.encryption(out)
	t.replicas(d, out)
	t.stream(d, out)
	t.consistency(d, out)
	t.resourcePolicy(d, out)
	t.adopt(out)
	return out
}

func str(name string) *awsdynamodb.Attribute {
	return &awsdynamodb.Attribute{Name: jsii.String(name), Type: awsdynamodb.AttributeType_STRING}
}

// nativeAttrs are a native GSI's key attributes with their DynamoDB
// types (the CDK writes the AttributeDefinitions from them); nil for none.
func nativeAttrs(ix *patterns.PhaseIndex, names []string) *[]*awsdynamodb.Attribute {
	if len(names) == 0 {
		return nil
	}
	types := map[string]awsdynamodb.AttributeType{"S": awsdynamodb.AttributeType_STRING, "N": awsdynamodb.AttributeType_NUMBER, "B": awsdynamodb.AttributeType_BINARY}
	out := make([]*awsdynamodb.Attribute, len(names))
	for i, n := range names {
		out[i] = &awsdynamodb.Attribute{Name: jsii.String(n), Type: types[ix.KeyTypes[n]]}
	}
	return &out
}

// keys: the planned base key, and the GSIs (with their projections) and
// TTL of the lock's current phase: during a migration one deploy creates
// or deletes at most one GSI, and never changes one in place.
func (t *Table) keys(d *patterns.Design, out *awsdynamodb.TablePropsV2) {
	out.PartitionKey, out.SortKey = str(d.PK), str(d.SK)
	indexes, ttl := t.Lock.Deployed()
	if ttl != "" {
		out.TimeToLiveAttribute = jsii.String(ttl)
	}
	var gsis []*awsdynamodb.GlobalSecondaryIndexPropsV2
	for _, ix := range indexes {
		g := &awsdynamodb.GlobalSecondaryIndexPropsV2{
			IndexName:      jsii.String(ix.Name),
			ProjectionType: awsdynamodb.ProjectionType(ix.Projection),
		}
		if len(ix.PartitionKeys) > 0 {
			// Native: keyed on the items' own typed attributes.
			g.PartitionKeys, g.SortKeys = nativeAttrs(ix, ix.PartitionKeys), nativeAttrs(ix, ix.SortKeys)
		} else {
			g.PartitionKey, g.SortKey = str(ix.PK), str(ix.SK)
		}
		if len(ix.NonKeyAttributes) > 0 {
			g.NonKeyAttributes = jsii.Strings(ix.NonKeyAttributes...)
		}
		gsis = append(gsis, g)
	}
	if len(gsis) > 0 {
		out.GlobalSecondaryIndexes = &gsis
	}
	out.LocalSecondaryIndexes = localIndexes(t.Lock.Accepted)
}

// localIndexes are the lock's LSIs: the table's partition key, their own
// sort key, their projections. They are the accepted design's in every
// phase (an LSI exists from the table's creation: keyplan diff refuses a
// change to one, KP623), so a deploy never asks CloudFormation to replace
// the table.
func localIndexes(d *patterns.Design) *[]*awsdynamodb.LocalSecondaryIndexProps {
	if len(d.LocalIndexes) == 0 {
		return nil
	}
	var out []*awsdynamodb.LocalSecondaryIndexProps
	for _, ix := range d.LocalIndexes {
		l := &awsdynamodb.LocalSecondaryIndexProps{
			IndexName:      jsii.String(ix.Name),
			SortKey:        str(ix.SK),
			ProjectionType: awsdynamodb.ProjectionType(ix.Projection),
		}
		if len(ix.NonKeyAttributes) > 0 {
			l.NonKeyAttributes = jsii.Strings(ix.NonKeyAttributes...)
		}
		out = append(out, l)
	}
	return &out
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// protection: point-in-time recovery, deletion protection, removal
// policy, contributor insights, table class and tags (the replicas take
// the same; see replicas).
func (t *Table) protection(out *awsdynamodb.TablePropsV2) {
	p := t.props
	pitr := &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(boolOr(p.PointInTimeRecovery, true))}
	if *pitr.PointInTimeRecoveryEnabled {
		days := p.RecoveryPeriodDays
		if days == 0 {
			days = MaxRecoveryPeriodDays
		}
		pitr.RecoveryPeriodInDays = jsii.Number(days)
	}
	out.PointInTimeRecoverySpecification = pitr
	out.DeletionProtection = jsii.Bool(boolOr(p.DeletionProtection, true))
	out.RemovalPolicy = p.RemovalPolicy
	if out.RemovalPolicy == "" {
		out.RemovalPolicy = awscdk.RemovalPolicy_RETAIN
	}
	if p.ContributorInsights {
		out.ContributorInsightsSpecification = &awsdynamodb.ContributorInsightsSpecification{Enabled: jsii.Bool(true)}
	}
	out.TableClass = p.TableClass
	out.Tags = t.tags()
}

func (t *Table) tags() *[]*awscdk.CfnTag {
	if len(t.props.Tags) == 0 {
		return nil
	}
	out := make([]*awscdk.CfnTag, 0, len(t.props.Tags))
	for _, k := range slices.Sorted(maps.Keys(t.props.Tags)) {
		out = append(out, &awscdk.CfnTag{Key: jsii.String(k), Value: jsii.String(t.props.Tags[k])})
	}
	return &out
}

// encryption: an AWS owned, AWS managed or customer managed key (one per
// replica region).
func (t *Table) encryption(out *awsdynamodb.TablePropsV2) {
	switch e := t.props.Encryption; {
	case e == nil || e.Kind == AWSOwned || e.Kind == "":
		out.Encryption = awsdynamodb.TableEncryptionV2_DynamoOwnedKey()
	case e.Kind == AWSManaged:
		out.Encryption = awsdynamodb.TableEncryptionV2_AwsManagedKey()
	default:
		keys := map[string]*string{}
		for _, r := range t.props.Replicas {
			if r.KeyArn != "" {
				keys[r.Region] = jsii.String(r.KeyArn)
			}
		}
		out.Encryption = awsdynamodb.TableEncryptionV2_CustomerManagedKey(e.Key, &keys)
	}
}

// replicas: the global table's other regions, each protected like the
// table, each with its own read capacity when given; the estimate with
// every region's cost goes into the cloud assembly as an info annotation.
func (t *Table) replicas(d *patterns.Design, out *awsdynamodb.TablePropsV2) {
	if len(t.props.Replicas) == 0 {
		return
	}
	var replicas []*awsdynamodb.ReplicaTableProps
	var reads []patterns.ReplicaReads
	for _, r := range t.props.Replicas {
		rp := &awsdynamodb.ReplicaTableProps{
			Region:                           jsii.String(r.Region),
			PointInTimeRecoverySpecification: out.PointInTimeRecoverySpecification,
			DeletionProtection:               out.DeletionProtection,
			ContributorInsightsSpecification: out.ContributorInsightsSpecification,
			Tags:                             out.Tags,
		}
		reads = append(reads, t.replicaReads(d, r, rp))
		replicas = append(replicas, rp)
	}
	out.Replicas = &replicas
	g := d.Cost.Global(reads)
	awscdk.Annotations_Of(t).AddInfo(jsii.String(fmt.Sprintf(
		"estimate with %s: %.1f replicated write units/s; on-demand $%.2f/month, provisioned $%.2f/month, all regions",
		g.Summary(), g.ReplicatedWriteUnits, g.OnDemand, g.Provisioned)))
}

// readLoad is the design's read units per index, by name.
func readLoad(d *patterns.Design) map[string]float64 {
	load := map[string]float64{}
	for _, l := range d.Cost.Indexes {
		load[l.Name] = l.ReadUnits
	}
	return load
}

// replicaReads sets one replica's own read capacity (Replica.Read,
// Replica.Indexes) and returns what it provisions, for the estimate.
func (t *Table) replicaReads(d *patterns.Design, r Replica, rp *awsdynamodb.ReplicaTableProps) patterns.ReplicaReads {
	rr := patterns.ReplicaReads{Region: r.Region, Read: map[string]float64{}}
	if !t.provisioned() {
		return rr
	}
	load, bounds := readLoad(d), t.bounds(d)
	if r.Read != nil {
		o := scaled(*r.Read, load[model.BaseIndex], bounds.most(model.BaseIndex, read))
		rp.ReadCapacity = awsdynamodb.Capacity_Autoscaled(o)
		rr.Read[model.BaseIndex] = *o.MinCapacity
	}
	gsis := map[string]*awsdynamodb.ReplicaGlobalSecondaryIndexOptions{}
	for _, name := range slices.Sorted(maps.Keys(r.Indexes)) {
		o := scaled(r.Indexes[name], load[name], bounds.most(name, read))
		gsis[name] = &awsdynamodb.ReplicaGlobalSecondaryIndexOptions{ReadCapacity: awsdynamodb.Capacity_Autoscaled(o)}
		rr.Read[name] = *o.MinCapacity
	}
	if len(gsis) > 0 {
		rp.GlobalSecondaryIndexOptions = &gsis
	}
	return rr
}

// stream: NEW_AND_OLD_IMAGES when replicas or stream handlers need it.
func (t *Table) stream(d *patterns.Design, out *awsdynamodb.TablePropsV2) {
	p := t.props
	handlers := (p.StreamHandlers == nil || !p.StreamHandlers.Disabled) && len(d.Handlers()) > 0
	out.DynamoStream = p.Stream
	if p.Stream == "" && (len(p.Replicas) > 0 || handlers) {
		out.DynamoStream = awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES
	}
}

// load is each index's estimate, from the design that has it: the
// target, or (for one a migration deletes later) the accepted design.
func (t *Table) load(d *patterns.Design) map[string]*patterns.IndexLoad {
	load := map[string]*patterns.IndexLoad{}
	for _, c := range []*patterns.Cost{t.Lock.Accepted.Cost, d.Cost} {
		for _, l := range c.Indexes {
			load[l.Name] = l
		}
	}
	return load
}

// indexScaling is a GSI's scaling: Billing.Indexes's, else the table's
// target (sized from the index's own estimate).
func (t *Table) indexScaling(name string) IndexScaling {
	b := t.props.Billing
	if s, ok := b.Indexes[name]; ok {
		return s
	}
	return IndexScaling{Read: Scaling{TargetUtilization: b.Read.TargetUtilization}, Write: Scaling{TargetUtilization: b.Write.TargetUtilization}}
}

// billing: on-demand, with the most request units the model's headroom
// decides per index (none without one), or provisioned with
// target-tracking auto-scaling for the table and each GSI, sized from
// the design's cost estimate (and its most capacity by the headroom)
// unless given.
func (t *Table) billing(d *patterns.Design, out *awsdynamodb.TablePropsV2) {
	bounds := t.bounds(d)
	if !t.provisioned() {
		var most *awsdynamodb.MaxThroughputProps
		if r, w := bounds.most(model.BaseIndex, read), bounds.most(model.BaseIndex, write); r > 0 || w > 0 {
			most = &awsdynamodb.MaxThroughputProps{MaxReadRequestUnits: positive(r), MaxWriteRequestUnits: positive(w)}
		}
		out.Billing = awsdynamodb.Billing_OnDemand(most)
		if out.GlobalSecondaryIndexes != nil {
			for _, g := range *out.GlobalSecondaryIndexes {
				g.MaxReadRequestUnits = positive(bounds.most(*g.IndexName, read))
				g.MaxWriteRequestUnits = positive(bounds.most(*g.IndexName, write))
			}
		}
		return
	}
	b, load := t.props.Billing, t.load(d)
	table := load[model.BaseIndex]
	out.Billing = awsdynamodb.Billing_Provisioned(&awsdynamodb.ThroughputProps{
		ReadCapacity:  awsdynamodb.Capacity_Autoscaled(scaled(b.Read, table.ReadUnits, bounds.most(model.BaseIndex, read))),
		WriteCapacity: awsdynamodb.Capacity_Autoscaled(scaled(b.Write, table.WriteUnits, bounds.most(model.BaseIndex, write))),
	})
	if out.GlobalSecondaryIndexes != nil {
		for _, g := range *out.GlobalSecondaryIndexes {
			s, l := t.indexScaling(*g.IndexName), load[*g.IndexName]
			if l == nil {
				l = &patterns.IndexLoad{}
			}
			g.ReadCapacity = awsdynamodb.Capacity_Autoscaled(scaled(s.Read, l.ReadUnits, bounds.most(*g.IndexName, read)))
			g.WriteCapacity = awsdynamodb.Capacity_Autoscaled(scaled(s.Write, l.WriteUnits, bounds.most(*g.IndexName, write)))
		}
	}
}

// positive is x for jsii, nil for 0 (not set).
func positive(x float64) *float64 {
	if x <= 0 {
		return nil
	}
	return jsii.Number(x)
}

// capacity is one dimension's auto-scaling with its defaults: the target
// DefaultTargetUtilization, Min the estimate at the target (at least 1),
// Max the most the model's headroom allows (most; at least Min), or
// without one 10 × Min (at least 10).
func capacity(s Scaling, units, most float64) (lo, hi, target float64) {
	target = s.TargetUtilization
	if target == 0 {
		target = DefaultTargetUtilization
	}
	lo = s.Min
	if lo == 0 {
		lo = patterns.CapacityAt(units, target)
	}
	hi = s.Max
	switch {
	case hi == 0 && most > 0:
		hi = math.Max(lo, most)
	case hi == 0:
		hi = math.Max(10, 10*lo)
	}
	return lo, hi, target
}

// scaled is one dimension's auto-scaling, for CDK (capacity).
func scaled(s Scaling, units, most float64) *awsdynamodb.AutoscaledCapacityOptions {
	lo, hi, target := capacity(s, units, most)
	return &awsdynamodb.AutoscaledCapacityOptions{
		MinCapacity: jsii.Number(lo), MaxCapacity: jsii.Number(hi), TargetUtilizationPercent: jsii.Number(target),
	}
}
