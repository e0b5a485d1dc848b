package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// keyplan local --data: acknowledged means durable. Each test kills a
// separate keyplan local process (SIGKILL: no flush, no handler) and
// restarts it on the same directory. make test runs a few rounds;
// make test-scale many ($KEYPLAN_CRASH_ROUNDS).

// crashRounds is how many kill -9 rounds a crash test runs.
func crashRounds(short int) int {
	if n, err := strconv.Atoi(os.Getenv("KEYPLAN_CRASH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return short
}

// fate is what a client knows of a key after its requests: written with
// a value, deleted, or unknown (a request was in flight at the kill: it
// may or may not have been applied).
type fate struct {
	value   string // "" deleted
	unknown bool
	// counter: the value last acknowledged (an ADD in flight may have
	// made it one more).
	counter int
}

func str(v string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: v} }

func crashKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"id": str(id)}
}

// burst writes from writers clients at once until stop is closed:
// puts of new keys, deletes of some of them, and ADDs to a counter of
// each writer's; it returns what each request's answer says.
func burst(c *dynamodb.Client, table, round string, writers int, stop <-chan struct{}) map[string]*fate {
	var mu sync.Mutex
	fates := map[string]*fate{}
	set := func(k string, f *fate) { mu.Lock(); fates[k] = f; mu.Unlock() }
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(len(round))))
			var mine []string
			ctr := fmt.Sprintf("ctr-%s-%d", round, w)
			count := 0
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				switch op := rng.IntN(10); {
				case op < 6:
					k := fmt.Sprintf("%s-w%d-%d", round, w, i)
					v := strings.Repeat(k, 1+rng.IntN(20))
					_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"id": str(k), "v": str(v)}})
					if err != nil {
						set(k, &fate{unknown: true})
						return
					}
					set(k, &fate{value: v})
					mine = append(mine, k)
				case op < 8 && len(mine) > 0:
					k := mine[rng.IntN(len(mine))]
					_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: crashKey(k)})
					if err != nil {
						set(k, &fate{unknown: true})
						return
					}
					set(k, &fate{})
				default:
					out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: crashKey(ctr),
						UpdateExpression: aws.String("ADD n :one"), ReturnValues: types.ReturnValueUpdatedNew,
						ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}})
					if err != nil {
						set(ctr, &fate{counter: count, unknown: true})
						return
					}
					count, _ = strconv.Atoi(out.Attributes["n"].(*types.AttributeValueMemberN).Value)
					set(ctr, &fate{counter: count})
				}
			}
		})
	}
	wg.Wait()
	return fates
}

// lost lists what the table lacks of what was acknowledged.
func lost(t *testing.T, c *dynamodb.Client, table string, fates map[string]*fate) []string {
	t.Helper()
	ctx := context.Background()
	var bad []string
	for k, f := range fates {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: crashKey(k), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(k, "ctr-"):
			got := 0
			if n, ok := out.Item["n"].(*types.AttributeValueMemberN); ok {
				got, _ = strconv.Atoi(n.Value)
			}
			if got < f.counter || got > f.counter+1 || (!f.unknown && got != f.counter) {
				bad = append(bad, fmt.Sprintf("%s is %d, acknowledged %d", k, got, f.counter))
			}
		case f.unknown:
		case f.value == "" && out.Item != nil:
			bad = append(bad, k+": acknowledged deleted, still there")
		case f.value != "" && (out.Item == nil || out.Item["v"].(*types.AttributeValueMemberS).Value != f.value):
			bad = append(bad, fmt.Sprintf("%s: acknowledged %.20q…, found %v", k, f.value, out.Item))
		}
	}
	return bad
}

func createCrashTable(t *testing.T, c *dynamodb.Client, table string) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}}})
	if err != nil {
		t.Fatal(err)
	}
}

// kill9 kills a keyplan local with SIGKILL and waits for it to go.
func (s *served) kill9(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
}

