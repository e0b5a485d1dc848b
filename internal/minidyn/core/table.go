package core

import (
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/keyplan/keyplan/internal/minidyn/interpreter"
	"github.com/keyplan/keyplan/internal/minidyn/interpreter/language"
	"github.com/keyplan/keyplan/internal/minidyn/types"
)

const defaultIndexActivationDelay = 0

// QueryInput struct to represent a query input
type QueryInput struct {
	Index                     string
	ExpressionAttributeValues map[string]*types.Item
	Limit                     int64
	ExclusiveStartKey         map[string]*types.Item
	KeyConditionExpression    string
	ConditionExpression       *string
	FilterExpression          string
	ProjectionExpression      string
	Aliases                   map[string]string
	ScanIndexForward          bool
	Scan                      bool
	// Segment and TotalSegments split a parallel Scan (TotalSegments 0:
	// no split).
	Segment       int32
	TotalSegments int32
}

// Table struct to mock a dynamodb table
type Table struct {
	Name                 string
	Indexes              map[string]*index
	AttributesDef        map[string]string
	SortedKeys           []string
	Data                 map[string]map[string]*types.Item
	KeySchema            keySchema
	BillingMode          *string
	UseNativeInterpreter bool
	NativeInterpreter    interpreter.Native
	LangInterpreter      interpreter.Language
	IndexActivationDelay time.Duration
}

// NewTable creates a new Table
func NewTable(name string) *Table {
	return &Table{
		Name:                 name,
		Indexes:              map[string]*index{},
		AttributesDef:        map[string]string{},
		SortedKeys:           []string{},
		Data:                 map[string]map[string]*types.Item{},
		IndexActivationDelay: defaultIndexActivationDelay,
	}
}

// ValidatePrimaryKeyMap checks that a Key map for GetItem, DeleteItem, or UpdateItem
// contains exactly the table's primary key attribute names (hash and range when defined).
func (t *Table) ValidatePrimaryKeyMap(key map[string]*types.Item) error {
	return t.KeySchema.validatePrimaryKeyMap(key)
}

// SetAttributeDefinition sets the attribute definition of a table
func (t *Table) SetAttributeDefinition(attrs []*types.AttributeDefinition) {
	for _, attr := range attrs {
		t.AttributesDef[*attr.AttributeName] = *attr.AttributeType
	}
}

func parseKeySchema(schema []*types.KeySchemaElement) (keySchema, error) {
	var ks keySchema

	for _, element := range schema {
		if element.KeyType == "HASH" {
			ks.HashKey = element.AttributeName
			continue
		}

		ks.RangeKey = element.AttributeName
	}

	if ks.HashKey == "" {
		return ks, types.NewError("ValidationException", "No Hash Key specified in schema. All Dynamo DB Tables must have exactly one hash key", nil)
	}

	return ks, nil
}

// CreatePrimaryIndex creates the primary index of a table
func (t *Table) CreatePrimaryIndex(input *types.CreateTableInput) error {
	ks, err := parseKeySchema(input.KeySchema)
	if err != nil {
		return err
	}

	err = t.validateAttributeDefinition(ks, "")
	if err != nil {
		return err
	}

	// types-local check this after validate the key schema
	if t.BillingMode == nil || types.StringValue(t.BillingMode) != "PAY_PER_REQUEST" {
		if input.ProvisionedThroughput == nil {
			// https://github.com/aws/aws-sdk-go/issues/3140
			return types.NewError("ValidationException", "No provisioned throughput specified for the table", nil)
		}
	}

	t.KeySchema = ks

	return nil
}

func isValidKeyAttributeType(typ string) bool {
	switch typ {
	case "S", "N", "B":
		return true
	default:
		return false
	}
}

