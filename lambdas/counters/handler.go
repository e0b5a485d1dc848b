package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"slices"
	"strconv"
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

// Writer is what the handler needs of DynamoDB.
type Writer interface {
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// marker starts the keys of a record's once-only marker item.
const marker = patterns.MarkerTag + string(model.Sep)

// MarkerTTL is how long a record's once-only marker lives: longer than a
// stream keeps records (24 h), so a redelivered record finds it.
const MarkerTTL = 72 * time.Hour

// counter is one model counter, on its parent.
type counter struct {
	parent *model.Entity
	c      *model.Counter
	child  *model.Entity
	// needs are the child's attributes the counter reads: its where
	// attributes and the parent's id (the parent's key is built from them).
	needs []string
}

// handler keeps parents' counters equal to their children: each record
// adds the difference its change makes, once, in a transaction with a
// marker item named after the record (at-least-once delivery must not
// count twice).
type handler struct {
	tbl     *dynamo.Table
	d       *patterns.Design
	name    string
	client  Writer
	log     *slog.Logger
	now     func() time.Time
	byChild map[string][]counter
	applied int
	skipped int
}

func newHandler(l *patterns.Lock, client Writer, table string, log *slog.Logger) *handler {
	d := l.Latest()
	h := &handler{tbl: dynamo.NewRollout(l, nil, table), d: d, name: table, client: client, log: log, now: time.Now, byChild: map[string][]counter{}}
	for _, e := range d.Model().Entities {
		for _, c := range e.Counters {
			cn := counter{parent: e, c: c, child: d.Model().Entity(c.Child)}
			for _, w := range c.Where {
				cn.needs = append(cn.needs, w.Attr)
			}
			cn.needs = append(cn.needs, e.ID...)
			h.byChild[c.Child] = append(h.byChild[c.Child], cn)
		}
	}
	return h
}

// Handle processes a batch, reporting failed records by sequence number.
func (h *handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	return stream.Process(ctx, h.log, ev, h.record), nil
}

// contribution is what one child item (one image of its change) adds to
// a counter, exactly (a sum reads the number as stored, in decimal), and
// the child's values the parent's key is built from. Only what the
// counter reads is decoded: the where attributes, the parent's id, the
// summed number. An image that is not there, or does not match the
// counter's constants, adds 0; so does one whose attributes the counter
// reads do not decode, with the error saying so (ErrUndecodable): every
// image adds what it holds that can be read, so that a counter stays the
// sum over its children as stored, whatever order their changes come in.
func (h *handler) contribution(ch *stream.Change, w stream.Which, c counter) (*big.Rat, dynamo.Values, error) {
	zero := new(big.Rat)
	v, err := ch.Values(w, c.needs...)
	if v == nil || err != nil {
		return zero, nil, err
	}
	for _, wc := range c.c.Where {
		a := c.child.Attr(wc.Attr)
		want, _ := a.EncodeKey(wc.Value)
		got, err := a.EncodeKey(v[wc.Attr])
		if err != nil || got != want {
			return zero, v, nil
		}
	}
	if c.c.Sum == "" {
		return big.NewRat(1, 1), v, nil
	}
	raw, err := ch.Raw(w, c.c.Sum)
	if err != nil {
		return zero, v, err
	}
	switch n := raw[c.c.Sum].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return zero, v, nil
	case *types.AttributeValueMemberN:
		r, ok := new(big.Rat).SetString(n.Value)
		if !ok {
			return zero, v, fmt.Errorf("%w: %s.%s is %q, not a number", stream.ErrUndecodable, c.child.Name, c.c.Sum, n.Value)
		}
		return r, v, nil
	}
	return zero, v, fmt.Errorf("%w: %s.%s is not a number", stream.ErrUndecodable, c.child.Name, c.c.Sum)
}

// decimal renders an exact sum of decimals as a decimal ("12.5", "-3").
func decimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	// A sum of decimals has a power of ten as denominator: find its
	// places.
	den := new(big.Int).Set(r.Denom())
	places := 0
	ten := big.NewInt(10)
	for p := new(big.Int).Set(den); places < 400; places++ {
		if new(big.Int).Mod(new(big.Int).Exp(ten, big.NewInt(int64(places)), nil), p).Sign() == 0 {
			break
		}
	}
	return r.FloatString(places)
}

// ErrParentMissing: a counter's parent is not there (yet): a child
// written before its parent is retried, and sent to the failure queue if
// the parent never comes.
var ErrParentMissing = errors.New("counter's parent item is missing")

