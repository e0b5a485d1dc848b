package singletable

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Monitoring configures how the table is watched: CloudWatch alarms on
// the throttles of the table and of each GSI (a throttled GSI
// back-pressures every base-table write that feeds it), on consumed
// capacity near its maximum, and a dashboard of the design (a row per
// pattern, a row per entity). The alarms watch the stack's region; each
// replica's region has metrics of its own.
//
// Throttle alarms: ReadThrottleEvents and WriteThrottleEvents (Sum) of
// the table (dimension TableName) and of each GSI (TableName,
// GlobalSecondaryIndexName), at least ThrottleAlarmEvents in
// ThrottleAlarmDatapoints of ThrottleAlarmPeriods one-minute periods.
// Capacity alarms: ConsumedReadCapacityUnits and ConsumedWriteCapacityUnits
// per second (the Sum over a minute, divided by 60) at or above
// CapacityPercent of the index's most (provisioned: the auto-scaling Max;
// on demand: the maximum throughput, when there is one) for
// CapacityAlarmPeriods minutes.
type Monitoring struct {
	// Disabled synthesizes no alarm, no dashboard and no topic.
	// Default: false.
	Disabled bool
	// AlarmActions are told when any of the table's alarms goes off and
	// when it clears: the throttle and capacity alarms, and each stream
	// handler's FailuresAlarm and UndecodableAlarm.
	// Default: a new SNS topic (Monitor.Topic: subscribe to it), encrypted
	// with a KMS key of its own (rotated yearly; CloudWatch may use it to
	// publish), TLS only.
	AlarmActions []awscloudwatch.IAlarmAction
	// CapacityPercent is the share of an index's most capacity at which
	// its consumed-capacity alarm goes off (MinCapacityPercent–100).
	// Default: DefaultCapacityPercent (80).
	CapacityPercent float64
	// NoDashboard leaves the dashboard out.
	// Default: false (a dashboard).
	NoDashboard bool
}

// The alarms' shapes (Monitoring).
const (
	DefaultCapacityPercent  = 80
	MinCapacityPercent      = 1
	ThrottleAlarmEvents     = 1
	ThrottleAlarmPeriods    = 5
	ThrottleAlarmDatapoints = 3
	CapacityAlarmPeriods    = 5
)

// Monitor is what watches the table (Props.Monitoring).
type Monitor struct {
	constructs.Construct
	// Alarms are the table's and each GSI's, the table first, then the
	// GSIs in the design's order.
	Alarms []*IndexAlarms
	// Topic receives the alarms; nil when Monitoring.AlarmActions are
	// given.
	Topic awssns.Topic
	// Dashboard shows the design; nil with Monitoring.NoDashboard.
	Dashboard awscloudwatch.Dashboard
}

// IndexAlarms are one index's alarms: its throttles, read and write, and,
// where the index has a most capacity, its consumed capacity near it
// (nil otherwise).
type IndexAlarms struct {
	// Index is patterns.BaseIndex or a GSI's name.
	Index                                     string
	ReadThrottles, WriteThrottles             awscloudwatch.Alarm
	ReadCapacityNearMax, WriteCapacityNearMax awscloudwatch.Alarm
}

// DynamoDB's CloudWatch namespace and dimensions.
const (
	cwNamespace = "AWS/DynamoDB"
	dimTable    = "TableName"
	dimGSI      = "GlobalSecondaryIndexName"
	dimOp       = "Operation"
)

// checkMonitoring: a capacity percent in range, and nothing that does
// not apply when monitoring is disabled.
func (t *Table) checkMonitoring(ps *problems) {
	m := t.props.Monitoring
	if m == nil {
		return
	}
	if p := m.CapacityPercent; p != 0 && finite(p) && (p < MinCapacityPercent || p > 100) {
		ps.add("Monitoring.CapacityPercent %v: expected %d to 100 (percent of the most capacity)", p, MinCapacityPercent)
	}
	if m.Disabled && (len(m.AlarmActions) > 0 || m.NoDashboard || m.CapacityPercent != 0) {
		ps.add("Monitoring.Disabled: nothing is monitored, so AlarmActions, CapacityPercent and NoDashboard do not apply; remove them or Disabled")
	}
}

