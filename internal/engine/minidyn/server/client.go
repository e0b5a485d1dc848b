package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
	"github.com/keyplan/keyplan/internal/engine/minidyn/expression"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Client is the engine: its tables, behind one lock (every operation
// runs alone, so a write is atomic and a transaction isolated).
type Client struct {
	tables               map[string]*core.Table
	meta                 map[string]*tableMeta
	mu                   sync.Mutex
	forceFailureErr      error
	tableFailureErrs     map[string]error
	unprocessedMatchers  map[string]func(int, map[string]*AttributeValue) bool
	indexActivationDelay time.Duration
	// tokens remembers TransactWriteItems' ClientRequestTokens (10
	// minutes, as DynamoDB does).
	tokens map[string]transactToken
	now    func() time.Time
	// streams are the tables' streams by ARN (kept after a table goes);
	// seq numbers their records.
	streams map[string]*stream
	seq     uint64
	// journal holds the changes not yet committed to the store (nil:
	// none, the engine is in memory only; persist.go).
	journal *journal
	// backups are the on-demand backups by ARN (backups.go).
	backups map[string]*backup
}

// NewClient creates an empty engine.
func NewClient() *Client {
	return &Client{
		tables:              map[string]*core.Table{},
		meta:                map[string]*tableMeta{},
		tableFailureErrs:    map[string]error{},
		unprocessedMatchers: map[string]func(int, map[string]*AttributeValue) bool{},
		tokens:              map[string]transactToken{},
		now:                 time.Now,
		streams:             map[string]*stream{},
	}
}

// getTable is the named table, or DynamoDB's ResourceNotFoundException.
func (c *Client) getTable(name string) (*core.Table, error) {
	t, ok := c.tables[name]
	if !ok {
		return nil, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found"}
	}

	return t, nil
}

// checkTableName refuses a missing or malformed table name.
func checkTableName(name *string) error {
	if name == nil {
		return validation("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
	}

	if core.ValidName(*name) {
		return nil
	}

	// Each rule broken, as DynamoDB names them: the characters, then the
	// length (3 to 255).
	var broken []string

	if !core.ValidNameCharacters(*name) {
		broken = append(broken, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	}

	switch n := len(*name); {
	case n < core.MinNameLength:
		broken = append(broken, fmt.Sprintf("Member must have length greater than or equal to %d", core.MinNameLength))
	case n > core.MaxNameLength:
		broken = append(broken, fmt.Sprintf("Member must have length less than or equal to %d", core.MaxNameLength))
	}

	msgs := make([]string, len(broken))
	for i, b := range broken {
		msgs[i] = fmt.Sprintf("Value '%s' at 'tableName' failed to satisfy constraint: %s", *name, b)
	}

	count := "1 validation error"
	if len(msgs) > 1 {
		count = fmt.Sprintf("%d validation errors", len(msgs))
	}

	return validation("%s detected: %s", count, strings.Join(msgs, "; "))
}

// tableFor checks a request's table name and finds the table.
func (c *Client) tableFor(name *string) (*core.Table, error) {
	if err := checkTableName(name); err != nil {
		return nil, err
	}

	return c.getTable(*name)
}

// apiErr converts the core's errors to DynamoDB's.
func apiErr(err error) error {
	if err == nil {
		return nil
	}

	var ae *apiError
	if errors.As(err, &ae) {
		return err
	}

	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return &conditionFailedError{item: ccf.Item}
	}

	var te types.Error
	if errors.As(err, &te) {
		return &apiError{Code: te.Code(), Message: te.Message()}
	}

	var ee *expression.Error
	if errors.As(err, &ee) {
		return validation("%s", ee.Message)
	}

	return err
}

// conditionFailedError is a ConditionalCheckFailedException, with the
// item when ReturnValuesOnConditionCheckFailure asked for it.
type conditionFailedError struct {
	item map[string]*types.Item
}

func (e *conditionFailedError) Error() string {
	return "ConditionalCheckFailedException: " + core.ErrConditionalRequestFailed
}

// checkReturnValues refuses a ReturnValues the operation does not take.
func checkReturnValues(rv ddbtypes.ReturnValue, allowed ...ddbtypes.ReturnValue) error {
	if rv == "" {
		return nil
	}

	for _, a := range allowed {
		if rv == a {
			return nil
		}
	}

	return validation("Return values set to invalid value")
}

func checkReturnOnFailure(rv ddbtypes.ReturnValuesOnConditionCheckFailure) error {
	switch rv {
	case "", ddbtypes.ReturnValuesOnConditionCheckFailureNone, ddbtypes.ReturnValuesOnConditionCheckFailureAllOld:
		return nil
	}

	return validation("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", rv)
}

// failedCondition is the error of a failed condition, with the old item
// when ReturnValuesOnConditionCheckFailure is ALL_OLD.
func failedCondition(err error, rv ddbtypes.ReturnValuesOnConditionCheckFailure) error {
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return apiErr(err)
	}

	out := &conditionFailedError{}
	if rv == ddbtypes.ReturnValuesOnConditionCheckFailureAllOld {
		out.item = ccf.Item
	}

	return out
}

// PutItem stores an item, replacing any with its key.
func (c *Client) PutItem(_ context.Context, in *PutItemInput) (*PutItemOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := c.failureErrFor(aws.ToString(in.TableName), ""); err != nil {
		return nil, err
	}

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	if err := checkReturnValues(in.ReturnValues, ddbtypes.ReturnValueNone, ddbtypes.ReturnValueAllOld); err != nil {
		return nil, err
	}

	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}

	if in.Item == nil {
		return nil, validation("1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null")
	}

	item, err := fromWireMap(in.Item)
	if err != nil {
		return nil, err
	}

	ex, err := parseExprs(exprParams{
		names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
		condition: in.ConditionExpression, expected: in.Expected,
		conditionalOperator: string(in.ConditionalOperator), valuesNeed: "ConditionExpression is null",
	})
	if err != nil {
		return nil, err
	}

	if err := ex.checkKeyPaths(table); err != nil {
		return nil, err
	}

	w, err := table.PreparePut(item, ex.cond)
	if err != nil {
		return nil, failedCondition(err, in.ReturnValuesOnConditionCheckFailure)
	}

	c.commit(w, false)

	out := &PutItemOutput{ConsumedCapacity: writeConsumed(in.ReturnConsumedCapacity, table.Name, w)}
	if in.ReturnValues == ddbtypes.ReturnValueAllOld && w.Old != nil {
		out.Attributes = toWireMap(w.Old)
	}

	return out, nil
}

