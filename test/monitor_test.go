package test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// monitored are the example app's tables, by template.
func monitored() map[string]*singletable.Table {
	return map[string]*singletable.Table{"leaderboard": example.LeaderboardTable, "shop": example.ShopTable, "tracker": tracker, "ledger": ledger}
}

// logicalID is the only resource of a type's logical id.
func logicalID(t *testing.T, tmpl map[string]any, typ string) string {
	t.Helper()
	ids := slices.Collect(maps.Keys(resources(tmpl, typ)))
	if len(ids) != 1 {
		t.Fatalf("%d %s resources, want 1", len(ids), typ)
	}
	return ids[0]
}

// dims renders an alarm metric's dimensions as name=value, sorted (a Ref
// as ref:ID).
func dims(v any) string {
	var out []string
	for _, d := range list(v) {
		val := obj(d)["Value"]
		if ref, ok := val.(map[string]any); ok {
			val = fmt.Sprint("ref:", ref["Ref"])
		}
		out = append(out, fmt.Sprintf("%s=%v", obj(d)["Name"], val))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// wantDims are the dimensions of an index's metrics.
func wantDims(tableID, index string) string {
	if index == model.BaseIndex {
		return "TableName=ref:" + tableID
	}
	return "GlobalSecondaryIndexName=" + index + ",TableName=ref:" + tableID
}

// alarmMetric is what an alarm watches: its metric's name and
// dimensions, from the short form or the metric inside its math
// expression; expr is the expression ("" for a plain metric).
func alarmMetric(p map[string]any) (name, dimensions, expr string) {
	if n, ok := p["MetricName"]; ok {
		return n.(string), dims(p["Dimensions"]), ""
	}
	for _, m := range list(p["Metrics"]) {
		m := obj(m)
		if e, ok := m["Expression"]; ok {
			expr = e.(string)
			continue
		}
		ms := obj(obj(m["MetricStat"])["Metric"])
		name, dimensions = ms["MetricName"].(string), dims(ms["Dimensions"])
	}
	return name, dimensions, expr
}

// maxCapacity reads an index's auto-scaling Max from the table's
// template (the primary replica's reads, the table's writes).
func maxCapacity(t *testing.T, table map[string]any, region, index, dir string) float64 {
	t.Helper()
	settings := func(v any) float64 {
		key := dir + "ProvisionedThroughputSettings"
		return obj(obj(obj(v)[key])[dir+"CapacityAutoScalingSettings"])["MaxCapacity"].(float64)
	}
	p := props(table)
	if dir == "Write" {
		if index == model.BaseIndex {
			return settings(p)
		}
		for _, g := range list(p["GlobalSecondaryIndexes"]) {
			if obj(g)["IndexName"] == index {
				return settings(g)
			}
		}
	}
	for _, r := range list(p["Replicas"]) {
		if obj(r)["Region"] != region {
			continue
		}
		if index == model.BaseIndex {
			return settings(r)
		}
		for _, g := range list(obj(r)["GlobalSecondaryIndexes"]) {
			if obj(g)["IndexName"] == index {
				return settings(g)
			}
		}
	}
	t.Fatalf("no %s capacity for %s in the template", dir, index)
	return 0
}

// GIVEN the example tables WHEN synthesized THEN the table and every GSI
// of the deployed phase have a read and a write throttle alarm on their
// own metrics (TableName, and GlobalSecondaryIndexName for a GSI); a
// provisioned table's indexes also alarm at 80% of the auto-scaling Max
// the template gives them, read and write; every alarm (the stream
// handlers' too) tells the table's topic when it goes off and when it
// clears; and no alarm goes unaccounted for.
func TestAlarmsWatchEveryIndex(t *testing.T) {
	for name, tbl := range monitored() {
		t.Run(name, func(t *testing.T) {
			tmpl := templates[name]
			tableID := logicalID(t, tmpl, "AWS::DynamoDB::GlobalTable")
			topicID := logicalID(t, tmpl, "AWS::SNS::Topic")
			table := tmpl["Resources"].(map[string]any)[tableID].(map[string]any)
			provisioned := props(table)["BillingMode"] == "PROVISIONED"
			alarms := resources(tmpl, "AWS::CloudWatch::Alarm")
			seen := map[string]bool{}
			find := func(metric, dimensions string, capacity bool) (string, map[string]any) {
				var ids []string
				for id, a := range alarms {
					n, d, expr := alarmMetric(props(a))
					if n == metric && d == dimensions && (expr != "") == capacity {
						ids = append(ids, id)
					}
				}
				if len(ids) != 1 {
					t.Errorf("%d alarms on %s (%s), want 1", len(ids), metric, dimensions)
					return "", nil
				}
				seen[ids[0]] = true
				return ids[0], props(alarms[ids[0]])
			}
			indexes := []string{model.BaseIndex}
			for _, ix := range tbl.Design.Indexes {
				indexes = append(indexes, ix.Name)
			}
			for _, ix := range indexes {
				for _, dir := range []string{"Read", "Write"} {
					_, p := find(dir+"ThrottleEvents", wantDims(tableID, ix), false)
					if p != nil && (p["Threshold"] != 1.0 || p["EvaluationPeriods"] != 5.0 || p["DatapointsToAlarm"] != 3.0 ||
						p["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" || p["TreatMissingData"] != "notBreaching" ||
						p["Statistic"] != "Sum" || p["Period"] != 60.0 || p["Namespace"] != "AWS/DynamoDB") {
						t.Errorf("%s %s throttle alarm %v", ix, dir, p)
					}
					bounded := false // on demand, by the model's headroom (TestLedgerCapacityAlarmsAtItsMaximum)
					if it := tbl.Design.Cost.IndexThroughput(ix); it != nil {
						bounded = map[string]float64{"Read": it.MaxReadUnits, "Write": it.MaxWriteUnits}[dir] > 0
					}
					if !provisioned {
						if bounded {
							find("Consumed"+dir+"CapacityUnits", wantDims(tableID, ix), true)
						}
						continue
					}
					_, c := find("Consumed"+dir+"CapacityUnits", wantDims(tableID, ix), true)
					if c == nil {
						continue
					}
					if want := 0.8 * maxCapacity(t, table, exampleConfig.Region, ix, dir); c["Threshold"] != want || c["EvaluationPeriods"] != 5.0 {
						t.Errorf("%s %s capacity alarm threshold %v after %v periods, want %v after 5", ix, dir, c["Threshold"], c["EvaluationPeriods"], want)
					}
				}
			}
			for id, a := range alarms {
				p := props(a)
				switch n, _, _ := alarmMetric(p); {
				case n == "ApproximateNumberOfMessagesVisible":
					seen[id] = true // a stream handler's failures
				case n == patterns.MetricUndecodable && p["Namespace"] == patterns.MetricNamespace:
					seen[id] = true // a stream handler's skipped records
				}
				for _, key := range []string{"AlarmActions", "OKActions"} {
					if got := list(p[key]); len(got) != 1 || obj(got[0])["Ref"] != topicID {
						t.Errorf("alarm %s: %s %v, want the topic %s", id, key, got, topicID)
					}
				}
				if !seen[id] {
					t.Errorf("alarm %s is not asserted: %v", id, p)
				}
			}
		})
	}
}

// The on-demand tables (no maximum throughput) have no capacity alarm.
func TestNoCapacityAlarmsOnDemand(t *testing.T) {
	for _, name := range []string{"shop", "tracker"} {
		for id, a := range resources(templates[name], "AWS::CloudWatch::Alarm") {
			if _, _, expr := alarmMetric(props(a)); expr != "" {
				t.Errorf("%s: capacity alarm %s on an on-demand table without a maximum", name, id)
			}
		}
	}
}

// GIVEN the example tables THEN the alarm topic is encrypted with a key
// of its own that rotates and that CloudWatch may use, and refuses
// requests without TLS.
func TestAlarmTopicEncryptedAndTLSOnly(t *testing.T) {
	for name := range monitored() {
		keyID := logicalID(t, templates[name], "AWS::KMS::Key")
		has(t, name, "AWS::SNS::Topic", like(m{"KmsMasterKeyId": m{"Fn::GetAtt": []any{keyID, "Arn"}}}))
		has(t, name, "AWS::KMS::Key", like(m{"EnableKeyRotation": true, "KeyPolicy": like(m{"Statement": with(like(m{
			"Principal": m{"Service": "cloudwatch.amazonaws.com"}, "Action": []any{"kms:Decrypt", "kms:GenerateDataKey*"}, "Effect": "Allow",
		}))})}))
		has(t, name, "AWS::SNS::TopicPolicy", like(m{"PolicyDocument": like(m{"Statement": with(like(m{
			"Effect": "Deny", "Condition": m{"Bool": m{"aws:SecureTransport": "false"}},
		}))})}))
	}
}

// dashboardBody is the dashboard's JSON, its tokens written as
// "<Ref:ID>".
func dashboardBody(t *testing.T, tmpl map[string]any) map[string]any {
	t.Helper()
	var b strings.Builder
	for _, part := range list(list(obj(props(one(t, tmpl, "AWS::CloudWatch::Dashboard"))["DashboardBody"])["Fn::Join"])[1]) {
		switch p := part.(type) {
		case string:
			b.WriteString(p)
		default:
			fmt.Fprintf(&b, "<Ref:%v>", obj(p)["Ref"])
		}
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(b.String()), &body); err != nil {
		t.Fatalf("dashboard body: %v\n%s", err, b.String())
	}
	return body
}

// rowOf returns the widgets beside the text widget that starts with head
// (the same y).
func rowOf(t *testing.T, body map[string]any, head string) []map[string]any {
	t.Helper()
	var y any
	for _, w := range list(body["widgets"]) {
		if md, _ := obj(obj(w)["properties"])["markdown"].(string); strings.HasPrefix(md, head) {
			y = obj(w)["y"]
		}
	}
	if y == nil {
		t.Fatalf("no row %q", head)
	}
	var row []map[string]any
	for _, w := range list(body["widgets"]) {
		if obj(w)["y"] == y {
			row = append(row, obj(w))
		}
	}
	return row
}

// metricsOf lists a widget's metrics as "Name Dim=Value …" (an
// expression's as its expression).
func metricsOf(w map[string]any) []string {
	var out []string
	for _, line := range list(obj(w["properties"])["metrics"]) {
		var parts []string
		for _, v := range list(line) {
			if s, ok := v.(string); ok {
				parts = append(parts, s)
			} else if e, ok := obj(v)["expression"]; ok {
				parts = append(parts, "expr:"+e.(string))
			}
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// GIVEN the example tables THEN the dashboard has a row per served read
// pattern: its operation and index, that index's consumed read capacity
// and read throttles, its operation's latency; and a row per entity: its
// write amplification (the table and each GSI it has a key on), each of
// those indexes' consumed write capacity and write throttles.
func TestDashboardRowPerPatternAndEntity(t *testing.T) {
	for name, tbl := range monitored() {
		t.Run(name, func(t *testing.T) {
			tmpl := templates[name]
			ref := "<Ref:" + logicalID(t, tmpl, "AWS::DynamoDB::GlobalTable") + ">"
			metric := func(metric, index string) string { // dimensions in name order, as CDK writes them
				if index == model.BaseIndex {
					return "AWS/DynamoDB " + metric + " TableName " + ref
				}
				return "AWS/DynamoDB " + metric + " GlobalSecondaryIndexName " + index + " TableName " + ref
			}
			body := dashboardBody(t, tmpl)
			d := tbl.Design
			for _, pp := range d.Patterns {
				row := rowOf(t, body, "### "+pp.Name+"\n")
				var all []string
				for _, w := range row {
					all = append(all, metricsOf(w)...)
				}
				md := obj(row[0]["properties"])["markdown"]
				for _, w := range row {
					if s, ok := obj(w["properties"])["markdown"].(string); ok {
						md = s
					}
				}
				if !strings.Contains(md.(string), fmt.Sprintf("**%s** on **%s**", pp.Operation, pp.Index)) {
					t.Errorf("%s: %q", pp.Name, md)
				}
				for _, want := range []string{metric("ConsumedReadCapacityUnits", pp.Index), metric("ReadThrottleEvents", pp.Index),
					"AWS/DynamoDB SuccessfulRequestLatency Operation " + strings.TrimPrefix(pp.Action(), "dynamodb:") + " TableName " + ref} {
					if !slices.Contains(all, want) {
						t.Errorf("%s's row lacks %s: %v", pp.Name, want, all)
					}
				}
			}
			for _, e := range d.Model().Entities {
				written := []string{model.BaseIndex}
				for _, k := range d.Entity(e.Name).Keys {
					if !slices.Contains(written, k.Index) {
						written = append(written, k.Index)
					}
				}
				row := rowOf(t, body, fmt.Sprintf("### %s\nwrite amplification **%d**", e.Name, len(written)))
				var all []string
				for _, w := range row {
					all = append(all, metricsOf(w)...)
				}
				for _, ix := range written {
					for _, want := range []string{metric("ConsumedWriteCapacityUnits", ix), metric("WriteThrottleEvents", ix)} {
						if !slices.Contains(all, want) {
							t.Errorf("%s's row lacks %s: %v", e.Name, want, all)
						}
					}
				}
			}
		})
	}
}

// GIVEN Monitoring.AlarmActions THEN no topic is made and every alarm
// tells those actions; GIVEN Monitoring.Disabled THEN there is nothing
// to watch with. (Read from the construct tree: no synthesis.)
func TestMonitoringProps(t *testing.T) {
	stack := newStack("us-east-1")
	topic := awssns.NewTopic(stack, jsii.String("Pager"), nil)
	action := awscloudwatchactions.NewSnsAction(topic)
	model := modelFile(t, hotModel) // no stream handler to bundle
	tbl := singletable.New(stack, "Board", &singletable.Props{ModelFile: model, Acknowledge: map[string]string{"KP401": "a test"},
		Monitoring: &singletable.Monitoring{AlarmActions: []awscloudwatch.IAlarmAction{action}, NoDashboard: true}})
	if msg := validate(tbl); msg != "" {
		t.Fatal(msg)
	}
	mon := tbl.Monitor
	if mon == nil || mon.Topic != nil || mon.Dashboard != nil || len(mon.Alarms) != 1+len(tbl.Design.Indexes) {
		t.Fatalf("monitor %+v", mon)
	}
	want, _ := json.Marshal(stack.Resolve(topic.TopicArn()))
	for _, a := range mon.Alarms {
		for _, al := range []awscloudwatch.Alarm{a.ReadThrottles, a.WriteThrottles} {
			cfn := al.Node().DefaultChild().(awscloudwatch.CfnAlarm)
			got := stack.Resolve(cfn.AlarmActions())
			if b, _ := json.Marshal(got); !strings.Contains(string(b), string(want)) {
				t.Errorf("%s alarm actions %s, want the pager %s", a.Index, b, want)
			}
		}
	}
	off := singletable.New(newStack("us-east-1"), "Board", &singletable.Props{ModelFile: model, Acknowledge: map[string]string{"KP401": "a test"}, Monitoring: &singletable.Monitoring{Disabled: true}})
	if off.Monitor != nil {
		t.Errorf("disabled monitoring made %+v", off.Monitor)
	}
}
