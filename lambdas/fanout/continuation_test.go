package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine/dynalite"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// streamed is the engine's client with the table's stream, as far as the
// fanout's own items go (the engines have no streams): each write of a
// continuation becomes the record DynamoDB Streams would deliver (INSERT,
// MODIFY or REMOVE, both images), queued in the order of the writes.
type streamed struct {
	*dynalite.Transactions
	d    *patterns.Design
	name string

	mu    sync.Mutex
	queue []events.DynamoDBEventRecord
	// beforeUpdate, when set, runs before each copy's update (from the
	// handler's updaters, concurrently).
	beforeUpdate func(n int64)
	updates      atomic.Int64
	// byValue counts the copies' updates by the value they set.
	byValue map[string]int
}

func (s *streamed) own(key map[string]types.AttributeValue) bool {
	pk, ok := key[s.d.PK].(*types.AttributeValueMemberS)
	return ok && strings.HasPrefix(pk.Value, patterns.FanoutTag)
}

func (s *streamed) old(ctx context.Context, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	out, err := s.Transactions.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil
	}
	return out.Item
}

func (s *streamed) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if !s.own(in.Item) {
		return s.Transactions.PutItem(ctx, in, opts...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.old(ctx, map[string]types.AttributeValue{s.d.PK: in.Item[s.d.PK], s.d.SK: in.Item[s.d.SK]})
	out, err := s.Transactions.PutItem(ctx, in, opts...)
	if err == nil {
		s.queue = append(s.queue, streamtest.Record(s.d, s.name, old, in.Item))
	}
	return out, err
}

func (s *streamed) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if !s.own(in.Key) {
		return s.Transactions.DeleteItem(ctx, in, opts...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.old(ctx, in.Key)
	out, err := s.Transactions.DeleteItem(ctx, in, opts...)
	if err == nil && old != nil {
		s.queue = append(s.queue, streamtest.Record(s.d, s.name, old, nil))
	}
	return out, err
}

func (s *streamed) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	n := s.updates.Add(1)
	if s.beforeUpdate != nil {
		s.beforeUpdate(n)
	}
	out, err := s.Transactions.UpdateItem(ctx, in, opts...)
	if err == nil {
		s.mu.Lock()
		for _, v := range in.ExpressionAttributeValues {
			if v, ok := v.(*types.AttributeValueMemberS); ok {
				if s.byValue == nil {
					s.byValue = map[string]int{}
				}
				s.byValue[v.Value]++
			}
		}
		s.mu.Unlock()
	}
	return out, err
}

// take empties the queue.
func (s *streamed) take() []events.DynamoDBEventRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue
	s.queue = nil
	return q
}

// shop is the ecommerce table with customer c1 (named Ada) and n of her
// orders, and the stream of the fanout's own items.
func shop(t testing.TB, n int) (*dynamo.Table, *streamed) {
	t.Helper()
	d := streamtest.Design(t, modelFile)
	name := engine.Table(t, d)
	s := &streamed{Transactions: streamtest.Client(engine.Endpoint, 0), d: d, name: name}
	tbl := dynamo.New(d, s, name)
	ctx := context.Background()
	if err := tbl.Create(ctx, "Customer", customer("c1", "Ada", "ada@example.com")); err != nil {
		t.Fatal(err)
	}
	orders(t, tbl, s, "c1", "Ada", n)
	return tbl, s
}

// orders writes n orders of a customer, named name on them.
func orders(t testing.TB, tbl *dynamo.Table, s *streamed, customerID, name string, n int) {
	t.Helper()
	ctx := context.Background()
	// Written 25 at a time by a few writers: the setup of 100,000 copies
	// must not dominate the run.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for start := w * 25; start < n; start += 8 * 25 {
				var reqs []types.WriteRequest
				for i := start; i < min(start+25, n); i++ {
					it, err := tbl.Item("Order", order(fmt.Sprintf("O%s-%07d", customerID, i), customerID, name))
					if err != nil {
						errs <- err
						return
					}
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
				}
				for len(reqs) > 0 {
					out, err := s.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.name: reqs}})
					if err != nil {
						errs <- err
						return
					}
					reqs = out.UnprocessedItems[s.name]
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// rename renames customer c1 in the table and returns the record of it.
func rename(t testing.TB, tbl *dynamo.Table, s *streamed, to string) events.DynamoDBEventRecord {
	t.Helper()
	return renameCustomer(t, tbl, s, "c1", to)
}

