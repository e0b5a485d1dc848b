package server

// PartiQL: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
// Each statement (internal/engine/minidyn/partiql) becomes the request it stands
// for, run by the engine's own operations: a SELECT whose WHERE holds the
// partition key's equality (of the table or of FROM "table"."index") is a
// Query (a sort key condition in its key condition, the rest a filter),
// any other a Scan with the WHERE as filter; INSERT is a PutItem on
// condition that no item has the key (DuplicateItemException); UPDATE an
// UpdateItem on condition that it has (ConditionalCheckFailedException),
// DELETE a DeleteItem, each of the key the WHERE's equalities give (all
// of them: else ValidationException) with the rest of the WHERE as its
// condition. So a statement reads and writes exactly what the equivalent
// request does (TestPartiQLIsTheEquivalentRequest).

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/partiql"
)

type (
	// ExecuteStatementInput mirrors DynamoDB's.
	ExecuteStatementInput struct {
		Statement                           *string                                      `json:"Statement"`
		Parameters                          []*AttributeValue                            `json:"Parameters,omitempty"`
		ConsistentRead                      *bool                                        `json:"ConsistentRead,omitempty"`
		NextToken                           *string                                      `json:"NextToken,omitempty"`
		Limit                               *int32                                       `json:"Limit,omitempty"`
		ReturnConsumedCapacity              ddbtypes.ReturnConsumedCapacity              `json:"ReturnConsumedCapacity,omitempty"`
		ReturnValuesOnConditionCheckFailure ddbtypes.ReturnValuesOnConditionCheckFailure `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
	}
	// ExecuteStatementOutput mirrors DynamoDB's.
	ExecuteStatementOutput struct {
		Items            []map[string]*AttributeValue `json:"Items"`
		NextToken        string                       `json:"NextToken,omitempty"`
		LastEvaluatedKey map[string]*AttributeValue   `json:"LastEvaluatedKey,omitempty"`
	}
	// BatchStatement is one of BatchExecuteStatement's.
	BatchStatement struct {
		Statement                           *string                                      `json:"Statement"`
		Parameters                          []*AttributeValue                            `json:"Parameters,omitempty"`
		ConsistentRead                      *bool                                        `json:"ConsistentRead,omitempty"`
		ReturnValuesOnConditionCheckFailure ddbtypes.ReturnValuesOnConditionCheckFailure `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
	}
	// BatchExecuteStatementInput mirrors DynamoDB's.
	BatchExecuteStatementInput struct {
		Statements             []BatchStatement                `json:"Statements"`
		ReturnConsumedCapacity ddbtypes.ReturnConsumedCapacity `json:"ReturnConsumedCapacity,omitempty"`
	}
	batchErrorJSON struct {
		Code    string                     `json:"Code"`
		Message string                     `json:"Message"`
		Item    map[string]*AttributeValue `json:"Item,omitempty"`
	}
	batchResponseJSON struct {
		TableName string                     `json:"TableName,omitempty"`
		Item      map[string]*AttributeValue `json:"Item,omitempty"`
		Error     *batchErrorJSON            `json:"Error,omitempty"`
	}
	// BatchExecuteStatementOutput mirrors DynamoDB's.
	BatchExecuteStatementOutput struct {
		Responses []batchResponseJSON `json:"Responses"`
	}
	// ParameterizedStatement is one of ExecuteTransaction's.
	ParameterizedStatement struct {
		Statement                           *string                                      `json:"Statement"`
		Parameters                          []*AttributeValue                            `json:"Parameters,omitempty"`
		ReturnValuesOnConditionCheckFailure ddbtypes.ReturnValuesOnConditionCheckFailure `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
	}
	// ExecuteTransactionInput mirrors DynamoDB's.
	ExecuteTransactionInput struct {
		TransactStatements     []ParameterizedStatement        `json:"TransactStatements"`
		ClientRequestToken     *string                         `json:"ClientRequestToken,omitempty"`
		ReturnConsumedCapacity ddbtypes.ReturnConsumedCapacity `json:"ReturnConsumedCapacity,omitempty"`
	}
	// ExecuteTransactionOutput mirrors DynamoDB's.
	ExecuteTransactionOutput struct {
		Responses []ItemResponse `json:"Responses,omitempty"`
	}
)

// The bounds DynamoDB sets: 25 statements a batch, 100 a transaction.
const (
	MaxBatchStatements       = 25
	MaxTransactionStatements = 100
)

var errDuplicateItem = &apiError{Code: "DuplicateItemException", Message: "Duplicate primary key exists in table"}

// plan is a statement as the request it stands for: exactly one is set.
type plan struct {
	table  string
	query  *QueryInput
	scan   *ScanInput
	put    *PutItemInput
	update *UpdateItemInput
	delete *DeleteItemInput
	// key is a read's key when its WHERE is the whole primary key's
	// equalities and nothing more (what a batch or a transaction reads).
	key map[string]*AttributeValue
}

// pqExprs collects a request's expression attribute names and values.
type pqExprs struct {
	names  map[string]string
	values map[string]*AttributeValue
	params []*AttributeValue
	// top is INSERT's VALUE map, whose fields alone may be parameters.
	top *partiql.Lit
}

func (x *pqExprs) name(n string) string {
	for k, v := range x.names {
		if v == n {
			return k
		}
	}

	k := "#n" + strconv.Itoa(len(x.names))
	x.names[k] = n

	return k
}

func (x *pqExprs) value(v *AttributeValue) string {
	k := ":v" + strconv.Itoa(len(x.values))
	x.values[k] = v

	return k
}

func (x *pqExprs) path(p partiql.Path) string {
	var b strings.Builder

	for _, part := range p {
		if part.Index >= 0 {
			fmt.Fprintf(&b, "[%d]", part.Index)
			continue
		}

		if b.Len() > 0 {
			b.WriteByte('.')
		}

		b.WriteString(x.name(part.Name))
	}

	return b.String()
}

// literal is an expression that is a value (a literal or a parameter) as
// an attribute value; ok is false for anything else.
func (x *pqExprs) literal(e partiql.Expr) (*AttributeValue, bool, error) {
	switch e := e.(type) {
	case partiql.Param:
		return x.params[e], true, nil
	case *partiql.Lit:
		v, err := x.lit(e)
		return v, err == nil, err
	}

	return nil, false, nil
}

func (x *pqExprs) lit(l *partiql.Lit) (*AttributeValue, error) {
	t := true

	switch l.Kind {
	case partiql.LitString:
		return &AttributeValue{S: aws.String(l.Text)}, nil
	case partiql.LitNumber:
		return &AttributeValue{N: aws.String(l.Text)}, nil
	case partiql.LitBool:
		b := l.Bool
		return &AttributeValue{BOOL: &b}, nil
	case partiql.LitNull:
		return &AttributeValue{NULL: &t}, nil
	case partiql.LitList:
		out := &AttributeValue{L: []*AttributeValue{}}

		for i, e := range l.Elems {
			if err := nestedParam(e, fmt.Sprintf("[%d]", i)); err != nil {
				return nil, err
			}

			v, ok, err := x.literal(e)
			if err != nil || !ok {
				return nil, orValidation(err, "a list literal holds only values")
			}

			out.L = append(out.L, v)
		}

		return out, nil
	case partiql.LitMap:
		out := &AttributeValue{M: map[string]*AttributeValue{}}

		for _, f := range l.Fields {
			if l != x.top {
				if err := nestedParam(f.Value, f.Key); err != nil {
					return nil, err
				}
			}

			v, ok, err := x.literal(f.Value)
			if err != nil || !ok {
				return nil, orValidation(err, "a map literal holds only values")
			}

			out.M[f.Key] = v
		}

		return out, nil
	case partiql.LitSet:
		out := &AttributeValue{}

		for i, e := range l.Elems {
			if err := nestedParam(e, fmt.Sprintf("[%d]", i)); err != nil {
				return nil, err
			}

			v, ok, err := x.literal(e)
			if err != nil || !ok {
				return nil, orValidation(err, "a set literal holds only values")
			}

			switch {
			case v.S != nil && out.NS == nil && out.BS == nil:
				out.SS = append(out.SS, v.S)
			case v.N != nil && out.SS == nil && out.BS == nil:
				out.NS = append(out.NS, v.N)
			case v.B != nil && out.SS == nil && out.NS == nil:
				out.BS = append(out.BS, v.B)
			default:
				return nil, validation("Unsupported type passed to set literal: its elements must all be strings, all numbers or all binaries")
			}
		}

		if len(l.Elems) == 0 {
			return nil, validation("One or more parameter values were invalid: An empty set is not supported")
		}

		return out, nil
	}

	return nil, validation("MISSING is not a value")
}

// nestedParam refuses a parameter inside a collection literal (but for
// INSERT's top-level fields), as DynamoDB does.
func nestedParam(e partiql.Expr, at string) error {
	if _, ok := e.(partiql.Param); ok {
		return validation("Unsupported data type: Parameter under key root.%s", at)
	}

	return nil
}

func orValidation(err error, msg string) error {
	if err != nil {
		return err
	}

	return validation("Statement wasn't well formed, can't be processed: %s", msg)
}

// render writes e as a DynamoDB condition (or, in a SET, value)
// expression.
func (x *pqExprs) render(e partiql.Expr) (string, error) {
	if v, ok, err := x.literal(e); ok || err != nil {
		if err != nil {
			return "", err
		}

		return x.value(v), nil
	}

	switch e := e.(type) {
	case partiql.Path:
		return x.path(e), nil
	case *partiql.Binary:
		// x = MISSING and x <> MISSING ask whether x exists.
		if l, ok := e.R.(*partiql.Lit); ok && l.Kind == partiql.LitMissing && (e.Op == "=" || e.Op == "<>") {
			return x.render(&partiql.Is{X: e.L, What: "MISSING", Not: e.Op == "<>"})
		}

		l, err := x.render(e.L)
		if err != nil {
			return "", err
		}

		r, err := x.render(e.R)
		if err != nil {
			return "", err
		}

		if e.Op == "AND" || e.Op == "OR" {
			return "(" + l + ") " + e.Op + " (" + r + ")", nil
		}

		return l + " " + e.Op + " " + r, nil
	case *partiql.Not:
		s, err := x.render(e.X)
		return "NOT (" + s + ")", err
	case *partiql.Between:
		parts, err := x.renderAll(e.X, e.Lo, e.Hi)
		if err != nil {
			return "", err
		}

		return parts[0] + " BETWEEN " + parts[1] + " AND " + parts[2], nil
	case *partiql.In:
		parts, err := x.renderAll(append([]partiql.Expr{e.X}, e.List...)...)
		if err != nil {
			return "", err
		}

		return parts[0] + " IN (" + strings.Join(parts[1:], ", ") + ")", nil
	case *partiql.Is:
		s, err := x.render(e.X)
		if err != nil {
			return "", err
		}

		if e.What == "MISSING" {
			if e.Not {
				return "attribute_exists(" + s + ")", nil
			}

			return "attribute_not_exists(" + s + ")", nil
		}

		is := "attribute_type(" + s + ", " + x.value(&AttributeValue{S: aws.String("NULL")}) + ")"
		if e.Not {
			return "NOT " + is, nil
		}

		return is, nil
	case *partiql.Call:
		name := map[string]string{
			"begins_with": "begins_with", "contains": "contains", "attribute_type": "attribute_type", "size": "size",
			"exists": "attribute_exists", "list_append": "list_append", "if_not_exists": "if_not_exists",
		}[e.Name]
		if name == "" {
			return "", validation("Statement wasn't well formed, can't be processed: unsupported function %s", e.Name)
		}

		args, err := x.renderAll(e.Args...)
		if err != nil {
			return "", err
		}

		return name + "(" + strings.Join(args, ", ") + ")", nil
	}

	return "", validation("Statement wasn't well formed, can't be processed: MISSING is not a value")
}

func (x *pqExprs) renderAll(es ...partiql.Expr) ([]string, error) {
	out := make([]string, len(es))

	for i, e := range es {
		s, err := x.render(e)
		if err != nil {
			return nil, err
		}

		out[i] = s
	}

	return out, nil
}

// conjuncts are e's top-level ANDs.
func conjuncts(e partiql.Expr) []partiql.Expr {
	if b, ok := e.(*partiql.Binary); ok && b.Op == "AND" {
		return append(conjuncts(b.L), conjuncts(b.R)...)
	}

	if e == nil {
		return nil
	}

	return []partiql.Expr{e}
}

// keyEquality is the attribute and value of a conjunct "attr = value" (or
// "value = attr").
func (x *pqExprs) keyEquality(e partiql.Expr) (string, *AttributeValue, bool) {
	b, ok := e.(*partiql.Binary)
	if !ok || b.Op != "=" {
		return "", nil, false
	}

	for _, side := range [][2]partiql.Expr{{b.L, b.R}, {b.R, b.L}} {
		p, ok := side[0].(partiql.Path)
		if !ok || len(p) != 1 || p[0].Index >= 0 {
			continue
		}

		if v, ok, err := x.literal(side[1]); ok && err == nil {
			return p[0].Name, v, true
		}
	}

	return "", nil, false
}

// joinAnd renders conjuncts joined with AND ("" for none).
func (x *pqExprs) joinAnd(es []partiql.Expr) (string, error) {
	parts, err := x.renderAll(es...)
	if err != nil {
		return "", err
	}

	for i := range parts {
		parts[i] = "(" + parts[i] + ")"
	}

	return strings.Join(parts, " AND "), nil
}

func (x *pqExprs) finish() (map[string]string, map[string]*AttributeValue) {
	var (
		names  map[string]string
		values map[string]*AttributeValue
	)

	if len(x.names) > 0 {
		names = x.names
	}

	if len(x.values) > 0 {
		values = x.values
	}

	return names, values
}

func optional(s string) *string {
	if s == "" {
		return nil
	}

	return aws.String(s)
}

// keySchemaOf is the hash and range attributes of a table, or of one of
// its indexes ("" for none).
func (c *Client) keySchemaOf(table, index string) (hash, rng string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	t, ok := c.tables[table]
	if !ok {
		return "", "", &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Table: " + table + " not found"}
	}

	schema := t.Description(t.Name).KeySchema

	if index != "" {
		gsis, lsis := t.IndexesDescription()
		found := false

		for _, g := range gsis {
			if aws.ToString(g.IndexName) == index {
				schema, found = g.KeySchema, true
			}
		}

		for _, l := range lsis {
			if aws.ToString(l.IndexName) == index {
				schema, found = l.KeySchema, true
			}
		}

		if !found {
			return "", "", validation("The table does not have the specified index: %s", index)
		}
	}

	for _, k := range schema {
		switch {
		case k.KeyType == "HASH" && hash == "":
			hash = k.AttributeName
		case k.KeyType == "RANGE" && rng == "":
			rng = k.AttributeName
		}
	}

	return hash, rng, nil
}

// planOf turns a parsed statement into the request it stands for.
func (c *Client) planOf(st *partiql.Statement, params []*AttributeValue, consistent *bool) (*plan, error) {
	if len(params) != st.Params {
		return nil, validation("Number of parameters in request and statement don't match.")
	}

	for _, p := range params {
		if p == nil {
			return nil, validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
		}
	}

	if !validTableName(st.Table) {
		return nil, validation("Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'.")
	}

	hash, rng, err := c.keySchemaOf(st.Table, st.Index)
	if err != nil {
		return nil, err
	}

	x := &pqExprs{names: map[string]string{}, values: map[string]*AttributeValue{}, params: params}
	pl := &plan{table: st.Table}

	switch st.Kind {
	case partiql.Select:
		return pl, c.planSelect(st, x, pl, hash, rng, consistent)
	case partiql.Insert:
		x.top, _ = st.Value.(*partiql.Lit)

		item, ok, err := x.literal(st.Value)
		switch {
		case err != nil:
			return nil, err
		case !ok || item.M == nil:
			return nil, validation("Statement wasn't well formed, can't be processed: INSERT's VALUE must be a map of the item's attributes")
		}

		for _, k := range []string{hash, rng} {
			if k != "" && item.M[k] == nil {
				return nil, validation("One or more parameter values were invalid: Missing the key %s in the item", k)
			}
		}

		cond := "attribute_not_exists(" + x.name(hash) + ")"
		names, _ := x.finish()
		pl.put = &PutItemInput{TableName: aws.String(st.Table), Item: item.M, ConditionExpression: &cond, ExpressionAttributeNames: names}

		return pl, nil
	}

	// UPDATE and DELETE: the WHERE's equalities on the key attributes are
	// the key, the rest the condition.
	key, rest, err := x.splitKey(st.Where, hash, rng)
	if err != nil {
		return nil, err
	}

	if key == nil {
		return nil, validation("Where clause does not contain a mandatory equality on all key attributes")
	}

	returnValues := map[string]ddbtypes.ReturnValue{
		"": ddbtypes.ReturnValueNone, "ALL OLD": ddbtypes.ReturnValueAllOld, "MODIFIED OLD": ddbtypes.ReturnValueUpdatedOld,
		"ALL NEW": ddbtypes.ReturnValueAllNew, "MODIFIED NEW": ddbtypes.ReturnValueUpdatedNew,
	}[st.Returning]

	if st.Kind == partiql.Delete {
		if st.Returning != "" && st.Returning != "ALL OLD" {
			return nil, validation("Statement wasn't well formed, can't be processed: DELETE returns only ALL OLD *")
		}

		cond, err := x.joinAnd(rest)
		if err != nil {
			return nil, err
		}

		names, values := x.finish()
		pl.delete = &DeleteItemInput{TableName: aws.String(st.Table), Key: key, ConditionExpression: optional(cond),
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValues: returnValues}

		return pl, nil
	}

	update, err := x.updateExpression(st)
	if err != nil {
		return nil, err
	}

	cond := "attribute_exists(" + x.name(hash) + ")"

	if more, err := x.joinAnd(rest); err != nil {
		return nil, err
	} else if more != "" {
		cond += " AND " + more
	}

	names, values := x.finish()
	pl.update = &UpdateItemInput{TableName: aws.String(st.Table), Key: key, UpdateExpression: &update, ConditionExpression: &cond,
		ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValues: returnValues}

	return pl, nil
}

// splitKey takes the key attributes' equalities out of where: the key
// (nil unless every key attribute has one) and the other conjuncts.
func (x *pqExprs) splitKey(where partiql.Expr, hash, rng string) (map[string]*AttributeValue, []partiql.Expr, error) {
	key := map[string]*AttributeValue{}

	var rest []partiql.Expr

	for _, e := range conjuncts(where) {
		if a, v, ok := x.keyEquality(e); ok && (a == hash || a == rng) && key[a] == nil {
			key[a] = v
			continue
		}

		rest = append(rest, e)
	}

	if key[hash] == nil || rng != "" && key[rng] == nil {
		return nil, nil, nil
	}

	return key, rest, nil
}

func (x *pqExprs) updateExpression(st *partiql.Statement) (string, error) {
	var sets, adds, deletes, removes []string

	for _, a := range st.Sets {
		p := x.path(a.Path)

		if call, ok := a.Value.(*partiql.Call); ok && (call.Name == "set_add" || call.Name == "set_delete") {
			if len(call.Args) != 2 {
				return "", validation("Statement wasn't well formed, can't be processed: %s takes a set attribute and a set", call.Name)
			}

			v, err := x.render(call.Args[1])
			if err != nil {
				return "", err
			}

			if call.Name == "set_add" {
				adds = append(adds, p+" "+v)
			} else {
				deletes = append(deletes, p+" "+v)
			}

			continue
		}

		v, err := x.render(a.Value)
		if err != nil {
			return "", err
		}

		sets = append(sets, p+" = "+v)
	}

	for _, r := range st.Removes {
		removes = append(removes, x.path(r))
	}

	var out []string

	for _, clause := range []struct {
		kw    string
		parts []string
	}{{"SET", sets}, {"ADD", adds}, {"DELETE", deletes}, {"REMOVE", removes}} {
		if len(clause.parts) > 0 {
			out = append(out, clause.kw+" "+strings.Join(clause.parts, ", "))
		}
	}

	return strings.Join(out, " "), nil
}

func (c *Client) planSelect(st *partiql.Statement, x *pqExprs, pl *plan, hash, rng string, consistent *bool) error {
	var projection string

	for i, p := range st.Projection {
		if i > 0 {
			projection += ", "
		}

		projection += x.path(p)
	}

	// A key condition: the partition key's equality, and a sort key
	// condition; every other conjunct is a filter, unless it names a key
	// attribute (a Query's filter may not), when the statement is a Scan.
	var (
		keyParts, filter []partiql.Expr
		hashValue        *AttributeValue
		query            = true
	)

	for _, e := range conjuncts(st.Where) {
		if a, v, ok := x.keyEquality(e); ok && a == hash && hashValue == nil {
			hashValue = v

			keyParts = append(keyParts, e)

			continue
		}

		if rng != "" && len(keyParts) < 2 && sortCondition(e, rng) {
			keyParts = append(keyParts, e)
			continue
		}

		if namesAttr(e, hash) || rng != "" && namesAttr(e, rng) {
			query = false
		}

		filter = append(filter, e)
	}

	if hashValue == nil || !query {
		if st.Ordered {
			return validation("Must have WHERE clause in the statement when using ORDER BY clause with a condition on the partition key")
		}

		var filterText string

		if st.Where != nil {
			s, err := x.render(st.Where)
			if err != nil {
				return err
			}

			filterText = s
		}

		names, values := x.finish()
		pl.scan = &ScanInput{TableName: aws.String(st.Table), IndexName: optional(st.Index), FilterExpression: optional(filterText),
			ProjectionExpression: optional(projection), ExpressionAttributeNames: names, ExpressionAttributeValues: values, ConsistentRead: consistent}

		return nil
	}

	keyCond, err := x.joinAnd(keyParts)
	if err != nil {
		return err
	}

	filterText, err := x.joinAnd(filter)
	if err != nil {
		return err
	}

	if len(keyParts) == 2 && len(filter) == 0 && st.Index == "" {
		if _, v, ok := x.keyEquality(keyParts[1]); ok {
			pl.key = map[string]*AttributeValue{hash: hashValue, rng: v}
		}
	} else if rng == "" && len(filter) == 0 && st.Index == "" {
		pl.key = map[string]*AttributeValue{hash: hashValue}
	}

	forward := (*bool)(nil)

	if st.Ordered {
		if len(st.OrderBy) != 1 || st.OrderBy[0].Name != rng && st.OrderBy[0].Name != hash {
			return validation("Statement wasn't well formed, can't be processed: ORDER BY must name a key attribute")
		}

		forward = aws.Bool(!st.OrderDesc)
	}

	names, values := x.finish()
	pl.query = &QueryInput{TableName: aws.String(st.Table), IndexName: optional(st.Index), KeyConditionExpression: &keyCond,
		FilterExpression: optional(filterText), ProjectionExpression: optional(projection), ExpressionAttributeNames: names,
		ExpressionAttributeValues: values, ConsistentRead: consistent, ScanIndexForward: forward}

	return nil
}

// sortCondition says whether e is a condition a key condition takes on
// the sort key: a comparison (not <>) with a value, BETWEEN, begins_with.
func sortCondition(e partiql.Expr, rng string) bool {
	isKey := func(e partiql.Expr) bool {
		p, ok := e.(partiql.Path)
		return ok && len(p) == 1 && p[0].Index < 0 && p[0].Name == rng
	}
	isValue := func(e partiql.Expr) bool {
		switch e := e.(type) {
		case partiql.Param:
			return true
		case *partiql.Lit:
			return e.Kind == partiql.LitString || e.Kind == partiql.LitNumber
		}

		return false
	}

	switch e := e.(type) {
	case *partiql.Binary:
		return e.Op != "<>" && e.Op != "AND" && e.Op != "OR" && e.Op != "+" && e.Op != "-" && isKey(e.L) && isValue(e.R)
	case *partiql.Between:
		return isKey(e.X) && isValue(e.Lo) && isValue(e.Hi)
	case *partiql.Call:
		return e.Name == "begins_with" && len(e.Args) == 2 && isKey(e.Args[0]) && isValue(e.Args[1])
	}

	return false
}

// namesAttr says whether e reads the top-level attribute a.
func namesAttr(e partiql.Expr, a string) bool {
	switch e := e.(type) {
	case partiql.Path:
		return len(e) > 0 && e[0].Name == a
	case *partiql.Binary:
		return namesAttr(e.L, a) || namesAttr(e.R, a)
	case *partiql.Not:
		return namesAttr(e.X, a)
	case *partiql.Between:
		return namesAttr(e.X, a) || namesAttr(e.Lo, a) || namesAttr(e.Hi, a)
	case *partiql.In:
		for _, x := range e.List {
			if namesAttr(x, a) {
				return true
			}
		}

		return namesAttr(e.X, a)
	case *partiql.Is:
		return namesAttr(e.X, a)
	case *partiql.Call:
		for _, x := range e.Args {
			if namesAttr(x, a) {
				return true
			}
		}
	}

	return false
}

func validTableName(s string) bool {
	if len(s) < 3 || len(s) > 255 {
		return false
	}

	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}

	return true
}

// parse parses a statement, as DynamoDB's errors say.
func parse(s *string) (*partiql.Statement, error) {
	if s == nil {
		return nil, validation("1 validation error detected: Value null at 'statement' failed to satisfy constraint: Member must not be null")
	}

	if *s == "" {
		return nil, validation("1 validation error detected: Value '' at 'statement' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}

	st, err := partiql.Parse(*s)

	var perr *partiql.Error
	if errors.As(err, &perr) {
		return nil, validation("%s", perr.Error())
	}

	return st, err
}

// ExecuteStatement runs one statement.
func (c *Client) ExecuteStatement(ctx context.Context, in *ExecuteStatementInput) (*ExecuteStatementOutput, error) {
	st, err := parse(in.Statement)
	if err != nil {
		return nil, err
	}

	pl, err := c.planOf(st, in.Parameters, in.ConsistentRead)
	if err != nil {
		return nil, err
	}

	out := &ExecuteStatementOutput{Items: []map[string]*AttributeValue{}}

	if in.Limit != nil && *in.Limit < 1 {
		return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit)
	}

	var start map[string]*AttributeValue

	if in.NextToken != nil {
		raw, err := base64.StdEncoding.DecodeString(*in.NextToken)
		if err == nil {
			err = json.Unmarshal(raw, &start)
		}

		if err != nil || start == nil {
			return nil, validation("Invalid NextToken")
		}
	}

	var (
		items *[]map[string]*AttributeValue
		last  map[string]*AttributeValue
	)

	switch {
	case pl.query != nil:
		pl.query.Limit, pl.query.ExclusiveStartKey = in.Limit, start

		q, err := c.Query(ctx, pl.query)
		if err != nil {
			return nil, err
		}

		items, last = q.Items, q.LastEvaluatedKey
	case pl.scan != nil:
		pl.scan.Limit, pl.scan.ExclusiveStartKey = in.Limit, start

		s, err := c.Scan(ctx, pl.scan)
		if err != nil {
			return nil, err
		}

		items, last = s.Items, s.LastEvaluatedKey
	default:
		if in.NextToken != nil || in.Limit != nil {
			return nil, validation("NextToken and Limit apply to SELECT statements only")
		}

		attrs, err := c.write(ctx, pl, in.ReturnValuesOnConditionCheckFailure)
		if err != nil {
			return nil, err
		}

		if attrs != nil {
			out.Items = append(out.Items, attrs)
		}

		return out, nil
	}

	if items != nil {
		out.Items = *items
	}

	if last != nil {
		raw, _ := json.Marshal(last)
		out.NextToken, out.LastEvaluatedKey = base64.StdEncoding.EncodeToString(raw), last
	}

	return out, nil
}

// write runs a write's plan and returns what it returns.
func (c *Client) write(ctx context.Context, pl *plan, onFailure ddbtypes.ReturnValuesOnConditionCheckFailure) (map[string]*AttributeValue, error) {
	switch {
	case pl.put != nil:
		pl.put.ReturnValuesOnConditionCheckFailure = onFailure

		_, err := c.PutItem(ctx, pl.put)

		var ccf *conditionFailedError
		if errors.As(err, &ccf) {
			return nil, errDuplicateItem
		}

		return nil, err
	case pl.update != nil:
		pl.update.ReturnValuesOnConditionCheckFailure = onFailure

		out, err := c.UpdateItem(ctx, pl.update)
		if err != nil {
			return nil, err
		}

		return out.Attributes, nil
	}

	pl.delete.ReturnValuesOnConditionCheckFailure = onFailure

	out, err := c.DeleteItem(ctx, pl.delete)
	if err != nil {
		return nil, err
	}

	return out.Attributes, nil
}

// batchCode is a batch statement's error code for err (BatchStatementError).
func batchError(err error) *batchErrorJSON {
	var (
		ccf *conditionFailedError
		api *apiError
	)

	switch {
	case errors.As(err, &ccf):
		return &batchErrorJSON{Code: "ConditionalCheckFailed", Message: "The conditional request failed", Item: toWireMap(ccf.item)}
	case errors.As(err, &api):
		code := map[string]string{
			"ValidationException": "ValidationError", "ResourceNotFoundException": "ResourceNotFound",
			"DuplicateItemException": "DuplicateItem", "TransactionConflictException": "TransactionConflict",
		}[api.Code]
		if code == "" {
			code = "InternalServerError"
		}

		return &batchErrorJSON{Code: code, Message: api.Message}
	}

	return &batchErrorJSON{Code: "InternalServerError", Message: err.Error()}
}

// BatchExecuteStatement runs up to 25 statements, all reads (SELECTs of
// one item by its whole key) or all writes, each on its own: each
// response is the statement's item or its error.
func (c *Client) BatchExecuteStatement(ctx context.Context, in *BatchExecuteStatementInput) (*BatchExecuteStatementOutput, error) {
	if n := len(in.Statements); n < 1 || n > MaxBatchStatements {
		return nil, validation("1 validation error detected: Value at 'statements' failed to satisfy constraint: Member must have length less than or equal to %d and greater than or equal to 1", MaxBatchStatements)
	}

	stmts := make([]*partiql.Statement, len(in.Statements))
	errs := make([]error, len(in.Statements))
	reads, writes := 0, 0

	for i, s := range in.Statements {
		stmts[i], errs[i] = parse(s.Statement)
		if errs[i] != nil {
			continue
		}

		if stmts[i].Kind == partiql.Select {
			reads++
		} else {
			writes++
		}
	}

	if reads > 0 && writes > 0 {
		return nil, validation("Read and write requests together in the same batch is not supported.")
	}

	out := &BatchExecuteStatementOutput{Responses: make([]batchResponseJSON, len(in.Statements))}

	for i, s := range in.Statements {
		r := &out.Responses[i]

		if errs[i] != nil {
			r.Error = batchError(errs[i])
			continue
		}

		r.TableName = stmts[i].Table

		pl, err := c.planOf(stmts[i], s.Parameters, s.ConsistentRead)
		if err == nil && stmts[i].Kind == partiql.Select && pl.key == nil {
			err = validation("Only single item select is supported")
		}

		if err != nil {
			r.Error = batchError(err)
			continue
		}

		if pl.key != nil {
			g, err := c.GetItem(ctx, &GetItemInput{TableName: aws.String(pl.table), Key: pl.key, ConsistentRead: s.ConsistentRead,
				ProjectionExpression: pl.query.ProjectionExpression, ExpressionAttributeNames: projectionNames(pl.query)})
			if err != nil {
				r.Error = batchError(err)
			} else if g.Item != nil {
				r.Item = *g.Item
			}

			continue
		}

		if _, err := c.write(ctx, pl, s.ReturnValuesOnConditionCheckFailure); err != nil {
			r.Error = batchError(err)
		}
	}

	return out, nil
}

// projectionNames are the names a query's projection uses (nil without
// one): a GetItem refuses names its expressions do not use.
func projectionNames(q *QueryInput) map[string]string {
	if q.ProjectionExpression == nil {
		return nil
	}

	out := map[string]string{}

	for k, v := range q.ExpressionAttributeNames {
		if strings.Contains(*q.ProjectionExpression, k) {
			out[k] = v
		}
	}

	return out
}

// ExecuteTransaction runs up to 100 statements as one transaction: all
// reads (each one item by its whole key: TransactGetItems) or all writes
// (TransactWriteItems; an INSERT whose key exists cancels it with
// DuplicateItem).
func (c *Client) ExecuteTransaction(ctx context.Context, in *ExecuteTransactionInput) (*ExecuteTransactionOutput, error) {
	if n := len(in.TransactStatements); n < 1 || n > MaxTransactionStatements {
		return nil, validation("1 validation error detected: Value at 'transactStatements' failed to satisfy constraint: Member must have length less than or equal to %d and greater than or equal to 1", MaxTransactionStatements)
	}

	plans := make([]*plan, len(in.TransactStatements))
	reads, writes := 0, 0

	for i, s := range in.TransactStatements {
		st, err := parse(s.Statement)
		if err != nil {
			return nil, err
		}

		if plans[i], err = c.planOf(st, s.Parameters, nil); err != nil {
			return nil, err
		}

		if st.Kind == partiql.Select {
			if plans[i].key == nil {
				return nil, validation("Select statements within ExecuteTransaction must read one item by its full primary key")
			}

			reads++
		} else {
			writes++
		}
	}

	if reads > 0 && writes > 0 {
		return nil, validation("Read and write requests together in the same transaction is not supported.")
	}

	if reads > 0 {
		tx := &TransactGetItemsInput{}
		for _, pl := range plans {
			tx.TransactItems = append(tx.TransactItems, TransactGetItem{Get: &Get{TableName: aws.String(pl.table), Key: pl.key,
				ProjectionExpression: pl.query.ProjectionExpression, ExpressionAttributeNames: projectionNames(pl.query)}})
		}

		got, err := c.TransactGetItems(ctx, tx)
		if err != nil {
			return nil, err
		}

		return &ExecuteTransactionOutput{Responses: got.Responses}, nil
	}

	tx := &TransactWriteItemsInput{ClientRequestToken: in.ClientRequestToken}

	for i, pl := range plans {
		onFailure := in.TransactStatements[i].ReturnValuesOnConditionCheckFailure

		switch {
		case pl.put != nil:
			p := pl.put
			tx.TransactItems = append(tx.TransactItems, TransactWriteItem{Put: &Put{TableName: p.TableName, Item: p.Item,
				ConditionExpression: p.ConditionExpression, ExpressionAttributeNames: p.ExpressionAttributeNames, ReturnValuesOnConditionCheckFailure: onFailure}})
		case pl.update != nil:
			u := pl.update
			tx.TransactItems = append(tx.TransactItems, TransactWriteItem{Update: &Update{TableName: u.TableName, Key: u.Key,
				UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
				ExpressionAttributeValues: u.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: onFailure}})
		default:
			d := pl.delete
			tx.TransactItems = append(tx.TransactItems, TransactWriteItem{Delete: &Delete{TableName: d.TableName, Key: d.Key,
				ConditionExpression: d.ConditionExpression, ExpressionAttributeNames: d.ExpressionAttributeNames,
				ExpressionAttributeValues: d.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: onFailure}})
		}
	}

	_, err := c.TransactWriteItems(ctx, tx)

	var tce *transactionCanceledError
	if errors.As(err, &tce) {
		for i := range tce.reasons {
			if i < len(plans) && plans[i].put != nil && tce.reasons[i].Code == "ConditionalCheckFailed" {
				tce.reasons[i].Code, tce.reasons[i].Message = "DuplicateItem", errDuplicateItem.Message
			}
		}
	}

	if err != nil {
		return nil, err
	}

	return &ExecuteTransactionOutput{}, nil
}
