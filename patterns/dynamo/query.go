package dynamo

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Comparator is how a Range compares the sort attribute with its values
// (a key condition on the sort key; not a write, not a DynamoDB operation).
type Comparator string

// Range operators.
const (
	Eq Comparator = "="
	Lt Comparator = "<"
	Le Comparator = "<="
	Gt Comparator = ">"
	Ge Comparator = ">="
	// Between is Value..Upper, inclusive.
	Between Comparator = "between"
	// BeginsWith applies to string sort attributes.
	BeginsWith Comparator = "begins_with"
)

// Range bounds a pattern's sort attribute.
type Range struct {
	Op           Comparator
	Value, Upper any
}

// Request is one read of a pattern.
type Request struct {
	// Params are the pattern's equality values.
	Params Params
	// Range bounds the pattern's sort attribute (nil: all of it).
	Range *Range
	// Limit overrides the pattern's limit (0: the pattern's).
	Limit int32
	// StartKey continues after a previous page's LastEvaluatedKey.
	StartKey map[string]types.AttributeValue
	// Cursor continues after a previous page of the same pattern
	// (Page.Cursor; with StartKey, an error). Another pattern's cursor
	// fails the read with ErrCursor.
	Cursor string
	// ConsumedCapacity asks DynamoDB to report capacity (TOTAL).
	ConsumedCapacity bool
}

// GetItemInput builds the request of a pattern served by GetItem.
func (t *Table) GetItemInput(pattern string, params Params) (*dynamodb.GetItemInput, error) {
	if via := t.via(pattern); via != nil {
		return via.getItemInput(pattern, Request{Params: params})
	}
	in, err := t.getItemInput(pattern, &Request{Params: params})
	return in, wrap("GetItemInput", pattern, err)
}

