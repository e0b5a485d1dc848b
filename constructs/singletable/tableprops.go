package singletable

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
)

// Limits on props, as DynamoDB, Application Auto Scaling and Lambda
// define them.
const (
	// MinRecoveryPeriodDays and MaxRecoveryPeriodDays bound how far back
	// point-in-time recovery reaches.
	MinRecoveryPeriodDays = 1
	MaxRecoveryPeriodDays = 35
	// MinTargetUtilization and MaxTargetUtilization bound the auto-scaling
	// target, in percent.
	MinTargetUtilization = 20
	MaxTargetUtilization = 90
	// MinParallelization and MaxParallelization bound a stream event
	// source mapping's concurrent batches per shard.
	MinParallelization = 1
	MaxParallelization = 10
	// MaxTags, MaxTagKeyLength and MaxTagValueLength bound a table's tags
	// (DynamoDB's tagging restrictions: lengths in Unicode characters; a
	// key is at least one character, a value may be empty).
	MaxTags           = 50
	MaxTagKeyLength   = 128
	MaxTagValueLength = 256
	// ReservedTagPrefix starts the tags AWS assigns; a user's tag key may
	// not start with it, in any case.
	ReservedTagPrefix = "aws:"
)

// problems collects props problems, each naming its prop.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// tableProps translates the design and props into TableV2 props, one
// concern at a time, collecting every props problem.
func (t *Table) tableProps(d *patterns.Design) (*awsdynamodb.TablePropsV2, []string) {
	var ps problems
	t.numbers(&ps)
	t.checkTags(&ps)
	out := &awsdynamodb.TablePropsV2{}
	t.keys(d, out)
	t.protection(out, &ps)
	t.naming(out, &ps)
	t.billing(d, out, &ps)
	t.encryption(out, &ps)
	t.replicas(d, out, &ps)
	t.stream(d, out, &ps)
	return out, ps
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
func (t *Table) protection(out *awsdynamodb.TablePropsV2, ps *problems) {
	p := t.props
	pitr := &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(boolOr(p.PointInTimeRecovery, true))}
	if *pitr.PointInTimeRecoveryEnabled {
		days := p.RecoveryPeriodDays
		if days == 0 {
			days = MaxRecoveryPeriodDays
		}
		if finite(days) && (days < MinRecoveryPeriodDays || days > MaxRecoveryPeriodDays || days != math.Trunc(days)) {
			ps.add("RecoveryPeriodDays %v: expected a whole number of days, %d to %d", p.RecoveryPeriodDays, MinRecoveryPeriodDays, MaxRecoveryPeriodDays)
		}
		pitr.RecoveryPeriodInDays = jsii.Number(days)
	} else if p.RecoveryPeriodDays != 0 {
		ps.add("RecoveryPeriodDays %v: point-in-time recovery is off (PointInTimeRecovery false), so no period applies; remove one of them", p.RecoveryPeriodDays)
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

// naming: a fixed physical name, when asked for.
func (t *Table) naming(out *awsdynamodb.TablePropsV2, ps *problems) {
	if name := t.props.TableName; name != "" {
		if !patterns.ValidTableName(name) {
			ps.add("TableName %q: expected 3-255 characters of [a-zA-Z0-9_.-]", name)
		}
		out.TableName = jsii.String(name)
	}
}

// checkTags refuses the tags DynamoDB would: more than MaxTags, an empty
// or over-long key, an over-long value, a key starting with aws: (in any
// case), a character outside letters, digits, white space and + - = . _ :
// / @.
func (t *Table) checkTags(ps *problems) {
	tags := t.props.Tags
	if len(tags) > MaxTags {
		ps.add("Tags: %d tags, expected at most %d per table", len(tags), MaxTags)
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		v := tags[k]
		switch n := utf8.RuneCountInString(k); {
		case n == 0:
			ps.add("Tags: an empty key (value %q): expected 1 to %d characters", v, MaxTagKeyLength)
		case n > MaxTagKeyLength:
			ps.add("Tags[%q]: the key is %d characters, expected at most %d", k, n, MaxTagKeyLength)
		}
		if strings.HasPrefix(strings.ToLower(k), ReservedTagPrefix) {
			ps.add("Tags[%q]: keys starting with %s are reserved for AWS", k, ReservedTagPrefix)
		}
		if n := utf8.RuneCountInString(v); n > MaxTagValueLength {
			ps.add("Tags[%q]: the value is %d characters, expected at most %d", k, n, MaxTagValueLength)
		}
		for what, s := range map[string]string{"key": k, "value": v} {
			if i := strings.IndexFunc(s, func(r rune) bool { return !tagRune(r) }); i >= 0 {
				r, _ := utf8.DecodeRuneInString(s[i:])
				ps.add("Tags[%q]: the %s holds %q: expected letters, digits, white space and + - = . _ : / @", k, what, r)
			}
		}
	}
}

// tagRune reports whether r may be in a tag's key or value.
func tagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || strings.ContainsRune("+-=._:/@", r)
}

// finite reports whether x is a number jsii can carry (not NaN, not ±Inf).
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// numbers refuses NaN and infinite numbers in the numeric props, naming
// each, before anything reaches jsii: JSON cannot carry them, and a jsii
// call that tries panics and leaves the jsii runtime dead for the rest of
// the app. The range checks that follow skip them (one problem each).
// Scaling's numbers are scaled's to check, where each is used.
func (t *Table) numbers(ps *problems) {
	p := t.props
	num := func(name string, x float64) {
		if !finite(x) {
			ps.add("%s %v: expected a finite number", name, x)
		}
	}
	handler := func(name string, o HandlerOptions) {
		num(name+".BatchSize", o.BatchSize)
		num(name+".RetryAttempts", o.RetryAttempts)
		num(name+".ParallelizationFactor", o.ParallelizationFactor)
		num(name+".ReservedConcurrency", o.ReservedConcurrency)
		num(name+".MemorySize", o.MemorySize)
	}
	num("RecoveryPeriodDays", p.RecoveryPeriodDays)
	if sh := p.StreamHandlers; sh != nil {
		handler("StreamHandlers.Defaults", sh.Defaults)
		for _, h := range slices.Sorted(maps.Keys(sh.Handlers)) {
			handler(fmt.Sprintf("StreamHandlers.Handlers[%q]", h), sh.Handlers[h])
		}
	}
	if b := p.Backfill; b != nil {
		num("Backfill.MaxWCU", b.MaxWCU)
		num("Backfill.MemorySize", b.MemorySize)
	}
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

// encryption: an AWS owned, AWS managed or customer managed key (one per
// replica region).
func (t *Table) encryption(out *awsdynamodb.TablePropsV2, ps *problems) {
	e := t.props.Encryption
	switch {
	case e == nil || e.Kind == AWSOwned || e.Kind == "":
		out.Encryption = awsdynamodb.TableEncryptionV2_DynamoOwnedKey()
	case e.Kind == AWSManaged:
		out.Encryption = awsdynamodb.TableEncryptionV2_AwsManagedKey()
	case e.Kind == CustomerManaged:
		if e.Key == nil {
			ps.add("Encryption.Key: a customer managed table needs a KMS key in the stack's region")
			return
		}
		keys := map[string]*string{}
		for _, r := range t.props.Replicas {
			if r.KeyArn != "" {
				keys[r.Region] = jsii.String(r.KeyArn)
			}
		}
		out.Encryption = awsdynamodb.TableEncryptionV2_CustomerManagedKey(e.Key, &keys)
	default:
		ps.add("Encryption.Kind %q: expected %s, %s or %s", e.Kind, AWSOwned, AWSManaged, CustomerManaged)
	}
}

// replicas: the global table's other regions, each protected like the
// table, each with its own read capacity when given; the estimate with
// every region's cost goes into the cloud assembly as an info annotation.
func (t *Table) replicas(d *patterns.Design, out *awsdynamodb.TablePropsV2, ps *problems) {
	p := t.props
	seen := map[string]bool{}
	var replicas []*awsdynamodb.ReplicaTableProps
	var reads []patterns.ReplicaReads
	for i, r := range p.Replicas {
		switch {
		case r.Region == "":
			ps.add("Replicas[%d].Region: expected a region such as eu-west-1", i)
			continue
		case seen[r.Region]:
			ps.add("Replicas[%d].Region: %s is listed twice", i, r.Region)
			continue
		}
		seen[r.Region] = true
		if p.Encryption != nil && p.Encryption.Kind == CustomerManaged && r.KeyArn == "" {
			ps.add("Replicas[%d].KeyArn: a customer managed table needs a key for replica %s", i, r.Region)
		}
		rp := &awsdynamodb.ReplicaTableProps{
			Region:                           jsii.String(r.Region),
			PointInTimeRecoverySpecification: out.PointInTimeRecoverySpecification,
			DeletionProtection:               out.DeletionProtection,
			ContributorInsightsSpecification: out.ContributorInsightsSpecification,
			Tags:                             out.Tags,
		}
		reads = append(reads, t.replicaReads(d, i, r, rp, ps))
		replicas = append(replicas, rp)
	}
	if len(replicas) > 0 {
		out.Replicas = &replicas
		g := d.Cost.Global(reads)
		awscdk.Annotations_Of(t).AddInfo(jsii.String(fmt.Sprintf(
			"estimate with %s: %.1f replicated write units/s; on-demand $%.2f/month, provisioned $%.2f/month, all regions",
			g.Summary(), g.ReplicatedWriteUnits, g.OnDemand, g.Provisioned)))
	}
	if len(p.Replicas) > 0 {
		region := awscdk.Stack_Of(t).Region()
		if region == nil || *awscdk.Token_IsUnresolved(region) {
			ps.add("Replicas need the stack's region: give the stack an env with Region")
		} else if seen[*region] {
			ps.add("Replicas: %s is the stack's own region", *region)
		}
	}
}

// replicaReads sets one replica's own read capacity (Replica.Read,
// Replica.Indexes) and returns what it provisions, for the estimate.
func (t *Table) replicaReads(d *patterns.Design, i int, r Replica, rp *awsdynamodb.ReplicaTableProps, ps *problems) patterns.ReplicaReads {
	rr := patterns.ReplicaReads{Region: r.Region, Read: map[string]float64{}}
	provisioned := t.props.Billing != nil && t.props.Billing.Mode == Provisioned
	if !provisioned {
		if r.Read != nil || len(r.Indexes) > 0 {
			ps.add("Replicas[%d].Read, .Indexes: a replica's own read capacity applies to Provisioned billing", i)
		}
		return rr
	}
	load := map[string]float64{}
	for _, l := range d.Cost.Indexes {
		load[l.Name] = l.ReadUnits
	}
	if r.Read != nil {
		before := len(*ps)
		o := scaled(ps, fmt.Sprintf("Replicas[%d].Read", i), *r.Read, load[patterns.BaseIndex])
		if len(*ps) == before { // CDK throws on bad capacity
			rp.ReadCapacity = awsdynamodb.Capacity_Autoscaled(o)
			rr.Read[patterns.BaseIndex] = *o.MinCapacity
		}
	}
	names := make([]string, 0, len(r.Indexes))
	for name := range r.Indexes {
		names = append(names, name)
	}
	sort.Strings(names)
	deployed, _ := t.Lock.Deployed()
	gsis := map[string]*awsdynamodb.ReplicaGlobalSecondaryIndexOptions{}
	for _, name := range names {
		if !slices.ContainsFunc(deployed, func(ix *patterns.PhaseIndex) bool { return ix.Name == name }) {
			ps.add("Replicas[%d].Indexes[%q]: the table has no such GSI", i, name)
			continue
		}
		before := len(*ps)
		o := scaled(ps, fmt.Sprintf("Replicas[%d].Indexes[%q]", i, name), r.Indexes[name], load[name])
		if len(*ps) > before {
			continue
		}
		gsis[name] = &awsdynamodb.ReplicaGlobalSecondaryIndexOptions{ReadCapacity: awsdynamodb.Capacity_Autoscaled(o)}
		rr.Read[name] = *o.MinCapacity
	}
	if len(gsis) > 0 {
		rp.GlobalSecondaryIndexOptions = &gsis
	}
	return rr
}

// stream: NEW_AND_OLD_IMAGES when replicas or stream handlers need it.
func (t *Table) stream(d *patterns.Design, out *awsdynamodb.TablePropsV2, ps *problems) {
	p := t.props
	handlers := (p.StreamHandlers == nil || !p.StreamHandlers.Disabled) && len(d.Handlers()) > 0
	stream := p.Stream
	if stream == "" && (len(p.Replicas) > 0 || handlers) {
		stream = awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES
	}
	if len(p.Replicas) > 0 && stream != awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES {
		ps.add("Stream %s: a table with replicas streams NEW_AND_OLD_IMAGES", stream)
	} else if handlers && stream != awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES {
		ps.add("Stream %s: the stream handlers read NEW_AND_OLD_IMAGES", stream)
	}
	out.DynamoStream = stream
}

// billing: on-demand, or provisioned with target-tracking auto-scaling for
// the table and each GSI, sized from the design's cost estimate unless
// given. Every dimension is checked before any CDK capacity is made: CDK
// throws on bad values, and problems must fail synthesis all at once.
func (t *Table) billing(d *patterns.Design, out *awsdynamodb.TablePropsV2, ps *problems) {
	b := t.props.Billing
	if b == nil || b.Mode == OnDemand || b.Mode == "" {
		if b != nil && len(b.Indexes) > 0 {
			ps.add("Billing.Indexes: per-index capacity applies to Provisioned billing")
		}
		for i, s := range []Scaling{b.orNone().Read, b.orNone().Write} {
			if s != (Scaling{}) {
				ps.add("%s: capacity and its auto-scaling apply to Provisioned billing (Billing.Mode); an on-demand table has none (Min %v, Max %v, TargetUtilization %v)",
					[]string{"Billing.Read", "Billing.Write"}[i], s.Min, s.Max, s.TargetUtilization)
			}
		}
		out.Billing = awsdynamodb.Billing_OnDemand(nil)
		return
	}
	if b.Mode != Provisioned {
		ps.add("Billing.Mode %q: expected %q or %q", b.Mode, OnDemand, Provisioned)
		return
	}
	before := len(*ps)
	// Each index is sized from the design that has it: the target, or
	// (for one a migration deletes later) the accepted design.
	load := map[string]*patterns.IndexLoad{}
	for _, l := range t.Lock.Accepted.Cost.Indexes {
		load[l.Name] = l
	}
	for _, l := range d.Cost.Indexes {
		load[l.Name] = l
	}
	deployed, _ := t.Lock.Deployed()
	table := load[patterns.BaseIndex]
	read := scaled(ps, "Billing.Read", b.Read, table.ReadUnits)
	write := scaled(ps, "Billing.Write", b.Write, table.WriteUnits)
	indexes := map[string][2]*awsdynamodb.AutoscaledCapacityOptions{}
	for _, ix := range deployed {
		s, ok := b.Indexes[ix.Name]
		if !ok { // like the table (a target that is not a number is reported there)
			s = IndexScaling{Read: Scaling{TargetUtilization: orZero(b.Read.TargetUtilization)}, Write: Scaling{TargetUtilization: orZero(b.Write.TargetUtilization)}}
		}
		l := load[ix.Name]
		if l == nil {
			l = &patterns.IndexLoad{}
		}
		indexes[ix.Name] = [2]*awsdynamodb.AutoscaledCapacityOptions{
			scaled(ps, fmt.Sprintf("Billing.Indexes[%q].Read", ix.Name), s.Read, l.ReadUnits),
			scaled(ps, fmt.Sprintf("Billing.Indexes[%q].Write", ix.Name), s.Write, l.WriteUnits),
		}
	}
	names := make([]string, 0, len(b.Indexes))
	for name := range b.Indexes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !slices.ContainsFunc(deployed, func(ix *patterns.PhaseIndex) bool { return ix.Name == name }) {
			ps.add("Billing.Indexes[%q]: the table has no such GSI", name)
		}
	}
	if len(*ps) > before {
		return
	}
	out.Billing = awsdynamodb.Billing_Provisioned(&awsdynamodb.ThroughputProps{
		ReadCapacity:  awsdynamodb.Capacity_Autoscaled(read),
		WriteCapacity: awsdynamodb.Capacity_Autoscaled(write),
	})
	if out.GlobalSecondaryIndexes != nil {
		for _, g := range *out.GlobalSecondaryIndexes {
			o := indexes[*g.IndexName]
			g.ReadCapacity, g.WriteCapacity = awsdynamodb.Capacity_Autoscaled(o[0]), awsdynamodb.Capacity_Autoscaled(o[1])
		}
	}
}

// orNone is b, or no billing props at all.
func (b *Billing) orNone() *Billing {
	if b == nil {
		return &Billing{}
	}
	return b
}

// orZero is x when finite, else 0.
func orZero(x float64) float64 {
	if finite(x) {
		return x
	}
	return 0
}

// scaled is one dimension's auto-scaling: Min defaults to the estimate at
// the target utilization (at least 1), Max to 10 × Min (at least 10).
// Nil, with a problem naming each, when a number is NaN or infinite.
func scaled(ps *problems, where string, s Scaling, units float64) *awsdynamodb.AutoscaledCapacityOptions {
	bad := false
	for _, f := range []struct {
		name string
		x    float64
	}{{"Min", s.Min}, {"Max", s.Max}, {"TargetUtilization", s.TargetUtilization}} {
		if !finite(f.x) {
			ps.add("%s.%s %v: expected a finite number", where, f.name, f.x)
			bad = true
		}
	}
	if bad {
		return nil
	}
	target := s.TargetUtilization
	if target == 0 {
		target = DefaultTargetUtilization
	}
	if target < MinTargetUtilization || target > MaxTargetUtilization {
		ps.add("%s.TargetUtilization %v: expected %d to %d (percent)", where, target, MinTargetUtilization, MaxTargetUtilization)
	}
	lo := s.Min
	if lo == 0 {
		lo = patterns.CapacityAt(units, target)
	}
	hi := s.Max
	if hi == 0 {
		hi = math.Max(10, 10*lo)
	}
	if lo < 1 || hi < lo {
		ps.add("%s: expected 1 <= Min <= Max, got Min %v, Max %v", where, lo, hi)
	}
	return &awsdynamodb.AutoscaledCapacityOptions{
		MinCapacity: jsii.Number(lo), MaxCapacity: jsii.Number(hi), TargetUtilizationPercent: jsii.Number(target),
	}
}