// addMonitor builds the alarms, their topic and the dashboard.
func (t *Table) addMonitor(d *patterns.Design) {
	o := Monitoring{}
	if t.props.Monitoring != nil {
		o = *t.props.Monitoring
	}
	if o.Disabled {
		return
	}
	if o.CapacityPercent == 0 {
		o.CapacityPercent = DefaultCapacityPercent
	}
	m := &Monitor{Construct: constructs.NewConstruct(t, jsii.String("Monitor"))}
	t.Monitor = m
	actions := o.AlarmActions
	if len(actions) == 0 {
		m.Topic = alarmTopic(m.Construct, d.Table)
		actions = []awscloudwatch.IAlarmAction{awscloudwatchactions.NewSnsAction(m.Topic)}
	}
	most := t.mostCapacity(d)
	for _, ix := range t.monitoredIndexes() {
		a := &IndexAlarms{Index: ix}
		scope := constructs.NewConstruct(m.Construct, jsii.String(alarmScope(ix)))
		a.ReadThrottles = throttleAlarm(scope, "ReadThrottles", t, d.Table, ix, "Read")
		a.WriteThrottles = throttleAlarm(scope, "WriteThrottles", t, d.Table, ix, "Write")
		if hi, ok := most[ix]; ok {
			if hi[0] > 0 {
				a.ReadCapacityNearMax = capacityAlarm(scope, "ReadCapacityNearMax", t, d.Table, ix, "Read", hi[0], o.CapacityPercent)
			}
			if hi[1] > 0 {
				a.WriteCapacityNearMax = capacityAlarm(scope, "WriteCapacityNearMax", t, d.Table, ix, "Write", hi[1], o.CapacityPercent)
			}
		}
		m.Alarms = append(m.Alarms, a)
	}
	for _, a := range m.Alarms {
		for _, al := range []awscloudwatch.Alarm{a.ReadThrottles, a.WriteThrottles, a.ReadCapacityNearMax, a.WriteCapacityNearMax} {
			if al != nil {
				al.AddAlarmAction(actions...)
				al.AddOkAction(actions...)
			}
		}
	}
	for _, h := range slices.Sorted(maps.Keys(t.Handlers)) {
		for _, al := range []awscloudwatch.Alarm{t.Handlers[h].FailuresAlarm, t.Handlers[h].UndecodableAlarm} {
			al.AddAlarmAction(actions...)
			al.AddOkAction(actions...)
		}
	}
	if !o.NoDashboard {
		m.Dashboard = t.dashboard(m.Construct, d)
	}
}

// monitoredIndexes are the table and the GSIs of the lock's current phase.
func (t *Table) monitoredIndexes() []string {
	out := []string{model.BaseIndex}
	deployed, _ := t.Lock.Deployed()
	for _, ix := range deployed {
		out = append(out, ix.Name)
	}
	return out
}

// alarmScope names an index's alarms' construct: Table, or the GSI's name.
func alarmScope(index string) string {
	if index == model.BaseIndex {
		return "Table"
	}
	return index
}

// mostCapacity is each index's most read and write capacity per second
// (0: none): provisioned, the auto-scaling Max, as billing sizes it; on
// demand, the maximum throughput the model's headroom decides.
func (t *Table) mostCapacity(d *patterns.Design) map[string][2]float64 {
	out := map[string][2]float64{}
	bounds := t.bounds(d)
	if !t.provisioned() {
		for _, ix := range t.monitoredIndexes() {
			out[ix] = [2]float64{bounds.most(ix, read), bounds.most(ix, write)}
		}
		return out
	}
	b, load := t.props.Billing, t.load(d)
	for _, ix := range t.monitoredIndexes() {
		l := load[ix]
		if l == nil {
			l = &patterns.IndexLoad{}
		}
		s := IndexScaling{Read: b.Read, Write: b.Write}
		if ix != model.BaseIndex {
			s = t.indexScaling(ix)
		}
		_, r, _ := capacity(s.Read, l.ReadUnits, bounds.most(ix, read))
		_, w, _ := capacity(s.Write, l.WriteUnits, bounds.most(ix, write))
		out[ix] = [2]float64{r, w}
	}
	return out
}

// indexDims are the dimensions of an index's metrics.
func indexDims(t *Table, index string) *map[string]*string {
	dims := map[string]*string{dimTable: t.Table.TableName()}
	if index != model.BaseIndex {
		dims[dimGSI] = jsii.String(index)
	}
	return &dims
}

