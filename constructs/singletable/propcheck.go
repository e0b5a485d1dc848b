package singletable

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
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

// The props are checked in two steps, each collecting every problem
// (one validateX per concern, as CDK's table-v2 does), before anything
// reaches jsii (tableProps): checkProps needs the props alone, so its
// problems are reported beside the model's own when the model does not
// load; checkWithDesign needs the design (its GSIs, its estimate, its
// handlers).

// checkProps collects the problems of the props alone.
func (t *Table) checkProps() problems {
	var ps problems
	t.numbers(&ps)
	t.checkTags(&ps)
	if name := t.props.TableName; name != "" && !model.ValidTableName(name) {
		ps.add("TableName %q: expected %s", name, model.NameRule)
	}
	t.checkRecovery(&ps)
	t.checkEncryption(&ps)
	t.checkReplicas(&ps)
	t.checkBilling(&ps)
	t.checkMonitoring(&ps)
	if b := t.props.Backfill; b != nil {
		_, bps := backfillOptions(*b)
		ps = append(ps, bps...)
	}
	if sh := t.props.StreamHandlers; sh != nil {
		for _, h := range slices.Sorted(maps.Keys(sh.Handlers)) {
			if !slices.Contains(patterns.Handlers(), h) {
				ps.add("StreamHandlers.Handlers[%q]: expected one of %s", h, handlerList(patterns.Handlers()))
			}
		}
	}
	return ps
}