// DeleteItem removes an item.
func (c *Client) DeleteItem(_ context.Context, in *DeleteItemInput) (*DeleteItemOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := c.failureErrFor(aws.ToString(in.TableName), ""); err != nil {
		return nil, err
	}

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	if err := checkReturnValues(in.ReturnValues, ddbtypes.ReturnValueNone, ddbtypes.ReturnValueAllOld); err != nil {
		return nil, err
	}

	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}

	key, err := fromWireMap(in.Key)
	if err != nil {
		return nil, err
	}

	ex, err := parseExprs(exprParams{
		names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
		condition: in.ConditionExpression, expected: in.Expected,
		conditionalOperator: string(in.ConditionalOperator), valuesNeed: "ConditionExpression is null",
	})
	if err != nil {
		return nil, err
	}

	if err := ex.checkKeyPaths(table); err != nil {
		return nil, err
	}

	w, err := table.PrepareDelete(key, ex.cond)
	if err != nil {
		return nil, failedCondition(err, in.ReturnValuesOnConditionCheckFailure)
	}

	c.commit(w, false)

	out := &DeleteItemOutput{ConsumedCapacity: writeConsumed(in.ReturnConsumedCapacity, table.Name, w)}
	if in.ReturnValues == ddbtypes.ReturnValueAllOld && w.Old != nil {
		out.Attributes = toWireMap(w.Old)
	}

	return out, nil
}

