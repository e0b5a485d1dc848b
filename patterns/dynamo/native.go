package dynamo

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Native keys (patterns/native.go): a native index is keyed on the
// items' own typed attributes, so an item carries no key attribute for
// it, only its discriminator when the index has one (the entity's tag);
// a read's key condition is an equality on every partition attribute,
// equalities on the leading sort attributes, and the caller's range on
// the next one, compared as DynamoDB compares the values (numbers as
// numbers: no padding).

// nativeKeyAttr is what the table knows of an attribute some native index
// is keyed on.
type nativeKeyAttr struct {
	index string
	sort  bool
}

// nativeIndexes notes, for New, each native index's key attributes and
// each pattern's native key condition.
func (t *Table) nativeIndexes() {
	t.nativeAttrs = map[string]nativeKeyAttr{}
	t.nativeConds = map[string]*patterns.NativeCondition{}
	for _, ix := range t.d.Indexes {
		if !ix.Native() {
			continue
		}
		for _, a := range ix.PartitionKeys {
			t.nativeAttrs[a] = nativeKeyAttr{index: ix.Name}
		}
		for _, a := range ix.SortKeys {
			if _, ok := t.nativeAttrs[a]; !ok {
				t.nativeAttrs[a] = nativeKeyAttr{index: ix.Name, sort: true}
			}
		}
	}
	for _, p := range t.m.Patterns {
		if c := t.d.NativeCondition(p.Name); c != nil {
			t.nativeConds[p.Name] = c
		}
	}
}

// discriminators are the constant attributes an entity's items carry for
// the native indexes with a discriminator that key it.
func discriminators(d *patterns.Design, ek *patterns.EntityKeys) []discriminator {
	var out []discriminator
	for _, k := range ek.Keys {
		if ix := d.Index(k.Index); ix != nil && ix.Discriminated() {
			out = append(out, discriminator{name: ix.PartitionKeys[0], value: ek.Tag})
		}
	}
	return out
}

type discriminator struct{ name, value string }

// checkNativeValue refuses a value DynamoDB would refuse in an attribute
// a native index is keyed on (whatever the entity: DynamoDB checks every
// item): an empty string, or one longer than a key value may be.
func (t *Table) checkNativeValue(a *model.Attribute, av types.AttributeValue) error {
	k, ok := t.nativeAttrs[a.Name]
	if !ok {
		return nil
	}
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return nil
	}
	limit := model.MaxPartitionKeyBytes
	if k.sort {
		limit = model.MaxSortKeyBytes
	}
	switch {
	case s.Value == "":
		return &model.ValueError{Attr: a.Name, Value: s.Value, Msg: fmt.Sprintf("a key attribute of native index %s cannot be empty (DynamoDB refuses the item)", k.index)}
	case len(s.Value) > limit:
		return &model.ValueError{Attr: a.Name, Value: fmt.Sprintf("(%d bytes)", len(s.Value)), Msg: fmt.Sprintf("a key attribute of native index %s holds at most %d bytes", k.index, limit)}
	}
	return nil
}

// nativeValue is a condition's value as the item stores it.
func nativeValue(e *model.Entity, term patterns.NativeTerm, v Values) (types.AttributeValue, error) {
	a := e.Attr(term.Attr)
	if a == nil { // the discriminator
		return &types.AttributeValueMemberS{Value: term.Value}, nil
	}
	if term.Param == "" && term.Value == "" {
		return nil, fmt.Errorf("%w: the pattern gives no %s (KP212)", ErrMissing, term.Attr)
	}
	if term.Param == "" {
		return stored(a, term.Value)
	}
	x, ok := v[term.Param]
	if !ok || x == nil {
		return nil, fmt.Errorf("%w: parameter %s", ErrMissing, term.Param)
	}
	return stored(a, x)
}

