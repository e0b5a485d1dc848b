package singletable

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// The dashboard shows the design as it runs: a header, then one row per
// read pattern (what it is, the consumed read capacity and the read
// throttles of the index it reads, the latency of its operation) and one
// row per entity (its write amplification from the plan, the consumed
// write capacity and the write throttles of every index its writes go
// to, the latency of the operations that write it).

// Dashboard layout: widgets in a 24-column grid.
const (
	dashWidth      = 24
	dashText       = 6
	dashGraph      = 6
	dashRowHeight  = 6
	dashHeadHeight = 3
)

// metrics builds each metric once (every widget that shows it shares it).
type metrics struct {
	t    *Table
	made map[string]awscloudwatch.IMetric
}

func (ms *metrics) get(key string, build func() awscloudwatch.IMetric) awscloudwatch.IMetric {
	if m, ok := ms.made[key]; ok {
		return m
	}
	m := build()
	ms.made[key] = m
	return m
}

// consumed is an index's consumed capacity per second ("Read" or "Write").
func (ms *metrics) consumed(index, dir string) awscloudwatch.IMetric {
	return ms.get("consumed/"+dir+"/"+index, func() awscloudwatch.IMetric {
		return perSecond(indexMetric(ms.t, index, "Consumed"+dir+"CapacityUnits", index), index, dir, alarmScope(index)+" "+map[string]string{"Read": "RCU", "Write": "WCU"}[dir]+"/s")
	})
}

// throttles is an index's throttle events per minute.
func (ms *metrics) throttles(index, dir string) awscloudwatch.IMetric {
	return ms.get("throttles/"+dir+"/"+index, func() awscloudwatch.IMetric {
		return indexMetric(ms.t, index, dir+"ThrottleEvents", alarmScope(index)+" "+strings.ToLower(dir)+" throttles")
	})
}

// latency is the table's latency of one operation (stat Average or
// Maximum), in milliseconds.
func (ms *metrics) latency(op, stat string) awscloudwatch.IMetric {
	return ms.get("latency/"+op+"/"+stat, func() awscloudwatch.IMetric {
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String(cwNamespace), MetricName: jsii.String("SuccessfulRequestLatency"),
			DimensionsMap: &map[string]*string{dimTable: ms.t.Table.TableName(), dimOp: jsii.String(op)},
			Statistic:     jsii.String(stat), Period: awscdk.Duration_Minutes(jsii.Number(1)),
			Label: jsii.String(op + " " + strings.ToLower(stat)),
		})
	})
}

func graph(title string, ms ...awscloudwatch.IMetric) awscloudwatch.IWidget {
	return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String(title), Left: &ms, Width: jsii.Number(dashGraph), Height: jsii.Number(dashRowHeight),
	})
}

func text(md string, width, height float64) awscloudwatch.IWidget {
	return awscloudwatch.NewTextWidget(&awscloudwatch.TextWidgetProps{Markdown: jsii.String(md), Width: jsii.Number(width), Height: jsii.Number(height)})
}

// dashboard builds the table's dashboard.
func (t *Table) dashboard(scope constructs.Construct, d *patterns.Design) awscloudwatch.Dashboard {
	ms := &metrics{t: t, made: map[string]awscloudwatch.IMetric{}}
	deployed := t.monitoredIndexes()
	rows := []awscloudwatch.IWidget{text(dashboardHeader(d, deployed), dashWidth, dashHeadHeight)}
	for _, pp := range d.Patterns {
		if !pp.Served() {
			continue
		}
		ix, op := t.servingIndex(pp, deployed), readOperation(pp)
		rows = append(rows, awscloudwatch.NewRow(
			text(patternText(d, pp, ix), dashText, dashRowHeight),
			graph(pp.Name+": consumed read capacity", ms.consumed(ix, "Read")),
			graph(pp.Name+": read throttles", ms.throttles(ix, "Read")),
			graph(pp.Name+": "+op+" latency (ms)", ms.latency(op, "Average"), ms.latency(op, "Maximum")),
		))
	}
	m := d.Model()
	for _, e := range m.Entities {
		written := writtenIndexes(d, e.Name, deployed)
		var consumed, throttled, lat []awscloudwatch.IMetric
		for _, ix := range written {
			consumed = append(consumed, ms.consumed(ix, "Write"))
			throttled = append(throttled, ms.throttles(ix, "Write"))
		}
		ops := writeOperations(m, e.Name)
		for _, op := range ops {
			lat = append(lat, ms.latency(op, "Average"))
		}
		rows = append(rows, awscloudwatch.NewRow(
			text(entityText(e.Name, written), dashText, dashRowHeight),
			graph(e.Name+": consumed write capacity", consumed...),
			graph(e.Name+": write throttles", throttled...),
			graph(e.Name+": write latency (ms)", lat...),
		))
	}
	return awscloudwatch.NewDashboard(scope, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		Widgets: &[]*[]awscloudwatch.IWidget{&rows},
	})
}