// renameCustomer renames a customer in the table and returns the record
// of it.
func renameCustomer(t testing.TB, tbl *dynamo.Table, s *streamed, id, to string) events.DynamoDBEventRecord {
	t.Helper()
	ctx := context.Background()
	key, err := tbl.Key("Customer", dynamo.Values{"customerId": id})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		t.Fatalf("customer %s: %v", id, err)
	}
	next := map[string]types.AttributeValue{}
	for k, v := range out.Item {
		next[k] = v
	}
	next["name"] = &types.AttributeValueMemberS{Value: to}
	if _, err := s.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.name), Item: next}); err != nil {
		t.Fatal(err)
	}
	return streamtest.Record(s.d, s.name, out.Item, next)
}

// census counts the orders by customerName, and the continuations left,
// with a Scan of the whole table.
func census(t testing.TB, s *streamed) (names map[string]int, continuations int) {
	t.Helper()
	names = map[string]int{}
	var start map[string]types.AttributeValue
	for {
		out, err := s.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(s.name), ExclusiveStartKey: start})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			pk := it[s.d.PK].(*types.AttributeValueMemberS).Value
			switch {
			case strings.HasPrefix(pk, patterns.FanoutTag):
				continuations++
			case strings.HasPrefix(pk, "ORDER#"):
				n, _ := it["customerName"].(*types.AttributeValueMemberS)
				if n == nil {
					names["(none)"]++
				} else {
					names[n.Value]++
				}
			}
		}
		if start = out.LastEvaluatedKey; start == nil {
			return names, continuations
		}
	}
}

// drain delivers the stream's queued records to h, batch records at a
// time (redelivering failures as Lambda does), until it is empty; it
// returns the invocations, and fails the test when one updated more
// copies than the handler's budget or when they do not end.
func drain(t testing.TB, h *handler, s *streamed, batch, most int) int {
	t.Helper()
	invocations := 0
	for {
		q := s.take()
		if len(q) == 0 {
			return invocations
		}
		for len(q) > 0 {
			n := min(batch, len(q))
			before := h.updated
			if _, err := streamtest.Deliver(context.Background(), h.Handle, q[:n], 5); err != nil {
				t.Fatal(err)
			}
			q = q[n:]
			invocations++
			if did := h.updated - before; did > h.budget {
				t.Fatalf("one invocation updated %d copies; the budget is %d", did, h.budget)
			}
			if invocations > most {
				t.Fatalf("still going after %d invocations", invocations)
			}
		}
	}
}

// A source with more copies than one invocation's budget: the first
// invocation updates what the budget allows and leaves a continuation;
// the continuation's records carry the rest, one bounded invocation at a
// time, each copy updated exactly once, and nothing is left behind.
func TestContinuation(t *testing.T) {
	t.Parallel()
	const n, budget, page = 1000, 120, 25
	tbl, s := shop(t, n)
	h := newHandler(patterns.NewLock(tbl.Design()), s, s.name, quiet)
	h.budget, h.page = budget, page
	if _, err := streamtest.Deliver(context.Background(), h.Handle, []events.DynamoDBEventRecord{rename(t, tbl, s, "Ada Lovelace")}, 1); err != nil {
		t.Fatal(err)
	}
	if h.updated != budget || h.continued != 1 {
		t.Fatalf("the first invocation updated %d copies and wrote %d continuations; want %d and 1", h.updated, h.continued, budget)
	}
	invocations := 1 + drain(t, h, s, 10, 3*n/budget)
	names, left := census(t, s)
	if names["Ada Lovelace"] != n || len(names) != 1 || left != 0 {
		t.Errorf("orders by customerName %v, %d continuations left; want all %d renamed, none left", names, left, n)
	}
	if h.updated != n {
		t.Errorf("%d updates for %d copies", h.updated, n)
	}
	if want := (n + budget - 1) / budget; invocations < want {
		t.Errorf("%d invocations; the budget allows no fewer than %d", invocations, want)
	}
	t.Logf("%d copies: %d invocations, %d continuation writes", n, invocations, h.continued)
}

