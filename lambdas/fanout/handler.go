package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// Client is what the handler needs of DynamoDB: reading the copies,
// updating each, and keeping its continuations.
type Client interface {
	dynamo.Client
}

// copyOf is one model copy: target.Attr mirrors source.FromAttr.
type copyOf struct {
	target *model.Entity
	c      *model.Copy
}

// name is how a continuation names the copy: Entity.attr.
func (cp copyOf) name() string { return cp.target.Name + "." + cp.c.Attr }

// The work one invocation does, and how it is cut.
const (
	// DefaultBudget is the most copies one invocation updates; what a
	// record leaves goes to a continuation, which a later invocation
	// resumes.
	DefaultBudget = 2000
	// DefaultPage is the copies read per Query page (and the unit of
	// progress a continuation records).
	DefaultPage = 100
	// DefaultReserve is the time an invocation keeps in hand before its
	// deadline: it starts no page with less left.
	DefaultReserve = 10 * time.Second
	// updaters is how many of a page's copies are updated at once.
	updaters = 8
	// maxAttempts bounds the reads and conditional writes of one record's
	// continuation (each failed write means it changed since it was read).
	maxAttempts = 10
)

// handler keeps denormalized copies in step: when a source attribute
// changes, it reads the copies with the copy's pattern, page by page, and
// updates each one in place, on condition that it still exists (a deleted
// copy is not re-created).
//
// The work per invocation is bounded (budget copies, and never past the
// deadline less reserve). A source change with more copies than that
// leaves a continuation: an item of the table (patterns.FanoutTag) that
// holds the value, the source's key and where the fan resumes. Writing it
// puts a record on the stream, which the handler's filter lets through:
// the next invocation resumes there, updates the next pages, and advances
// the continuation (a new record) or, at the end, deletes it.
//
// No newer value is ever overwritten by an older one: there is one
// continuation per source item and copy; a change of the source while one
// is pending replaces it (a new generation, starting over) instead of
// fanning out beside it; a continuation record acts only while the table
// still holds exactly the continuation it carries (a consistent read),
// and advances it only on that condition. Records of one item reach the
// handler in order, so an older generation's last page is always written
// before the newer generation's first.
//
// A continuation progresses however busy the stream is: an invocation
// handles its batch's continuation records before the other records
// (which would otherwise spend the budget first, every time, and leave
// the continuation only re-queued), the oldest first (since: when its
// value began to fan out), so the first it handles has the whole budget,
// and one waits only for the continuations older than itself, whose work
// is finite, whatever arrives after it and in whatever order the records
// come.
type handler struct {
	tbl      *dynamo.Table
	d        *patterns.Design
	name     string
	client   Client
	log      *slog.Logger
	bySource map[string][]copyOf
	byName   map[string]copyOf
	// budget, page and reserve cut the work (the defaults above).
	budget  int
	page    int32
	reserve time.Duration
	// updated counts the copies updated; continued the continuations
	// written (created, reset or advanced).
	updated   int
	continued int
	mu        sync.Mutex
}

func newHandler(l *patterns.Lock, client Client, table string, log *slog.Logger) *handler {
	d := l.Latest()
	h := &handler{tbl: dynamo.NewRollout(l, client, table), d: d, name: table, client: client, log: log,
		bySource: map[string][]copyOf{}, byName: map[string]copyOf{},
		budget: DefaultBudget, page: DefaultPage, reserve: DefaultReserve}
	for _, e := range d.Model().Entities {
		for _, c := range e.Copies {
			cp := copyOf{e, c}
			h.bySource[c.FromEntity] = append(h.bySource[c.FromEntity], cp)
			h.byName[cp.name()] = cp
		}
	}
	return h
}

// budget is what is left of one invocation's work.
type budget struct {
	copies   int
	deadline time.Time // zero: none
	reserve  time.Duration
}

// spent reports whether no further page may start.
func (b *budget) spent() bool {
	return b.copies <= 0 || !b.deadline.IsZero() && time.Until(b.deadline) < b.reserve
}

// Handle processes a batch, reporting failed records by sequence number.
func (h *handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	b := &budget{copies: h.budget, reserve: h.reserve}
	if d, ok := ctx.Deadline(); ok {
		b.deadline = d
	}
	ev.Records = h.order(ev.Records)
	return stream.Process(ctx, h.log, ev, func(ctx context.Context, r events.DynamoDBEventRecord) error {
		return h.record(ctx, r, b)
	}), nil
}