// UpdateItem changes an item (creating it if it does not exist).
func (c *Client) UpdateItem(_ context.Context, in *UpdateItemInput) (*UpdateItemOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := c.failureErrFor(aws.ToString(in.TableName), ""); err != nil {
		return nil, err
	}

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	if err := checkReturnValues(in.ReturnValues, ddbtypes.ReturnValueNone, ddbtypes.ReturnValueAllOld,
		ddbtypes.ReturnValueAllNew, ddbtypes.ReturnValueUpdatedOld, ddbtypes.ReturnValueUpdatedNew); err != nil {
		return nil, err
	}

	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}

	key, err := fromWireMap(in.Key)
	if err != nil {
		return nil, err
	}

	ex, err := parseExprs(exprParams{
		names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
		condition: in.ConditionExpression, update: in.UpdateExpression, expected: in.Expected,
		attributeUpdates: in.AttributeUpdates, conditionalOperator: string(in.ConditionalOperator),
		valuesNeed: "UpdateExpression and ConditionExpression are null",
	})
	if err != nil {
		return nil, err
	}

	if err := ex.checkKeyPaths(table); err != nil {
		return nil, err
	}

	w, err := table.PrepareUpdate(key, ex.upd, ex.cond)
	if err != nil {
		return nil, failedCondition(err, in.ReturnValuesOnConditionCheckFailure)
	}

	c.commit(w, false)

	return &UpdateItemOutput{
		Attributes:       toWireMap(updateReturnValues(in.ReturnValues, w)),
		ConsumedCapacity: writeConsumed(in.ReturnConsumedCapacity, table.Name, w),
	}, nil
}

// updateReturnValues is what an update returns for ReturnValues: the
// whole item before or after, or the paths it wrote (as they were, or
// are), nested paths as nested as written.
func updateReturnValues(rv ddbtypes.ReturnValue, w *core.Write) map[string]*types.Item {
	var out map[string]*types.Item

	switch rv {
	case ddbtypes.ReturnValueAllOld:
		out = w.Old
	case ddbtypes.ReturnValueAllNew:
		out = w.New
	case ddbtypes.ReturnValueUpdatedOld:
		if w.Old != nil {
			out = expression.Project(w.Old, w.Paths)
		}
	case ddbtypes.ReturnValueUpdatedNew:
		out = expression.Project(w.New, w.Paths)
	}

	if len(out) == 0 {
		return nil
	}

	return out
}

// GetItem reads an item.
func (c *Client) GetItem(ctx context.Context, in *GetItemInput) (*GetItemOutput, error) {
	out, err := c.getItem(ctx, in)
	if err != nil {
		return nil, err
	}

	if out.stored != nil {
		m := toWireMap(out.stored)
		out.Item = &m
	}

	out.stored = nil

	return out, nil
}

// getItem is GetItem with the item as stored (what the server encodes).
func (c *Client) getItem(_ context.Context, in *GetItemInput) (*GetItemOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := c.failureErrFor(aws.ToString(in.TableName), ""); err != nil {
		return nil, err
	}

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	key, err := fromWireMap(in.Key)
	if err != nil {
		return nil, err
	}

	ex, err := parseExprs(exprParams{
		names: in.ExpressionAttributeNames, projection: in.ProjectionExpression,
		attributesToGet: in.AttributesToGet,
	})
	if err != nil {
		return nil, err
	}

	if err := ex.checkKeyPaths(table); err != nil {
		return nil, err
	}

	k, err := table.KeyOf(key)
	if err != nil {
		return nil, apiErr(err)
	}

	item := table.Get(k)

	out := &GetItemOutput{}
	if in.ReturnConsumedCapacity != "" {
		cc := newConsumption(table.Name, false)
		cc.addItemRead(item, aws.ToBool(in.ConsistentRead), 1)
		out.ConsumedCapacity = cc.report(in.ReturnConsumedCapacity)
	}

	if item != nil {
		if ex.proj != nil {
			item = ex.proj.Apply(item)
		}

		if item == nil {
			item = map[string]*types.Item{}
		}

		out.stored = item
	}

	return out, nil
}

