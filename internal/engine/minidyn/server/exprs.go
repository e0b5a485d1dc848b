package server

import (
	"maps"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
	"github.com/keyplan/keyplan/internal/engine/minidyn/expression"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// exprParams are a request's expression parameters and their legacy
// counterparts.
type exprParams struct {
	names  map[string]string
	values map[string]*AttributeValue

	condition, filter, keyCondition, projection, update *string

	expected            map[string]ExpectedAttributeValue
	conditionalOperator string
	legacyFilter        map[string]Condition
	legacyFilterName    string // QueryFilter or ScanFilter
	keyConditions       map[string]Condition
	attributesToGet     []string
	attributeUpdates    map[string]AttributeValueUpdate
	// valuesNeed names the expressions ExpressionAttributeValues could
	// serve, for DynamoDB's message when none is given.
	valuesNeed string
}

// exprs are the parsed expressions of a request (nil where absent).
type exprs struct {
	cond, filter   *expression.Condition
	keyCond        *expression.Condition
	legacyKeyConds []expression.LegacyCondition
	proj           *expression.Projection
	upd            *expression.Update
}

// parseExprs checks and parses a request's expressions as DynamoDB does:
// expression and legacy parameters not mixed, placeholders defined and
// all used, values valid.
func parseExprs(p exprParams) (*exprs, error) {
	var legacy, modern []string

	addIf := func(list *[]string, present bool, name string) {
		if present {
			*list = append(*list, name)
		}
	}

	addIf(&legacy, p.attributesToGet != nil, "AttributesToGet")
	addIf(&legacy, p.attributeUpdates != nil, "AttributeUpdates")
	addIf(&legacy, p.expected != nil, "Expected")
	// KeyConditions mixes with expressions (DynamoDB allows it).
	addIf(&legacy, p.legacyFilter != nil, p.legacyFilterName)
	addIf(&modern, p.projection != nil, "ProjectionExpression")
	addIf(&modern, p.update != nil, "UpdateExpression")
	addIf(&modern, p.condition != nil, "ConditionExpression")
	addIf(&modern, p.keyCondition != nil, "KeyConditionExpression")
	addIf(&modern, p.filter != nil, "FilterExpression")

	if p.keyConditions != nil && p.keyCondition != nil {
		return nil, validation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}")
	}

	if len(legacy) > 0 && len(modern) > 0 {
		return nil, validation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
			strings.Join(legacy, ", "), strings.Join(modern, ", "))
	}

	if p.conditionalOperator != "" && len(p.expected) == 0 && len(p.legacyFilter) == 0 {
		return nil, validation("ConditionalOperator cannot be used without Filter or Expected")
	}

	if len(modern) == 0 {
		if p.names != nil {
			return nil, validation("ExpressionAttributeNames can only be specified when using expressions")
		}

		if p.values != nil {
			if p.valuesNeed != "" {
				return nil, validation("ExpressionAttributeValues can only be specified when using expressions: %s", p.valuesNeed)
			}

			return nil, validation("ExpressionAttributeValues can only be specified when using expressions")
		}
	}

	for _, k := range slices.Sorted(maps.Keys(p.names)) {
		if err := checkAttributeName(p.names[k]); err != nil {
			return nil, validation("ExpressionAttributeNames contains invalid value: %s for key %s", err.(*apiError).Message, k)
		}
	}

	values := map[string]*types.Item(nil)
	if p.values != nil {
		values = map[string]*types.Item{}

		for _, k := range slices.Sorted(maps.Keys(p.values)) {
			v, err := fromWire(p.values[k])
			if err != nil {
				return nil, validation("ExpressionAttributeValues contains invalid value: %s for key %s", err.(*apiError).Message, k)
			}

			values[k] = v
		}
	}

	req, err := expression.NewRequest(p.names, values)
	if err != nil {
		return nil, validation("%s", err.Error())
	}

	out := &exprs{}

	if p.update != nil {
		if out.upd, err = expression.ParseUpdate(*p.update, req); err != nil {
			return nil, validation("%s", err.Error())
		}
	}

	for _, c := range []struct {
		src  *string
		kind expression.Kind
		dst  **expression.Condition
	}{
		{p.condition, expression.ConditionExpression, &out.cond},
		{p.keyCondition, expression.KeyConditionExpression, &out.keyCond},
		{p.filter, expression.FilterExpression, &out.filter},
	} {
		if c.src == nil {
			continue
		}

		if *c.dst, err = expression.ParseCondition(c.kind, *c.src, req); err != nil {
			return nil, validation("%s", err.Error())
		}
	}

	if p.projection != nil {
		if out.proj, err = expression.ParseProjection(*p.projection, req); err != nil {
			return nil, validation("%s", err.Error())
		}
	}

	if err := req.CheckUnused(); err != nil {
		return nil, validation("%s", err.Error())
	}

	if err := out.legacy(p); err != nil {
		return nil, err
	}

	return out, nil
}