// order puts a batch's continuation records first, the oldest (since)
// first, each kind otherwise in the stream's order. Records of different items
// may be handled in any order (each continuation record acts only on the
// continuation the table holds); the records of one source item keep
// theirs.
func (h *handler) order(rs []events.DynamoDBEventRecord) []events.DynamoDBEventRecord {
	rank := func(r events.DynamoDBEventRecord) int64 {
		if !h.continuation(r) {
			return math.MaxInt64
		}
		since := r.Change.NewImage[attrSince] // none: a removal, or an older handler's continuation
		if since.DataType() != events.DataTypeNumber {
			return math.MinInt64
		}
		n, _ := strconv.ParseInt(since.Number(), 10, 64)
		return min(n, math.MaxInt64-1)
	}
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b events.DynamoDBEventRecord) int { return cmp.Compare(rank(a), rank(b)) })
	return out
}

// continuation reports whether a record is of a continuation item.
func (h *handler) continuation(r events.DynamoDBEventRecord) bool {
	pk, ok := r.Change.Keys[h.d.PK]
	return ok && pk.DataType() == events.DataTypeString && strings.HasPrefix(pk.String(), patterns.FanoutTag+string(model.Sep))
}

// record fans out one source change. The item is identified by its keys
// alone, and only the copied attributes (and, to find the copies, the
// pattern's where attributes) are read: what else it holds does not
// matter. A record of an item of no entity has no copies: skipped and
// counted (stream.ErrNoEntity), never failed.
func (h *handler) record(ctx context.Context, r events.DynamoDBEventRecord, b *budget) error {
	if h.continuation(r) {
		return h.resume(ctx, r, b)
	}
	switch patterns.StreamEvent(r.EventName) {
	case patterns.EventModify:
	case patterns.EventInsert, patterns.EventRemove:
		return nil // a new source has no copies yet; a removed one keeps its last value on them
	}
	ch, err := stream.Decode(h.tbl, r)
	if err != nil {
		return err
	}
	for _, cp := range h.bySource[ch.Entity] {
		old, err := ch.Raw(stream.Old, cp.c.FromAttr)
		if err != nil {
			return err
		}
		need := append([]string{h.d.PK, h.d.SK, cp.c.FromAttr}, h.d.Model().Pattern(cp.c.Via).Where...)
		cur, err := ch.Raw(stream.New, need...)
		if err != nil {
			return err
		}
		before, after := old[cp.c.FromAttr], cur[cp.c.FromAttr]
		if dynamo.SameValue(before, after) {
			continue
		}
		if err := h.start(ctx, cp, cur, after, b); err != nil {
			return err
		}
	}
	return nil
}

// job is one fan: a copy, the source's key and the values its pattern
// reads by, the value to set (nil: remove), and where it resumes (a
// shard of the pattern's queries and the key after which it goes on).
// gen names the value being fanned out (random: a continuation never
// takes an earlier one's, even after one ended and another began), step
// counts the job's advances; since is when it began (Unix nanoseconds).
type job struct {
	cp               copyOf
	source           map[string]types.AttributeValue
	value            types.AttributeValue
	gen, step, since int64
	shard            int
	next             map[string]types.AttributeValue
}

// The attributes of a continuation item.
const (
	attrCopy   = "copy"
	attrSource = "source"
	attrValue  = "value"
	attrGen    = "gen"
	attrStep   = "step"
	attrShard  = "shard"
	attrNext   = "next"
	attrSince  = "since"
)

// key is the continuation's key: one per source item and copy (a digest:
// the source's keys may be as long as a key can be).
func (h *handler) key(cp copyOf, source map[string]types.AttributeValue) map[string]types.AttributeValue {
	sum := sha256.New()
	for _, k := range []string{h.d.PK, h.d.SK} {
		if s, ok := source[k].(*types.AttributeValueMemberS); ok {
			sum.Write([]byte(s.Value))
		}
		sum.Write([]byte{0})
	}
	sum.Write([]byte(cp.name()))
	return map[string]types.AttributeValue{
		h.d.PK: &types.AttributeValueMemberS{Value: patterns.FanoutTag + string(model.Sep) + hex.EncodeToString(sum.Sum(nil))},
		h.d.SK: &types.AttributeValueMemberS{Value: patterns.FanoutTag},
	}
}