// checkSelect checks Select against the projection parameters and the
// index.
func checkSelect(sel ddbtypes.Select, ex *exprs, attributesToGet bool, table *core.Table, index string) error {
	switch sel {
	case "", ddbtypes.SelectAllAttributes, ddbtypes.SelectAllProjectedAttributes, ddbtypes.SelectCount, ddbtypes.SelectSpecificAttributes:
	default:
		return validation("1 validation error detected: Value '%s' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]", sel)
	}

	projection := "ProjectionExpression"
	if attributesToGet {
		projection = "AttributesToGet"
	}

	hasProjection := ex.proj != nil

	switch {
	case sel == ddbtypes.SelectSpecificAttributes && !hasProjection:
		return validation("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
	case sel == ddbtypes.SelectCount && hasProjection:
		return validation("Cannot specify the %s when choosing to get only the Count", projection)
	case (sel == ddbtypes.SelectAllAttributes || sel == ddbtypes.SelectAllProjectedAttributes) && hasProjection:
		return validation("Cannot specify the %s when choosing to get %s", projection, sel)
	case sel == ddbtypes.SelectAllProjectedAttributes && index == "":
		return validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
	case sel == ddbtypes.SelectAllAttributes && index != "" && table.IsGlobal(index) && !table.Indexes[index].ProjectsAll():
		return validation("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", index)
	}

	return nil
}

// searchRequest is what Query and Scan share.
type searchRequest struct {
	table           *core.Table
	index           string
	ex              *exprs
	sel             ddbtypes.Select
	attributesToGet bool
	limit           *int32
	consistentRead  *bool
	startKey        map[string]*AttributeValue
	capacity        ddbtypes.ReturnConsumedCapacity
	in              core.SearchInput
	// scan: a Scan, not a Query.
	scan bool
}

// prepareSearch checks what Query and Scan share: the index, Select,
// Limit, ConsistentRead, the start key, and the attributes an index must
// project.
func (r *searchRequest) prepare() error {
	if r.index != "" {
		if !core.ValidName(r.index) {
			return validation("1 validation error detected: Value '%s' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", r.index)
		}

		if _, err := r.table.Index(r.index); err != nil {
			return apiErr(err)
		}

		if aws.ToBool(r.consistentRead) && r.table.IsGlobal(r.index) {
			return validation("Consistent reads are not supported on global secondary indexes")
		}
	}

	if r.limit != nil && *r.limit <= 0 {
		return validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *r.limit)
	}

	if err := checkSelect(r.sel, r.ex, r.attributesToGet, r.table, r.index); err != nil {
		return err
	}

	if r.startKey != nil && len(r.startKey) == 0 {
		return validation("The provided starting key is invalid: Exclusive Start Key must have same size as table's key schema")
	}

	start, err := fromWireMap(r.startKey)
	if err != nil {
		return err
	}

	r.in.Index = r.index
	r.in.Filter = r.ex.filter
	r.in.Limit = int64(aws.ToInt32(r.limit))
	r.in.ExclusiveStartKey = start

	if r.index == "" {
		return nil
	}

	ix := r.table.Indexes[r.index]

	// A GSI serves only what it projects; an LSI fetches the rest from the
	// table.
	var wanted []string
	if r.ex.proj != nil {
		wanted = r.ex.proj.Tops()
	}

	var missing []string

	for _, a := range wanted {
		if !ix.Projects(a) {
			missing = append(missing, a)
		}
	}

	if r.table.IsGlobal(r.index) && len(missing) > 0 {
		return validation("One or more parameter values were invalid: Global secondary index %s does not project %s", r.index, bracketed(missing))
	}

	// A Query's filter may name only what the index projects; a Scan's
	// runs on the whole item (and returns what the index projects), as
	// DynamoDB Local 1.25.1 does on a GSI and on an LSI alike.
	if r.ex.filter != nil {
		var notProjected []string

		for _, a := range r.ex.filter.Names() {
			if !ix.Projects(a) && !contains(notProjected, a) {
				notProjected = append(notProjected, a)
			}
		}

		switch {
		case len(notProjected) > 0 && !r.scan:
			return validation("One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: %s", r.index, bracketed(notProjected))
		case len(notProjected) > 0:
			r.in.FilterOnItem = true
		}
	}

	if !r.table.IsGlobal(r.index) {
		// An LSI fetches from the table what it does not project.
		r.in.FullItems = len(missing) > 0 || r.sel == ddbtypes.SelectAllAttributes
	}

	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}

	return false
}

func bracketed(names []string) string {
	out := "["
	for i, n := range names {
		if i > 0 {
			out += ", "
		}

		out += n
	}

	return out + "]"
}

