package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

const ticketsModel = "../testdata/models/tickets.yaml"

func ticket(id, assignee, status string, priority int) Values {
	return Values{"ticketId": id, "assigneeId": assignee, "status": status, "priority": priority,
		"title": "printer on fire", "openedAt": "2026-03-01T09:00:00Z"}
}

// raw reads an item as stored.
func raw(t testing.TB, tbl *Table, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	t.Helper()
	out, err := engine.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tbl.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func ticketKey(t testing.TB, tbl *Table, id string) map[string]types.AttributeValue {
	t.Helper()
	k, err := tbl.key("Ticket", Values{"ticketId": id})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A counter the counters handler keeps survives every write the
// application makes: an update, a replace, a put if present.
func TestMaintainedAttributeSurvivesWrites(t *testing.T) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	tk := ticket("t1", "ann", "OPEN", 3)
	if err := tbl.Write(ctx, "OpenTicket", Params(tk)); err != nil {
		t.Fatal(err)
	}
	// The handler counts three comments.
	if _, err := engine.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tbl.Name()), Key: ticketKey(t, tbl, "t1"),
		UpdateExpression:          aws.String("ADD commentCount :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "3"}}}); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Write(ctx, "SetStatus", Params{"ticketId": "t1", "status": "PENDING", "assigneeId": "ann", "priority": 3, "revision": 1}); err != nil {
		t.Fatal(err)
	}
	old := with(with(tk, "status", "PENDING"), "revision", 2)
	if err := tbl.Replace(ctx, "Ticket", old, with(with(old, "title", "printer fixed"), "commentCount", 0)); err != nil {
		t.Fatal(err)
	}
	it := raw(t, tbl, ticketKey(t, tbl, "t1"))
	if got := text(it["commentCount"]); got != "3" {
		t.Errorf("commentCount after the writes: %s, want 3", got)
	}
	if got := text(it["title"]); got != "printer fixed" {
		t.Errorf("title %s", got)
	}
	if got := text(it["revision"]); got != "3" {
		t.Errorf("revision %s, want 3 (created 1, two writes)", got)
	}
	// The application cannot write it.
	err := tbl.Update(ctx, "Ticket", Values{"ticketId": "t1"}, Changes{Set: Values{"commentCount": 9}, Version: 3})
	if !errors.Is(err, ErrMaintained) {
		t.Errorf("an update of commentCount: %v, want ErrMaintained", err)
	}
}

// A stale version fails with a typed error naming the condition, and
// changes nothing.
func TestStaleVersionRefused(t *testing.T) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	if err := tbl.Write(ctx, "OpenTicket", Params(ticket("t1", "ann", "OPEN", 3))); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Write(ctx, "Retitle", Params{"ticketId": "t1", "title": "first", "revision": 1}); err != nil {
		t.Fatal(err)
	}
	before := raw(t, tbl, ticketKey(t, tbl, "t1"))
	err := tbl.Write(ctx, "Retitle", Params{"ticketId": "t1", "title": "second", "revision": 1})
	var ce *ConditionError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCondition) || !errors.Is(err, ErrChanged) {
		t.Fatalf("a stale revision: %v, want a *ConditionError (ErrChanged)", err)
	}
	if !strings.Contains(ce.Condition, "revision still 1") || !strings.Contains(ce.Condition, "revision is 2") {
		t.Errorf("the error does not say which condition failed and how the item stood: %q", ce.Condition)
	}
	if after := raw(t, tbl, ticketKey(t, tbl, "t1")); text(after["title"]) != "first" || text(after["revision"]) != "2" {
		t.Errorf("a failed write changed the item: %v -> %v", before, after)
	}
}