// item is the continuation as stored.
func (h *handler) item(j *job) map[string]types.AttributeValue {
	it := h.key(j.cp, j.source)
	it[attrCopy] = &types.AttributeValueMemberS{Value: j.cp.name()}
	it[attrSource] = &types.AttributeValueMemberM{Value: j.source}
	if j.value != nil {
		it[attrValue] = j.value
	}
	it[attrGen] = number(j.gen)
	it[attrStep] = number(j.step)
	it[attrSince] = number(j.since)
	it[attrShard] = number(int64(j.shard))
	if j.next != nil {
		it[attrNext] = &types.AttributeValueMemberM{Value: j.next}
	}
	return it
}

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// parse reads a continuation item back.
func (h *handler) parse(it map[string]types.AttributeValue) (*job, error) {
	name, _ := it[attrCopy].(*types.AttributeValueMemberS)
	source, _ := it[attrSource].(*types.AttributeValueMemberM)
	if name == nil || source == nil {
		return nil, fmt.Errorf("%w: a continuation without %s or %s", stream.ErrMalformed, attrCopy, attrSource)
	}
	cp, ok := h.byName[name.Value]
	if !ok {
		return nil, errUnknownCopy
	}
	j := &job{cp: cp, source: source.Value, value: it[attrValue]}
	for _, f := range []struct {
		attr string
		n    *int64
	}{{attrGen, &j.gen}, {attrStep, &j.step}} {
		n, ok := it[f.attr].(*types.AttributeValueMemberN)
		if !ok {
			return nil, fmt.Errorf("%w: a continuation without %s", stream.ErrMalformed, f.attr)
		}
		x, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: continuation %s %q", stream.ErrMalformed, f.attr, n.Value)
		}
		*f.n = x
	}
	if n, ok := it[attrSince].(*types.AttributeValueMemberN); ok {
		j.since, _ = strconv.ParseInt(n.Value, 10, 64) // an order to handle records in, no more
	}
	if n, ok := it[attrShard].(*types.AttributeValueMemberN); ok {
		s, err := strconv.Atoi(n.Value)
		if err != nil || s < 0 {
			return nil, fmt.Errorf("%w: continuation shard %q", stream.ErrMalformed, n.Value)
		}
		j.shard = s
	}
	if m, ok := it[attrNext].(*types.AttributeValueMemberM); ok {
		j.next = m.Value
	}
	return j, nil
}

// errUnknownCopy: a continuation of a copy the model no longer has.
var errUnknownCopy = errors.New("the model has no such copy")

// current reads the continuation of a copy of a source, consistently
// (nil when there is none).
func (h *handler) current(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := h.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(h.name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// start fans a changed source value out. With a continuation of the copy
// pending (an earlier value still fanning out), it is replaced by this
// value's, from the start; otherwise the copies are updated within the
// budget, and what is left goes to a new continuation.
func (h *handler) start(ctx context.Context, cp copyOf, newRaw map[string]types.AttributeValue, value types.AttributeValue, b *budget) error {
	source := map[string]types.AttributeValue{h.d.PK: newRaw[h.d.PK], h.d.SK: newRaw[h.d.SK]}
	for _, a := range h.d.Model().Pattern(cp.c.Via).Where {
		if v, ok := newRaw[a]; ok {
			source[a] = v
		}
	}
	j := &job{cp: cp, source: source, value: value, gen: rand.Int64(), since: time.Now().UnixNano()}
	key := h.key(cp, source)
	for attempt := 0; ; attempt++ {
		if attempt == maxAttempts {
			return fmt.Errorf("the continuation of %s changed under %d attempts to replace it", cp.name(), attempt)
		}
		cur, err := h.current(ctx, key)
		if err != nil {
			return err
		}
		if cur != nil {
			if _, err := h.parse(cur); err != nil && !errors.Is(err, errUnknownCopy) {
				return err
			}
			// Replace it, whatever its progress, unless it changed since
			// it was read (then read it again).
			ok, err := h.put(ctx, j, expression.Name(attrGen).Equal(expression.Value(cur[attrGen])))
			if ok || err != nil {
				return err
			}
			continue
		}
		done, err := h.fan(ctx, j, b)
		if err != nil || done {
			return err
		}
		// None could appear meanwhile: only this source's records, which
		// come one at a time, create one.
		ok, err := h.put(ctx, j, expression.AttributeNotExists(expression.Name(h.d.PK)))
		if ok || err != nil {
			return err
		}
		j.shard, j.next = 0, nil // a retried record: start over in place of what it left
	}
}

// put writes the continuation on condition; false when the condition
// failed.
func (h *handler) put(ctx context.Context, j *job, cond expression.ConditionBuilder) (bool, error) {
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return false, err
	}
	_, err = h.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(h.name), Item: h.item(j),
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return false, nil
	}
	if err == nil {
		h.continued++
	}
	return err == nil, err
}

