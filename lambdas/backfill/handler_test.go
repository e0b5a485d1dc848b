package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/faults"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

var engine *streamtest.Engine

func TestMain(m *testing.M) { streamtest.Main(m, &engine) }

func TestEngine(t *testing.T) { streamtest.EngineChoice(t, engine) }

var quiet = slog.New(slog.NewJSONHandler(io.Discard, nil))

// phase1 is the shop migrating to ShopV2, at phase 1, on a table of its
// own holding n generated items and the examples, as the accepted design
// wrote them.
func phase1(t *testing.T, n int) (*patterns.Lock, string) {
	t.Helper()
	m1, _, lock := evolvetest.ShopMigration(t, "../..")
	d1 := lock.Accepted
	c, name := lockTable(t, lock, "backfill")
	ctx := context.Background()
	v1 := dynamo.New(d1, nil, name)
	var all []map[string]types.AttributeValue
	for _, it := range m1.Examples.Items {
		items, err := v1.Items(it.Entity, it.Values)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, items...)
	}
	for _, it := range evolvetest.ShopItems(n) {
		items, err := v1.Items(it.Entity, it.Values)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, items...)
	}
	if err := dynamo.BatchPut(ctx, c, name, all); err != nil {
		t.Fatal(err)
	}
	return lock, name
}

// planned plans the model src (named file) with lock (nil: none).
func planned(t *testing.T, file, src string, lock *patterns.Lock) *patterns.Design {
	t.Helper()
	m, err := model.Parse(file, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.PlanLocked(m, lock)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// lockTable creates a table named from prefix as lock's current phase
// deploys it (deleted when t ends): the engine's client, and its name.
func lockTable(t *testing.T, lock *patterns.Lock, prefix string) (*dynamodb.Client, string) {
	t.Helper()
	ctx := context.Background()
	c := streamtest.Client(engine.Endpoint, 0).Client
	name := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
	if err := dynamo.CreateLockTable(ctx, c, lock, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return c, name
}

// run plays the state machine: every segment's task, invoked again while
// not done, each invocation given a short deadline so a segment takes
// several. It returns the final tasks.
func run(t *testing.T, h *handler, segments int, budget time.Duration) []patterns.BackfillTask {
	t.Helper()
	var out []patterns.BackfillTask
	for seg := range segments {
		task := patterns.BackfillTask{Segment: seg, Segments: segments}
		for calls := 0; !task.Done; calls++ {
			if calls > 200 {
				t.Fatalf("segment %d never ends", seg)
			}
			ctx, cancel := context.WithTimeout(context.Background(), budget)
			next, err := h.Handle(ctx, task)
			cancel()
			if err != nil {
				continue // Step Functions retries the task as it was
			}
			task = next
		}
		out = append(out, task)
	}
	return out
}

// The worker, invoked as the state machine invokes it, backfills the
// phase: every segment ends, the counts add up, every item carries what
// the rollout runtime writes for it; invocations cut short by their
// deadline resume where they stopped, and a proxy failing 20% of
// requests changes nothing.
func TestWorkerBackfillsThePhase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		faulty bool
	}{{"clean", false}, {"20% faults", true}} {
		t.Run(tc.name, func(t *testing.T) {
			lock, name := phase1(t, 1500)
			endpoint := engine.Endpoint
			if tc.faulty {
				proxy, err := faults.New(endpoint, 0.2, 5, faults.AfterForwarding())
				if err != nil {
					t.Fatal(err)
				}
				defer proxy.Close()
				endpoint = proxy.URL
			}
			client := dynamodb.New(streamtest.Client(endpoint, 0).Client.Options(), faults.FastRetries)
			h := &handler{lock: lock, client: client, table: name, log: quiet, margin: 150 * time.Millisecond}
			tasks := run(t, h, 3, 250*time.Millisecond)
			var scanned, rewritten, failed int64
			for _, task := range tasks {
				scanned, rewritten, failed = scanned+task.Scanned, rewritten+task.Rewritten, failed+task.Failed
			}
			if failed != 0 || rewritten == 0 || scanned < rewritten {
				t.Errorf("scanned %d, rewritten %d, failed %d", scanned, rewritten, failed)
			}
			// Every item is as the rollout runtime writes it.
			rt := dynamo.NewRollout(lock, nil, name)
			c := streamtest.Client(engine.Endpoint, 0).Client
			var next map[string]types.AttributeValue
			bad := 0
			for {
				page, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(name), ExclusiveStartKey: next})
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range page.Items {
					entity, v, err := rt.Decode(it)
					if err != nil {
						continue // a guard
					}
					want, _ := rt.Item(entity, v)
					if len(want) != len(it) {
						bad++
					}
				}
				if next = page.LastEvaluatedKey; len(next) == 0 {
					break
				}
			}
			if bad > 0 {
				t.Errorf("%d item(s) do not carry the phase's keys", bad)
			}
		})
	}
}

// A task the state machine could not have built, and a lock without a
// migration, are errors that say so.
func TestWorkerRefuses(t *testing.T) {
	lock, name := phase1(t, 10)
	h := &handler{lock: lock, client: streamtest.Client(engine.Endpoint, 0).Client, table: name, log: quiet}
	if _, err := h.Handle(context.Background(), patterns.BackfillTask{Segment: 3, Segments: 3}); err == nil || !strings.Contains(err.Error(), "segment 3 of 3") {
		t.Errorf("segment out of range: %v", err)
	}
	done := patterns.NewLock(lock.Accepted)
	h.lock = done
	if _, err := h.Handle(context.Background(), patterns.BackfillTask{Segment: 0, Segments: 1}); err == nil || !strings.Contains(err.Error(), "no migration in progress") {
		t.Errorf("a lock without a migration: %v", err)
	}
}

// The worker's write-rate limit comes from its environment; a value that
// is not a finite number of 0 or more fails its start, naming the
// variable (it ran unlimited).
func TestMaxWCUFromTheEnvironment(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  float64
		err   string
	}{
		{"", 0, ""}, {"0", 0, ""}, {"12.5", 12.5, ""},
		{"NaN", 0, "finite number"}, {"+Inf", 0, "finite number"}, {"-3", 0, "0 (no limit) or more"},
		{"lots", 0, "expected a number"}, {"1e999", 0, "expected a number"},
	} {
		got, err := maxWCU(func(name string) string {
			if name != patterns.BackfillMaxWCUEnv {
				t.Fatalf("read %s", name)
			}
			return tt.value
		})
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%q: %v, %v; want %v", tt.value, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), patterns.BackfillMaxWCUEnv)):
			t.Errorf("%q: %v, %v; want an error naming %s and saying %q", tt.value, got, err, patterns.BackfillMaxWCUEnv, tt.err)
		}
	}
}
