package migrate

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// trackerNext is the tracker's next access pattern: tasks by tenant and
// priority, newest first. The tasks already hold all three attributes.
const trackerNext = "  TasksByPriority: {query: Task, where: [tenantId, priority], sort: createdAt desc, rate: 5}\n"

// The tracker locked as deployed, its items written, then its next
// pattern added: the change is one deploy with no backfill (KP615, the
// phase an index build), and once DynamoDB has built the new native
// index the new pattern returns every existing task, as a reference that
// reads the items' values (never their keys) says it must: right tenant
// and priority, newest first.
func TestNativeIndexBuildNeedsNoBackfill(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("../../../examples/tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v1, err := model.Parse("tracker.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	d1, err := patterns.Plan(v1)
	if err != nil {
		t.Fatal(err)
	}
	needsNative(t, d1)
	lock := patterns.NewLock(d1)

	next := strings.Replace(string(src), "patterns:\n", "patterns:\n"+trackerNext, 1)
	d2, df, ids := planEdit(t, lock, next)
	if !df.Safe || df.Backfills() || len(df.Phases) != 1 || !slices.Contains(ids, "KP615") || slices.Contains(ids, "KP610") {
		t.Fatalf("the next pattern: safe %v, changes %v, phases %v", df.Safe, ids, df.Phases)
	}
	pp := d2.Pattern("TasksByPriority")
	ix := d2.Index(pp.Index)
	if ix == nil || !ix.Native() || d1.Index(pp.Index) != nil {
		t.Fatalf("TasksByPriority is served by %s, not a new native index", pp.Index)
	}
	if got := df.Phases[0].String(); got != "create "+ix.Name+" (index build)" {
		t.Errorf("the phase says %q", got)
	}
	if err := lock.Apply(d2, df); err != nil || lock.Migration != nil || lock.Accepted != d2 {
		t.Fatalf("lock.Apply: %v, migration %v", err, lock.Migration)
	}

	// The table as deployed, holding the examples and tasks aimed at the
	// classic mistakes: tenant ids that are prefixes of each other or hold
	// # and %, equal priorities and equal creation times, the extremes of
	// the priority's range, tasks without an assignee.
	name := fmt.Sprintf("t%d-Tracker", tables.Add(1))
	if err := dynamo.CreateTable(ctx, engine, d1, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	before := dynamo.New(d1, client, name)
	var tasks []dynamo.Values
	var all []map[string]types.AttributeValue
	add := func(entity string, v dynamo.Values) {
		t.Helper()
		items, err := before.Items(entity, v)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, items...)
		if entity == "Task" {
			tasks = append(tasks, v)
		}
	}
	for _, it := range v1.Examples.Items {
		add(it.Entity, it.Values)
	}
	tenants := []string{"a", "ab", "a#b", "a%b", "acme"}
	for i := range 60 {
		tenant := tenants[i%len(tenants)]
		v := dynamo.Values{"tenantId": tenant, "taskId": fmt.Sprintf("g%d", i), "title": "t", "status": []string{"open", "doing", "done"}[i%3],
			"priority": []int{0, 9, 5, 5}[i%4], "createdAt": fmt.Sprintf("2026-07-%02dT10:00:00Z", 1+i%7)}
		if i%2 == 0 {
			v["assigneeId"], v["dueDate"] = "ana", "2026-08-01T00:00:00Z"
		}
		add("Task", v)
	}
	for _, tenant := range tenants[:4] {
		add("Tenant", dynamo.Values{"tenantId": tenant, "name": tenant})
	}
	if err := dynamo.BatchPut(ctx, engine, name, all); err != nil {
		t.Fatal(err)
	}

	// The deploy: the new index, built by the engine from the items.
	if err := dynamo.ApplyIndexes(ctx, engine, name, df.Phases[0].Indexes); err != nil {
		t.Fatal(err)
	}
	after := dynamo.New(d2, client, name)
	seen := 0
	type group struct {
		tenant   string
		priority int
	}
	groups := map[group][]dynamo.Values{}
	for _, v := range tasks {
		g := group{v["tenantId"].(string), toInt(t, v["priority"])}
		groups[g] = append(groups[g], v)
	}
	for g, want := range groups {
		var got []dynamo.Values
		for it, err := range after.All(ctx, "TasksByPriority", dynamo.Request{Params: dynamo.Params{"tenantId": g.tenant, "priority": g.priority}}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, it.Values)
		}
		ids := func(vs []dynamo.Values) []string {
			var out []string
			for _, v := range vs {
				out = append(out, v["tenantId"].(string)+"/"+v["taskId"].(string))
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(ids(got), ids(want)) {
			t.Errorf("TasksByPriority %v: got %v, want %v", g, ids(got), ids(want))
		}
		for i := 1; i < len(got); i++ {
			if fmt.Sprint(got[i-1]["createdAt"]) < fmt.Sprint(got[i]["createdAt"]) {
				t.Errorf("TasksByPriority %v: not newest first: %v before %v", g, got[i-1]["createdAt"], got[i]["createdAt"])
			}
		}
		seen += len(got)
	}
	if seen != len(tasks) {
		t.Errorf("the new pattern returned %d tasks in all; the table holds %d", seen, len(tasks))
	}
}

// toInt reads a number given as a Go int or decoded from an item.
func toInt(t *testing.T, v any) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(fmt.Sprint(v), &n); err != nil {
		t.Fatalf("%v: not a number", v)
	}
	return n
}

// A new native GSI that needs a discriminator (returns carry the orders'
// status, placedAt and orderId) is no index build: the orders lack
// GSInEntity, so the phase backfills them (KP610), and once it has, the
// new pattern returns every order of the status and no return, as the
// reference evaluator (which never looks at keys) says. Classified as an
// index build, the GSI would hold no existing order.
func TestNativeIndexWithADiscriminatorIsBackfilled(t *testing.T) {
	ctx := context.Background()
	byStatus := "  OrdersByStatus: {query: Order, where: [status], sort: placedAt}\n"
	v1src := strings.Replace(cleanupNativeV1, byStatus, "", 1)
	m1, err := model.Parse("v1.yaml", []byte(v1src))
	if err != nil {
		t.Fatal(err)
	}
	d1, err := patterns.Plan(m1)
	if err != nil {
		t.Fatal(err)
	}
	needsNative(t, d1)
	lock := patterns.NewLock(d1)
	ref := oracle.NewState(m1)
	items := map[string][]dynamo.Values{}
	for i, id := range []string{"a", "ab", "a#b", "a%b", "b", "o5", "o6", "o7"} {
		status := []string{"open", "shipped"}[i%2]
		at := fmt.Sprintf("2026-03-0%dT09:00:00Z", 1+i%3) // equal placedAt values
		items["Order"] = append(items["Order"], dynamo.Values{"orderId": id, "customerId": "c" + id, "status": status, "placedAt": at})
		items["Return"] = append(items["Return"], dynamo.Values{"returnId": "r" + id, "orderId": id, "status": status, "placedAt": at})
	}
	for entity, vs := range items {
		for _, v := range vs {
			if err := ref.Create(entity, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	name := phaseTable(t, lock, items)
	d2, df, ids := planEdit(t, lock, cleanupNativeV1)
	ix := d2.Index(d2.Pattern("OrdersByStatus").Index)
	if ix == nil || !ix.Native() || !ix.Discriminated() {
		t.Fatalf("OrdersByStatus is not served by a discriminated native GSI: %+v", ix)
	}
	if !slices.Contains(ids, "KP610") || slices.Contains(ids, "KP615") || !df.Backfills() {
		t.Fatalf("the new discriminated GSI: changes %v, backfills %v; want KP610 and a backfill", ids, df.Backfills())
	}
	if err := lock.Apply(d2, df); err != nil {
		t.Fatal(err)
	}
	migrateAll(t, lock, name)
	m2 := d2.Model()
	done := dynamo.New(lock.Accepted, client, name)
	for _, status := range []string{"open", "shipped"} {
		want, err := ref.Read(m2.Pattern("OrdersByStatus"), map[string]any{"status": status}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []*oracle.Item
		for it, err := range done.All(ctx, "OrdersByStatus", dynamo.Request{Params: dynamo.Params{"status": status}}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, oracle.FromRuntime(m2, it.Entity, it.Values))
		}
		if len(got) != 4 {
			t.Errorf("OrdersByStatus(%s): %d order(s), want 4", status, len(got))
		}
		if err := want.Check(m2, got, false); err != nil {
			t.Errorf("OrdersByStatus(%s): %v", status, err)
		}
	}
}
