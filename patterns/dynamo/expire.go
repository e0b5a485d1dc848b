package dynamo

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Hiding expired items. DynamoDB deletes an item whose TTL attribute
// (epoch seconds) has passed only later, up to days later; until then
// every GetItem and Query returns it. A pattern that hides them
// (PatternPlan.HideExpired) reads with a FilterExpression,
// attribute_not_exists(ttl) OR ttl >= now, and checks a GetItem's item
// itself. DynamoDB applies a Query's Limit before its filter, so a page
// can come back short though more items follow: the runtime reads on
// until the page is full or the key range ends. Each expired item read
// costs what any item read costs (docs/model.md).

// hides is the TTL attribute a pattern's read filters on: its plan's,
// when the index the read is served by holds it ("": none).
func (t *Table) hides(pp *patterns.PatternPlan) string {
	if pp.HideExpired == "" || pp.Index == model.BaseIndex {
		return pp.HideExpired
	}
	if ix := t.d.Index(pp.Index); ix != nil && (stores(ix, pp.HideExpired) || ix.Native() && contains(ix.KeyAttributes(), pp.HideExpired)) {
		return pp.HideExpired
	}
	for _, name := range pp.Entities {
		if k := t.d.Entity(name).Key(pp.Index); k != nil && (contains(k.PK.Attrs(), pp.HideExpired) || contains(k.SK.Attrs(), pp.HideExpired)) {
			return pp.HideExpired
		}
	}
	return "" // an index deployed before: it cannot tell (docs/model.md)
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// expiryFilter is the filter that keeps the items whose TTL has not
// passed: no TTL, or one at or after now.
func (t *Table) expiryFilter(ttl string) expression.ConditionBuilder {
	name := expression.Name(ttl)
	return expression.AttributeNotExists(name).Or(name.GreaterThanEqual(expression.Value(t.now().Unix())))
}

// expired reports whether an item's TTL has passed on the table's clock.
func (t *Table) expired(ttl string, item map[string]types.AttributeValue) bool {
	n, ok := item[ttl].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	s, err := strconv.ParseFloat(n.Value, 64)
	return err == nil && s < float64(t.now().Unix())
}

// fill reads a hiding Query's page: on while DynamoDB stops short of the
// page's limit (or, without one, returns nothing) and the key range goes
// on. It returns the raw items, the last evaluated key, and counts the
// requests, the capacity and the items hidden into page.
func (t *Table) fill(ctx context.Context, in *dynamodb.QueryInput, hides bool, page *Page) ([]map[string]types.AttributeValue, map[string]types.AttributeValue, error) {
	limit := int(aws.ToInt32(in.Limit))
	var items []map[string]types.AttributeValue
	next := *in
	for {
		out, err := t.client.Query(ctx, &next)
		if err != nil {
			return nil, nil, err
		}
		page.Requests++
		page.Capacity += capacity(out.ConsumedCapacity)
		items = append(items, out.Items...)
		if !hides {
			return items, out.LastEvaluatedKey, nil
		}
		page.Hidden += int(out.ScannedCount - out.Count)
		more := limit > 0 && len(items) < limit || limit == 0 && len(items) == 0
		if len(out.LastEvaluatedKey) == 0 || !more {
			return items, out.LastEvaluatedKey, nil
		}
		next.ExclusiveStartKey = out.LastEvaluatedKey
		if limit > 0 {
			next.Limit = aws.Int32(int32(limit - len(items)))
		}
	}
}