func (t *Table) validateAttributeDefinition(ks keySchema, message string) error {
	if _, ok := t.AttributesDef[ks.HashKey]; !ok {
		return types.NewError("ValidationException", fmt.Sprintf("%sHash Key not specified in Attribute Definitions.  Type unknown.", message), nil)
	}

	if _, ok := t.AttributesDef[ks.RangeKey]; ks.RangeKey != "" && !ok {
		return types.NewError("ValidationException", fmt.Sprintf("%sRange Key not specified in Attribute Definitions.  Type unknown.", message), nil)
	}

	hashType := t.AttributesDef[ks.HashKey]
	if !isValidKeyAttributeType(hashType) {
		return types.NewError("ValidationException", fmt.Sprintf(
			"%sHash key attribute %q has invalid type %q; key attributes must be scalar types S, N, or B.",
			message, ks.HashKey, hashType,
		), nil)
	}

	if ks.RangeKey != "" {
		rangeType := t.AttributesDef[ks.RangeKey]
		if !isValidKeyAttributeType(rangeType) {
			return types.NewError("ValidationException", fmt.Sprintf(
				"%sRange key attribute %q has invalid type %q; key attributes must be scalar types S, N, or B.",
				message, ks.RangeKey, rangeType,
			), nil)
		}
	}

	return nil
}

func buildGSI(t *Table, gsiInput *types.GlobalSecondaryIndex) (*index, error) {
	if t.BillingMode == nil || types.StringValue(t.BillingMode) != "PAY_PER_REQUEST" {
		if gsiInput.ProvisionedThroughput == nil {
			// https://github.com/aws/aws-sdk-go/issues/3140
			return nil, types.NewError("ValidationException", "No provisioned throughput specified for the global secondary index", nil)
		}
	}

	ks, err := parseKeySchema(gsiInput.KeySchema)
	if err != nil {
		return nil, err
	}

	err = t.validateAttributeDefinition(ks, "Global Secondary Index ")
	if err != nil {
		return nil, err
	}

	i := newIndex(t, indexTypeGlobal, ks)
	i.projection = gsiInput.Projection

	return i, nil
}

// ApplyIndexChange applies the index change
func (t *Table) ApplyIndexChange(change *types.GlobalSecondaryIndexUpdate) error {
	switch {
	case change.Create != nil:
		{
			gsi := &types.GlobalSecondaryIndex{
				IndexName:             change.Create.IndexName,
				KeySchema:             change.Create.KeySchema,
				Projection:            change.Create.Projection,
				ProvisionedThroughput: change.Create.ProvisionedThroughput,
			}

			return t.addGlobalIndex(gsi)
		}
	case change.Delete != nil:
		return t.deleteIndex(*change.Delete.IndexName)
	case change.Update != nil:
		return t.updateIndex(*change.Update.IndexName, change.Update.ProvisionedThroughput)
	}

	return nil
}

// AddGlobalIndexes adds global indexes to a table
func (t *Table) AddGlobalIndexes(input []*types.GlobalSecondaryIndex) error {
	if input != nil && len(input) == 0 {
		return types.NewError("ValidationException", "GSI list is empty/invalid", nil)
	}

	for _, gsiInput := range input {
		if err := t.addGlobalIndex(gsiInput); err != nil {
			return err
		}
	}

	return nil
}

func (t *Table) addGlobalIndex(gsiInput *types.GlobalSecondaryIndex) error {
	i, err := buildGSI(t, gsiInput)
	if err != nil {
		return err
	}

	i.createdAt = time.Now()
	// DynamoDB backfills an index created on a table that holds items.
	for key, item := range t.Data {
		if err := i.putData(key, item); err != nil {
			return types.NewError("ValidationException", err.Error(), nil)
		}
	}

	t.Indexes[*gsiInput.IndexName] = i

	return nil
}

func (t *Table) deleteIndex(indexName string) error {
	if _, ok := t.Indexes[indexName]; !ok {
		return types.NewError("ResourceNotFoundException", "Requested resource not found", nil)
	}

	delete(t.Indexes, indexName)

	return nil
}

func (t *Table) updateIndex(indexName string, provisionedThroughput *types.ProvisionedThroughput) error {
	// we do not have support for provisionedThroughput values in the index
	return nil
}