// servingIndex is the index a pattern reads now: its planned index once
// deployed; during a migration that has not created it yet, the accepted
// design's.
func (t *Table) servingIndex(pp *patterns.PatternPlan, deployed []string) string {
	if slices.Contains(deployed, pp.Index) {
		return pp.Index
	}
	if old := t.Lock.Accepted.Pattern(pp.Name); old != nil && old.Served() {
		return old.Index
	}
	return pp.Index
}

// readOperation is the API action a pattern's requests are: the latency
// CloudWatch reports them under.
func readOperation(pp *patterns.PatternPlan) string {
	return strings.TrimPrefix(pp.Action(), "dynamodb:")
}

// writtenIndexes are the indexes an entity's item writes go to, deployed
// ones only: the table, then each GSI it has a key on.
func writtenIndexes(d *patterns.Design, entity string, deployed []string) []string {
	out := []string{model.BaseIndex}
	for _, k := range d.Entity(entity).Keys {
		if k.Index != model.BaseIndex && slices.Contains(deployed, k.Index) && !slices.Contains(out, k.Index) {
			out = append(out, k.Index)
		}
	}
	return out
}

// writeOperations are the API actions the model's write patterns write
// an entity with (a transaction is TransactWriteItems); with none, the
// item writes an application makes.
func writeOperations(m *model.Model, entity string) []string {
	var out []string
	add := func(ops ...string) {
		for _, op := range ops {
			if !slices.Contains(out, op) {
				out = append(out, op)
			}
		}
	}
	for _, w := range m.Writes {
		if !slices.ContainsFunc(w.Items(), func(s *model.Write) bool { return s.Entity == entity }) {
			continue
		}
		if w.Op == model.WriteTransact {
			add("TransactWriteItems")
			continue
		}
		add(w.Actions(m)...)
	}
	if len(out) == 0 {
		add("PutItem", "UpdateItem", "DeleteItem")
	}
	slices.Sort(out)
	return out
}

func dashboardHeader(d *patterns.Design, deployed []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# keyplan: %s\n", d.Table)
	fmt.Fprintf(&b, "Indexes: %s. ", strings.Join(deployed, ", "))
	if c := d.Cost; c != nil {
		fmt.Fprintf(&b, "Estimate from the model's rates: %.1f RCU/s, %.1f WCU/s (on demand $%.2f/month, provisioned $%.2f/month). ", c.ReadUnits, c.WriteUnits, c.OnDemand, c.Provisioned)
	}
	b.WriteString("One row per read pattern (the index it reads), one per entity (every index its writes go to).")
	return b.String()
}

func patternText(d *patterns.Design, pp *patterns.PatternPlan, index string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n**%s** on **%s**", pp.Name, pp.Operation, index)
	if pp.Requests > 1 {
		fmt.Fprintf(&b, " (%d requests)", pp.Requests)
	}
	if pp.Text != "" {
		fmt.Fprintf(&b, "\n\n`%s`", pp.Text)
	}
	if d.Cost != nil {
		for _, pc := range d.Cost.Patterns {
			if pc.Name == pp.Name && pc.Rate > 0 {
				fmt.Fprintf(&b, "\n\n%g/s declared, %g RCU each: %.1f RCU/s", pc.Rate, pc.ReadUnits, pc.UnitsPerSecond)
			}
		}
	}
	return b.String()
}

func entityText(entity string, written []string) string {
	return fmt.Sprintf("### %s\nwrite amplification **%d**: an item write writes %s", entity, len(written), strings.Join(written, ", "))
}