// A newer value never loses to an older one: the source changes (Ada →
// B → C) while B's continuation is pending and even while one of its
// pages is being written (by another invocation, as another shard's
// records would be); B's records arrive again after C's (redelivery).
// Every copy ends at C, and no continuation is left.
func TestNewerValueWins(t *testing.T) {
	t.Parallel()
	const n, budget, page = 300, 40, 10
	tbl, s := shop(t, n)
	lock := patterns.NewLock(tbl.Design())
	h := newHandler(lock, s, s.name, quiet)
	h.budget, h.page = budget, page
	other := newHandler(lock, s, s.name, quiet) // the source's shard
	other.budget, other.page = budget, page
	ctx := context.Background()
	deliver := func(h *handler, rs ...events.DynamoDBEventRecord) {
		t.Helper()
		if _, err := streamtest.Deliver(ctx, h.Handle, rs, 5); err != nil {
			t.Fatal(err)
		}
	}
	deliver(other, rename(t, tbl, s, "B")) // 40 copies, and a continuation
	first := s.take()
	deliver(h, first...) // 40 more; the continuation advances
	second := s.take()
	if len(first) != 1 || len(second) != 1 {
		t.Fatalf("continuation records %d, %d; want 1 and 1", len(first), len(second))
	}
	// While B's third page is written, the source becomes C.
	var fired atomic.Bool
	var during error
	s.beforeUpdate = func(int64) {
		if fired.CompareAndSwap(false, true) { // once, and never waiting (the rename may update copies too)
			_, during = streamtest.Deliver(ctx, other.Handle, []events.DynamoDBEventRecord{rename(t, tbl, s, "C")}, 5)
		}
	}
	deliver(h, second...)
	s.beforeUpdate = nil
	if during != nil {
		t.Fatal(during)
	}
	// B's page went on after C's reset, but B did not advance over it:
	// the one record is C's, from the start.
	reset := s.take()
	if len(reset) != 1 || reset[0].Change.NewImage[attrValue].String() != "C" || reset[0].Change.NewImage[attrStep].Number() != "0" {
		t.Fatalf("after B's page: records %+v; want C's reset alone", reset)
	}
	// B's records again, before and after C's reset: stale, they change
	// nothing.
	deliver(h, append(first, second...)...)
	deliver(h, reset...)
	deliver(h, append(first, second...)...)
	drain(t, h, s, 10, 3*n/budget)
	deliver(h, append(first, second...)...)
	names, left := census(t, s)
	if names["C"] != n || len(names) != 1 || left != 0 {
		t.Errorf("orders by customerName %v, %d continuations left; want all %d at C, none left", names, left, n)
	}
}

// 100,000 copies of one source (KEYPLAN_SCALE sets the number; make
// test-scale runs 100,000 on each local engine; make test a few thousand),
// with the handler's defaults: every copy renamed, each invocation within
// its budget, nothing left.
func TestFanoutAtScale(t *testing.T) {
	t.Parallel()
	n := 3000
	if s := os.Getenv("KEYPLAN_SCALE"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("KEYPLAN_SCALE=%q: expected a number of copies", s)
		}
	}
	began := time.Now()
	tbl, s := shop(t, n)
	setup := time.Since(began)
	h := newHandler(patterns.NewLock(tbl.Design()), s, s.name, quiet)
	began = time.Now()
	if _, err := streamtest.Deliver(context.Background(), h.Handle, []events.DynamoDBEventRecord{rename(t, tbl, s, "Ada Lovelace")}, 1); err != nil {
		t.Fatal(err)
	}
	invocations := 1 + drain(t, h, s, 100, 3*n/h.budget+3)
	took := time.Since(began)
	names, left := census(t, s)
	if names["Ada Lovelace"] != n || len(names) != 1 || left != 0 || h.updated != n {
		t.Errorf("orders by customerName %v, %d continuations left, %d updates; want all %d renamed once, none left", names, left, h.updated, n)
	}
	t.Logf("%d copies on %s: setup %v; fanned out in %v, %d invocations of at most %d copies, %d continuation writes",
		n, engine.Name, setup.Round(time.Millisecond), took.Round(time.Millisecond), invocations, h.budget, h.continued)
}