// legacy builds the legacy parameters' conditions, update and projection.
func (out *exprs) legacy(p exprParams) error {
	if p.expected != nil {
		conds, err := legacyConditions(expectedConditions(p.expected))
		if err != nil {
			return err
		}

		if out.cond, err = expression.BuildLegacyCondition(conds, p.conditionalOperator); err != nil {
			return validation("%s", err.Error())
		}
	}

	if p.legacyFilter != nil {
		conds, err := legacyConditions(p.legacyFilter, nil)
		if err != nil {
			return err
		}

		if out.filter, err = expression.BuildLegacyCondition(conds, p.conditionalOperator); err != nil {
			return validation("%s", err.Error())
		}
	}

	if p.keyConditions != nil {
		conds, err := legacyConditions(p.keyConditions, nil)
		if err != nil {
			return err
		}

		out.legacyKeyConds = conds
	}

	if p.attributeUpdates != nil {
		var updates []expression.LegacyUpdate

		for name, u := range p.attributeUpdates {
			if err := checkAttributeName(name); err != nil {
				return err
			}

			lu := expression.LegacyUpdate{Attr: name, Action: string(u.Action)}

			if u.Value != nil {
				v, err := fromWire(u.Value)
				if err != nil {
					return err
				}

				lu.Value = v
			}

			updates = append(updates, lu)
		}

		var err error
		if out.upd, err = expression.BuildLegacyUpdate(updates); err != nil {
			return validation("%s", err.Error())
		}
	}

	if p.attributesToGet != nil {
		for _, n := range p.attributesToGet {
			if err := checkAttributeName(n); err != nil {
				return err
			}
		}

		var err error
		if out.proj, err = expression.ProjectAttributes(p.attributesToGet); err != nil {
			return validation("%s", err.Error())
		}
	}

	return nil
}

// expectedConditions turns Expected into Conditions plus what only
// Expected has (Exists, Value).
func expectedConditions(expected map[string]ExpectedAttributeValue) (map[string]Condition, map[string]ExpectedAttributeValue) {
	conds := make(map[string]Condition, len(expected))

	for name, e := range expected {
		conds[name] = Condition{ComparisonOperator: e.ComparisonOperator, AttributeValueList: e.AttributeValueList}
	}

	return conds, expected
}

// legacyConditions converts legacy conditions (and Expected's extras).
func legacyConditions(conds map[string]Condition, expected map[string]ExpectedAttributeValue) ([]expression.LegacyCondition, error) {
	out := make([]expression.LegacyCondition, 0, len(conds))

	for _, name := range slices.Sorted(maps.Keys(conds)) {
		c := conds[name]
		lc := expression.LegacyCondition{Attr: name, Op: string(c.ComparisonOperator), HasList: c.AttributeValueList != nil}

		for _, av := range c.AttributeValueList {
			v, err := fromWire(av)
			if err != nil {
				return nil, err
			}

			lc.Values = append(lc.Values, v)
		}

		if e, ok := expected[name]; ok {
			lc.Expected = true
			lc.Exists = e.Exists

			if e.Value != nil {
				v, err := fromWire(e.Value)
				if err != nil {
					return nil, err
				}

				lc.Value = v
			}
		}

		out = append(out, lc)
	}

	return out, nil
}

// checkKeyPaths refuses a condition, filter or projection with a nested
// path (a.b, a[0]) into a key attribute of the table or of any of its
// indexes, as DynamoDB does, whatever the item holds.
func (ex *exprs) checkKeyPaths(table *core.Table) error {
	var paths []expression.Path

	for _, c := range []*expression.Condition{ex.cond, ex.filter, ex.keyCond} {
		if c != nil {
			paths = append(paths, c.Paths()...)
		}
	}

	if ex.proj != nil {
		paths = append(paths, ex.proj.Paths...)
	}

	// An update's paths are checked after its condition, as DynamoDB
	// Local does (PrepareUpdate: a key attribute is not updated).

	for _, p := range paths {
		if err := table.CheckKeyPath(p); err != nil {
			return apiErr(err)
		}
	}

	return nil
}