// indexMetric is one of an index's metrics, summed per minute; label
// names it in a graph ("": an alarm's, which CloudFormation then writes
// in its short form).
func indexMetric(t *Table, index, name, label string) awscloudwatch.Metric {
	p := &awscloudwatch.MetricProps{
		Namespace: jsii.String(cwNamespace), MetricName: jsii.String(name), DimensionsMap: indexDims(t, index),
		Statistic: jsii.String("Sum"), Period: awscdk.Duration_Minutes(jsii.Number(1)),
	}
	if label != "" {
		p.Label = jsii.String(label)
	}
	return awscloudwatch.NewMetric(p)
}

// perSecond is a per-minute Sum as units per second. Its metric's id in
// the expression names the index and the direction: several of them share
// a graph, where an id names one metric.
func perSecond(m awscloudwatch.IMetric, index, dir, label string) awscloudwatch.MathExpression {
	id := strings.ToLower(dir) + "_" + strings.Map(func(r rune) rune {
		if r == '.' || r == '-' {
			return '_'
		}
		return r
	}, index)
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String(id + "/PERIOD(" + id + ")"),
		UsingMetrics: &map[string]awscloudwatch.IMetric{id: m},
		Period:       awscdk.Duration_Minutes(jsii.Number(1)),
		Label:        jsii.String(label),
	})
}

// indexText names an index in messages: "the table Shop" or "GSI GSI1 of
// Shop".
func indexText(table, index string) string {
	if index == model.BaseIndex {
		return "the table " + table
	}
	return "GSI " + index + " of " + table
}

// throttleAlarm goes off when the index throttles reads or writes ("Read"
// or "Write").
func throttleAlarm(scope constructs.Construct, id string, t *Table, table, index, dir string) awscloudwatch.Alarm {
	metric := indexMetric(t, index, dir+"ThrottleEvents", "")
	why := "reads of it fail and are retried"
	if dir == "Write" {
		why = "writes are refused"
		if index != model.BaseIndex {
			why = "every base-table write that feeds it is refused (a throttled GSI back-pressures the table)"
		}
	}
	return awscloudwatch.NewAlarm(scope, jsii.String(id), &awscloudwatch.AlarmProps{
		AlarmDescription: jsii.String(fmt.Sprintf("keyplan: %s throttles %ss (%sThrottleEvents in %d of %d minutes): %s; look for a hot key (Contributor Insights) or raise its capacity",
			indexText(table, index), strings.ToLower(dir), dir, ThrottleAlarmDatapoints, ThrottleAlarmPeriods, why)),
		Metric:             metric,
		Threshold:          jsii.Number(ThrottleAlarmEvents),
		EvaluationPeriods:  jsii.Number(ThrottleAlarmPeriods),
		DatapointsToAlarm:  jsii.Number(ThrottleAlarmDatapoints),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
}

// capacityAlarm goes off when the index consumes percent of its most
// capacity per second, hi, for CapacityAlarmPeriods minutes.
func capacityAlarm(scope constructs.Construct, id string, t *Table, table, index, dir string, hi, percent float64) awscloudwatch.Alarm {
	unit := map[string]string{"Read": "RCU", "Write": "WCU"}[dir]
	consumed := perSecond(indexMetric(t, index, "Consumed"+dir+"CapacityUnits", ""), index, dir, "consumed "+unit+" per second")
	limit := hi * percent / 100
	return awscloudwatch.NewAlarm(scope, jsii.String(id), &awscloudwatch.AlarmProps{
		AlarmDescription: jsii.String(fmt.Sprintf("keyplan: %s consumes %g%% of its most %s capacity (%g of %g %s per second) for %d minutes: raise its maximum before it throttles",
			indexText(table, index), percent, strings.ToLower(dir), limit, hi, unit, CapacityAlarmPeriods)),
		Metric:             consumed,
		Threshold:          jsii.Number(limit),
		EvaluationPeriods:  jsii.Number(CapacityAlarmPeriods),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
}

// alarmTopic is the alarms' SNS topic: TLS only, encrypted with a key of
// its own that CloudWatch may use to publish (the AWS managed aws/sns key
// does not let it).
func alarmTopic(scope constructs.Construct, table string) awssns.Topic {
	key := awskms.NewKey(scope, jsii.String("AlarmKey"), &awskms.KeyProps{
		Description:       jsii.String("keyplan: encrypts the alarm topic of table " + table),
		EnableKeyRotation: jsii.Bool(true),
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchPublishesAlarms"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
		Resources:  jsii.Strings("*"),
	}), nil)
	return awssns.NewTopic(scope, jsii.String("Alarms"), &awssns.TopicProps{
		DisplayName: jsii.String("keyplan alarms of table " + table),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
}
