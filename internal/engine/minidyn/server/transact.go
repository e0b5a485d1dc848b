package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Transaction limits.
const (
	MaxTransactItems = 100
	// MaxTransactBytes is the most item data one transaction may write.
	MaxTransactBytes = 4 * 1024 * 1024
	// maxTokenLength is the longest ClientRequestToken.
	maxTokenLength = 36
	// TokenLifetime is how long a ClientRequestToken makes a repeated
	// TransactWriteItems idempotent.
	TokenLifetime = 10 * time.Minute
)

// transactToken is a ClientRequestToken seen: the request it came with.
type transactToken struct {
	digest [32]byte
	at     time.Time
}

// cancelReason is one action's entry in a TransactionCanceledException.
type cancelReason struct {
	Code    string
	Message string
	Item    map[string]*types.Item
}

// transactionCanceledError is DynamoDB's TransactionCanceledException.
type transactionCanceledError struct {
	reasons []cancelReason
}

func (e *transactionCanceledError) Error() string {
	return "TransactionCanceledException: " + e.message()
}

func (e *transactionCanceledError) message() string {
	codes := make([]string, len(e.reasons))
	for i, r := range e.reasons {
		codes[i] = r.Code
	}

	return "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"
}

// transactAction is one checked action of a transaction.
type transactAction struct {
	table    *core.Table
	prepare  func() (*core.Write, error)
	validate func() error
	rvOnFail ddbtypes.ReturnValuesOnConditionCheckFailure
	// failed is the message of its ConditionalCheckFailed reason.
	failed string
}