func buildLSI(t *Table, lsiInput *types.LocalSecondaryIndex) (*index, error) {
	ks, err := parseKeySchema(lsiInput.KeySchema)
	if err != nil {
		return nil, err
	}

	err = t.validateAttributeDefinition(ks, "Local Secondary Index ")
	if err != nil {
		return nil, err
	}

	i := newIndex(t, indexTypeLocal, ks)
	i.projection = lsiInput.Projection

	return i, nil
}

// AddLocalIndexes adds local indexes to a table
func (t *Table) AddLocalIndexes(input []*types.LocalSecondaryIndex) error {
	if input != nil && len(input) == 0 {
		return types.NewError("ValidationException", "ValidationException: LSI list is empty/invalid", nil)
	}

	for _, lsi := range input {
		i, err := buildLSI(t, lsi)
		if err != nil {
			return err
		}

		t.Indexes[*lsi.IndexName] = i
	}

	return nil
}

func validateSearchInputMaps(input QueryInput) error {
	if err := types.ValidateItemMap(input.ExpressionAttributeValues); err != nil {
		return types.NewError("ValidationException", err.Error(), nil)
	}

	if err := types.ValidateItemMap(input.ExclusiveStartKey); err != nil {
		return types.NewError("ValidationException", err.Error(), nil)
	}

	return nil
}

// validateSearchExpressionAttributeNames rejects up front any Query/Scan expression that
// references an attribute name placeholder (#name) not declared in ExpressionAttributeNames.
// DynamoDB validates this before scanning, so it must error even when the table is empty or
// no item matches (when the per-item interpreter checks would never run).
func validateSearchExpressionAttributeNames(input QueryInput) error {
	checks := []struct {
		label      string
		expression string
	}{
		{"KeyConditionExpression", input.KeyConditionExpression},
		{"FilterExpression", input.FilterExpression},
		{"ProjectionExpression", input.ProjectionExpression},
	}

	for _, c := range checks {
		if err := interpreter.ValidateExpressionAttributeNamesDeclared(c.label, c.expression, input.Aliases); err != nil {
			return types.NewError("ValidationException", err.Error(), nil)
		}
	}

	return nil
}

func validateUpdateItemInputKeysAndValues(input *types.UpdateItemInput) error {
	if err := types.ValidateItemMap(input.Key); err != nil {
		return types.NewError("ValidationException", err.Error(), nil)
	}

	if err := types.ValidateItemMap(input.ExpressionAttributeValues); err != nil {
		return types.NewError("ValidationException", err.Error(), nil)
	}

	return nil
}

func (t *Table) fetchQueryData(input QueryInput) (*index, []string) {
	if input.Index != "" {
		i := t.Indexes[input.Index]
		i.startSearch(input.ScanIndexForward)

		return i, i.sortedKeys
	}

	return nil, t.SortedKeys
}

// GetKeyAt returns the key value in a given position
func GetKeyAt(sortedKeys []string, size int64, pos int64, forward bool) string {
	if !forward {
		return sortedKeys[size-1-int64(pos)]
	}

	return sortedKeys[pos]
}

// MaxPageBytes is the most item data one Query or Scan page evaluates.
const MaxPageBytes = 1 << 20

// SearchResult is one page of a Query or a Scan.
type SearchResult struct {
	Items []map[string]*types.Item
	// LastKey is the key to start the next page from (empty on the last
	// page).
	LastKey map[string]*types.Item
	// Scanned counts the items evaluated: those the key condition (or the
	// Scan segment) selected, before the filter; Limit bounds it.
	Scanned int64
	// ReadBytes is their size, what DynamoDB charges the read for.
	ReadBytes int64
}

// searchPosition is where an item sits in a search's order: its index key
// (empty on the table) and its primary key.
type searchPosition struct{ indexKey, key string }

func (p searchPosition) after(q searchPosition, forward bool) bool {
	c := strings.Compare(p.indexKey, q.indexKey)
	if c == 0 {
		c = strings.Compare(p.key, q.key)
	}

	if forward {
		return c > 0
	}

	return c < 0
}

