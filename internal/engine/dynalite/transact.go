package dynalite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// dynalite 4.0.0 has no TransactWriteItems. Transactions emulates it for
// such engines, over plain conditional writes: each Put, Update and
// Delete runs in order with its condition (a ConditionCheck writes its
// item back as it was, on its condition), and when one fails the earlier
// ones are undone from the images read before them, and the caller gets
// the TransactionCanceledException DynamoDB would send: the failed
// request's reason ConditionalCheckFailed (with the item as it was, when
// the request asks for it), the others None. It is all-or-nothing for
// one writer at a time, not isolated from concurrent writers: for tests
// and keyplan validate, never for production.

// Transactions wraps an engine client (typically *dynamodb.Client) so that
// TransactWriteItems works on engines without it.
type Transactions struct {
	*dynamodb.Client
	// native sends TransactWriteItems to the engine (Probe found it).
	native bool
	mu     sync.Mutex
	keys   map[string][]string
	// LacksOldItem, when set, says whether the engine leaves out the item
	// a refused write found, though asked for it
	// (ReturnValuesOnConditionCheckFailure ALL_OLD; dynalite 4.0.0 does).
	// Unset: the engine is taken to return it, as DynamoDB does.
	LacksOldItem func(context.Context) bool
}

// ReadsRefusedItems reports whether a caller must read the item a refused
// write found (GetItem), the engine not returning it (LacksOldItem). It is
// what keyplan's runtime asks its client (dynamo.Client) before such a
// read: on DynamoDB a refusal without an item says there was none.
func (t *Transactions) ReadsRefusedItems(ctx context.Context) bool {
	return t.LacksOldItem != nil && t.LacksOldItem(ctx)
}

// EmulateTransactions returns c with TransactWriteItems emulated.
func EmulateTransactions(c *dynamodb.Client) *Transactions {
	return &Transactions{Client: c, keys: map[string][]string{}}
}

// Native returns c with the engine's own TransactWriteItems (an engine
// known to have it).
func Native(c *dynamodb.Client) *Transactions {
	t := EmulateTransactions(c)
	t.native = true
	return t
}

// Probe returns c with TransactWriteItems emulated only when the engine
// behind it lacks it (SupportsTransactions): the engine's own otherwise.
func Probe(ctx context.Context, c *dynamodb.Client) *Transactions {
	t := EmulateTransactions(c)
	t.native = SupportsTransactions(ctx, c)
	return t
}

// Emulated reports whether TransactWriteItems is emulated.
func (t *Transactions) Emulated() bool { return !t.native }

// SupportsTransactions reports whether the engine behind c knows
// TransactWriteItems (dynalite answers UnknownOperationException).
func SupportsTransactions(ctx context.Context, c *dynamodb.Client) bool {
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
		ConditionCheck: &types.ConditionCheck{TableName: aws.String("keyplan-probe"), ConditionExpression: aws.String("attribute_exists(k)"),
			Key: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: "k"}}},
	}}})
	return err == nil || !strings.Contains(err.Error(), "UnknownOperation")
}

func (t *Transactions) keyNames(ctx context.Context, table string) ([]string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k, ok := t.keys[table]; ok {
		return k, nil
	}
	out, err := t.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, err
	}
	if out.Table == nil || len(out.Table.KeySchema) == 0 {
		return nil, fmt.Errorf("dynalite: the engine described table %s without a key schema", table)
	}
	var names []string
	for _, k := range out.Table.KeySchema {
		names = append(names, aws.ToString(k.AttributeName))
	}
	t.keys[table] = names
	return names, nil
}

const rollbackAttempts = 10

type undo struct {
	table string
	key   map[string]types.AttributeValue
	prior map[string]types.AttributeValue // nil: the item did not exist
}