// nativeQueryInput builds the Query of a pattern a native index serves.
func (t *Table) nativeQueryInput(p *model.Pattern, pp *patterns.PatternPlan, c *patterns.NativeCondition, v Values, r *Request) (*dynamodb.QueryInput, error) {
	e := t.m.Entity(p.Entities[0])
	var conds []expression.KeyConditionBuilder
	for _, term := range append(append([]patterns.NativeTerm{}, c.Partition...), c.Sort...) {
		av, err := nativeValue(e, term, v)
		if err != nil {
			return nil, err
		}
		conds = append(conds, expression.Key(term.Attr).Equal(expression.Value(av)))
	}
	if r.Range != nil {
		if c.SortAttr == "" {
			return nil, fmt.Errorf("%w: the pattern has no sort attribute", ErrBadRange)
		}
		rc, whole, err := nativeRange(e.Attr(c.SortAttr), r.Range)
		if err != nil {
			return nil, err
		}
		if !whole {
			conds = append(conds, rc)
		}
	}
	cond := conds[0]
	if len(conds) > 1 {
		cond = expression.KeyAnd(conds...)
	}
	return t.queryInput(p, pp, cond, r)
}

// nativeRange is the caller's range on a native sort attribute, compared
// as DynamoDB compares the stored values; whole is true when the range
// holds every value the attribute can take (no condition). A bound
// outside a bounded attribute's values makes the range empty or whole, as
// on a synthetic key.
func nativeRange(a *model.Attribute, r *Range) (expression.KeyConditionBuilder, bool, error) {
	var none expression.KeyConditionBuilder
	side := func(x any) (int, error) {
		if a.Type == model.TypeTime || a.FixedWidth() && a.Type != model.TypeString {
			s, err := a.RangeSide(x)
			if err != nil {
				return 0, fmt.Errorf("%w: %v", ErrBadRange, err)
			}
			return s, nil
		}
		return 0, nil
	}
	lo, err := side(r.Value)
	if err != nil {
		return none, false, err
	}
	hi := 0
	if r.Op == Between {
		if hi, err = side(r.Upper); err != nil {
			return none, false, err
		}
	}
	switch {
	case lo < 0 && (r.Op == Eq || r.Op == Lt || r.Op == Le), lo > 0 && (r.Op == Eq || r.Op == Gt || r.Op == Ge || r.Op == Between), r.Op == Between && hi < 0:
		return none, false, ErrEmptyRange
	case lo < 0 && (r.Op == Gt || r.Op == Ge), lo > 0 && (r.Op == Lt || r.Op == Le), r.Op == Between && lo < 0 && hi > 0:
		return none, true, nil
	}
	val := func(x any) (types.AttributeValue, error) {
		av, err := storedChecked(a, x, true)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadRange, err)
		}
		return av, nil
	}
	key := expression.Key(a.Name)
	if r.Op == Between {
		switch {
		case lo < 0:
			y, err := val(r.Upper)
			if err != nil {
				return none, false, err
			}
			return key.LessThanEqual(expression.Value(y)), false, nil
		case hi > 0:
			x, err := val(r.Value)
			if err != nil {
				return none, false, err
			}
			return key.GreaterThanEqual(expression.Value(x)), false, nil
		}
		x, err := val(r.Value)
		if err != nil {
			return none, false, err
		}
		y, err := val(r.Upper)
		if err != nil {
			return none, false, err
		}
		if storedLess(y, x) {
			return none, false, fmt.Errorf("%w: between %v and %v is empty", ErrBadRange, r.Value, r.Upper)
		}
		return key.Between(expression.Value(x), expression.Value(y)), false, nil
	}
	x, err := val(r.Value)
	if err != nil {
		return none, false, err
	}
	switch r.Op {
	case Eq:
		return key.Equal(expression.Value(x)), false, nil
	case Lt:
		return key.LessThan(expression.Value(x)), false, nil
	case Le:
		return key.LessThanEqual(expression.Value(x)), false, nil
	case Gt:
		return key.GreaterThan(expression.Value(x)), false, nil
	case Ge:
		return key.GreaterThanEqual(expression.Value(x)), false, nil
	case BeginsWith:
		s, ok := x.(*types.AttributeValueMemberS)
		if !ok || a.Type != model.TypeString || len(a.Values) > 0 {
			return none, false, fmt.Errorf("%w: begins_with applies to a string sort attribute", ErrBadRange)
		}
		return key.BeginsWith(s.Value), false, nil
	}
	return none, false, fmt.Errorf("%w: op %q; expected =, <, <=, >, >=, between or begins_with", ErrBadRange, r.Op)
}