// startPosition is the position of ExclusiveStartKey; a page starts after
// it even if that item has since been deleted or moved.
func (t *Table) startPosition(ix *index, start map[string]*types.Item) (searchPosition, bool, error) {
	if len(start) == 0 {
		return searchPosition{}, false, nil
	}

	key, err := t.KeySchema.GetKey(t.AttributesDef, start)
	if err != nil {
		return searchPosition{}, false, types.NewError("ValidationException", "The provided starting key is invalid: "+err.Error(), nil)
	}

	pos := searchPosition{key: key}

	if ix != nil {
		ik, err := ix.keySchema.getKeyValue(t.AttributesDef, start)
		if err != nil {
			return searchPosition{}, false, types.NewError("ValidationException", "The provided starting key is invalid: "+err.Error(), nil)
		}

		pos.indexKey = ik
	}

	return pos, true, nil
}

// Segment is the Scan segment (of total) an encoded primary key belongs
// to: a hash of its partition key, as DynamoDB assigns segments by
// partition.
func Segment(key string, total int32) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(HashKeyPart(key)))

	return int32(h.Sum32() % uint32(total))
}

// SearchData queries the table based on the input.
func (t *Table) SearchData(input QueryInput) ([]map[string]*types.Item, map[string]*types.Item, error) {
	r, err := t.Search(input)
	if err != nil {
		return nil, nil, err
	}

	return r.Items, r.LastKey, nil
}

// Search runs a Query (a key condition) or a Scan (input.Scan) over the
// table or one of its indexes, one page: it starts after
// ExclusiveStartKey, evaluates at most Limit items, and filters and
// projects those.
func (t *Table) Search(input QueryInput) (SearchResult, error) { //nolint:gocognit // paging, segments, key condition, filter, projection
	r := SearchResult{Items: []map[string]*types.Item{}, LastKey: map[string]*types.Item{}}

	if err := validateSearchInputMaps(input); err != nil {
		return r, err
	}

	if err := validateSearchExpressionAttributeNames(input); err != nil {
		return r, err
	}

	if !input.Scan && input.KeyConditionExpression == "" {
		return r, nil
	}

	forward := input.ScanIndexForward
	ix, sortedKeys := t.fetchQueryData(input)

	start, hasStart, err := t.startPosition(ix, input.ExclusiveStartKey)
	if err != nil {
		return r, err
	}

	size := int64(len(sortedKeys))
	first := 0

	if hasStart && ix == nil && forward {
		// The table's keys are sorted: a page starts by binary search, so
		// scanning a table page by page is not quadratic.
		first, _ = slices.BinarySearch(sortedKeys, start.key)
	}

	var last map[string]*types.Item

	for pos := first; pos < len(sortedKeys); pos++ {
		k := GetKeyAt(sortedKeys, size, int64(pos), forward)

		here := searchPosition{key: k}
		if ix != nil {
			pk, ok := ix.getPrimaryKey(k)
			if !ok {
				continue
			}

			here = searchPosition{indexKey: k, key: pk}
		}

		if hasStart && !here.after(start, forward) {
			continue
		}

		if input.TotalSegments > 0 && Segment(here.key, input.TotalSegments) != input.Segment {
			continue
		}

		stored, ok := t.Data[here.key]
		if !ok {
			continue
		}

		if input.KeyConditionExpression != "" {
			matched, err := t.InterpreterMatch(interpreter.MatchInput{
				TableName:      t.Name,
				Expression:     input.KeyConditionExpression,
				ExpressionType: interpreter.ExpressionTypeKey,
				Item:           stored,
				Aliases:        input.Aliases,
				Attributes:     input.ExpressionAttributeValues,
			})
			if err != nil {
				return r, types.NewError("ValidationException", err.Error(), nil)
			}

			if !matched {
				continue
			}
		}

		r.Scanned++
		r.ReadBytes += int64(types.ItemSize(stored))
		last = stored

		keep := true

		if input.FilterExpression != "" {
			keep, err = t.InterpreterMatch(interpreter.MatchInput{
				TableName:      t.Name,
				Expression:     input.FilterExpression,
				ExpressionType: interpreter.ExpressionTypeFilter,
				Item:           stored,
				Aliases:        input.Aliases,
				Attributes:     input.ExpressionAttributeValues,
			})
			if err != nil {
				return r, types.NewError("ValidationException", err.Error(), nil)
			}
		}

		if keep {
			// An index returns the attributes it projects.
			item := ix.ProjectItem(stored)

			if input.ProjectionExpression != "" {
				item, err = t.LangInterpreter.Project(interpreter.ProjectInput{
					Expression: input.ProjectionExpression,
					Item:       item,
					Aliases:    input.Aliases,
				})
				if err != nil {
					return r, types.NewError("ValidationException", err.Error(), nil)
				}
			}

			r.Items = append(r.Items, item)
		}

		// A page ends at Limit items evaluated, or at 1 MB of them, as on
		// DynamoDB.
		if input.Limit > 0 && r.Scanned == input.Limit || r.ReadBytes >= MaxPageBytes {
			r.LastKey = t.lastKeyOf(last, ix)
			break
		}
	}

	return r, nil
}

