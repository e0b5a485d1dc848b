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
)

// Writer is what the handler needs of DynamoDB.
type Writer interface {
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// marker starts the keys of a record's once-only marker item.
const marker = patterns.MarkerTag + string(patterns.Sep)

// MarkerTTL is how long a record's once-only marker lives: longer than a
// stream keeps records (24 h), so a redelivered record finds it.
const MarkerTTL = 72 * time.Hour

// counter is one model counter, on its parent.
type counter struct {
	parent *patterns.Entity
	c      *patterns.Counter
	child  *patterns.Entity
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
			h.byChild[c.Child] = append(h.byChild[c.Child], counter{e, c, d.Model().Entity(c.Child)})
		}
	}
	return h
}

// Handle processes a batch, reporting failed records by sequence number.
func (h *handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	return stream.Process(ctx, h.log, ev, h.record), nil
}

// contribution is what one child item adds to a counter (0 when absent or
// not matching the counter's constants), exactly: a sum reads the number
// as stored, in decimal.
func contribution(c counter, v dynamo.Values, raw map[string]types.AttributeValue) (*big.Rat, error) {
	zero := new(big.Rat)
	if v == nil {
		return zero, nil
	}
	for _, w := range c.c.Where {
		a := c.child.Attr(w.Attr)
		want, _ := a.EncodeKey(w.Value)
		got, err := a.EncodeKey(v[w.Attr])
		if err != nil || got != want {
			return zero, nil
		}
	}
	if c.c.Sum == "" {
		return big.NewRat(1, 1), nil
	}
	switch n := raw[c.c.Sum].(type) {
	case nil:
		return zero, nil
	case *types.AttributeValueMemberN:
		r, ok := new(big.Rat).SetString(n.Value)
		if !ok {
			return nil, fmt.Errorf("%w: %s.%s is %q, not a number", stream.ErrMalformed, c.child.Name, c.c.Sum, n.Value)
		}
		return r, nil
	}
	return nil, fmt.Errorf("%w: %s.%s is not a number", stream.ErrMalformed, c.child.Name, c.c.Sum)
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
	add := func(c counter, v dynamo.Values, by *big.Rat) error {
		if by.Sign() == 0 {
			return nil
		}
		key, err := h.tbl.Key(c.parent.Name, v)
		if err != nil {
			return fmt.Errorf("%w: %v", stream.ErrMalformed, err)
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
		return nil
	}
	for _, c := range cs {
		if c.c.KeepExpired && stream.Expiry(r) {
			continue // expiries: keep
		}
		after, err := contribution(c, ch.New, ch.NewRaw)
		if err != nil {
			return err
		}
		before, err := contribution(c, ch.Old, ch.OldRaw)
		if err != nil {
			return err
		}
		// The old image's parent loses what the child gave it, the new
		// image's parent gains: one parent, the difference; a child that
		// moved, both.
		if err := add(c, ch.Old, new(big.Rat).Neg(before)); err != nil {
			return err
		}
		if err := add(c, ch.New, after); err != nil {
			return err
		}
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
	return nil
}

// apply adds to one parent's counters and writes the record's marker, in
// one transaction; a marker already there means the record was applied.
func (h *handler) apply(ctx context.Context, r events.DynamoDBEventRecord, key map[string]types.AttributeValue, adds map[string]*big.Rat) error {
	pk := key[h.d.PK].(*types.AttributeValueMemberS).Value
	sk := key[h.d.SK].(*types.AttributeValueMemberS).Value
	marker := map[string]types.AttributeValue{
		h.d.PK:  &types.AttributeValueMemberS{Value: marker + r.EventID},
		h.d.SK:  &types.AttributeValueMemberS{Value: marker + pk + string(patterns.Sep) + sk},
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
