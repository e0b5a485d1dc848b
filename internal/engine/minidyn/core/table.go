package core

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/keyplan/keyplan/internal/engine/minidyn/expression"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Table is one table: its schema, its items in primary key order and its
// secondary indexes. Stored items are never changed in place (a write
// stores a new map), so an item read from the table can be returned
// without a copy.
type Table struct {
	Name          string
	KeySchema     keySchema
	AttributesDef map[string]string
	Indexes       map[string]*index
	CreatedAt     time.Time

	items orderedMap[map[string]*types.Item]
	bytes int64
}

// IndexDefinition is a secondary index as CreateTable and UpdateTable
// give it.
type IndexDefinition struct {
	Name       string
	KeySchema  []types.KeySchemaElement
	Projection *types.Projection
}

// Definition is a table as CreateTable gives it.
type Definition struct {
	Name       string
	Attributes []types.AttributeDefinition
	KeySchema  []types.KeySchemaElement
	GSIs, LSIs []IndexDefinition
	// GSIsGiven and LSIsGiven are true when the request had the list,
	// even empty (an empty list is refused).
	GSIsGiven, LSIsGiven bool
}

var (
	namePattern      = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)
	nameCharsPattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)
)

// The lengths a table or index name may have.
const (
	MinNameLength = 3
	MaxNameLength = 255
)

// ValidName is DynamoDB's rule for table and index names.
func ValidName(name string) bool { return namePattern.MatchString(name) }

// ValidNameCharacters is the characters' half of ValidName (the rest is
// the length: MinNameLength to MaxNameLength).
func ValidNameCharacters(name string) bool { return nameCharsPattern.MatchString(name) }

const invalidName = "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"