// lastKeyOf is the LastEvaluatedKey of a page ending at item: the table's
// key, and the index's key on an index.
func (t *Table) lastKeyOf(item map[string]*types.Item, ix *index) map[string]*types.Item {
	key := t.KeySchema.getKeyItem(item)

	if ix != nil {
		maps.Copy(key, ix.keySchema.getKeyItem(item))
	}

	return key
}

// InterpreterMatch evaluates a match expression against an item
func (t *Table) InterpreterMatch(input interpreter.MatchInput) (bool, error) {
	if t.UseNativeInterpreter {
		matched, err := t.NativeInterpreter.Match(input)
		if err == nil {
			return matched, nil
		}
	}

	matched, err := t.LangInterpreter.Match(input)
	if err != nil {
		return false, err
	}

	return matched, nil
}

func (t *Table) matchKey(input QueryInput, item map[string]*types.Item) (interpreter.ExpressionType, bool, error) { //nolint:gocognit // key, filter, and conditional expression branches
	var lastMatchExpressionType interpreter.ExpressionType
	matched := input.Scan

	if input.KeyConditionExpression != "" {
		var err error

		matched, err = t.InterpreterMatch(interpreter.MatchInput{
			TableName:      t.Name,
			Expression:     input.KeyConditionExpression,
			ExpressionType: interpreter.ExpressionTypeKey,
			Item:           item,
			Aliases:        input.Aliases,
			Attributes:     input.ExpressionAttributeValues,
		})
		if err != nil {
			return interpreter.ExpressionTypeKey, false, err
		}
		lastMatchExpressionType = interpreter.ExpressionTypeKey
	}

	if input.FilterExpression != "" {
		if matched {
			m, err := t.InterpreterMatch(interpreter.MatchInput{
				TableName:      t.Name,
				Expression:     input.FilterExpression,
				ExpressionType: interpreter.ExpressionTypeFilter,
				Item:           item,
				Aliases:        input.Aliases,
				Attributes:     input.ExpressionAttributeValues,
			})
			if err != nil {
				return interpreter.ExpressionTypeFilter, false, err
			}
			matched = m
		}
		lastMatchExpressionType = interpreter.ExpressionTypeFilter
	}

	if input.ConditionExpression != nil && *input.ConditionExpression != "" {
		var err error

		matched, err = t.InterpreterMatch(interpreter.MatchInput{
			TableName:      t.Name,
			Expression:     *input.ConditionExpression,
			ExpressionType: interpreter.ExpressionTypeConditional,
			Item:           item,
			Aliases:        input.Aliases,
			Attributes:     input.ExpressionAttributeValues,
		})
		if err != nil {
			return interpreter.ExpressionTypeConditional, false, err
		}
		lastMatchExpressionType = interpreter.ExpressionTypeConditional
	}

	return lastMatchExpressionType, matched, nil
}

func (t *Table) setItem(key string, item map[string]*types.Item) {
	_, exists := t.Data[key]
	t.Data[key] = item

	if !exists {
		pos, _ := slices.BinarySearch(t.SortedKeys, key)
		t.SortedKeys = slices.Insert(t.SortedKeys, pos, key)
	}
}