// TransactWriteItems runs the writes in order and undoes them if one fails.
func (t *Transactions) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if t.native {
		return t.Client.TransactWriteItems(ctx, in, opts...)
	}
	var done []undo
	// An undo is retried: leaving half a transaction behind is worse than
	// waiting for a flaky engine.
	rollback := func() error {
		var errs []error
		for i := len(done) - 1; i >= 0; i-- {
			u := done[i]
			var err error
			for range rollbackAttempts {
				if u.prior == nil {
					_, err = t.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(u.table), Key: u.key}, opts...)
				} else {
					_, err = t.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(u.table), Item: u.prior}, opts...)
				}
				if err == nil {
					break
				}
			}
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	for i, w := range in.TransactItems {
		var table string
		var key map[string]types.AttributeValue
		var write func() error
		switch {
		case w.Put != nil:
			p := w.Put
			table = aws.ToString(p.TableName)
			names, err := t.keyNames(ctx, table)
			if err != nil {
				return nil, errors.Join(err, rollback())
			}
			key = map[string]types.AttributeValue{}
			for _, n := range names {
				key[n] = p.Item[n]
			}
			write = func() error {
				_, err := t.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: p.TableName, Item: p.Item,
					ConditionExpression: p.ConditionExpression, ExpressionAttributeNames: p.ExpressionAttributeNames,
					ExpressionAttributeValues: p.ExpressionAttributeValues}, opts...)
				return err
			}
		case w.Update != nil:
			u := w.Update
			table, key = aws.ToString(u.TableName), u.Key
			write = func() error {
				_, err := t.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: u.TableName, Key: u.Key,
					UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression,
					ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues}, opts...)
				return err
			}
		case w.Delete != nil:
			d := w.Delete
			table, key = aws.ToString(d.TableName), d.Key
			write = func() error {
				_, err := t.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: d.TableName, Key: d.Key,
					ConditionExpression: d.ConditionExpression, ExpressionAttributeNames: d.ExpressionAttributeNames,
					ExpressionAttributeValues: d.ExpressionAttributeValues}, opts...)
				return err
			}
		case w.ConditionCheck != nil:
			c := w.ConditionCheck
			table, key = aws.ToString(c.TableName), c.Key
		default:
			return nil, errors.Join(fmt.Errorf("dynalite: transaction request %d: only Put, Update, Delete and ConditionCheck are emulated", i), rollback())
		}
		before, err := t.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)}, opts...)
		if err != nil {
			return nil, errors.Join(err, rollback())
		}
		if c := w.ConditionCheck; c != nil {
			// A check writes nothing: the item is written back as it was
			// (or deleted, when absent) on the condition.
			write = func() error {
				var err error
				if before.Item == nil {
					_, err = t.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: c.TableName, Key: c.Key,
						ConditionExpression: c.ConditionExpression, ExpressionAttributeNames: c.ExpressionAttributeNames,
						ExpressionAttributeValues: c.ExpressionAttributeValues}, opts...)
				} else {
					_, err = t.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: c.TableName, Item: before.Item,
						ConditionExpression: c.ConditionExpression, ExpressionAttributeNames: c.ExpressionAttributeNames,
						ExpressionAttributeValues: c.ExpressionAttributeValues}, opts...)
				}
				return err
			}
		}
		if err := write(); err != nil {
			rerr := rollback()
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				return nil, errors.Join(err, rerr)
			}
			reasons := make([]types.CancellationReason, len(in.TransactItems))
			for j := range reasons {
				reasons[j].Code = aws.String("None")
			}
			reasons[i].Code = aws.String("ConditionalCheckFailed")
			if allOld(w) {
				reasons[i].Item = before.Item
			}
			return nil, errors.Join(&types.TransactionCanceledException{
				Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons"),
				CancellationReasons: reasons,
			}, rerr)
		}
		done = append(done, undo{table: table, key: key, prior: before.Item})
	}
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

// allOld reports whether a transaction request asks for the item as it
// was when its condition fails.
func allOld(w types.TransactWriteItem) bool {
	var r types.ReturnValuesOnConditionCheckFailure
	switch {
	case w.Put != nil:
		r = w.Put.ReturnValuesOnConditionCheckFailure
	case w.Update != nil:
		r = w.Update.ReturnValuesOnConditionCheckFailure
	case w.Delete != nil:
		r = w.Delete.ReturnValuesOnConditionCheckFailure
	case w.ConditionCheck != nil:
		r = w.ConditionCheck.ReturnValuesOnConditionCheckFailure
	}
	return r == types.ReturnValuesOnConditionCheckFailureAllOld
}
