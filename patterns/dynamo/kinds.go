package dynamo

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns/model"
)

// Values beyond one scalar: sets (SS, NS), lists (L) and maps (M) of
// scalars. An empty set is no value: DynamoDB holds no empty set, so the
// attribute is absent (nil).

// storedMany converts a set's, list's or map's value to how it is
// stored; nil (no error) for an empty set.
func storedMany(a *model.Attribute, v any) (types.AttributeValue, error) {
	switch a.Type {
	case model.TypeSet:
		els, err := a.Elements(v)
		if err != nil || len(els) == 0 {
			return nil, err
		}
		return setValue(a, els), nil
	case model.TypeList:
		els, err := a.Elements(v)
		if err != nil {
			return nil, err
		}
		l := make([]types.AttributeValue, len(els))
		for i, x := range els {
			l[i] = element(x)
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case model.TypeMap:
		es, err := a.Entries(v)
		if err != nil {
			return nil, err
		}
		m := make(map[string]types.AttributeValue, len(es))
		for k, x := range es {
			m[k] = element(x)
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("%w: %s.%s is a %s: its shard items hold it (add to it with a write, read it with its pattern)", ErrUnknownAttr, "the item", a.Name, a.Type)
}

// setValue is a set's elements as SS or NS.
func setValue(a *model.Attribute, els []any) types.AttributeValue {
	if a.ElementType() == model.TypeNumber {
		ns := make([]string, len(els))
		for i, x := range els {
			ns[i] = strconv.FormatFloat(x.(float64), 'f', -1, 64)
		}
		return &types.AttributeValueMemberNS{Value: ns}
	}
	ss := make([]string, len(els))
	for i, x := range els {
		ss[i] = x.(string)
	}
	return &types.AttributeValueMemberSS{Value: ss}
}

// element is one element of a list or map as stored.
func element(x any) types.AttributeValue {
	switch y := x.(type) {
	case float64:
		return &types.AttributeValueMemberN{Value: strconv.FormatFloat(y, 'f', -1, 64)}
	case bool:
		return &types.AttributeValueMemberBOOL{Value: y}
	}
	return &types.AttributeValueMemberS{Value: x.(string)}
}

// fromElement reads one element back: string, float64 or bool.
func fromElement(a *model.Attribute, av types.AttributeValue) (any, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return x.Value, nil
	case *types.AttributeValueMemberN:
		return strconv.ParseFloat(x.Value, 64)
	case *types.AttributeValueMemberBOOL:
		return x.Value, nil
	}
	return nil, fmt.Errorf("attribute %s: an element %T where a %s was expected", a.Name, av, a.ElementType())
}

// fromStoredMany reads a set, list or map back: []string, []float64 or
// []bool (a set's sorted), map[string]string, …float64, …bool.
func fromStoredMany(a *model.Attribute, av types.AttributeValue) (any, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberSS:
		out := slices.Clone(x.Value)
		sort.Strings(out)
		return out, nil
	case *types.AttributeValueMemberNS:
		out := make([]float64, len(x.Value))
		for i, s := range x.Value {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		slices.Sort(out)
		return out, nil
	case *types.AttributeValueMemberL:
		els := make([]any, len(x.Value))
		for i, v := range x.Value {
			e, err := fromElement(a, v)
			if err != nil {
				return nil, err
			}
			els[i] = e
		}
		return typedList(a.ElementType(), els), nil
	case *types.AttributeValueMemberM:
		es := make(map[string]any, len(x.Value))
		for k, v := range x.Value {
			e, err := fromElement(a, v)
			if err != nil {
				return nil, err
			}
			es[k] = e
		}
		return typedMap(a.ElementType(), es), nil
	}
	return nil, fmt.Errorf("attribute %s: unexpected %T for a %s", a.Name, av, a.Type)
}

// typedList is a list's elements as the Go slice of its element type.
func typedList(of model.AttrType, els []any) any {
	switch of {
	case model.TypeNumber:
		out := make([]float64, len(els))
		for i, x := range els {
			out[i], _ = x.(float64)
		}
		return out
	case model.TypeBool:
		out := make([]bool, len(els))
		for i, x := range els {
			out[i], _ = x.(bool)
		}
		return out
	}
	out := make([]string, len(els))
	for i, x := range els {
		out[i], _ = x.(string)
	}
	return out
}

// typedMap is a map's entries as the Go map of its element type.
func typedMap(of model.AttrType, es map[string]any) any {
	switch of {
	case model.TypeNumber:
		out := make(map[string]float64, len(es))
		for k, x := range es {
			out[k], _ = x.(float64)
		}
		return out
	case model.TypeBool:
		out := make(map[string]bool, len(es))
		for k, x := range es {
			out[k], _ = x.(bool)
		}
		return out
	}
	out := make(map[string]string, len(es))
	for k, x := range es {
		out[k], _ = x.(string)
	}
	return out
}

// withDerived is v with the entity's derived attributes computed (a copy
// when there are any): a value the caller gives for one must be the one
// computed.
func withDerived(e *model.Entity, v Values) (Values, error) {
	out, copied := v, false
	for _, a := range e.Attributes {
		if a.Derived == nil {
			continue
		}
		x, ok, err := e.Derive(a, v)
		if err != nil {
			return nil, err
		}
		if given := v[a.Name]; given != nil && (!ok || !sameStored(a, given, x)) {
			return nil, fmt.Errorf("%w: %s.%s is derived from %v (%v), not %v", ErrDerived, e.Name, a.Name, a.Derived.Sources(), x, given)
		}
		if !ok {
			continue
		}
		if !copied {
			out, copied = make(Values, len(v)+1), true
			for k, y := range v {
				out[k] = y
			}
		}
		out[a.Name] = x
	}
	return out, nil
}

// SameValue compares two attribute values, deeply (nil: absent). Sets
// compare as sets.
func SameValue(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberBOOL:
		y, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		return ok && string(x.Value) == string(y.Value)
	case *types.AttributeValueMemberL:
		y, ok := b.(*types.AttributeValueMemberL)
		return ok && slices.EqualFunc(x.Value, y.Value, SameValue)
	case *types.AttributeValueMemberM:
		y, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for k, v := range x.Value {
			if !SameValue(v, y.Value[k]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberSS:
		y, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(x.Value, y.Value)
	case *types.AttributeValueMemberNS:
		y, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(x.Value, y.Value)
	case *types.AttributeValueMemberBS:
		y, ok := b.(*types.AttributeValueMemberBS)
		if !ok {
			return false
		}
		xs, ys := make([]string, len(x.Value)), make([]string, len(y.Value))
		for i, v := range x.Value {
			xs[i] = string(v)
		}
		for i, v := range y.Value {
			ys[i] = string(v)
		}
		return sameSet(xs, ys)
	}
	return false
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