func (t *Table) getItem(key string) map[string]*types.Item {
	item, exists := t.Data[key]
	if !exists {
		return map[string]*types.Item{}
	}

	return item
}

// Clear removes data and sorted keys from a table
func (t *Table) Clear() {
	t.SortedKeys = []string{}
	t.Data = map[string]map[string]*types.Item{}
}

// TableSnapshot captures a point-in-time copy of mutable table state for transactional rollback
type TableSnapshot struct {
	data       map[string]map[string]*types.Item
	sortedKeys []string
	indexes    map[string]indexSnapshot
}

// Snapshot returns a deep copy of the table's mutable state
func (t *Table) Snapshot() TableSnapshot {
	data := make(map[string]map[string]*types.Item, len(t.Data))
	for k, v := range t.Data {
		data[k] = deepCopyItemMap(v)
	}

	keys := make([]string, len(t.SortedKeys))
	copy(keys, t.SortedKeys)

	indexes := make(map[string]indexSnapshot, len(t.Indexes))
	for name, idx := range t.Indexes {
		indexes[name] = idx.snapshot()
	}

	return TableSnapshot{data: data, sortedKeys: keys, indexes: indexes}
}

// Restore replaces the table's mutable state with a previously taken snapshot
func (t *Table) Restore(s TableSnapshot) {
	t.Data = s.data
	t.SortedKeys = s.sortedKeys

	for name, idx := range t.Indexes {
		if snap, ok := s.indexes[name]; ok {
			idx.restore(snap)
		}
	}
}

// Put puts items into table
func (t *Table) Put(input *types.PutItemInput) (map[string]*types.Item, error) { //nolint:gocognit // conditional write, key resolution, GSI updates
	if err := types.ValidateItemMap(input.Item); err != nil {
		return copyItem(input.Item), types.NewError("ValidationException", err.Error(), nil)
	}

	if err := types.ValidateItemMap(input.ExpressionAttributeValues); err != nil {
		return copyItem(input.Item), types.NewError("ValidationException", err.Error(), nil)
	}

	item := copyItem(input.Item)

	key, err := t.KeySchema.GetKey(t.AttributesDef, input.Item)
	if err != nil {
		return item, types.NewError("ValidationException", err.Error(), nil)
	}

	// support conditional writes
	if input.ConditionExpression != nil {
		_, matched, merr := t.matchKey(QueryInput{
			Index:                     PrimaryIndexName,
			ExpressionAttributeValues: input.ExpressionAttributeValues,
			Aliases:                   input.ExpressionAttributeNames,
			Limit:                     1,
			ConditionExpression:       input.ConditionExpression,
		}, t.getItem(key))
		if merr != nil {
			return item, types.NewError("ValidationException", merr.Error(), nil)
		}

		if !matched {
			return item, &types.ConditionalCheckFailedException{MessageText: ErrConditionalRequestFailed.Error()}
		}
	}

	t.setItem(key, item)

	for _, index := range t.Indexes {
		err := index.putData(key, item)
		if err != nil {
			return nil, types.NewError("ValidationException", err.Error(), nil)
		}
	}

	return item, nil
}

func (t *Table) interpreterUpdate(input interpreter.UpdateInput) error {
	if t.UseNativeInterpreter {
		return t.NativeInterpreter.Update(input)
	}

	return t.LangInterpreter.Update(input)
}

func validateUpdateItemReturnValues(rv *string) error {
	if rv == nil || *rv == "" {
		return nil
	}

	switch *rv {
	case "NONE", "ALL_OLD", "UPDATED_OLD", "UPDATED_NEW", "ALL_NEW":
		return nil
	default:
		return types.NewError("ValidationException",
			fmt.Sprintf("1 validation error detected: Value '%s' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, UPDATED_NEW, ALL_NEW]", *rv),
			nil)
	}
}

func dynamoItemEqual(a, b *types.Item) bool {
	return reflect.DeepEqual(a, b)
}