// kill -9 during a burst of writes from 8 clients, restart: every
// acknowledged write (put, delete, counter increment) is there, in every
// round, the rounds' writes accumulating in one directory.
func TestLocalKeepsEveryAcknowledgedWriteThroughKill9(t *testing.T) {
	enginepass.Parallel(t)
	p := separateProcesses(t)
	data := filepath.Join(t.TempDir(), "data")
	const table = "crash"
	all := map[string]*fate{}
	rounds := crashRounds(3)
	for r := range rounds {
		s := p.local("--port", "0", "--data", data)
		c := s.client()
		if r == 0 {
			createCrashTable(t, c, table)
		}
		if bad := lost(t, c, table, all); len(bad) > 0 {
			t.Fatalf("round %d: after kill -9 and a restart, %d acknowledged write(s) lost: %v", r, len(bad), bad[:min(len(bad), 5)])
		}
		stop := make(chan struct{})
		killAfter := time.Duration(150+rand.IntN(350)) * time.Millisecond
		go func() { time.Sleep(killAfter); s.kill9(t); close(stop) }()
		fates := burst(c, table, "r"+strconv.Itoa(r), 8, stop)
		<-stop
		acked := 0
		for k, f := range fates {
			if !f.unknown {
				acked++
			}
			all[k] = f
		}
		t.Logf("round %d: killed after %v, %d requests' answers recorded, %d acknowledged", r, killAfter, len(fates), acked)
		if acked == 0 {
			t.Fatalf("round %d: nothing acknowledged before the kill", r)
		}
	}
	s := p.local("--port", "0", "--data", data)
	if bad := lost(t, s.client(), table, all); len(bad) > 0 {
		t.Fatalf("after %d rounds of kill -9: %d acknowledged write(s) lost: %v", rounds, len(bad), bad[:min(len(bad), 5)])
	}
}

// migrate's "done" is durable: with a client writing new items through
// the rollout runtime meanwhile, keyplan migrate exits 0, the engine is
// killed at once (kill -9), and after a restart every item holds exactly
// the target design's keys and every acknowledged new item is there.
func TestMigrateDoneSurvivesKill9(t *testing.T) {
	enginepass.Parallel(t)
	p := separateProcesses(t)
	data := filepath.Join(t.TempDir(), "data")
	n := 2000
	if s, err := strconv.Atoi(os.Getenv("KEYPLAN_SCALE")); err == nil && s > 0 {
		n = s
	}
	for r := range crashRounds(1) {
		table := "shop" + strconv.Itoa(r)
		s := p.local("--port", "0", "--data", data)
		c := s.client()
		ctx := context.Background()
		src, err := os.ReadFile("../../" + evolvetest.ShopModel)
		if err != nil {
			t.Fatal(err)
		}
		src = append([]byte("indexKeys: synthetic\n"), src...)
		model := filepath.Join(t.TempDir(), "shop.yaml")
		os.WriteFile(model, src, 0o644)
		p.run(0, "lock", model)
		os.WriteFile(model, []byte(evolvetest.ShopV2(string(src))), 0o644)
		p.run(0, "lock", model)
		lock, err := patterns.LoadLock(patterns.LockPath(model))
		if err != nil {
			t.Fatal(err)
		}
		if err := dynamo.CreateLockTable(ctx, c, lock, table); err != nil {
			t.Fatal(err)
		}
		gen := evolvetest.ShopItems(n + 5000)
		v1 := dynamo.New(lock.Accepted, nil, table)
		var items []map[string]types.AttributeValue
		for _, it := range gen[:n] {
			its, err := v1.Items(it.Entity, it.Values)
			if err != nil {
				t.Fatal(err)
			}
			items = append(items, its...)
		}
		if err := dynamo.BatchPut(ctx, c, table, items); err != nil {
			t.Fatal(err)
		}
		// Another client writes new items meanwhile, as the application does
		// during a migration (both designs' keys).
		app := dynamo.NewRollout(lock, c, table)
		stop := make(chan struct{})
		var acked []evolvetest.Item
		var wg sync.WaitGroup
		wg.Go(func() {
			for _, it := range gen[n:] {
				select {
				case <-stop:
					return
				default:
				}
				if err := app.Create(ctx, it.Entity, it.Values); err != nil {
					return
				}
				acked = append(acked, it)
			}
		})
		out := p.run(0, "migrate", model, "--table", table, "--endpoint", s.endpoint)
		s.kill9(t)
		close(stop)
		wg.Wait()
		if !strings.Contains(out, "the migration is done") {
			t.Fatalf("migrate: %s", out)
		}
		done, err := patterns.LoadLock(patterns.LockPath(model))
		if err != nil || done.Migration != nil {
			t.Fatalf("the lock after migrate: %v", err)
		}
		again := p.local("--port", "0", "--data", data)
		got := evolvetest.ScanAll(t, again.client(), table)
		exactlyTarget(t, done.Accepted, got)
		target := dynamo.New(done.Accepted, nil, table)
		missing := 0
		for _, it := range acked {
			its, err := target.Items(it.Entity, it.Values)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range its {
				if _, ok := got[keyOf(want)]; !ok {
					missing++
				}
			}
		}
		if missing > 0 {
			t.Errorf("round %d: %d of the %d item(s) acknowledged during the migration are gone after kill -9", r, missing, len(acked))
		}
		t.Logf("round %d: %d items migrated, %d written meanwhile, engine killed as migrate exited", r, n, len(acked))
		again.kill9(t)
	}
}