// resume runs a continuation's record: when the table still holds the
// continuation the record carries, it updates the next copies within the
// budget, then advances the continuation or, at the end, deletes it, on
// condition that nothing replaced it meanwhile.
func (h *handler) resume(ctx context.Context, r events.DynamoDBEventRecord, b *budget) error {
	switch patterns.StreamEvent(r.EventName) {
	case patterns.EventInsert, patterns.EventModify:
	default:
		return nil // done, or replaced
	}
	img, err := stream.Image(r.Change.NewImage)
	if err != nil {
		return err
	}
	j, err := h.parse(img)
	if errors.Is(err, errUnknownCopy) {
		h.log.WarnContext(ctx, "continuation of a copy the model no longer has: dropped", "copy", img[attrCopy])
		_, err = h.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(h.name), Key: h.keyOf(img)})
		return err
	}
	if err != nil {
		return err
	}
	cur, err := h.current(ctx, h.key(j.cp, j.source))
	if err != nil || cur == nil {
		return err // done since, or replaced and done
	}
	now, err := h.parse(cur)
	if err != nil || now.gen != j.gen || now.step != j.step {
		return err // replaced (a newer value) or advanced (a redelivered record)
	}
	done, err := h.fan(ctx, j, b)
	if err != nil {
		return err
	}
	same := expression.Name(attrGen).Equal(expression.Value(number(now.gen))).And(expression.Name(attrStep).Equal(expression.Value(number(now.step))))
	expr, err := expression.NewBuilder().WithCondition(same).Build()
	if err != nil {
		return err
	}
	var ccf *types.ConditionalCheckFailedException
	if done {
		_, err = h.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(h.name), Key: h.key(j.cp, j.source),
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
		if errors.As(err, &ccf) {
			return nil // replaced meanwhile: the newer value fans out next
		}
		return err
	}
	j.step++ // even with no progress (no budget left): a new record resumes it
	_, err = h.put(ctx, j, same)
	return err
}

// keyOf is an item's table key.
func (h *handler) keyOf(it map[string]types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{h.d.PK: it[h.d.PK], h.d.SK: it[h.d.SK]}
}

// fan updates the copies of j from where it stands, page by page, while
// the budget lasts; j is left where the next run resumes. done when every
// page is read.
func (h *handler) fan(ctx context.Context, j *job, b *budget) (done bool, err error) {
	p := h.d.Model().Pattern(j.cp.c.Via)
	entity, v, err := h.tbl.Identify(j.source)
	if err == nil {
		err = h.tbl.DecodeAttrs(entity, j.source, v, p.Where...)
	}
	if err != nil {
		return false, fmt.Errorf("%w: the source of %s: %v", stream.ErrUndecodable, j.cp.name(), err)
	}
	for _, a := range p.Where {
		if v[a] == nil {
			return false, fmt.Errorf("%w: the source of %s holds no %s (NULL or absent), which %s reads its copies by", stream.ErrUndecodable, j.cp.name(), a, p.Name)
		}
	}
	params := dynamo.Params{}
	for _, a := range p.Where {
		params[a] = v[a]
	}
	var upd expression.UpdateBuilder
	if j.value == nil {
		upd = expression.Remove(expression.Name(j.cp.c.Attr))
	} else {
		upd = expression.Set(expression.Name(j.cp.c.Attr), expression.Value(j.value))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(expression.AttributeExists(expression.Name(h.d.PK))).Build()
	if err != nil {
		return false, err
	}
	for !b.spent() {
		limit := min(h.page, int32(b.copies))
		ins, err := h.tbl.QueryInputs(j.cp.c.Via, dynamo.Request{Params: params, Limit: limit})
		if err != nil {
			return false, err
		}
		if j.shard >= len(ins) {
			return true, nil
		}
		in := ins[j.shard]
		in.ExclusiveStartKey = j.next
		out, err := h.client.Query(ctx, in)
		if err != nil {
			return false, err
		}
		// A copy is known by its keys alone: what else it holds (NULL,
		// another type) is no matter to updating it; an item of another
		// entity, or of none, in the range is not a copy.
		var keys []map[string]types.AttributeValue
		for _, it := range out.Items {
			if entity, _, err := h.tbl.Identify(it); err == nil && entity == j.cp.target.Name {
				keys = append(keys, h.keyOf(it))
			}
		}
		if err := h.updateAll(ctx, keys, expr); err != nil {
			return false, err
		}
		b.copies -= len(out.Items) // what was read counts too: a page of other entities' items is work
		if j.next = out.LastEvaluatedKey; len(j.next) == 0 {
			j.shard, j.next = j.shard+1, nil
			if j.shard >= len(ins) {
				return true, nil
			}
		}
	}
	return false, nil
}

// updateAll updates the copies at keys, a few at a time. A copy deleted
// since it was read is not re-created.
func (h *handler) updateAll(ctx context.Context, keys []map[string]types.AttributeValue, expr expression.Expression) error {
	var wg sync.WaitGroup
	errs := make([]error, len(keys))
	work := make(chan int)
	for range min(updaters, len(keys)) {
		wg.Go(func() {
			for i := range work {
				_, err := h.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String(h.name), Key: keys[i],
					UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
					ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
				})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case errors.As(err, &ccf): // deleted since it was read: not re-created
				case err != nil:
					errs[i] = err
				default:
					h.mu.Lock()
					h.updated++
					h.mu.Unlock()
				}
			}
		})
	}
	for i := range keys {
		work <- i
	}
	close(work)
	wg.Wait()
	return errors.Join(errs...)
}