// TransactWriteItems runs up to 100 writes and condition checks on
// distinct items, all or none. Checks run in DynamoDB's order: the
// request (a ValidationException), then each action's item (the first
// invalid one cancels the transaction with ValidationError), then every
// condition (each false one is a ConditionalCheckFailed reason); only then
// are the writes applied.
func (c *Client) TransactWriteItems(_ context.Context, in *TransactWriteItemsInput) (*TransactWriteItemsOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	switch n := len(in.TransactItems); {
	case n == 0:
		return nil, validation("1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	case n > MaxTransactItems:
		return nil, validation("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to %d", MaxTransactItems)
	}

	if in.ClientRequestToken != nil && (len(*in.ClientRequestToken) < 1 || len(*in.ClientRequestToken) > maxTokenLength) {
		return nil, validation("1 validation error detected: Value '%s' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to %d", *in.ClientRequestToken, maxTokenLength)
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	if c.forceFailureErr != nil {
		return nil, c.forceFailureErr
	}

	var digest [32]byte

	if in.ClientRequestToken != nil {
		body, _ := json.Marshal(in.TransactItems)
		digest = sha256.Sum256(body)

		c.expireTokens()

		if prev, ok := c.tokens[*in.ClientRequestToken]; ok {
			if prev.digest != digest {
				return nil, &apiError{Code: "IdempotentParameterMismatchException", Message: "The request uses the same client token as a previous, but non-identical request."}
			}

			// The same request again: it already ran, and it is answered
			// with what reading its items costs ("Subsequent
			// TransactWriteItems calls with the same client token return
			// the number of read capacity units consumed in reading the
			// item": the API reference, ClientRequestToken).
			return c.replayed(in)
		}
	}

	actions := make([]transactAction, len(in.TransactItems))
	seen := map[string]bool{}
	written := 0

	for i, ti := range in.TransactItems {
		a, key, size, err := c.transactAction(ti)
		if err != nil {
			return nil, err
		}

		if key != "" {
			id := a.table.Name + "\x00" + key
			if seen[id] {
				return nil, validation("Transaction request cannot include multiple operations on one item")
			}

			seen[id] = true
		}

		written += size
		actions[i] = a
	}

	if written > MaxTransactBytes {
		return nil, validation("Transaction size cannot exceed 4 MB (%d bytes of items)", written)
	}

	reasons := make([]cancelReason, len(actions))
	for i := range reasons {
		reasons[i] = cancelReason{Code: "None"}
	}

	// Every invalid action is named, not only the first (DynamoDB Local
	// 1.25.1: [ValidationError, ValidationError] for two).
	invalid := false
	for i, a := range actions {
		if err := a.validate(); err != nil {
			reasons[i] = cancelReason{Code: "ValidationError", Message: errorMessage(err)}
			invalid = true
		}
	}
	if invalid {
		return nil, &transactionCanceledError{reasons: reasons}
	}

	writes := make([]*core.Write, len(actions))
	failed := false

	for i, a := range actions {
		w, err := a.prepare()

		var (
			ccf *types.ConditionalCheckFailedException
			kue *core.KeyUpdateError
		)

		switch {
		case errors.As(err, &kue):
			// An update of a key attribute whose condition holds cancels
			// the transaction there.
			reasons[i] = cancelReason{Code: "ValidationError", Message: kue.Message()}
			return nil, &transactionCanceledError{reasons: reasons}
		case errors.As(err, &ccf):
			failed = true
			reasons[i] = cancelReason{Code: "ConditionalCheckFailed", Message: a.failed}

			if a.rvOnFail == ddbtypes.ReturnValuesOnConditionCheckFailureAllOld {
				reasons[i].Item = ccf.Item
			}
		case err != nil:
			return nil, apiErr(err)
		}

		writes[i] = w
	}

	if failed {
		return nil, &transactionCanceledError{reasons: reasons}
	}

	used := consumptions{}

	for _, w := range writes {
		c.commit(w, false)
		used.of(w.Table.Name, true).addWrite(w, 2)
	}

	if in.ClientRequestToken != nil {
		c.tokens[*in.ClientRequestToken] = transactToken{digest: digest, at: c.now()}
	}

	return &TransactWriteItemsOutput{ConsumedCapacity: used.report(in.ReturnConsumedCapacity)}, nil
}

// replayed answers a TransactWriteItems whose token and request ran
// already: nothing is written; each action's item is read as it is now,
// charged as TransactGetItems charges it.
func (c *Client) replayed(in *TransactWriteItemsInput) (*TransactWriteItemsOutput, error) {
	used := consumptions{}

	for _, ti := range in.TransactItems {
		a, key, _, err := c.transactAction(ti)
		if err != nil {
			return nil, err
		}

		used.of(a.table.Name, false).addItemRead(a.table.Get(key), true, 2)
	}

	return &TransactWriteItemsOutput{ConsumedCapacity: used.report(in.ReturnConsumedCapacity)}, nil
}

func (c *Client) expireTokens() {
	now := c.now()

	for k, t := range c.tokens {
		if now.Sub(t.at) > TokenLifetime {
			delete(c.tokens, k)
		}
	}
}

func errorMessage(err error) string {
	var ae *apiError
	if errors.As(apiErr(err), &ae) {
		return ae.Message
	}

	return err.Error()
}

// transactAction checks one action's request (its expressions, table and
// key: a ValidationException) and returns it, with the item's encoded key
// (for the one-action-per-item rule) and the bytes it writes.
func (c *Client) transactAction(ti TransactWriteItem) (transactAction, string, int, error) {
	n := 0

	for _, present := range []bool{ti.Put != nil, ti.Update != nil, ti.Delete != nil, ti.ConditionCheck != nil} {
		if present {
			n++
		}
	}

	switch {
	case n == 0:
		return transactAction{}, "", 0, validation("Invalid Request: TransactWriteRequest should contain Delete or Put or Update request")
	case n > 1:
		return transactAction{}, "", 0, validation("TransactItems can only contain one of Check, Put, Update or Delete")
	}

	var (
		name    *string
		p       exprParams
		rawKey  map[string]*AttributeValue
		rawItem map[string]*AttributeValue
		rv      ddbtypes.ReturnValuesOnConditionCheckFailure
	)

	switch {
	case ti.Put != nil:
		name, rawItem, rv = ti.Put.TableName, ti.Put.Item, ti.Put.ReturnValuesOnConditionCheckFailure
		p = exprParams{names: ti.Put.ExpressionAttributeNames, values: ti.Put.ExpressionAttributeValues, condition: ti.Put.ConditionExpression}
	case ti.Update != nil:
		name, rawKey, rv = ti.Update.TableName, ti.Update.Key, ti.Update.ReturnValuesOnConditionCheckFailure
		p = exprParams{names: ti.Update.ExpressionAttributeNames, values: ti.Update.ExpressionAttributeValues,
			condition: ti.Update.ConditionExpression, update: ti.Update.UpdateExpression}

		if ti.Update.UpdateExpression == nil {
			return transactAction{}, "", 0, validation("1 validation error detected: Value null at 'transactItems.member.update.updateExpression' failed to satisfy constraint: Member must not be null")
		}
	case ti.Delete != nil:
		name, rawKey, rv = ti.Delete.TableName, ti.Delete.Key, ti.Delete.ReturnValuesOnConditionCheckFailure
		p = exprParams{names: ti.Delete.ExpressionAttributeNames, values: ti.Delete.ExpressionAttributeValues, condition: ti.Delete.ConditionExpression}
	default:
		name, rawKey, rv = ti.ConditionCheck.TableName, ti.ConditionCheck.Key, ti.ConditionCheck.ReturnValuesOnConditionCheckFailure
		p = exprParams{names: ti.ConditionCheck.ExpressionAttributeNames, values: ti.ConditionCheck.ExpressionAttributeValues, condition: ti.ConditionCheck.ConditionExpression}

		if ti.ConditionCheck.ConditionExpression == nil {
			return transactAction{}, "", 0, validation("1 validation error detected: Value null at 'transactItems.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null")
		}
	}

	if err := checkReturnOnFailure(rv); err != nil {
		return transactAction{}, "", 0, err
	}

	if err := c.failureErrFor(aws.ToString(name), ""); err != nil {
		return transactAction{}, "", 0, err
	}

	table, err := c.tableFor(name)
	if err != nil {
		return transactAction{}, "", 0, err
	}

	ex, err := parseExprs(p)
	if err != nil {
		return transactAction{}, "", 0, err
	}

	a := transactAction{table: table, rvOnFail: rv, failed: core.ErrConditionalRequestFailed}

	if rawItem != nil || ti.Put != nil {
		item, err := fromWireMap(rawItem)
		if err != nil {
			return transactAction{}, "", 0, err
		}

		// A nested path into a key attribute refuses the request, unless
		// the item itself is invalid (that action is then cancelled).
		invalid := table.CheckItem(item)
		if invalid == nil {
			if err := ex.checkKeyPaths(table); err != nil {
				return transactAction{}, "", 0, err
			}
		}

		key, _ := table.EncodeKey(item)
		a.validate = func() error { return invalid }
		a.prepare = func() (*core.Write, error) { return table.PreparePut(item, ex.cond) }

		return a, key, types.ItemSize(item), nil
	}

	keyItem, err := fromWireMap(rawKey)
	if err != nil {
		return transactAction{}, "", 0, err
	}

	// A key without the table's key attributes fails the request; one of
	// the wrong type cancels the transaction (ValidationError).
	if err := table.CheckKeyShape(keyItem); err != nil {
		return transactAction{}, "", 0, apiErr(err)
	}

	key, _ := table.EncodeKey(keyItem)

	a.validate = func() error {
		_, err := table.KeyOf(keyItem)
		return err
	}

	// A Delete's or Update's condition with a nested path into a key
	// attribute refuses the request, as a Put's does; a ConditionCheck's
	// is evaluated (DynamoDB Local 1.25.1).
	if ti.ConditionCheck == nil && a.validate() == nil {
		if err := ex.checkKeyPaths(table); err != nil {
			return transactAction{}, "", 0, err
		}
	}

	switch {
	case ti.Update != nil:
		a.prepare = func() (*core.Write, error) { return table.PrepareUpdate(keyItem, ex.upd, ex.cond) }
	case ti.Delete != nil:
		a.prepare = func() (*core.Write, error) { return table.PrepareDelete(keyItem, ex.cond) }
	default:
		a.prepare = func() (*core.Write, error) { return table.PrepareCheck(keyItem, ex.cond) }
		// A ConditionCheck's reason ends with a period, where a Put's,
		// Update's or Delete's does not (DynamoDB Local 1.25.1; ElectroDB's
		// transaction tests expect both wordings).
		a.failed += "."
	}

	return a, key, 0, nil
}

// TransactGetItems reads up to 100 items at one moment.
func (c *Client) TransactGetItems(_ context.Context, in *TransactGetItemsInput) (*TransactGetItemsOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	switch n := len(in.TransactItems); {
	case n == 0:
		return nil, validation("1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	case n > MaxTransactItems:
		return nil, validation("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to %d", MaxTransactItems)
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	if c.forceFailureErr != nil {
		return nil, c.forceFailureErr
	}

	type get struct {
		table *core.Table
		key   string
		ex    *exprs
	}

	gets := make([]get, len(in.TransactItems))
	seen := map[string]bool{}

	for i, ti := range in.TransactItems {
		if ti.Get == nil {
			return nil, validation("1 validation error detected: Value null at 'transactItems.%d.member.get' failed to satisfy constraint: Member must not be null", i+1)
		}

		table, err := c.tableFor(ti.Get.TableName)
		if err != nil {
			return nil, err
		}

		ex, err := parseExprs(exprParams{names: ti.Get.ExpressionAttributeNames, projection: ti.Get.ProjectionExpression})
		if err != nil {
			return nil, err
		}

		if err := ex.checkKeyPaths(table); err != nil {
			return nil, err
		}

		keyItem, err := fromWireMap(ti.Get.Key)
		if err != nil {
			return nil, err
		}

		key, err := table.KeyOf(keyItem)
		if err != nil {
			return nil, getKeyErr(apiErr(err))
		}

		id := table.Name + "\x00" + key
		if seen[id] {
			return nil, validation("Transaction request cannot include multiple operations on one item")
		}

		seen[id] = true
		gets[i] = get{table: table, key: key, ex: ex}
	}

	out := &TransactGetItemsOutput{Responses: make([]ItemResponse, len(gets))}
	used := consumptions{}

	for i, g := range gets {
		item := g.table.Get(g.key)
		used.of(g.table.Name, false).addItemRead(item, true, 2)

		if item == nil {
			continue
		}

		if g.ex.proj != nil {
			item = g.ex.proj.Apply(item)
		}

		m := toWireMap(item)
		out.Responses[i] = ItemResponse{Item: &m}
	}

	out.ConsumedCapacity = used.report(in.ReturnConsumedCapacity)

	return out, nil
}

// getKeyErr is how a TransactGetItems answers a key that does not match
// the table's schema (a key attribute missing or extra, or of another
// type): TransactionCanceledException with the message and no
// cancellation reasons, as DynamoDB Local 1.25.1 answers; other key errors
// (an empty value) stay ValidationException.
func getKeyErr(err error) error {
	var api *apiError
	if errors.As(err, &api) && api.Code == "ValidationException" &&
		(strings.Contains(api.Message, "Type mismatch for key") || strings.Contains(api.Message, "number of conditions on the keys is invalid") ||
			strings.Contains(api.Message, "required keys was not given a value")) {
		return &apiError{Code: "TransactionCanceledException", Message: api.Message}
	}

	return err
}