// keyOf is an item's key as evolvetest.ScanAll names it.
func keyOf(it map[string]types.AttributeValue) string {
	return it["PK"].(*types.AttributeValueMemberS).Value + "|" + it["SK"].(*types.AttributeValueMemberS).Value
}

// A second keyplan local on the same --data is refused at start, naming
// the process that has it; the first goes on serving, and keeps what it
// acknowledges after.
func TestASecondLocalOnOneDataDirectoryIsRefused(t *testing.T) {
	enginepass.Parallel(t)
	p := separateProcesses(t)
	data := filepath.Join(t.TempDir(), "data")
	first := p.local("--port", "0", "--data", data)
	c := first.client()
	createCrashTable(t, c, "two")
	out := p.run(2, "local", "--port", "0", "--data", data)
	if want := fmt.Sprintf("in use by process %d", first.cmd.Process.Pid); !strings.Contains(out, want) {
		t.Fatalf("the second keyplan local: %q; want %q", out, want)
	}
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("two"), Item: map[string]types.AttributeValue{"id": str("after")}}); err != nil {
		t.Fatal(err)
	}
	first.kill9(t)
	again := p.local("--port", "0", "--data", data)
	if bad := lost(t, again.client(), "two", map[string]*fate{"after": {value: ""}}); len(bad) != 1 {
		t.Fatalf("the first server's write after the refusal: %v", bad)
	}
}