// A continuation progresses under a steady stream of other changes: every
// batch holds, ahead of the continuations' records, a new source change
// whose copies alone would spend the invocation's budget (a customer with
// as many orders as the budget, a new one each time), and the
// continuations' records come in the reverse of their age. Of two
// continuations (c1's rename, then c3's, each with many more copies than
// the budget), the older progresses in every invocation until it is done,
// then the other; both finish in the invocations their work takes, each
// copy is updated once, every invocation stays within its budget, and the
// backlog the busy stream left drains.
func TestContinuationProgressesUnderABusyStream(t *testing.T) {
	t.Parallel()
	const n, budget, page = 300, 30, 10
	tbl, s := shop(t, n)
	ctx := context.Background()
	if err := tbl.Create(ctx, "Customer", customer("c3", "Cy", "cy@example.com")); err != nil {
		t.Fatal(err)
	}
	orders(t, tbl, s, "c3", "Cy", n)
	const busy = 2*n/budget + 2 // the invocations c1's and c3's work takes, and a little more
	for i := range busy {
		id := fmt.Sprintf("b%d", i)
		if err := tbl.Create(ctx, "Customer", customer(id, "B", id+"@example.com")); err != nil {
			t.Fatal(err)
		}
		orders(t, tbl, s, id, "B", budget)
	}
	h := newHandler(patterns.NewLock(tbl.Design()), s, s.name, quiet)
	h.budget, h.page = budget, page
	deliver := func(rs []events.DynamoDBEventRecord) {
		t.Helper()
		before := h.updated
		if _, err := streamtest.Deliver(ctx, h.Handle, rs, 5); err != nil {
			t.Fatal(err)
		}
		if did := h.updated - before; did > h.budget {
			t.Fatalf("one invocation updated %d copies; the budget is %d", did, h.budget)
		}
	}
	deliver([]events.DynamoDBEventRecord{renameCustomer(t, tbl, s, "c1", "Ada Lovelace"), renameCustomer(t, tbl, s, "c3", "Cyrus")})
	count := func(v string) int { s.mu.Lock(); defer s.mu.Unlock(); return s.byValue[v] }
	ran := 0 // busy invocations
	for ; count("Cyrus") < n; ran++ {
		i := ran
		if i == busy {
			t.Fatalf("after %d busy invocations, %d and %d of %d copies renamed", busy, count("Ada Lovelace"), count("Cyrus"), n)
		}
		older, was := "Ada Lovelace", count("Ada Lovelace")
		if was == n {
			older, was = "Cyrus", count("Cyrus")
		}
		queued := s.take()
		slices.Reverse(queued)
		// The new change first (it was written before the records of the
		// last invocation's continuations), then those, youngest first.
		deliver(append([]events.DynamoDBEventRecord{renameCustomer(t, tbl, s, fmt.Sprintf("b%d", i), fmt.Sprintf("B%d", i))}, queued...))
		if count(older) == was {
			t.Fatalf("invocation %d: the older continuation (%s, %d of %d copies) made no progress", i+2, older, was, n)
		}
	}
	drain(t, h, s, 10, 10*busy)
	names, left := census(t, s)
	if names["Ada Lovelace"] != n || names["Cyrus"] != n || left != 0 {
		t.Errorf("orders by customerName %v, %d continuations left; want %d of each renamed, none left", names, left, n)
	}
	for i := range ran {
		if v := fmt.Sprintf("B%d", i); names[v] != budget || count(v) != budget {
			t.Errorf("customer b%d: %d orders renamed %s, %d updates; want %d", i, names[v], v, count(v), budget)
		}
	}
	if count("Ada Lovelace") != n || count("Cyrus") != n {
		t.Errorf("%d and %d updates for %d copies each", count("Ada Lovelace"), count("Cyrus"), n)
	}
	t.Logf("both done after %d busy invocations (their work takes %d)", ran, 2*n/budget-1)
}