// storedLess reports whether stored scalar a sorts before b as DynamoDB
// orders them (numbers by value, strings and binaries by bytes).
func storedLess(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		if !ok {
			return false
		}
		p, _, err1 := big.ParseFloat(x.Value, 10, 256, big.ToNearestEven)
		q, _, err2 := big.ParseFloat(y.Value, 10, 256, big.ToNearestEven)
		return err1 == nil && err2 == nil && p.Cmp(q) < 0
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value < y.Value
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Compare(x.Value, y.Value) < 0
	}
	return false
}

// indexKeySchema is a phase's GSI's key schema: GSIxPK/GSIxSK, or a
// native index's attributes, HASH then RANGE.
func indexKeySchema(ix *patterns.PhaseIndex) []types.KeySchemaElement {
	if len(ix.PartitionKeys) == 0 {
		return keySchema(ix.PK, ix.SK)
	}
	var out []types.KeySchemaElement
	for _, a := range ix.PartitionKeys {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: types.KeyTypeHash})
	}
	for _, a := range ix.SortKeys {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: types.KeyTypeRange})
	}
	return out
}

// indexAttrs are the AttributeDefinitions a phase's GSI needs.
func indexAttrs(ix *patterns.PhaseIndex) []types.AttributeDefinition {
	if len(ix.PartitionKeys) == 0 {
		return stringAttrs(ix.PK, ix.SK)
	}
	var out []types.AttributeDefinition
	for _, a := range append(append([]string{}, ix.PartitionKeys...), ix.SortKeys...) {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeType(ix.KeyTypes[a])})
	}
	return out
}

// addAttrs appends AttributeDefinitions not defined yet (DynamoDB refuses
// a name defined twice; two native indexes may share an attribute).
func addAttrs(defs, more []types.AttributeDefinition) []types.AttributeDefinition {
	for _, a := range more {
		if !slices.ContainsFunc(defs, func(d types.AttributeDefinition) bool {
			return aws.ToString(d.AttributeName) == aws.ToString(a.AttributeName)
		}) {
			defs = append(defs, a)
		}
	}
	return defs
}

// schemaText is a key schema as messages show it: "GSI1PK HASH, GSI1SK RANGE".
func schemaText(schema []types.KeySchemaElement) string {
	var parts []string
	for _, k := range schema {
		parts = append(parts, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	return strings.Join(parts, ", ")
}

// NativeGap says why an engine cannot hold design d ("" when it can): d
// has native GSIs and lacks (asked only then) says the engine has no
// multi-attribute keys (DynamoDB Local 1.25.1, dynalite). It names the
// remedy: prove d where native keys exist, or its synthetic keying
// (keyplan validate --index-keys synthetic), which changes new GSIs only:
// those a lock records native stay so (ValidateOptions.Lacks).
func NativeGap(d *patterns.Design, lk *patterns.Lock, lacks func() string) string {
	var native []string
	deployed := true
	for _, ix := range d.Indexes {
		if ix.Native() {
			native = append(native, ix.Name)
			deployed = deployed && lk != nil && lk.Latest().Index(ix.Name) != nil
		}
	}
	if why := ""; len(native) > 0 {
		if why = lacks(); why != "" {
			fix := "prove it on an engine that has them (--engine memory, the default), or prove its synthetic keying here with --index-keys synthetic"
			if deployed {
				fix = "the lock records them so (deployed): only an engine with native keys can hold them (--engine memory, the default)"
			}
			return fmt.Sprintf("%s; the design keys %s natively: %s", why, strings.Join(native, ", "), fix)
		}
	}
	return ""
}