func changedUpdateAttributeKeys(oldItem, newItem map[string]*types.Item) []string {
	keys := make(map[string]struct{})

	for k := range oldItem {
		keys[k] = struct{}{}
	}

	for k := range newItem {
		keys[k] = struct{}{}
	}

	changed := make([]string, 0, len(keys))

	for k := range keys {
		ov, okO := oldItem[k]
		nv, okN := newItem[k]

		if !okO {
			ov = nil
		}

		if !okN {
			nv = nil
		}

		if !dynamoItemEqual(ov, nv) {
			changed = append(changed, k)
		}
	}

	sort.Strings(changed)

	return changed
}

func buildUpdateItemReturnAttributes(rv *string, oldItem, newItem map[string]*types.Item) map[string]*types.Item {
	mode := ""

	if rv != nil {
		mode = *rv
	}

	switch mode {
	case "", "NONE":
		return nil
	case "ALL_NEW":
		return copyItem(newItem)
	case "ALL_OLD":
		return copyItem(oldItem)
	case "UPDATED_OLD":
		ck := changedUpdateAttributeKeys(oldItem, newItem)
		if len(ck) == 0 {
			return map[string]*types.Item{}
		}

		out := make(map[string]*types.Item, len(ck))

		for _, k := range ck {
			if v, ok := oldItem[k]; ok {
				out[k] = deepCopyTypesItem(v)
			}
		}

		return out
	case "UPDATED_NEW":
		ck := changedUpdateAttributeKeys(oldItem, newItem)
		if len(ck) == 0 {
			return map[string]*types.Item{}
		}

		out := make(map[string]*types.Item, len(ck))

		for _, k := range ck {
			if v, ok := newItem[k]; ok {
				out[k] = deepCopyTypesItem(v)
			}
		}

		return out
	default:
		return nil
	}
}

// Update updates an item in the table based on the input
func (t *Table) Update(input *types.UpdateItemInput) (map[string]*types.Item, error) { //nolint:gocognit,gocyclo // conditional writes, interpreter update, GSI updates
	if err := validateUpdateItemInputKeysAndValues(input); err != nil {
		return nil, err
	}

	if err := validateUpdateItemReturnValues(input.ReturnValues); err != nil {
		return nil, err
	}

	if err := t.KeySchema.validatePrimaryKeyMap(input.Key); err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	if !t.KeySchema.Secondary {
		if err := language.ValidateUpdateExpressionDoesNotTargetPrimaryKey(
			input.UpdateExpression,
			input.ExpressionAttributeNames,
			t.KeySchema.HashKey,
			t.KeySchema.RangeKey,
		); err != nil {
			return nil, types.NewError("ValidationException", err.Error(), nil)
		}
	}

	// update primary index
	key, err := t.KeySchema.GetKey(t.AttributesDef, input.Key)
	if err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	item, ok := t.Data[key]
	if !ok {
		// it allow the use of attribute_exists to check if the item exists
		item = map[string]*types.Item{}
	}

	// support conditional writes
	if input.ConditionExpression != nil {
		query := QueryInput{
			Index:                     PrimaryIndexName,
			ExpressionAttributeValues: input.ExpressionAttributeValues,
			Limit:                     1,
			ConditionExpression:       input.ConditionExpression,
			Aliases:                   input.ExpressionAttributeNames,
		}

		_, matched, merr := t.matchKey(query, item)
		if merr != nil {
			return nil, types.NewError("ValidationException", merr.Error(), nil)
		}

		if !matched {
			checkErr := &types.ConditionalCheckFailedException{
				MessageText: ErrConditionalRequestFailed.Error(),
			}

			handleConditionalCheckError(input, checkErr, item)

			return nil, checkErr
		}
	}

	if !ok {
		// types creates a new item when the item does not exists
		item = copyItem(input.Key)
	}

	oldItem := deepCopyItemMap(item)

	err = t.interpreterUpdate(interpreter.UpdateInput{
		TableName:  t.Name,
		Expression: input.UpdateExpression,
		Item:       item,
		Attributes: input.ExpressionAttributeValues,
		Aliases:    input.ExpressionAttributeNames,
	})
	if err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	t.setItem(key, item)

	// update secondary Indexes
	for _, index := range t.Indexes {
		err := index.putData(key, item)
		if err != nil {
			return nil, types.NewError("ValidationException", err.Error(), nil)
		}
	}

	newItem := copyItem(item)

	return buildUpdateItemReturnAttributes(input.ReturnValues, oldItem, newItem), nil
}