// PlaceOrder with stock 1 and quantity 2 fails on the stock condition and
// writes nothing; with enough stock it writes the order, its line and
// the stock taken.
func TestPlaceOrderAllOrNothing(t *testing.T) {
	tbl := fresh(t, design(t, "../../examples/ecommerce.yaml"))
	ctx := context.Background()
	if err := tbl.Create(ctx, "Product", Values{"productId": "sku-9", "name": "Keyboard", "category": "electronics", "price": 4200, "inventory": 1}); err != nil {
		t.Fatal(err)
	}
	order := func(id string, qty int) Params {
		return Params{"orderId": id, "customerId": "c1", "customerName": "Ada", "status": "PENDING", "createdAt": "2026-06-01T10:00:00Z",
			"total": 4200 * qty, "shippingAddr": "1 Loop Rd", "sku": "sku-9", "productName": "Keyboard", "quantity": qty, "price": 4200, "productId": "sku-9"}
	}
	err := tbl.Write(ctx, "PlaceOrder", order("A1", 2))
	var ce *ConditionError
	if !errors.As(err, &ce) {
		t.Fatalf("PlaceOrder of 2 with 1 in stock: %v, want a *ConditionError", err)
	}
	if ce.Step != 3 || ce.Entity != "Product" || !strings.Contains(ce.Condition, "inventory ≥ $quantity") || !strings.Contains(ce.Condition, "inventory is 1") {
		t.Errorf("the error does not name the stock condition: %+v", ce)
	}
	all := scan(t, tbl)
	if len(all) != 1 {
		t.Errorf("a failed PlaceOrder left %d items, want only the product: %v", len(all), all)
	}
	if err := tbl.Write(ctx, "PlaceOrder", order("A1", 1)); err != nil {
		t.Fatal(err)
	}
	p, err := tbl.Get(ctx, "GetProduct", Params{"productId": "sku-9"})
	if err != nil || p == nil || fmt.Sprint(p.Values["inventory"]) != "0" {
		t.Errorf("stock after an order of 1: %+v %v", p, err)
	}
	page, err := tbl.Read(ctx, "OrderWithItems", Request{Params: Params{"orderId": "A1"}})
	if err != nil || len(page.Items) != 2 {
		t.Errorf("OrderWithItems after PlaceOrder: %+v %v", page, err)
	}
	// Ship it: status feeds OrdersByStatus's key, rebuilt from createdAt.
	if err := tbl.Write(ctx, "ShipOrder", Params{"orderId": "A1", "status": "SHIPPED", "createdAt": "2026-06-01T10:00:00Z", "revision": 1}); !errors.Is(err, ErrCondition) {
		t.Errorf("shipping a PENDING order: %v, want the condition status = PAID to fail", err)
	}
	if err := tbl.Update(ctx, "Order", Values{"orderId": "A1"}, Changes{Set: Values{"status": "PAID"}, With: Values{"createdAt": "2026-06-01T10:00:00Z"}, Version: 1}); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Write(ctx, "ShipOrder", Params{"orderId": "A1", "status": "SHIPPED", "createdAt": "2026-06-01T10:00:00Z", "revision": 2}); err != nil {
		t.Fatal(err)
	}
	shipped, err := tbl.Read(ctx, "OrdersByStatus", Request{Params: Params{"status": "SHIPPED"}})
	if err != nil || len(shipped.Items) != 1 {
		t.Errorf("OrdersByStatus SHIPPED: %+v %v", shipped, err)
	}
	if paid, _ := tbl.Read(ctx, "OrdersByStatus", Request{Params: Params{"status": "PAID"}}); len(paid.Items) != 0 {
		t.Errorf("the order is still under PAID: %+v", paid.Items)
	}
}

func scan(t testing.TB, tbl *Table) []map[string]types.AttributeValue {
	t.Helper()
	out, err := engine.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(tbl.Name())})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