// NewTable checks a table definition as DynamoDB's CreateTable does and
// returns the empty table.
func NewTable(def Definition) (*Table, error) {
	if !ValidName(def.Name) {
		return nil, validationError(invalidName)
	}

	if err := checkKeyNameLengths(def); err != nil {
		return nil, err
	}

	attrs, err := attributeTypes(def.Attributes)
	if err != nil {
		return nil, err
	}

	t := &Table{Name: def.Name, AttributesDef: attrs, Indexes: map[string]*index{}, CreatedAt: time.Now()}

	ks, err := parseKeySchema(def.KeySchema, attrs, "keySchema", false)
	if err != nil {
		return nil, err
	}

	t.KeySchema = ks
	used := map[string]bool{}

	for _, a := range ks.attributes() {
		used[a] = true
	}

	if def.GSIsGiven && len(def.GSIs) == 0 {
		return nil, validationError("GSI list is empty/invalid")
	}

	if def.LSIsGiven && len(def.LSIs) == 0 {
		return nil, validationError("LSI list is empty/invalid")
	}

	if len(def.LSIs) > 0 && ks.RangeKey() == "" {
		return nil, validationError("Local Secondary indices are not allowed on hash tables, only hash and range tables")
	}

	for n, d := range def.LSIs {
		if _, dup := t.Indexes[d.Name]; dup {
			return nil, validationError("One or more parameter values were invalid: Duplicate index name: %s", d.Name)
		}

		i, err := t.buildIndex(d, indexTypeLocal, n+1)
		if err != nil {
			return nil, err
		}

		if i.keySchema.HashKey() != ks.HashKey() {
			return nil, validationError("Local Secondary indices must have the same hash key as the main table")
		}

		if i.keySchema.RangeKey() == "" {
			return nil, validationError("Local secondary indices must have a range key")
		}

		t.Indexes[d.Name] = i
	}

	gsis := map[string]bool{}

	for n, d := range def.GSIs {
		if gsis[d.Name] {
			return nil, validationError("One or more parameter values were invalid: Duplicate index name: %s", d.Name)
		}

		if _, dup := t.Indexes[d.Name]; dup {
			return nil, validationError("One or more parameter values were invalid: Duplicate index name: %s (a local and a global secondary index)", d.Name)
		}

		gsis[d.Name] = true

		i, err := t.buildIndex(d, indexTypeGlobal, n+1)
		if err != nil {
			return nil, err
		}

		t.Indexes[d.Name] = i
	}

	for _, i := range t.Indexes {
		for _, a := range i.keySchema.attributes() {
			used[a] = true
		}
	}

	if len(used) != len(attrs) {
		return nil, validationError("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}

	return t, nil
}

// MaxKeyNameBytes is the longest name of a key attribute.
const MaxKeyNameBytes = 255

// checkKeyNameLengths refuses key attribute names over 255 bytes, before
// anything else about the definition (as DynamoDB does).
func checkKeyNameLengths(def Definition) error {
	for n, a := range def.Attributes {
		if a.AttributeName != nil && len(*a.AttributeName) > MaxKeyNameBytes {
			return validationError("1 validation error detected: Value '%s' at 'attributeDefinitions.%d.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to %d", *a.AttributeName, n+1, MaxKeyNameBytes)
		}
	}

	check := func(where string, schema []types.KeySchemaElement) error {
		for n, e := range schema {
			if len(e.AttributeName) > MaxKeyNameBytes {
				return validationError("1 validation error detected: Value '%s' at '%s.%d.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to %d", e.AttributeName, where, n+1, MaxKeyNameBytes)
			}
		}

		return nil
	}

	if err := check("keySchema", def.KeySchema); err != nil {
		return err
	}

	for _, d := range def.GSIs {
		if err := check("globalSecondaryIndexes.member.keySchema", d.KeySchema); err != nil {
			return err
		}
	}

	for _, d := range def.LSIs {
		if err := check("localSecondaryIndexes.member.keySchema", d.KeySchema); err != nil {
			return err
		}
	}

	return nil
}

// attributeTypes reads AttributeDefinitions.
func attributeTypes(defs []types.AttributeDefinition) (map[string]string, error) {
	attrs := map[string]string{}

	for n, a := range defs {
		switch {
		case a.AttributeName == nil:
			return nil, validationError("1 validation error detected: Value null at 'attributeDefinitions.%d.member.attributeName' failed to satisfy constraint: Member must not be null", n+1)
		case a.AttributeType == nil || *a.AttributeType == "":
			return nil, validationError("1 validation error detected: Value null at 'attributeDefinitions.%d.member.attributeType' failed to satisfy constraint: Member must not be null", n+1)
		case !types.IsScalarKeyType(*a.AttributeType):
			return nil, validationError("1 validation error detected: Value '%s' at 'attributeDefinitions.%d.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]", *a.AttributeType, n+1)
		}

		if _, dup := attrs[*a.AttributeName]; dup {
			return nil, validationError("One or more parameter values were invalid: Duplicate AttributeName in AttributeDefinitions: %s", *a.AttributeName)
		}

		attrs[*a.AttributeName] = *a.AttributeType
	}

	return attrs, nil
}

// parseKeySchema reads a key schema (HASH, then optionally RANGE) whose
// attributes attrs defines; where names it in messages ("keySchema",
// "globalSecondaryIndexes.1.member.keySchema"). A GSI's (multi) may hold
// up to MaxKeyAttributes HASH attributes, then as many RANGE ones.
func parseKeySchema(schema []types.KeySchemaElement, attrs map[string]string, where string, multi bool) (keySchema, error) {
	var ks keySchema

	most := 2
	if multi {
		most = 2 * MaxKeyAttributes
	}

	switch {
	case len(schema) == 0:
		return ks, validationError("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", where)
	case len(schema) > most:
		return ks, validationError("1 validation error detected: Value '%v' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", schema, where, most)
	case schema[0].KeyType != "HASH":
		return ks, validationError("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	case !multi && len(schema) == 2 && schema[1].KeyType != "RANGE":
		return ks, validationError("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}

	for _, e := range schema {
		switch e.KeyType {
		case "HASH":
			if len(ks.Range) > 0 {
				return ks, validationError("Invalid KeySchema: every HASH key attribute must precede the RANGE key attributes (%s follows %s)", e.AttributeName, ks.Range[len(ks.Range)-1])
			}

			ks.Hash = append(ks.Hash, e.AttributeName)
		case "RANGE":
			ks.Range = append(ks.Range, e.AttributeName)
		default:
			return ks, validationError("1 validation error detected: Value '%s' at '%s.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]", e.KeyType, where)
		}
	}

	switch {
	case len(ks.Hash) > MaxKeyAttributes:
		return ks, validationError("Invalid KeySchema: a global secondary index may have at most %d HASH key attributes, got %d", MaxKeyAttributes, len(ks.Hash))
	case len(ks.Range) > MaxKeyAttributes:
		return ks, validationError("Invalid KeySchema: a global secondary index may have at most %d RANGE key attributes, got %d", MaxKeyAttributes, len(ks.Range))
	}

	seen := map[string]bool{}

	for _, a := range ks.attributes() {
		if seen[a] {
			return ks, validationError("Two keys can not have the same name")
		}

		seen[a] = true
	}

	var missing []string

	for _, a := range ks.attributes() {
		if _, ok := attrs[a]; !ok {
			missing = append(missing, a)
		}
	}

	if len(missing) > 0 {
		defined := slices.Sorted(maps.Keys(attrs))
		return ks, validationError("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(missing, ", "), strings.Join(defined, ", "))
	}

	return ks, nil
}

func (t *Table) buildIndex(d IndexDefinition, typ indexType, n int) (*index, error) {
	where := fmt.Sprintf("globalSecondaryIndexes.%d.member", n)
	if typ == indexTypeLocal {
		where = fmt.Sprintf("localSecondaryIndexes.%d.member", n)
	}

	if !ValidName(d.Name) {
		return nil, validationError("1 validation error detected: Value '%s' at '%s.indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+, and have length between 3 and 255", d.Name, where)
	}

	ks, err := parseKeySchema(d.KeySchema, t.AttributesDef, where+".keySchema", typ == indexTypeGlobal)
	if err != nil {
		return nil, err
	}

	if err := checkProjection(d.Projection, where); err != nil {
		return nil, err
	}

	return newIndex(t, d.Name, typ, ks, d.Projection), nil
}

func checkProjection(p *types.Projection, where string) error {
	if p == nil || p.ProjectionType == nil || *p.ProjectionType == "" {
		return validationError("One or more parameter values were invalid: Unknown ProjectionType: null (an index's Projection needs a ProjectionType)")
	}

	switch *p.ProjectionType {
	case ProjectionAll, ProjectionKeysOnly:
		if len(p.NonKeyAttributes) > 0 {
			return validationError("One or more parameter values were invalid: ProjectionType is %s, but NonKeyAttributes is specified", *p.ProjectionType)
		}
	case ProjectionInclude:
		if len(p.NonKeyAttributes) == 0 {
			return validationError("One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
		}

		seen := map[string]bool{}

		for _, a := range p.NonKeyAttributes {
			if a != nil && len(*a) > MaxKeyNameBytes {
				return validationError("1 validation error detected: Value '%s' at '%s.projection.nonKeyAttributes' failed to satisfy constraint: Member must have length less than or equal to %d", *a, where, MaxKeyNameBytes)
			}

			if a == nil || seen[*a] {
				return validationError("One or more parameter values were invalid: Duplicate projected attributes are not allowed")
			}

			seen[*a] = true
		}
	default:
		return validationError("1 validation error detected: Value '%s' at '%s.projection.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]", *p.ProjectionType, where)
	}

	return nil
}

// AddGlobalIndex creates a GSI on the table (UpdateTable), backfilled
// from the items: an item whose index key attribute has another type than
// the definition, or is empty or longer than a key may be, is not
// indexed, as DynamoDB leaves it out.
func (t *Table) AddGlobalIndex(d IndexDefinition, attrs []types.AttributeDefinition) error {
	if _, ok := t.Indexes[d.Name]; ok {
		return validationError("Attempting to create an index which already exists")
	}

	for _, a := range attrs {
		if a.AttributeName != nil && len(*a.AttributeName) > MaxKeyNameBytes {
			return validationError("1 validation error detected: Value '%s' at 'attributeDefinitions.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to %d", *a.AttributeName, MaxKeyNameBytes)
		}
	}

	for _, e := range d.KeySchema {
		if len(e.AttributeName) > MaxKeyNameBytes {
			return validationError("1 validation error detected: Value '%s' at 'globalSecondaryIndexUpdates.1.member.create.keySchema.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to %d", e.AttributeName, MaxKeyNameBytes)
		}
	}

	merged := maps.Clone(t.AttributesDef)
	given := map[string]bool{}

	for _, a := range attrs {
		if a.AttributeName == nil || a.AttributeType == nil || !types.IsScalarKeyType(*a.AttributeType) {
			return validationError("Member must satisfy enum value set: [B, N, S]")
		}

		if old, ok := merged[*a.AttributeName]; ok && old != *a.AttributeType {
			return validationError("One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Attribute: %s, defined: %s, given: %s", *a.AttributeName, old, *a.AttributeType)
		}

		merged[*a.AttributeName] = *a.AttributeType
		given[*a.AttributeName] = true
	}

	// The request defines every key attribute of the index, even one the
	// table already defines.
	var missing, defined []string

	for _, e := range d.KeySchema {
		if !given[e.AttributeName] {
			missing = append(missing, e.AttributeName)
		}
	}

	if len(missing) > 0 {
		for _, a := range attrs {
			defined = append(defined, *a.AttributeName)
		}

		return validationError("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(missing, ", "), strings.Join(defined, ", "))
	}

	prev := t.AttributesDef
	t.AttributesDef = merged

	i, err := t.buildIndex(d, indexTypeGlobal, 1)
	if err != nil {
		t.AttributesDef = prev
		return err
	}

	// The backfill leaves out the items whose values cannot be the
	// index's keys (another type, empty, too long), as DynamoDB does.
	t.items.Ascend("", true, func(pk string, item map[string]*types.Item) bool {
		if i.indexable(item) {
			i.put(pk, item)
		}

		return true
	})

	t.Indexes[d.Name] = i

	return nil
}

// DeleteGlobalIndex removes a GSI (UpdateTable).
func (t *Table) DeleteGlobalIndex(name string) error {
	i, ok := t.Indexes[name]
	if !ok || i.typ != indexTypeGlobal {
		return types.NewError("ResourceNotFoundException", "Requested resource not found", nil)
	}

	delete(t.Indexes, name)

	return nil
}

// Index returns the named secondary index, or a ValidationException.
func (t *Table) Index(name string) (*index, error) {
	i, ok := t.Indexes[name]
	if !ok {
		return nil, validationError("The table does not have the specified index: %s", name)
	}

	return i, nil
}

// IsGlobal reports whether the named index is a GSI.
func (t *Table) IsGlobal(name string) bool {
	i, ok := t.Indexes[name]
	return ok && i.typ == indexTypeGlobal
}

// ItemCount and SizeBytes are DescribeTable's figures.
func (t *Table) ItemCount() int64 { return int64(t.items.Len()) }

// SizeBytes is the total size of the items.
func (t *Table) SizeBytes() int64 { return t.bytes }

// Clear removes every item.
func (t *Table) Clear() {
	t.items = orderedMap[map[string]*types.Item]{}
	t.bytes = 0

	for _, i := range t.Indexes {
		i.clear()
	}
}

// CheckKeyShape refuses a Key parameter without exactly the table's key
// attributes (whatever their values).
func (t *Table) CheckKeyShape(key map[string]*types.Item) error {
	if len(key) != len(t.KeySchema.attributes()) {
		return validationError("The number of conditions on the keys is invalid")
	}

	for _, a := range t.KeySchema.attributes() {
		if _, ok := key[a]; !ok {
			return validationError("One of the required keys was not given a value")
		}
	}

	return nil
}

// KeyOf checks a Key parameter (exactly the table's key attributes, of
// their types, not empty) and returns its encoding.
func (t *Table) KeyOf(key map[string]*types.Item) (string, error) {
	if err := t.CheckKeyShape(key); err != nil {
		return "", err
	}

	for _, a := range t.KeySchema.attributes() {
		v := key[a]

		if err := t.checkKeyValue(a, v, t.AttributesDef[a], "Type mismatch for key"); err != nil {
			return "", err
		}
	}

	k, _ := t.KeySchema.encode(t.AttributesDef, key)

	return k, nil
}

// checkKeyValue refuses a primary key value of the wrong type, empty or
// too long.
func (t *Table) checkKeyValue(name string, v *types.Item, typ, mismatch string) error {
	if types.TypeOf(v) != typ {
		return validationError("One or more parameter values were invalid: %s", mismatch)
	}

	n := 0

	switch typ {
	case types.TypeS:
		n = len(*v.S)
		if n == 0 {
			return validationError("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", name)
		}
	case types.TypeB:
		n = len(v.B)
		if n == 0 {
			return validationError("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", name)
		}
	}

	return checkKeySize(name == t.KeySchema.RangeKey(), n)
}

// checkKeySize refuses a key attribute value over DynamoDB's limits, with
// its messages.
func checkKeySize(isRange bool, n int) error {
	switch {
	case isRange && n > MaxRangeKeyBytes:
		return validationError("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of %d bytes", MaxRangeKeyBytes)
	case !isRange && n > MaxHashKeyBytes:
		return validationError("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of%d bytes", MaxHashKeyBytes)
	}

	return nil
}

// checkItem refuses an item DynamoDB would not store: a missing, empty,
// oversized or mistyped key attribute, an index key attribute of the wrong
// type or empty, an item over 400 KB. tooBig is the message for the size.
func (t *Table) checkItem(item map[string]*types.Item, tooBig string) error {
	for _, a := range t.KeySchema.attributes() {
		v, ok := item[a]
		if !ok {
			return validationError("One of the required keys was not given a value")
		}

		if err := t.checkKeyValue(a, v, t.AttributesDef[a], "Type mismatch for key"); err != nil {
			return err
		}
	}

	for _, name := range slices.Sorted(maps.Keys(t.Indexes)) {
		i := t.Indexes[name]

		for _, a := range i.keySchema.attributes() {
			v, ok := item[a]
			if !ok {
				continue
			}

			if types.TypeOf(v) != t.AttributesDef[a] {
				return validationError("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", a, t.AttributesDef[a], types.TypeOf(v), name)
			}

			n := keyValueBytes(v)
			if n == 0 && types.TypeOf(v) != types.TypeN {
				return validationError("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", emptyKind(v), name, a)
			}

			if err := checkKeySize(i.keySchema.isRange(a), n); err != nil {
				return err
			}
		}
	}

	if types.ItemSize(item) > MaxItemBytes {
		return validationError("%s", tooBig)
	}

	return nil
}

// keyValueBytes is the length of a string or binary key value.
func keyValueBytes(v *types.Item) int {
	switch types.TypeOf(v) {
	case types.TypeS:
		return len(*v.S)
	case types.TypeB:
		return len(v.B)
	}

	return 0
}

func emptyKind(v *types.Item) string {
	if types.TypeOf(v) == types.TypeB {
		return "binary"
	}

	return "string"
}

// Get is the item stored under an encoded key, nil when there is none.
func (t *Table) Get(key string) map[string]*types.Item {
	item, _ := t.items.Get(key)
	return item
}

// Write is a prepared change to one item: checked, its condition met, not
// yet applied. New is nil for a delete.
type Write struct {
	Table    *Table
	Key      string
	Old, New map[string]*types.Item
	// Paths are the paths an update wrote (ReturnValues UPDATED_*).
	Paths []expression.Path
}

// Messages for an item over the size limit.
const (
	msgItemTooBig   = "Item size has exceeded the maximum allowed size"
	msgUpdateTooBig = "Item size to update has exceeded the maximum allowed size"
)

// PreparePut checks a PutItem: the item, then the condition on the item
// it replaces.
func (t *Table) PreparePut(item map[string]*types.Item, cond *expression.Condition) (*Write, error) {
	if err := t.checkItem(item, msgItemTooBig); err != nil {
		return nil, err
	}

	key, _ := t.KeySchema.encode(t.AttributesDef, item)
	old := t.Get(key)

	if cond != nil && !cond.Eval(orEmpty(old)) {
		return nil, conditionFailed(old)
	}

	return &Write{Table: t, Key: key, Old: old, New: item}, nil
}

// PrepareDelete checks a DeleteItem's key and condition.
func (t *Table) PrepareDelete(keyItem map[string]*types.Item, cond *expression.Condition) (*Write, error) {
	key, err := t.KeyOf(keyItem)
	if err != nil {
		return nil, err
	}

	old := t.Get(key)

	if cond != nil && !cond.Eval(orEmpty(old)) {
		return nil, conditionFailed(old)
	}

	return &Write{Table: t, Key: key, Old: old}, nil
}

// PrepareCheck checks a ConditionCheck of a transaction.
func (t *Table) PrepareCheck(keyItem map[string]*types.Item, cond *expression.Condition) (*Write, error) {
	w, err := t.PrepareDelete(keyItem, cond)
	if err != nil {
		return nil, err
	}

	w.New = w.Old

	return w, nil
}

// KeyAttributes are the key attributes of the table and of every index.
func (t *Table) KeyAttributes() []string {
	out := slices.Clone(t.KeySchema.attributes())
	for _, i := range t.Indexes {
		for _, a := range i.keySchema.attributes() {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}

	return out
}

// CheckKeyPath refuses a nested path (a.b, a[0]) into a key attribute of
// the table ("Key") or of an index ("IndexKey"), with DynamoDB's message.
func (t *Table) CheckKeyPath(p expression.Path) error {
	if len(p) < 2 {
		return nil
	}

	kind := "Key"
	if !slices.Contains(t.KeySchema.attributes(), p.Top()) {
		if !slices.Contains(t.KeyAttributes(), p.Top()) {
			return nil
		}

		kind = "IndexKey"
	}

	return validationError("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: %s: %s", kind, p.Top())
}

// KeyUpdateError is an update that sets or removes a key attribute: a
// ValidationException of its own, or a transaction's ValidationError.
type KeyUpdateError struct{ msg string }

func (e *KeyUpdateError) Error() string { return "ValidationException: " + e.msg }

// Code, Message and OrigErr make it a types.Error.
func (e *KeyUpdateError) Code() string    { return "ValidationException" }
func (e *KeyUpdateError) Message() string { return e.msg }
func (e *KeyUpdateError) OrigErr() error  { return nil }

// PrepareUpdate checks an UpdateItem: the key, the condition on the
// stored item, then the updated item (computed from the stored one, or
// from the key when there is none).
func (t *Table) PrepareUpdate(keyItem map[string]*types.Item, upd *expression.Update, cond *expression.Condition) (*Write, error) {
	key, err := t.KeyOf(keyItem)
	if err != nil {
		return nil, err
	}

	old := t.Get(key)

	// The condition first: a false one fails the update even where it
	// sets a key attribute or reads into one, as DynamoDB Local answers.
	if cond != nil && !cond.Eval(orEmpty(old)) {
		return nil, conditionFailed(old)
	}

	if upd != nil {
		for _, p := range append(upd.ValuePaths(), upd.Paths()...) {
			if err := t.CheckKeyPath(p); err != nil {
				return nil, err
			}
		}

		for _, p := range upd.Paths() {
			if slices.Contains(t.KeySchema.attributes(), p.Top()) {
				return nil, &KeyUpdateError{msg: fmt.Sprintf("One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key", p.Top())}
			}
		}
	}

	base := old
	if base == nil {
		base = maps.Clone(keyItem)
	}

	w := &Write{Table: t, Key: key, Old: old, New: base}

	if upd == nil {
		return w, nil
	}

	w.Paths = upd.Paths()

	if old == nil && upd.OnlyRemoves() {
		// Removing from an item that does not exist creates nothing.
		w.New = nil
		return w, nil
	}

	w.New, err = upd.Apply(base, old == nil)
	if err != nil {
		return nil, validationError("%s", err.Error())
	}

	if err := t.checkItem(w.New, msgUpdateTooBig); err != nil {
		return nil, err
	}

	return w, nil
}

func orEmpty(item map[string]*types.Item) map[string]*types.Item {
	if item == nil {
		return map[string]*types.Item{}
	}

	return item
}

// Commit applies a prepared write to the table and its indexes.
func (w *Write) Commit() {
	t := w.Table

	if w.New == nil {
		if old, ok := t.items.Get(w.Key); ok {
			t.bytes -= int64(types.ItemSize(old))
			t.items.Delete(w.Key)
		}
	} else {
		if old, ok := t.items.Get(w.Key); ok {
			t.bytes -= int64(types.ItemSize(old))
		}

		t.items.Set(w.Key, w.New)
		t.bytes += int64(types.ItemSize(w.New))
	}

	for _, i := range t.Indexes {
		i.put(w.Key, w.New)
	}
}

// Description is the table's description (DescribeTable).
func (t *Table) Description(name string) *types.TableDescription {
	gsi, lsi := t.IndexesDescription()

	return &types.TableDescription{
		TableName:              name,
		ItemCount:              t.ItemCount(),
		KeySchema:              t.KeySchema.describe(),
		GlobalSecondaryIndexes: gsi,
		LocalSecondaryIndexes:  lsi,
	}
}

// IndexesDescription describes the table's indexes, sorted by name.
func (t *Table) IndexesDescription() ([]types.GlobalSecondaryIndexDescription, []types.LocalSecondaryIndexDescription) {
	gsi := []types.GlobalSecondaryIndexDescription{}
	lsi := []types.LocalSecondaryIndexDescription{}

	for _, indexName := range slices.Sorted(maps.Keys(t.Indexes)) {
		i := t.Indexes[indexName]
		name := indexName

		switch i.typ {
		case indexTypeGlobal:
			status := "ACTIVE"

			gsi = append(gsi, types.GlobalSecondaryIndexDescription{
				IndexName:   &name,
				ItemCount:   i.count(),
				KeySchema:   i.keySchema.describe(),
				Projection:  i.projection,
				IndexStatus: &status,
			})
		case indexTypeLocal:
			lsi = append(lsi, types.LocalSecondaryIndexDescription{
				IndexName:  &name,
				ItemCount:  i.count(),
				KeySchema:  i.keySchema.describe(),
				Projection: i.projection,
			})
		}
	}

	return gsi, lsi
}

// EncodeKey is the encoded primary key of an item or key, ok false when
// it lacks a key attribute or holds one of another type.
func (t *Table) EncodeKey(item map[string]*types.Item) (string, bool) {
	return t.KeySchema.encode(t.AttributesDef, item)
}

// CheckItem refuses an item the table would not store (PutItem's
// checks).
func (t *Table) CheckItem(item map[string]*types.Item) error {
	return t.checkItem(item, msgItemTooBig)
}

// Each calls fn on every item in key order, until fn returns false.
func (t *Table) Each(fn func(item map[string]*types.Item) bool) {
	t.items.Ascend("", true, func(_ string, item map[string]*types.Item) bool { return fn(item) })
}

// IndexDefinitions are the table's secondary indexes as CreateTable gives
// them, sorted by name.
func (t *Table) IndexDefinitions() (gsis, lsis []IndexDefinition) {
	for _, name := range slices.Sorted(maps.Keys(t.Indexes)) {
		i := t.Indexes[name]
		d := IndexDefinition{Name: name, KeySchema: i.keySchema.describe(), Projection: i.projection}

		if i.typ == indexTypeGlobal {
			gsis = append(gsis, d)
		} else {
			lsis = append(lsis, d)
		}
	}

	return gsis, lsis
}