// Delete deletes an item in the table based on the input
func (t *Table) Delete(input *types.DeleteItemInput) (map[string]*types.Item, error) { //nolint:gocognit,gocyclo // conditional delete, key resolution, index cleanup
	if err := types.ValidateItemMap(input.Key); err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	if err := types.ValidateItemMap(input.ExpressionAttributeValues); err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	if err := t.KeySchema.validatePrimaryKeyMap(input.Key); err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	key, err := t.KeySchema.GetKey(t.AttributesDef, input.Key)
	if err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	item, ok := t.Data[key]

	existingForCond := item
	if !ok {
		existingForCond = map[string]*types.Item{}
	}

	if input.ConditionExpression != nil && *input.ConditionExpression != "" {
		aliases := map[string]string{}

		for k, v := range input.ExpressionAttributeNames {
			if v != nil {
				aliases[k] = *v
			}
		}

		_, matched, merr := t.matchKey(QueryInput{
			Index:                     PrimaryIndexName,
			ExpressionAttributeValues: input.ExpressionAttributeValues,
			Aliases:                   aliases,
			Limit:                     1,
			ConditionExpression:       input.ConditionExpression,
		}, existingForCond)
		if merr != nil {
			return nil, types.NewError("ValidationException", merr.Error(), nil)
		}

		if !matched {
			return nil, &types.ConditionalCheckFailedException{MessageText: ErrConditionalRequestFailed.Error()}
		}
	}

	if !ok {
		return nil, nil
	}

	item = copyItem(item)

	delete(t.Data, key)

	if pos, found := slices.BinarySearch(t.SortedKeys, key); found {
		t.SortedKeys = slices.Delete(t.SortedKeys, pos, pos+1)
	}

	for _, index := range t.Indexes {
		index.delete(key)
	}

	return item, nil
}

// Description returns the description of a table
func (t *Table) Description(name string) *types.TableDescription {
	// TODO: implement other fields for TableDescription
	gsi, lsi := t.IndexesDescription()

	return &types.TableDescription{
		TableName:              name,
		ItemCount:              int64(len(t.SortedKeys)),
		KeySchema:              t.KeySchema.describe(),
		GlobalSecondaryIndexes: gsi,
		LocalSecondaryIndexes:  lsi,
	}
}

// IndexesDescription returns the description of the table indexes
func (t *Table) IndexesDescription() ([]types.GlobalSecondaryIndexDescription, []types.LocalSecondaryIndexDescription) {
	gsi := []types.GlobalSecondaryIndexDescription{}
	lsi := []types.LocalSecondaryIndexDescription{}

	for indexName, index := range t.Indexes {
		schema := index.keySchema.describe()
		count := index.count()

		switch index.typ {
		case indexTypeGlobal:
			{
				status := "ACTIVE"
				if t.IndexActivationDelay > 0 && time.Since(index.createdAt) < t.IndexActivationDelay {
					status = "CREATING"
				}

				gsi = append(gsi, types.GlobalSecondaryIndexDescription{
					IndexName:   &indexName,
					ItemCount:   count,
					KeySchema:   schema,
					Projection:  index.projection,
					IndexStatus: &status,
				})
			}
		case indexTypeLocal:
			{
				lsi = append(lsi, types.LocalSecondaryIndexDescription{
					IndexName:  &indexName,
					ItemCount:  count,
					KeySchema:  schema,
					Projection: index.projection,
				})
			}
		}
	}

	return gsi, lsi
}

func handleConditionalCheckError(input *types.UpdateItemInput, checkErr *types.ConditionalCheckFailedException, item map[string]*types.Item) {
	if input.ReturnValuesOnConditionCheckFailure != nil && *input.ReturnValuesOnConditionCheckFailure == "ALL_OLD" {
		checkErr.Item = item
	}
}
