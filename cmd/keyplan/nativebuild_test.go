package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/engine/usercache"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// trackerByPriority is the tracker's next pattern: its tasks by tenant
// and status, highest priority first, over attributes every task already
// holds (tenantId, status, priority, the id taskId): a native index build.
const trackerByPriority = "  TasksByPriority: {query: Task, where: [tenantId, status], sort: priority desc, rate: 10}\n"

// The acceptance of issue 25 from separate processes, against keyplan
// local (the in-process engine, which has multi-attribute keys): the
// tracker's table is left by validate --keep, with generated tasks
// beside the examples; the next pattern, over attributes the tasks
// hold, is a change keyplan diff accepts (exit 0: an index build, no
// backfill); keyplan lock accepts it in one step; keyplan migrate
// --apply-indexes creates the GSI on the local table (there is no cdk
// deploy there) and completes; and the new pattern returns every
// existing task, each read compared with the reference evaluator
// (patterns/oracle), which never looks at keys.
func TestNativeIndexBuildFromSeparateProcesses(t *testing.T) {
	enginepass.Independent(t) // keyplan local's engine, whatever the engine passes name
	procs := separateProcesses(t)
	t.Setenv(usercache.Env, cacheOf(procs)) // this process signs with keyplan local's key too
	ep := procs.local("--port", "0").endpoint
	run := procs.run
	src, err := os.ReadFile("../../examples/tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "tracker.yaml")
	if err := os.WriteFile(model, src, 0o644); err != nil {
		t.Fatal(err)
	}
	table := "native-build"
	run(0, "lock", model)
	run(0, "validate", model, "--keep", "--endpoint", ep, "--table", table)

	// Generated tasks beside the examples (ids that are prefixes of each
	// other, equal sort values, optional attributes absent), written as
	// the accepted design writes them.
	ctx := context.Background()
	client := localengine.Client(ep, 0)
	lk, err := patterns.LoadLock(patterns.LockPath(model))
	if err != nil {
		t.Fatal(err)
	}
	v1 := lk.Accepted.Model()
	generated := oracle.Generate(v1, 40, 25)
	tbl := dynamo.New(lk.Accepted, client, table)
	var raw []map[string]types.AttributeValue
	for _, it := range generated {
		its, err := tbl.Items(it.Entity, dynamo.Values(it.Plain()))
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, its...)
	}
	if err := dynamo.BatchPut(ctx, client, table, raw); err != nil {
		t.Fatal(err)
	}

	// The next pattern: diff accepts it as is, lock records no migration.
	v2 := strings.Replace(string(src), "examples:\n", trackerByPriority+"examples:\n", 1)
	if err := os.WriteFile(model, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run(0, "diff", model); !strings.Contains(out, "index build") || strings.Contains(out, "backfill Task") {
		t.Fatalf("diff of the next pattern: want an index build, no backfill:\n%s", out)
	}
	run(0, "lock", model)
	if lk, err = patterns.LoadLock(patterns.LockPath(model)); err != nil || lk.Migration != nil {
		t.Fatalf("the lock after the next pattern: %v, migration %v", err, lk.Migration)
	}
	p := lk.Accepted.Pattern("TasksByPriority")
	if p == nil {
		t.Fatal("the lock has no TasksByPriority")
	}
	ix := lk.Accepted.Index(p.Index)
	if ix == nil || !ix.Native() {
		t.Fatalf("TasksByPriority is served by %q, not a native GSI", p.Index)
	}
	before, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(before.Table.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool { return aws.ToString(g.IndexName) == ix.Name }) {
		t.Fatalf("%s exists before keyplan migrate", ix.Name)
	}
	out := run(0, "migrate", model, "--table", table, "--endpoint", ep, "--apply-indexes")
	if !strings.Contains(out, "created ["+ix.Name+" (index build: ") {
		t.Errorf("migrate --apply-indexes does not say it created %s:\n%s", ix.Name, out)
	}
	run(0, "migrate", model, "--table", table, "--endpoint", ep, "--apply-indexes") // again: nothing to do
	out = run(0, "validate", model, "--existing", "--table", table, "--endpoint", ep)
	if !strings.Contains(out, ", 0 failed") {
		t.Errorf("validate --existing after the index build:\n%s", out)
	}

	// Every task, by the reference: each (tenant, status) read of the new
	// pattern compared with the oracle's answer, and every task returned
	// by one of them.
	m, err := kpmodel.Parse("tracker.yaml", []byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	ref := oracle.NewState(m)
	var items []*oracle.Item
	for _, it := range m.Examples.Items {
		items = append(items, oracle.FromRuntime(m, it.Entity, it.Values))
	}
	if err := ref.Load(append(items, generated...)...); err != nil {
		t.Fatal(err)
	}
	final := dynamo.New(lk.Accepted, client, table)
	seen, returned := map[string]bool{}, map[string]bool{}
	for _, task := range ref.Of("Task") {
		params := map[string]any{"tenantId": task.Values["tenantId"], "status": task.Values["status"]}
		key := oracle.Text(params["tenantId"]) + "\x00" + oracle.Text(params["status"])
		if seen[key] {
			continue
		}
		seen[key] = true
		want, err := ref.Read(m.Pattern("TasksByPriority"), params, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []*oracle.Item
		rp := dynamo.Params{}
		for k, v := range params {
			rp[k] = oracle.Plain(v)
		}
		for it, err := range final.All(ctx, "TasksByPriority", dynamo.Request{Params: rp}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, oracle.FromRuntime(m, it.Entity, it.Values))
		}
		if err := want.Check(m, got, false); err != nil {
			t.Errorf("TasksByPriority(%v): %v", params, err)
		}
		for _, g := range got {
			returned[ref.IdentityOf(g)] = true
		}
	}
	all := ref.Of("Task")
	if len(all) < 40 {
		t.Fatalf("only %d task(s) in the table", len(all))
	}
	for _, task := range all {
		if !returned[ref.IdentityOf(task)] {
			t.Errorf("TasksByPriority never returns %v", task)
		}
	}
	t.Logf("TasksByPriority: %d read(s) agree with the reference, returning all %d task(s)", len(seen), len(all))
}

// cacheOf is the user cache p's processes run with (the last setting in
// their environment wins), where keyplan local writes its access key.
func cacheOf(p *processes) string {
	dir := ""
	for _, e := range p.env {
		if v, ok := strings.CutPrefix(e, usercache.Env+"="); ok {
			dir = v
		}
	}
	return dir
}