// A full disk: keyplan local runs with a file size limit (RLIMIT_FSIZE,
// set by prlimit: a real kernel refusal, EFBIG, of the store's writes,
// as ENOSPC would be, with no root-only mount). The write that does not
// fit is answered 500 saying why, the failure is logged at once, and
// that write is not kept; every write acknowledged before is, after a
// kill -9 and a restart without the limit, where writes succeed again.
func TestAFullDiskFailsTheWriteAndKeepsTheRest(t *testing.T) {
	enginepass.Parallel(t)
	p := separateProcesses(t)
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit (util-linux) to limit the file size")
	}
	data := filepath.Join(t.TempDir(), "data")
	s := serveCommand(t, exec.Command(prlimit, "--fsize=524288", p.bin, "local", "--port", "0", "--data", data), p.env)
	c := s.client()
	createCrashTable(t, c, "full")
	ctx := context.Background()
	fates := map[string]*fate{}
	var refused string
	// Items under 4 KB: a GetItem answer over 4 KB (sent chunked) fails
	// now and then on the Go SDK, with or without a data directory (left
	// to the wire's issue).
	for i := 0; i < 3000 && refused == ""; i++ {
		k := fmt.Sprintf("item-%04d", i)
		v := strings.Repeat(k, 380)
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("full"), Item: map[string]types.AttributeValue{"id": str(k), "v": str(v)}})
		if err == nil {
			fates[k] = &fate{value: v}
			continue
		}
		var api smithy.APIError
		var status interface{ HTTPStatusCode() int }
		if !errors.As(err, &api) || api.ErrorCode() != "InternalServerError" || !strings.Contains(api.ErrorMessage(), "file too large") ||
			!errors.As(err, &status) || status.HTTPStatusCode() != 500 {
			t.Fatalf("the write that does not fit: %v", err)
		}
		refused = k
	}
	if refused == "" {
		t.Fatal("3,000 writes of 3.4 KB fit in 512 KB")
	}
	// Logged before the answer; read through a pipe, so looked for a
	// moment.
	for wait := time.Now(); !strings.Contains(s.stderr.String(), "failed to commit") && time.Since(wait) < 2*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
	if log := s.stderr.String(); !strings.Contains(log, "failed to commit") || !strings.Contains(log, "file too large") {
		t.Errorf("the failure is not logged: %q", log)
	}
	fates[refused] = &fate{}
	if bad := lost(t, c, "full", fates); len(bad) > 0 {
		t.Errorf("on the full disk: %v", bad)
	}
	s.kill9(t)
	again := p.local("--port", "0", "--data", data)
	c = again.client()
	if bad := lost(t, c, "full", fates); len(bad) > 0 {
		t.Errorf("after a restart: %d acknowledged write(s) lost, or the refused one kept: %v", len(bad), bad[:min(5, len(bad))])
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("full"), Item: map[string]types.AttributeValue{"id": str(refused)}}); err != nil {
		t.Errorf("with room again: %v", err)
	}
	t.Logf("%d writes acknowledged before %s was refused", len(fates)-1, refused)
}

// What is not an item write is as durable as one: a table's tags, an
// on-demand backup (made, then deleted) and a PartiQL INSERT, each killed
// (kill -9) at once after its answer, are there after a restart, and a
// backup made before one kill restores its items after it.
func TestLocalKeepsTableStateThroughKill9(t *testing.T) {
	enginepass.Independent(t)
	p := separateProcesses(t)
	data := filepath.Join(t.TempDir(), "data")
	ctx := context.Background()
	const table = "state"
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	s := p.local("--port", "0", "--data", data)
	c := s.client()
	createCrashTable(t, c, table)
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}}})
	must("PutItem", err)
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	must("DescribeTable", err)
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: d.Table.TableArn, Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}}})
	must("TagResource", err)
	bk, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("before")})
	must("CreateBackup", err)
	_, err = c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "` + table + `" VALUE {'id': 'b'}`)})
	must("ExecuteStatement", err)
	s.kill9(t)

	s = p.local("--port", "0", "--data", data)
	c = s.client()
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
	must("ListTagsOfResource", err)
	if len(tags.Tags) != 1 || aws.ToString(tags.Tags[0].Value) != "core" {
		t.Errorf("tags after kill -9: %+v", tags.Tags)
	}
	if out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "b"}}}); err != nil || out.Item == nil {
		t.Errorf("the PartiQL INSERT after kill -9: %v, %v", out, err)
	}
	_, err = c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: bk.BackupDetails.BackupArn, TargetTableName: aws.String("restored")})
	must("RestoreTableFromBackup after kill -9", err)
	if n, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("restored"), Select: types.SelectCount}); err != nil || n.Count != 1 {
		t.Errorf("the restored table: %v, %v; want the 1 item the backup holds", n, err)
	}
	_, err = c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: bk.BackupDetails.BackupArn})
	must("DeleteBackup", err)
	s.kill9(t)

	c = p.local("--port", "0", "--data", data).client()
	list, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{})
	must("ListBackups", err)
	if len(list.BackupSummaries) != 0 {
		t.Errorf("a deleted backup is back after kill -9: %+v", list.BackupSummaries)
	}
}