// run reads the page and shapes the response: items projected (or none
// for COUNT), counts, the last key, capacity.
func (r *searchRequest) run() (*page, int32, int32, *consumedJSON, error) {
	res, err := r.table.Search(r.in)
	if err != nil {
		return nil, 0, 0, nil, apiErr(err)
	}

	p := &page{count: r.sel == ddbtypes.SelectCount, last: res.LastKey}

	if !p.count {
		p.items = res.Items

		if r.ex.proj != nil {
			for i, it := range p.items {
				p.items[i] = r.ex.proj.Apply(it)
			}
		}
	}

	var cc *consumedJSON

	if r.capacity != "" {
		c := newConsumption(r.table.Name, false)
		c.addSearch(r.table, r.index, res.ReadBytes, aws.ToBool(r.consistentRead))
		cc = c.report(r.capacity)
	}

	return p, int32(len(res.Items)), int32(res.Scanned), cc, nil
}

// page is a Query's or Scan's items and last key as stored, which the
// server encodes without converting them (the exported fields of
// QueryOutput and ScanOutput are filled from it for the Client's callers).
type page struct {
	// count: Select COUNT, no items.
	count bool
	items []map[string]*types.Item
	last  map[string]*types.Item
}

// wire is the page's items (nil for COUNT) and last key as the
// outputs' exported fields hold them.
func (p *page) wire() (*[]map[string]*AttributeValue, map[string]*AttributeValue) {
	if p.count {
		return nil, toWireMap(p.last)
	}

	items := make([]map[string]*AttributeValue, 0, len(p.items))
	for _, it := range p.items {
		items = append(items, toWireMap(it))
	}

	return &items, toWireMap(p.last)
}

// Query reads the items of one partition, in sort key order.
func (c *Client) Query(ctx context.Context, in *QueryInput) (*QueryOutput, error) {
	out, err := c.query(ctx, in)
	if err != nil {
		return nil, err
	}

	out.Items, out.LastEvaluatedKey = out.page.wire()
	out.page = nil

	return out, nil
}

// query is Query with the page as stored (what the server encodes).
func (c *Client) query(_ context.Context, in *QueryInput) (*QueryOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := c.failureErrFor(aws.ToString(in.TableName), aws.ToString(in.IndexName)); err != nil {
		return nil, err
	}

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	ex, err := parseExprs(exprParams{
		names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
		keyCondition: in.KeyConditionExpression, filter: in.FilterExpression, projection: in.ProjectionExpression,
		keyConditions: in.KeyConditions, legacyFilter: in.QueryFilter, legacyFilterName: "QueryFilter",
		attributesToGet: in.AttributesToGet, conditionalOperator: string(in.ConditionalOperator),
		valuesNeed: "KeyConditionExpression is null",
	})
	if err != nil {
		return nil, err
	}

	if err := ex.checkKeyPaths(table); err != nil {
		return nil, err
	}

	if ex.keyCond == nil && ex.legacyKeyConds == nil {
		return nil, validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}

	r := &searchRequest{
		table: table, index: aws.ToString(in.IndexName), ex: ex, sel: in.Select, limit: in.Limit, attributesToGet: in.AttributesToGet != nil,
		consistentRead: in.ConsistentRead, startKey: in.ExclusiveStartKey, capacity: in.ReturnConsumedCapacity,
	}

	if err := r.prepare(); err != nil {
		return nil, err
	}

	if err := c.checkReadable(table, r.index); err != nil {
		return nil, err
	}

	ks := keySchemaOf(table, r.index)

	if ex.keyCond != nil {
		r.in.Key, err = ex.keyCond.Key(ks)
	} else {
		r.in.Key, err = expression.LegacyKeyCondition(ex.legacyKeyConds, ks)
	}

	if err != nil {
		return nil, validation("%s", err.Error())
	}

	if err := checkKeyConditionValues(r.in.Key, ks); err != nil {
		return nil, err
	}

	if ex.filter != nil {
		filterName := "Filter Expression"
		if in.QueryFilter != nil {
			filterName = "QueryFilter"
		}

		for _, a := range ex.filter.Names() {
			if ks.IsKey(a) {
				return nil, validation("%s can only contain non-primary key attributes: Primary key attribute: %s", filterName, a)
			}
		}
	}

	r.in.Forward = in.ScanIndexForward == nil || *in.ScanIndexForward

	p, count, scanned, cc, err := r.run()
	if err != nil {
		return nil, err
	}

	return &QueryOutput{Count: count, ScannedCount: scanned, ConsumedCapacity: cc, page: p}, nil
}