func (t *Table) getItemInput(pattern string, r *Request) (*dynamodb.GetItemInput, error) {
	p, pp, err := t.pattern(pattern)
	if err != nil {
		return nil, err
	}
	if pp.Operation != patterns.GetItem {
		return nil, fmt.Errorf("served by %s on %s; use QueryInput", pp.Operation, pp.Index)
	}
	e := t.m.Entity(p.Entities[0])
	v, err := t.params(p, e, r.Params)
	if err != nil {
		return nil, err
	}
	pk, err := render(e, pp.KeyCondition.PK, v)
	if err != nil {
		return nil, err
	}
	sk, err := render(e, pp.KeyCondition.SK, v)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.GetItemInput{
		TableName: aws.String(t.name),
		Key: map[string]types.AttributeValue{
			t.d.PK: &types.AttributeValueMemberS{Value: pk},
			t.d.SK: &types.AttributeValueMemberS{Value: sk},
		},
		ConsistentRead: aws.Bool(pp.Consistent),
	}
	if r.ConsumedCapacity {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	if len(p.Returns) > 0 {
		expr, err := expression.NewBuilder().WithProjection(t.projection(p, pp)).Build()
		if err != nil {
			return nil, err
		}
		in.ProjectionExpression, in.ExpressionAttributeNames = expr.Projection(), expr.Names()
	}
	return in, nil
}

// params checks a request's parameters against the pattern: every where
// attribute given, nothing else, filter constants added.
func (t *Table) params(p *model.Pattern, e *model.Entity, given Params) (Values, error) {
	where := t.m.Where(p)
	for _, name := range where {
		x, ok := given[name]
		if !ok {
			return nil, fmt.Errorf("%w: parameter %s", ErrMissing, name)
		}
		// Every value is checked, those no key holds (verified on the
		// item) and those of a range that holds nothing included.
		if err := e.Attr(name).Check(x); err != nil {
			if x == "" { // the loader's advice (optional: true) is a write's
				return nil, &model.ValueError{Attr: name, Value: x, Msg: "a read's parameter cannot be empty: no key holds an empty string, so no item has it"}
			}
			return nil, err
		}
	}
	if len(given) > len(where) {
		for _, name := range sortedNames(given) {
			if !slices.Contains(where, name) {
				return nil, fmt.Errorf("%w %q: the pattern's parameters are %s", ErrUnknownAttr, name, strings.Join(where, ", "))
			}
		}
	}
	if len(p.Filter) == 0 {
		return Values(given), nil // read only: no copy
	}
	v := make(Values, len(given)+len(p.Filter))
	for k, x := range given {
		v[k] = x
	}
	for _, c := range p.Filter {
		v[c.Attr] = c.Value
	}
	return v, nil
}

// projection names what a pattern returns plus the keys it decodes from
// (built once per pattern).
func (t *Table) projection(p *model.Pattern, pp *patterns.PatternPlan) expression.ProjectionBuilder {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b, ok := t.projections[p.Name]; ok {
		return b
	}
	b := expression.NamesList(expression.Name(t.d.PK))
	for _, n := range t.projected(p, pp)[1:] {
		b = b.AddNames(expression.Name(n))
	}
	t.projections[p.Name] = b
	return b
}

// projected lists the attributes a pattern's read asks for: the table's
// keys and the index's (Decode reads the entity and the key-encoded
// attributes from them), and what the pattern returns and verifies that
// the index stores. A GSI that is not ALL stores only its projection, and
// DynamoDB refuses a read that asks it for more ("does not project");
// what the pattern returns beyond it the planner left out because the
// keys hold it (docs/planner.md, "Projections"), so it is decoded from
// them.
func (t *Table) projected(p *model.Pattern, pp *patterns.PatternPlan) []string {
	names := []string{t.d.PK, t.d.SK}
	var ix *patterns.Index
	if pp.Index != model.BaseIndex {
		ix = t.d.Index(pp.Index)
		if ix != nil && ix.Native() {
			for _, a := range ix.KeyAttributes() {
				if t.m.Entity(p.Entities[0]).Attr(a) != nil {
					names = append(names, a)
				}
			}
		} else {
			pk, sk := t.d.KeyNames(pp.Index)
			if pk != t.d.PK {
				names = append(names, pk) // an LSI's is the table's
			}
			names = append(names, sk)
		}
	}
	for _, a := range patterns.ReadNeeds(p, pp) {
		if ix != nil && !stores(ix, a) || slices.Contains(names, a) {
			continue
		}
		names = append(names, a)
	}
	return names
}

// stores reports whether a GSI holds a non-key attribute.
func stores(ix *patterns.Index, attr string) bool {
	switch ix.Projection {
	case patterns.ProjectAll:
		return true
	case patterns.ProjectInclude:
		return slices.Contains(ix.NonKeyAttributes, attr)
	}
	return false
}

// QueryInput builds the request of a pattern served by Query. A sharded
// pattern has one request per shard: use QueryInputs.
func (t *Table) QueryInput(pattern string, r Request) (*dynamodb.QueryInput, error) {
	ins, err := t.inputs(pattern, r)
	if err == nil && len(ins) != 1 {
		err = fmt.Errorf("the pattern is sharded into %d requests; use QueryInputs", len(ins))
	}
	if err != nil {
		return nil, wrap("QueryInput", pattern, err)
	}
	return ins[0], nil
}

// QueryInputs builds a pattern's requests: one, or one per shard.
func (t *Table) QueryInputs(pattern string, r Request) ([]*dynamodb.QueryInput, error) {
	ins, err := t.inputs(pattern, r)
	return ins, wrap("QueryInputs", pattern, err)
}

// inputs builds a pattern's requests with the plan that reads it now.
func (t *Table) inputs(pattern string, r Request) ([]*dynamodb.QueryInput, error) {
	if via := t.via(pattern); via != nil {
		return via.queryInputs(pattern, r)
	}
	return t.queryInputs(pattern, &r)
}

func (t *Table) queryInputs(pattern string, r *Request) ([]*dynamodb.QueryInput, error) {
	p, pp, err := t.pattern(pattern)
	if err != nil {
		return nil, err
	}
	if pp.Operation != patterns.Query {
		return nil, fmt.Errorf("served by %s; use GetItemInput", pp.Operation)
	}
	if sorted := t.m.SortedMember(p); sorted != "" && r.Range != nil {
		return nil, fmt.Errorf("%w: %s is a sorted collection, read whole (a range on %s would leave out its owner): read %s's items with a pattern of their own", ErrBadRange, p.Name, p.Sort[0], sorted)
	}
	e := t.m.Entity(p.Entities[0])
	v, err := t.params(p, e, r.Params)
	if err != nil {
		return nil, err
	}
	if c := t.nativeConds[pattern]; c != nil {
		in, err := t.nativeQueryInput(p, pp, c, v, r)
		if err != nil {
			return nil, err
		}
		return []*dynamodb.QueryInput{in}, nil
	}
	kc := pp.KeyCondition
	pkName, skName := t.d.KeyNames(pp.Index)
	skCond, hasSK, err := t.sortCondition(e, kc, skName, v, r.Range)
	if err != nil {
		return nil, err
	}
	shards := max(kc.PK.Shards(), 1)
	ins := make([]*dynamodb.QueryInput, 0, shards)
	for shard := range shards {
		pk, err := renderShard(e, kc.PK, v, shard)
		if err != nil {
			return nil, err
		}
		cond := expression.Key(pkName).Equal(expression.Value(pk))
		if hasSK {
			cond = cond.And(skCond)
		}
		in, err := t.queryInput(p, pp, cond, r)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// queryInput is the Query of pattern p (plan pp) with key condition
// cond, as every read of it is made, natively keyed or not: the
// pattern's projection, expired items filtered out where it hides them,
// its order, a count where it counts, its limit unless the request
// gives one, a consistent read of the table or an LSI where it asks for
// one.
func (t *Table) queryInput(p *model.Pattern, pp *patterns.PatternPlan, cond expression.KeyConditionBuilder, r *Request) (*dynamodb.QueryInput, error) {
	b := expression.NewBuilder().WithKeyCondition(cond)
	if len(p.Returns) > 0 {
		b = b.WithProjection(t.projection(p, pp))
	}
	if ttl := t.hides(pp); ttl != "" {
		b = b.WithFilter(t.expiryFilter(ttl))
	}
	expr, err := b.Build()
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(t.name),
		KeyConditionExpression:    expr.KeyCondition(),
		FilterExpression:          expr.Filter(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ProjectionExpression:      expr.Projection(),
		ScanIndexForward:          aws.Bool(!pp.Desc),
		ExclusiveStartKey:         r.StartKey,
	}
	if pp.Count {
		in.Select = types.SelectCount
	}
	if pp.Index != model.BaseIndex {
		in.IndexName = aws.String(pp.Index)
	}
	if ix := t.d.Index(pp.Index); pp.Index == model.BaseIndex || ix != nil && ix.Local() {
		in.ConsistentRead = aws.Bool(pp.Consistent) // the table and its LSIs read consistently
	}
	limit := r.Limit
	if limit == 0 && p.Limit > 0 {
		limit = int32(p.Limit)
	}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	if r.ConsumedCapacity {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	return in, nil
}

// renderShard renders a partition key with the shard segment set.
func renderShard(e *model.Entity, tmpl model.Template, v Values, shard int) (string, error) {
	if tmpl.Shards() == 0 {
		return render(e, tmpl, v)
	}
	fixed := make(model.Template, len(tmpl))
	for i, s := range tmpl {
		if s.Shards > 0 {
			s = model.Segment{Lit: fmt.Sprint(shard)}
		}
		fixed[i] = s
	}
	return render(e, fixed, v)
}

// upper is the least string above every key that starts with prefix:
// "MATCH#" -> "MATCH$" (encoded values never hold a byte at or below '#',
// so nothing else falls between), "createdat_" -> "createdat`".
func upper(prefix string) string {
	if strings.HasSuffix(prefix, string(model.Sep)) {
		return prefix[:len(prefix)-1] + "$"
	}
	// A label that does not end with the separator (createdat_ in a
	// hand-made $video_1#createdat_{createdAt}): values after it take any
	// byte above '$', so the bound is the label with its last character
	// raised (a character, so that the bound stays UTF-8).
	for p := prefix; p != ""; {
		r, n := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-n]
		switch {
		case r == utf8.RuneError || r == unicode.MaxRune:
			continue // no character above: raise the one before
		case r == 0xD7FF:
			return p + string(rune(0xE000)) // over the surrogates
		}
		return p + string(r+1)
	}
	return prefix + "$"
}

// sortCondition is the sort-key condition: the plan's own, or a range on
// the sort attribute kept within the entity's prefix.
func (t *Table) sortCondition(e *model.Entity, kc *patterns.KeyCondition, sk string, v Values, r *Range) (expression.KeyConditionBuilder, bool, error) {
	key := expression.Key(sk)
	if r == nil {
		switch kc.SKOp {
		case patterns.SKEqual:
			s, err := render(e, kc.SK, v)
			return key.Equal(expression.Value(s)), err == nil, err
		case patterns.SKBeginsWith:
			s, err := render(e, kc.SK, v)
			return key.BeginsWith(s), err == nil, err
		case patterns.SKBetween:
			lo, err := render(e, kc.SK, v)
			if err != nil {
				return expression.KeyConditionBuilder{}, false, err
			}
			hi, err := render(e, kc.Upper, v)
			return key.Between(expression.Value(lo), expression.Value(hi)), err == nil, err
		}
		return expression.KeyConditionBuilder{}, false, nil
	}
	if kc.SortAttr == "" {
		return expression.KeyConditionBuilder{}, false, fmt.Errorf("%w: the pattern has no sort attribute", ErrBadRange)
	}
	switch {
	case r.Value == nil:
		return expression.KeyConditionBuilder{}, false, fmt.Errorf("%w: %s with no Value", ErrBadRange, cmp.Or(string(r.Op), "a range"))
	case r.Op == Between && r.Upper == nil:
		return expression.KeyConditionBuilder{}, false, fmt.Errorf("%w: between with no Upper (Value..Upper, both inclusive)", ErrBadRange)
	}
	a := e.Attr(kc.SortAttr)
	prefix, err := render(e, kc.SK, v)
	if err != nil {
		return expression.KeyConditionBuilder{}, false, err
	}
	enc := func(x any) (string, error) {
		s, err := a.EncodeKey(x)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrBadRange, err)
		}
		return prefix + s, nil
	}
	// last: the sort attribute ends the key (no "#…" after its value).
	last := kc.SortEnds
	// top stands for the end of the keys after prefix. With no prefix (a
	// bare "{attr}" sort key) the range is bounded on one side only, or
	// not at all: no string is below every key ("" is no key value) nor
	// above every key, so a bound made up for it would be disordered.
	top := upper(prefix)
	between := func(a, b string) (expression.KeyConditionBuilder, bool, error) {
		switch {
		case prefix != "":
			if b < a {
				// Never sent: DynamoDB refuses a BETWEEN whose upper bound
				// is below its lower one.
				return expression.KeyConditionBuilder{}, false, ErrEmptyRange
			}
			return key.Between(expression.Value(a), expression.Value(b)), true, nil
		case a == "" && b == top:
			return expression.KeyConditionBuilder{}, false, nil
		case a == "":
			return key.LessThanEqual(expression.Value(b)), true, nil
		case b == top:
			return key.GreaterThanEqual(expression.Value(a)), true, nil
		case b < a:
			return expression.KeyConditionBuilder{}, false, ErrEmptyRange
		}
		return key.Between(expression.Value(a), expression.Value(b)), true, nil
	}
	whole := func() (expression.KeyConditionBuilder, bool, error) { return between(prefix, top) }
	// A bound outside the values the attribute can hold makes the range
	// empty or whole, not an error.
	side, err := a.RangeSide(r.Value)
	if err != nil {
		return expression.KeyConditionBuilder{}, false, fmt.Errorf("%w: %v", ErrBadRange, err)
	}
	switch {
	case side < 0 && (r.Op == Eq || r.Op == Lt || r.Op == Le):
		return expression.KeyConditionBuilder{}, false, ErrEmptyRange
	case side > 0 && (r.Op == Eq || r.Op == Gt || r.Op == Ge || r.Op == Between):
		return expression.KeyConditionBuilder{}, false, ErrEmptyRange
	case side < 0 && (r.Op == Gt || r.Op == Ge):
		return whole()
	case side > 0 && (r.Op == Lt || r.Op == Le):
		return whole()
	}
	if r.Op == Between {
		up, err := a.RangeSide(r.Upper)
		if err != nil {
			return expression.KeyConditionBuilder{}, false, fmt.Errorf("%w: %v", ErrBadRange, err)
		}
		switch {
		case up < 0:
			return expression.KeyConditionBuilder{}, false, ErrEmptyRange
		case side < 0 && up > 0:
			return whole()
		case side < 0:
			hi, err := enc(r.Upper)
			if err != nil {
				return expression.KeyConditionBuilder{}, false, err
			}
			return between(prefix, hi+"$")
		case up > 0:
			lo, err := enc(r.Value)
			if err != nil {
				return expression.KeyConditionBuilder{}, false, err
			}
			return between(lo, top)
		}
	}
	lo, err := enc(r.Value)
	if err != nil {
		return expression.KeyConditionBuilder{}, false, err
	}
	switch r.Op {
	case Eq:
		if last {
			return key.Equal(expression.Value(lo)), true, nil
		}
		return key.BeginsWith(lo + string(model.Sep)), true, nil
	case Ge:
		return between(lo, top)
	case Gt:
		return between(lo+"$", top)
	case Le:
		return between(prefix, lo+"$")
	case Lt:
		if !last {
			// Keys of the value itself continue "#…", above lo.
			return between(prefix, lo)
		}
		if a.Decimals() {
			// no value precedes a decimal: the greatest key form below it
			return between(prefix, prefix+a.KeyBelow(lo[len(prefix):]))
		}
		prev, err := predecessor(a, r.Value)
		if err != nil {
			return expression.KeyConditionBuilder{}, false, err
		}
		if below, _ := a.RangeSide(prev); below < 0 {
			return expression.KeyConditionBuilder{}, false, ErrEmptyRange // < the least value
		}
		p, err := enc(prev)
		if err != nil {
			return expression.KeyConditionBuilder{}, false, err
		}
		return between(prefix, p+"$")
	case Between:
		hi, err := enc(r.Upper)
		if err != nil {
			return expression.KeyConditionBuilder{}, false, err
		}
		if hi < lo {
			return expression.KeyConditionBuilder{}, false, fmt.Errorf("%w: between %v and %v is empty", ErrBadRange, r.Value, r.Upper)
		}
		return between(lo, hi+"$")
	case BeginsWith:
		if a.Type != model.TypeString || len(a.Values) > 0 {
			return expression.KeyConditionBuilder{}, false, fmt.Errorf("%w: begins_with applies to a string sort attribute", ErrBadRange)
		}
		return key.BeginsWith(lo), true, nil
	}
	return expression.KeyConditionBuilder{}, false, fmt.Errorf("%w: op %q; expected =, <, <=, >, >=, between or begins_with", ErrBadRange, r.Op)
}

// predecessor is the greatest value below v, for attributes whose keys
// have one (integers, millisecond times).
func predecessor(a *model.Attribute, v any) (any, error) {
	if s := model.Scalar(a.Type); s == nil || !s.Discrete {
		return nil, fmt.Errorf("%w: < on a %s that ends the sort key has no single key condition; use <=", ErrBadRange, a.Type)
	}
	s, err := a.EncodeKey(v)
	if err != nil {
		return nil, err
	}
	x, _ := a.DecodeKey(s)
	if tm, ok := x.(time.Time); ok {
		return tm.Add(-time.Millisecond), nil
	}
	return x.(int64) - 1, nil
}