// A status change moves a ticket out of the sparse open-tickets index and
// back; a reassignment moves it between assignees in both indexes.
func TestStatusMovesTicketThroughSparseIndex(t *testing.T) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	if err := tbl.Write(ctx, "OpenTicket", Params(ticket("t1", "ann", "OPEN", 3))); err != nil {
		t.Fatal(err)
	}
	open := func(assignee string) int {
		t.Helper()
		page, err := tbl.Read(ctx, "OpenTickets", Request{Params: Params{"assigneeId": assignee}})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Items)
	}
	if n := open("ann"); n != 1 {
		t.Fatalf("%d open tickets for ann, want 1", n)
	}
	status := func(s string, rev int) {
		t.Helper()
		if err := tbl.Write(ctx, "SetStatus", Params{"ticketId": "t1", "status": s, "assigneeId": "ann", "priority": 3, "revision": rev}); err != nil {
			t.Fatal(err)
		}
	}
	status("PENDING", 1)
	if n := open("ann"); n != 0 {
		t.Errorf("%d open tickets after PENDING, want 0", n)
	}
	if it := raw(t, tbl, ticketKey(t, tbl, "t1")); it["GSI1PK"] != nil || it["GSI1SK"] != nil || it["GSI2PK"] == nil {
		t.Errorf("keys after PENDING: %v", it)
	}
	status("OPEN", 2)
	if n := open("ann"); n != 1 {
		t.Errorf("%d open tickets after OPEN again, want 1", n)
	}
	if err := tbl.Write(ctx, "Reassign", Params{"ticketId": "t1", "assigneeId": "bob", "status": "OPEN", "priority": 3,
		"openedAt": "2026-03-01T09:00:00Z", "revision": 3}); err != nil {
		t.Fatal(err)
	}
	if a, b := open("ann"), open("bob"); a != 0 || b != 1 {
		t.Errorf("after the reassignment: ann %d, bob %d open", a, b)
	}
	byBob, err := tbl.Read(ctx, "TicketsByAssignee", Request{Params: Params{"assigneeId": "bob"}})
	if err != nil || len(byBob.Items) != 1 {
		t.Errorf("TicketsByAssignee bob: %+v %v", byBob, err)
	}
	// The with values must be the item's: a wrong priority would write a
	// wrong key, so the write fails instead.
	err = tbl.Write(ctx, "SetStatus", Params{"ticketId": "t1", "status": "CLOSED", "assigneeId": "bob", "priority": 7, "revision": 4})
	if !errors.Is(err, ErrChanged) {
		t.Errorf("SetStatus with a priority the item does not hold: %v, want ErrChanged", err)
	}
	// A with value left out is refused before any request.
	err = tbl.Update(ctx, "Ticket", Values{"ticketId": "t1"}, Changes{Set: Values{"status": "CLOSED"}, Version: 4})
	if !errors.Is(err, ErrKeyChange) || !strings.Contains(err.Error(), "assigneeId") {
		t.Errorf("an update of status without the key's other values: %v, want ErrKeyChange naming assigneeId", err)
	}
}

// unprocessed drops half of every batch it forwards, answering them as
// UnprocessedItems, the first few times.
type unprocessed struct {
	Client
	calls, dropped atomic.Int64
}

func (u *unprocessed) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	n := u.calls.Add(1)
	if n%3 == 0 { // every third request goes through whole
		return u.Client.BatchWriteItem(ctx, in, opts...)
	}
	send := map[string][]types.WriteRequest{}
	left := map[string][]types.WriteRequest{}
	for table, reqs := range in.RequestItems {
		half := (len(reqs) + 1) / 2
		send[table], left[table] = reqs[:half], reqs[half:]
		u.dropped.Add(int64(len(reqs) - half))
	}
	out, err := u.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: send}, opts...)
	if err != nil {
		return nil, err
	}
	for table, reqs := range out.UnprocessedItems {
		left[table] = append(left[table], reqs...)
	}
	out.UnprocessedItems = left
	return out, nil
}

// A batch of 1,000 comments, half of most requests left unprocessed by
// the engine, ends with all 1,000 written; an engine that never takes
// them gets them reported.
func TestBatchRetriesUnprocessed(t *testing.T) {
	t.Parallel()
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	flaky := &unprocessed{Client: client}
	btbl := New(tbl.d, flaky, tbl.Name())
	items := make([]Values, 1000)
	for i := range items {
		items[i] = Values{"ticketId": fmt.Sprintf("t%d", i%7), "commentId": fmt.Sprintf("c%04d", i), "author": "ann", "body": "me too"}
	}
	if err := btbl.WriteBatch(ctx, "ImportComments", items); err != nil {
		t.Fatal(err)
	}
	if flaky.dropped.Load() == 0 {
		t.Fatal("no item was left unprocessed: the test tests nothing")
	}
	if n := len(scanAll(t, tbl)); n != 1000 {
		t.Errorf("%d items written, want 1000 (%d left unprocessed on the way)", n, flaky.dropped.Load())
	}
	never := New(tbl.d, never{client}, tbl.Name())
	never.batchBackoff = time.Microsecond
	err := never.WriteBatch(ctx, "ImportComments", items[:30])
	var be *BatchError
	if !errors.As(err, &be) || len(be.Unwritten) != 30 || !errors.Is(err, ErrUnprocessed) {
		t.Errorf("an engine that never processes: %v, want a *BatchError reporting 30 items", err)
	}
}

type never struct{ Client }

func (never) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return &dynamodb.BatchWriteItemOutput{UnprocessedItems: in.RequestItems}, nil
}

func scanAll(t testing.TB, tbl *Table) []map[string]types.AttributeValue {
	t.Helper()
	var out []map[string]types.AttributeValue
	var next map[string]types.AttributeValue
	for {
		page, err := engine.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(tbl.Name()), ExclusiveStartKey: next})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
		if next = page.LastEvaluatedKey; len(next) == 0 {
			return out
		}
	}
}

