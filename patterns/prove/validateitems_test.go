package prove

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns/dynamo"
)

// A model whose example item t1 a GSI sorts by priority (a number); t2
// is sparse on that index (no project). It is keyed synthetic: the tests
// tamper with the GSI key attributes keyplan stores on the items (a
// native GSI's keys are the items' own attributes, which the value
// comparisons already cover).
const tasksModel = `table: Tasks
indexKeys: synthetic
entities:
  Task:
    id: [taskId]
    attributes:
      taskId: {type: string, maxLength: 20}
      project: {type: string, maxLength: 20, optional: true}
      priority: {type: number, min: 0, max: 5000}
      summary: {type: string, maxLength: 40}
      labels: {type: set, of: string, optional: true}
patterns:
  GetTask: {get: Task}
  ByPriority: {query: Task, where: [project], sort: priority}
examples:
  items:
    t1: {Task: {taskId: a, project: p, priority: 3, summary: "fix a#b"}}
    t2: {Task: {taskId: ab, priority: 4, summary: "100%"}}
  expect:
    - {pattern: ByPriority, params: {project: p}, items: [t1]}
    - {pattern: GetTask, params: {taskId: a}, items: [t1]}
    - {pattern: GetTask, params: {taskId: ab}, items: [t2]}
`

// validate --existing compares each example item a read returns with the
// table's, attribute by attribute: an item under the right key holding
// other values fails, naming the attribute and both values; so does a
// wrong GSI sort key (a backfill's mistake) and a GSI key on an item the
// design keeps off the index. A number stored as 3.0 is 3: no failure.
func TestValidateExistingComparesItems(t *testing.T) {
	ctx := context.Background()
	d := planned(t, tasksModel)
	ixPK, ixSK := d.KeyNames(d.Pattern("ByPriority").Index)
	set := func(tb *dynamo.Table, taskID, attr string, v types.AttributeValue) {
		t.Helper()
		key, err := tb.Key("Task", dynamo.Values{"taskId": taskID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb.Name()), Key: key,
			UpdateExpression: aws.String("SET #a = :v"), ExpressionAttributeNames: map[string]string{"#a": attr},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": v}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		tamper func(tb *dynamo.Table)
		want   []string // each a failure line's part; none: the report is ok
	}{
		{"as loaded", func(*dynamo.Table) {}, nil},
		{"a number stored as 3.0", func(tb *dynamo.Table) { set(tb, "a", "priority", &types.AttributeValueMemberN{Value: "3.0"}) }, nil},
		{"other values under the right keys", func(tb *dynamo.Table) {
			if err := tb.Put(ctx, "Task", dynamo.Values{"taskId": "a", "project": "p", "priority": 1000, "summary": "s a#b"}); err != nil {
				t.Fatal(err)
			}
		}, []string{"t1.priority: expected 3, the table holds 1000", `t1.summary: expected "fix a#b", the table holds "s a#b"`,
			"t1: key attribute " + ixSK + ": expected"}},
		{"a wrong GSI sort key", func(tb *dynamo.Table) {
			item, err := tb.Item("Task", dynamo.Values{"taskId": "a", "project": "p", "priority": 4, "summary": "fix a#b"})
			if err != nil {
				t.Fatal(err)
			}
			set(tb, "a", ixSK, item[ixSK])
		}, []string{"FAIL ByPriority(project=p): t1: key attribute " + ixSK + ": expected "}},
		{"a missing attribute", func(tb *dynamo.Table) {
			key, _ := tb.Key("Task", dynamo.Values{"taskId": "ab"})
			if _, err := engine.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb.Name()), Key: key, UpdateExpression: aws.String("REMOVE summary")}); err != nil {
				t.Fatal(err)
			}
		}, []string{`FAIL GetTask(taskId=ab): t2.summary: expected "100%", the table's item has none`}},
		{"a GSI key the design keeps off", func(tb *dynamo.Table) {
			set(tb, "ab", ixPK, &types.AttributeValueMemberS{Value: "x"})
			set(tb, "ab", ixSK, &types.AttributeValueMemberS{Value: "y"})
		}, []string{"t2: key attribute " + ixPK + `: the table's item has "x", which the design does not give it`}},
		{"a string where a number goes", func(tb *dynamo.Table) { set(tb, "a", "priority", &types.AttributeValueMemberS{Value: "3"}) },
			[]string{`t1.priority: expected 3, the table holds "3", a string (S) where the design writes a number (N)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := fresh(t, d)
			if rep := Validate(ctx, tb); !rep.OK() {
				t.Fatalf("loading the examples: %+v", rep)
			}
			c.tamper(tb)
			rep := ValidateExisting(ctx, dynamo.New(d, client, tb.Name()))
			var b strings.Builder
			rep.WriteText(&b, "tasks.yaml")
			if rep.OK() != (len(c.want) == 0) {
				t.Errorf("OK is %v:\n%s", rep.OK(), b.String())
			}
			for _, w := range c.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("the report lacks %q:\n%s", w, b.String())
				}
			}
			for _, r := range rep.Results {
				if r.Requests != r.Planned {
					t.Errorf("%s: %d requests counted, planned %d: the comparison's reads are counted", r.Pattern, r.Requests, r.Planned)
				}
			}
		})
	}
}

// Values are compared by their attribute's type, not as stored text: a
// number written 3.0 is 3 (an engine that does not normalise numbers), a
// set's elements in any order are the same set.
func TestAttrDifferenceNormalises(t *testing.T) {
	d := planned(t, tasksModel)
	prio := d.Model().Entity("Task").Attr("priority")
	if s := attrDifference(prio, &types.AttributeValueMemberN{Value: "3"}, &types.AttributeValueMemberN{Value: "3.0"}); s != "" {
		t.Errorf("3 and 3.0: %s", s)
	}
	if s := attrDifference(prio, &types.AttributeValueMemberN{Value: "3"}, &types.AttributeValueMemberN{Value: "30"}); !strings.Contains(s, "expected 3, the table holds 30") {
		t.Errorf("3 and 30: %q", s)
	}
	set := d.Model().Entity("Task").Attr("labels")
	if s := attrDifference(set, &types.AttributeValueMemberSS{Value: []string{"a", "a#b"}}, &types.AttributeValueMemberSS{Value: []string{"a#b", "a"}}); s != "" {
		t.Errorf("a set in another order: %s", s)
	}
	if s := attrDifference(set, &types.AttributeValueMemberSS{Value: []string{"a", "a#b"}}, &types.AttributeValueMemberSS{Value: []string{"a", "ab"}}); s == "" {
		t.Error("{a, a#b} and {a, ab} are alike")
	}
}