// finite reports whether x is a number jsii can carry (not NaN, not ±Inf).
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// numbers refuses NaN and infinite numbers in the numeric props, naming
// each: JSON cannot carry them, and a jsii call that tries panics and
// leaves the jsii runtime dead for the rest of the app. The range checks
// that follow skip them (one problem each).
func (t *Table) numbers(ps *problems) {
	p := t.props
	num := func(name string, x float64) {
		if !finite(x) {
			ps.add("%s %v: expected a finite number", name, x)
		}
	}
	scaling := func(name string, s Scaling) {
		num(name+".Min", s.Min)
		num(name+".Max", s.Max)
		num(name+".TargetUtilization", s.TargetUtilization)
	}
	handler := func(name string, o HandlerOptions) {
		num(name+".BatchSize", o.BatchSize)
		num(name+".RetryAttempts", o.RetryAttempts)
		num(name+".ParallelizationFactor", o.ParallelizationFactor)
		num(name+".ReservedConcurrency", o.ReservedConcurrency)
		num(name+".MemorySize", o.MemorySize)
	}
	num("RecoveryPeriodDays", p.RecoveryPeriodDays)
	if b := p.Billing; b != nil {
		scaling("Billing.Read", b.Read)
		scaling("Billing.Write", b.Write)
		for _, name := range slices.Sorted(maps.Keys(b.Indexes)) {
			scaling(fmt.Sprintf("Billing.Indexes[%q].Read", name), b.Indexes[name].Read)
			scaling(fmt.Sprintf("Billing.Indexes[%q].Write", name), b.Indexes[name].Write)
		}
	}
	for i, r := range p.Replicas {
		if r.Read != nil {
			scaling(fmt.Sprintf("Replicas[%d].Read", i), *r.Read)
		}
		for _, name := range slices.Sorted(maps.Keys(r.Indexes)) {
			scaling(fmt.Sprintf("Replicas[%d].Indexes[%q]", i, name), r.Indexes[name])
		}
	}
	if sh := p.StreamHandlers; sh != nil {
		handler("StreamHandlers.Defaults", sh.Defaults)
		for _, h := range slices.Sorted(maps.Keys(sh.Handlers)) {
			handler(fmt.Sprintf("StreamHandlers.Handlers[%q]", h), sh.Handlers[h])
		}
	}
	if m := p.Monitoring; m != nil {
		num("Monitoring.CapacityPercent", m.CapacityPercent)
	}
	if b := p.Backfill; b != nil {
		num("Backfill.MaxWCU", b.MaxWCU)
		num("Backfill.MemorySize", b.MemorySize)
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

// checkRecovery: a recovery period of whole days in range, and none when
// point-in-time recovery is off.
func (t *Table) checkRecovery(ps *problems) {
	p := t.props
	days := p.RecoveryPeriodDays
	switch {
	case !boolOr(p.PointInTimeRecovery, true) && days != 0:
		ps.add("RecoveryPeriodDays %v: point-in-time recovery is off (PointInTimeRecovery false), so no period applies; remove one of them", days)
	case days != 0 && finite(days) && (days < MinRecoveryPeriodDays || days > MaxRecoveryPeriodDays || days != math.Trunc(days)):
		ps.add("RecoveryPeriodDays %v: expected a whole number of days, %d to %d", days, MinRecoveryPeriodDays, MaxRecoveryPeriodDays)
	}
}

// checkEncryption: a known kind, and a key for a customer managed one.
func (t *Table) checkEncryption(ps *problems) {
	switch e := t.props.Encryption; {
	case e == nil || e.Kind == AWSOwned || e.Kind == "" || e.Kind == AWSManaged:
	case e.Kind == CustomerManaged:
		if e.Key == nil {
			ps.add("Encryption.Key: a customer managed table needs a KMS key in the stack's region")
		}
	default:
		ps.add("Encryption.Kind %q: expected %s, %s or %s", e.Kind, AWSOwned, AWSManaged, CustomerManaged)
	}
}

// provisioned reports whether the table's billing is provisioned.
func (t *Table) provisioned() bool {
	return t.props.Billing != nil && t.props.Billing.Mode == Provisioned
}

// checkReplicas: each region named once, not the stack's own (which must
// be concrete), a key for each under customer managed encryption, read
// capacity only with provisioned billing, and both images streamed.
func (t *Table) checkReplicas(ps *problems) {
	p := t.props
	if len(p.Replicas) == 0 {
		return
	}
	seen := map[string]bool{}
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
		switch {
		case !t.provisioned() && (r.Read != nil || len(r.Indexes) > 0):
			ps.add("Replicas[%d].Read, .Indexes: a replica's own read capacity applies to Provisioned billing", i)
		case t.provisioned():
			if r.Read != nil {
				checkScaling(ps, fmt.Sprintf("Replicas[%d].Read", i), *r.Read)
			}
			for _, name := range slices.Sorted(maps.Keys(r.Indexes)) {
				checkScaling(ps, fmt.Sprintf("Replicas[%d].Indexes[%q]", i, name), r.Indexes[name])
			}
		}
	}
	region := awscdk.Stack_Of(t).Region()
	if region == nil || *awscdk.Token_IsUnresolved(region) {
		ps.add("Replicas need the stack's region: give the stack an env with Region")
	} else if seen[*region] {
		ps.add("Replicas: %s is the stack's own region", *region)
	}
	if p.Stream != "" && p.Stream != awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES {
		ps.add("Stream %s: a table with replicas streams NEW_AND_OLD_IMAGES", p.Stream)
	}
}

// checkBilling: a known mode; on demand, no capacity; provisioned, each
// dimension's scaling in range as far as the props say it.
func (t *Table) checkBilling(ps *problems) {
	b := t.props.Billing
	switch {
	case b == nil || b.Mode == OnDemand || b.Mode == "":
		if b == nil {
			return
		}
		if len(b.Indexes) > 0 {
			ps.add("Billing.Indexes: per-index capacity applies to Provisioned billing")
		}
		for i, s := range []Scaling{b.Read, b.Write} {
			if s != (Scaling{}) {
				ps.add("%s: capacity and its auto-scaling apply to Provisioned billing (Billing.Mode); an on-demand table has none (Min %v, Max %v, TargetUtilization %v)",
					[]string{"Billing.Read", "Billing.Write"}[i], s.Min, s.Max, s.TargetUtilization)
			}
		}
	case b.Mode != Provisioned:
		ps.add("Billing.Mode %q: expected %q or %q", b.Mode, OnDemand, Provisioned)
	default:
		checkScaling(ps, "Billing.Read", b.Read)
		checkScaling(ps, "Billing.Write", b.Write)
		for _, name := range slices.Sorted(maps.Keys(b.Indexes)) {
			checkScaling(ps, fmt.Sprintf("Billing.Indexes[%q].Read", name), b.Indexes[name].Read)
			checkScaling(ps, fmt.Sprintf("Billing.Indexes[%q].Write", name), b.Indexes[name].Write)
		}
	}
}

// checkScaling checks what a Scaling says itself: a target in range, and
// 1 <= Min <= Max as far as they are given (a number that is not finite
// is numbers' to report). It reports whether it found nothing.
func checkScaling(ps *problems, where string, s Scaling) bool {
	if !finite(s.Min) || !finite(s.Max) || !finite(s.TargetUtilization) {
		return false
	}
	ok := true
	if s.TargetUtilization != 0 && (s.TargetUtilization < MinTargetUtilization || s.TargetUtilization > MaxTargetUtilization) {
		ps.add("%s.TargetUtilization %v: expected %d to %d (percent)", where, s.TargetUtilization, MinTargetUtilization, MaxTargetUtilization)
		ok = false
	}
	if s.Min != 0 && s.Min < 1 || s.Max != 0 && s.Max < 1 || s.Min != 0 && s.Max != 0 && s.Max < s.Min {
		ps.add("%s: expected 1 <= Min <= Max, got Min %v, Max %v", where, s.Min, s.Max)
		ok = false
	}
	return ok
}

// checkWithDesign collects the problems of the props against the design:
// a GSI named that the table does not have, a Max below the Min the
// estimate sizes, a stream the handlers cannot read.
func (t *Table) checkWithDesign(d *patterns.Design) problems {
	var ps problems
	p := t.props
	handlers := (p.StreamHandlers == nil || !p.StreamHandlers.Disabled) && len(d.Handlers()) > 0
	if handlers && len(p.Replicas) == 0 && p.Stream != "" && p.Stream != awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES {
		ps.add("Stream %s: the stream handlers read NEW_AND_OLD_IMAGES", p.Stream)
	}
	t.checkHandlers(d, &ps)
	t.checkAdopt(&ps)
	t.checkStrong(d, &ps)
	if !t.provisioned() {
		return ps
	}
	b, load := p.Billing, t.load(d)
	deployed, _ := t.Lock.Deployed()
	has := func(name string) bool {
		return slices.ContainsFunc(deployed, func(ix *patterns.PhaseIndex) bool { return ix.Name == name })
	}
	table := load[model.BaseIndex]
	estimated(&ps, "Billing.Read", b.Read, table.ReadUnits)
	estimated(&ps, "Billing.Write", b.Write, table.WriteUnits)
	for _, ix := range deployed {
		s, l := t.indexScaling(ix.Name), load[ix.Name]
		if l == nil {
			l = &patterns.IndexLoad{}
		}
		estimated(&ps, fmt.Sprintf("Billing.Indexes[%q].Read", ix.Name), s.Read, l.ReadUnits)
		estimated(&ps, fmt.Sprintf("Billing.Indexes[%q].Write", ix.Name), s.Write, l.WriteUnits)
	}
	noGSI := func(name string) string {
		if ix := d.Index(name); ix != nil && ix.Local() {
			return "is an LSI, which has no capacity of its own (its reads and writes are the table's: Billing.Read, Billing.Write)"
		}
		return "the table has no such GSI"
	}
	for _, name := range slices.Sorted(maps.Keys(b.Indexes)) {
		if !has(name) {
			ps.add("Billing.Indexes[%q]: %s", name, noGSI(name))
		}
	}
	reads := readLoad(d)
	for i, r := range p.Replicas {
		if r.Read != nil {
			estimated(&ps, fmt.Sprintf("Replicas[%d].Read", i), *r.Read, reads[model.BaseIndex])
		}
		for _, name := range slices.Sorted(maps.Keys(r.Indexes)) {
			if !has(name) {
				ps.add("Replicas[%d].Indexes[%q]: %s", i, name, noGSI(name))
				continue
			}
			estimated(&ps, fmt.Sprintf("Replicas[%d].Indexes[%q]", i, name), r.Indexes[name], reads[name])
		}
	}
	return ps
}

// estimated checks a Max given below the Min the estimate sizes (the
// props alone are checkScaling's: a dimension they fail is left to it).
func estimated(ps *problems, where string, s Scaling, units float64) {
	var none problems
	if !checkScaling(&none, where, s) || s.Min != 0 || s.Max == 0 {
		return
	}
	if lo, hi, target := capacity(s, units, 0); lo > hi { // a Max is given: no default
		ps.add("%s: expected 1 <= Min <= Max, got Min %v (the estimate at %v%% utilization), Max %v: raise Max or give Min", where, lo, target, hi)
	}
}