// Transact runs several write patterns, each with its own parameters, as
// one transaction: ten comments, or none when one fails.
func TestTransactOps(t *testing.T) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	ops := commentOps(10)
	if err := tbl.Transact(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	if n := len(scanAll(t, tbl)); n != 10 {
		t.Fatalf("%d items after Transact of 10 comments", n)
	}
	again := append(commentOps(12)[10:], ops[4]) // two new ones and one that exists
	err := tbl.Transact(ctx, again...)
	var ce *ConditionError
	if !errors.As(err, &ce) || ce.Subject != "AddComment (op 3)" {
		t.Fatalf("a transaction with a comment that exists: %v, want a *ConditionError naming op 3", err)
	}
	if n := len(scanAll(t, tbl)); n != 10 {
		t.Errorf("%d items after a failed Transact, want the 10 from before", n)
	}
	if _, err := tbl.TransactInput(ops[0], ops[0]); err == nil || !strings.Contains(err.Error(), "AddComment (op 1) and AddComment (op 2) write the same item") {
		t.Errorf("one item twice: %v", err)
	}
}

func commentOps(n int) []WriteCall {
	ops := make([]WriteCall, n)
	for i := range ops {
		ops[i] = WriteCall{"AddComment", Params{"ticketId": "t1", "commentId": fmt.Sprintf("c%02d", i), "author": "ann", "body": "line " + fmt.Sprint(i)}}
	}
	return ops
}

// txCounter counts the transactions a client sends.
type txCounter struct {
	Client
	n atomic.Int64
}

func (c *txCounter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.n.Add(1)
	return c.Client.TransactWriteItems(ctx, in, opts...)
}

// Delete and Replace send one conditional request unless a guard item
// must move with the item; an item without its optional unique value,
// and an attribute two unique patterns keep, delete cleanly.
func TestDeleteAndReplaceWithoutTransactions(t *testing.T) {
	src := `table: Accounts
entities:
  User:
    id: [userId]
    attributes: {userId: {type: string, maxLength: 40}, email: {type: string, maxLength: 200, optional: true}, name: {type: string, maxLength: 100}}
  Note:
    id: [noteId]
    attributes: {noteId: {type: string, maxLength: 40}, text: {type: string, maxLength: 100}}
patterns:
  GetUser: {get: User}
  ByEmail: {get: User, where: [email], unique: true}
  EmailName: {get: User, where: [email], unique: true, returns: [name]}
  GetNote: {get: Note}
`
	m, err := model.Parse("accounts.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	base := fresh(t, d)
	counted := &txCounter{Client: client}
	tbl := New(d, counted, base.Name())
	ctx := context.Background()
	note := Values{"noteId": "n1", "text": "hi"}
	if err := tbl.Create(ctx, "Note", note); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Replace(ctx, "Note", note, with(note, "text", "bye")); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Delete(ctx, "Note", with(note, "text", "bye")); err != nil {
		t.Fatal(err)
	}
	if n := counted.n.Load(); n != 0 {
		t.Errorf("%d transactions for an entity without guards, want 0", n)
	}
	// No email: no guard, one request each way.
	anon := Values{"userId": "u1", "name": "Ann"}
	if err := tbl.Create(ctx, "User", anon); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Delete(ctx, "User", anon); err != nil {
		t.Errorf("deleting a user without the optional unique email: %v", err)
	}
	// Two unique patterns on email share one guard.
	bob := Values{"userId": "u2", "name": "Bob", "email": "bob@example.com"}
	if err := tbl.Create(ctx, "User", bob); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Create(ctx, "User", Values{"userId": "u3", "name": "Bobby", "email": "bob@example.com"}); !errors.Is(err, ErrNotUnique) {
		t.Errorf("a taken email: %v, want ErrNotUnique", err)
	}
	// Deleting without the email the item holds would strand its guard.
	if err := tbl.Delete(ctx, "User", Values{"userId": "u2"}); !errors.Is(err, ErrChanged) {
		t.Errorf("deleting bob without his email: %v, want ErrChanged", err)
	}
	if err := tbl.Delete(ctx, "User", bob); err != nil {
		t.Errorf("deleting bob: %v", err)
	}
	if left := scanAll(t, base); len(left) != 0 {
		t.Errorf("%d items left (guards?): %v", len(left), left)
	}
	if err := tbl.Create(ctx, "User", Values{"userId": "u3", "name": "Bobby", "email": "bob@example.com"}); err != nil {
		t.Errorf("the email is free again: %v", err)
	}
}