func (h *handler) record(ctx context.Context, r events.DynamoDBEventRecord) error {
	ch, err := stream.Decode(h.tbl, r)
	if err != nil {
		return err
	}
	cs := h.byChild[ch.Entity]
	if len(cs) == 0 {
		return nil
	}
	type update struct {
		key  map[string]types.AttributeValue
		adds map[string]*big.Rat
	}
	var updates []*update
	byKey := map[string]*update{}
	var unread []error // what could not be read: counted, the rest applied
	add := func(c counter, v dynamo.Values, by *big.Rat) {
		if by.Sign() == 0 {
			return
		}
		key, err := h.tbl.Key(c.parent.Name, v)
		if err != nil {
			unread = append(unread, fmt.Errorf("%w: %s's parent: %v", stream.ErrUndecodable, c.child.Name, err))
			return
		}
		id := key[h.d.PK].(*types.AttributeValueMemberS).Value + "\x00" + key[h.d.SK].(*types.AttributeValueMemberS).Value
		u := byKey[id]
		if u == nil {
			u = &update{key: key, adds: map[string]*big.Rat{}}
			byKey[id] = u
			updates = append(updates, u)
		}
		if u.adds[c.c.Attr] == nil {
			u.adds[c.c.Attr] = new(big.Rat)
		}
		u.adds[c.c.Attr].Add(u.adds[c.c.Attr], by)
	}
	for _, c := range cs {
		if c.c.KeepExpired && stream.Expiry(r) {
			continue // expiries: keep
		}
		after, newV, err := h.contribution(ch, stream.New, c)
		if err != nil {
			unread = append(unread, err)
		}
		before, oldV, err := h.contribution(ch, stream.Old, c)
		if err != nil {
			unread = append(unread, err)
		}
		// The old image's parent loses what the child gave it, the new
		// image's parent gains: one parent, the difference; a child that
		// moved, both.
		add(c, oldV, new(big.Rat).Neg(before))
		add(c, newV, after)
	}
	for _, u := range updates {
		maps.DeleteFunc(u.adds, func(_ string, by *big.Rat) bool { return by.Sign() == 0 })
		if len(u.adds) == 0 {
			continue // the child stayed, and so did what it counts for
		}
		if err := h.apply(ctx, r, u.key, u.adds); err != nil {
			return err
		}
	}
	for _, err := range unread {
		if !stream.Skippable(err) {
			return err
		}
	}
	return errors.Join(unread...) // counted, logged with the key: never failed
}

// apply adds to one parent's counters and writes the record's marker, in
// one transaction; a marker already there means the record was applied.
func (h *handler) apply(ctx context.Context, r events.DynamoDBEventRecord, key map[string]types.AttributeValue, adds map[string]*big.Rat) error {
	pk := key[h.d.PK].(*types.AttributeValueMemberS).Value
	sk := key[h.d.SK].(*types.AttributeValueMemberS).Value
	marker := map[string]types.AttributeValue{
		h.d.PK:  &types.AttributeValueMemberS{Value: marker + r.EventID},
		h.d.SK:  &types.AttributeValueMemberS{Value: marker + pk + string(model.Sep) + sk},
		h.d.TTL: &types.AttributeValueMemberN{Value: strconv.FormatInt(h.now().Add(MarkerTTL).Unix(), 10)},
	}
	absent, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(h.d.PK))).Build()
	if err != nil {
		return err
	}
	var upd expression.UpdateBuilder
	decrement := true
	for _, attr := range slices.Sorted(maps.Keys(adds)) {
		if adds[attr].Sign() == 0 {
			continue
		}
		decrement = decrement && adds[attr].Sign() < 0
		upd = upd.Add(expression.Name(attr), expression.Value(&types.AttributeValueMemberN{Value: decimal(adds[attr])}))
	}
	exists, err := expression.NewBuilder().WithUpdate(upd).WithCondition(expression.AttributeExists(expression.Name(h.d.PK))).Build()
	if err != nil {
		return err
	}
	_, err = h.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(h.name), Item: marker,
			ConditionExpression: absent.Condition(), ExpressionAttributeNames: absent.Names()}},
		{Update: &types.Update{TableName: aws.String(h.name), Key: key,
			UpdateExpression: exists.Update(), ConditionExpression: exists.Condition(),
			ExpressionAttributeNames: exists.Names(), ExpressionAttributeValues: exists.Values()}},
	}})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) && len(tce.CancellationReasons) == 2 {
		switch {
		case aws.ToString(tce.CancellationReasons[0].Code) == "ConditionalCheckFailed":
			h.skipped++
			h.log.DebugContext(ctx, "record applied before", "eventID", r.EventID)
			return nil
		case aws.ToString(tce.CancellationReasons[1].Code) == "ConditionalCheckFailed" && decrement:
			// The parent went first (deleted with its children): there is
			// nothing left to count down.
			h.log.InfoContext(ctx, "parent is gone; nothing to count down", "eventID", r.EventID, "parent", pk+" "+sk)
			return nil
		case aws.ToString(tce.CancellationReasons[1].Code) == "ConditionalCheckFailed":
			return fmt.Errorf("%w: %s %s (the child came first: retried, then the failure queue)", ErrParentMissing, pk, sk)
		}
	}
	if err == nil {
		h.applied++
	}
	return err
}