// checkKeyConditionValues refuses a key condition comparing a key
// attribute with an empty string or binary, as DynamoDB does.
func checkKeyConditionValues(kc *expression.KeyCondition, ks expression.KeySchema) error {
	check := func(name string, v *types.Item) error {
		switch {
		case v == nil:
		case v.S != nil && *v.S == "":
			return validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", name)
		case v.B != nil && len(v.B) == 0:
			return validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", name)
		}

		return nil
	}

	var errs []error

	for i, v := range kc.Hash {
		errs = append(errs, check(ks.Hash[i], v))
	}

	for i, v := range kc.Eq {
		errs = append(errs, check(ks.Range[i], v))
	}

	if kc.Op != "" && len(kc.Eq) < len(ks.Range) {
		name := ks.Range[len(kc.Eq)]
		errs = append(errs, check(name, kc.Lo), check(name, kc.Hi))
	}

	for _, err := range errs {
		if err != nil {
			return err
		}
	}

	return nil
}

// keySchemaOf is the key schema a Query on the table or index reads.
func keySchemaOf(table *core.Table, index string) expression.KeySchema {
	hash, rng := table.KeySchema.Hash, table.KeySchema.Range
	if index != "" {
		hash, rng = table.Indexes[index].KeyNames()
	}

	return expression.KeySchema{Hash: hash, Range: rng, Types: table.AttributesDef}
}

// Scan reads the table or index in key order, a page at a time.
func (c *Client) Scan(ctx context.Context, in *ScanInput) (*ScanOutput, error) {
	out, err := c.scan(ctx, in)
	if err != nil {
		return nil, err
	}

	out.Items, out.LastEvaluatedKey = out.page.wire()
	out.page = nil

	return out, nil
}

// scan is Scan with the page as stored (what the server encodes).
func (c *Client) scan(_ context.Context, in *ScanInput) (*ScanOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if err := c.failureErrFor(aws.ToString(in.TableName), aws.ToString(in.IndexName)); err != nil {
		return nil, err
	}

	table, err := c.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}

	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	ex, err := parseExprs(exprParams{
		names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
		filter: in.FilterExpression, projection: in.ProjectionExpression,
		legacyFilter: in.ScanFilter, legacyFilterName: "ScanFilter",
		attributesToGet: in.AttributesToGet, conditionalOperator: string(in.ConditionalOperator),
		valuesNeed: "FilterExpression is null",
	})
	if err != nil {
		return nil, err
	}

	if err := ex.checkKeyPaths(table); err != nil {
		return nil, err
	}

	segment, total := aws.ToInt32(in.Segment), aws.ToInt32(in.TotalSegments)

	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return nil, validation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.Segment == nil && in.TotalSegments != nil:
		return nil, validation("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.TotalSegments != nil && (total < 1 || total > 1000000):
		return nil, validation("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value between 1 and 1000000", total)
	case in.Segment != nil && (segment < 0 || segment >= total):
		return nil, validation("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", segment, total)
	}

	r := &searchRequest{
		table: table, index: aws.ToString(in.IndexName), ex: ex, sel: in.Select, limit: in.Limit, attributesToGet: in.AttributesToGet != nil,
		consistentRead: in.ConsistentRead, startKey: in.ExclusiveStartKey, capacity: in.ReturnConsumedCapacity, scan: true,
	}

	if err := r.prepare(); err != nil {
		return nil, err
	}

	if err := c.checkReadable(table, r.index); err != nil {
		return nil, err
	}

	r.in.Forward = true
	r.in.Segment, r.in.TotalSegments = segment, total

	p, count, scanned, cc, err := r.run()
	if err != nil {
		return nil, err
	}

	return &ScanOutput{Count: count, ScannedCount: scanned, ConsumedCapacity: cc, page: p}, nil
}

// writeConsumed is what a single write consumed, as mode asks.
func writeConsumed(mode ddbtypes.ReturnConsumedCapacity, table string, w *core.Write) *consumedJSON {
	if mode == "" {
		return nil
	}

	c := newConsumption(table, true)
	c.addWrite(w, 1)

	return c.report(mode)
}
