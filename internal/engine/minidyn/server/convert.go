package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Limits on what a request may hold.
const (
	// MaxAttributeNameBytes: an attribute name is shorter than 64 KB.
	MaxAttributeNameBytes = 65535
	// MaxNesting is how deep lists and maps may nest (32 levels).
	MaxNesting = 32
)

// fromWire checks an attribute value as DynamoDB does (exactly one type,
// numbers in range, sets neither empty nor with duplicates, NULL true,
// nesting within 32 levels) and converts it, numbers normalized
// ("1e3" is stored as "1000").
func fromWire(av *AttributeValue) (*types.Item, error) {
	return fromWireDepth(av, 0)
}

func fromWireDepth(av *AttributeValue, depth int) (*types.Item, error) {
	if av == nil {
		return nil, validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	}

	if depth > MaxNesting {
		return nil, validation("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")
	}

	set := 0
	for _, present := range []bool{av.S != nil, av.N != nil, av.B != nil, av.BOOL != nil, av.NULL != nil,
		av.SS != nil, av.NS != nil, av.BS != nil, av.L != nil, av.M != nil} {
		if present {
			set++
		}
	}

	switch {
	case set == 0:
		return nil, validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	case set > 1:
		return nil, validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	}

	out := &types.Item{}

	switch {
	case av.S != nil:
		s := *av.S
		out.S = &s
	case av.N != nil:
		n, err := types.NormalizeNumber(*av.N)
		if err != nil {
			return nil, validation("%s", err.Error())
		}

		out.N = &n
	case av.B != nil:
		out.B = av.B
	case av.BOOL != nil:
		b := *av.BOOL
		out.BOOL = &b
	case av.NULL != nil:
		if !*av.NULL {
			return nil, validation("One or more parameter values were invalid: Null attribute value types must have the value of true")
		}

		t := true
		out.NULL = &t
	case av.SS != nil:
		if len(av.SS) == 0 {
			return nil, validation("One or more parameter values were invalid: An string set  may not be empty")
		}

		ss, err := uniqueStrings(av.SS, func(s string) (string, error) { return s, nil })
		if err != nil {
			return nil, err
		}

		out.SS = ss
	case av.NS != nil:
		if len(av.NS) == 0 {
			return nil, validation("One or more parameter values were invalid: An number set  may not be empty")
		}

		ns, err := uniqueStrings(av.NS, types.NormalizeNumber)
		if err != nil {
			return nil, err
		}

		out.NS = ns
	case av.BS != nil:
		if len(av.BS) == 0 {
			return nil, validation("One or more parameter values were invalid: Binary sets should not be empty")
		}

		seen := map[string]bool{}
		parts := make([]string, len(av.BS))

		for i, b := range av.BS {
			parts[i] = string(b)
		}

		for _, b := range av.BS {
			if seen[string(b)] {
				return nil, validation("One or more parameter values were invalid: Input collection [%s] contains duplicates", strings.Join(parts, ", "))
			}

			seen[string(b)] = true
		}

		out.BS = slices.Clone(av.BS)
	case av.L != nil:
		out.L = make([]*types.Item, len(av.L))

		for i, e := range av.L {
			v, err := fromWireDepth(e, depth+1)
			if err != nil {
				return nil, err
			}

			out.L[i] = v
		}
	case av.M != nil:
		m, err := fromWireMapDepth(av.M, depth+1)
		if err != nil {
			return nil, err
		}

		out.M = m
	}

	types.SortSet(out)

	return out, nil
}

// uniqueStrings converts a string or number set, refusing duplicates
// (numbers compared by value).
func uniqueStrings(in []*string, norm func(string) (string, error)) ([]*string, error) {
	out := make([]*string, len(in))
	seen := map[string]bool{}
	parts := make([]string, len(in))

	for i, s := range in {
		if s == nil {
			return nil, validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
		}

		parts[i] = *s
	}

	for i, s := range in {
		v, err := norm(*s)
		if err != nil {
			return nil, validation("%s", err.Error())
		}

		if seen[v] {
			return nil, validation("One or more parameter values were invalid: Input collection [%s] contains duplicates", strings.Join(parts, ", "))
		}

		seen[v] = true
		out[i] = &v
	}

	return out, nil
}

// checkAttributeName refuses an empty or too long attribute name.
func checkAttributeName(name string) error {
	switch {
	case name == "":
		return validation("Empty attribute name")
	case len(name) > MaxAttributeNameBytes:
		return validation("Attribute name is too large, must be less than %d bytes", MaxAttributeNameBytes+1)
	}

	return nil
}

// fromWireMap checks and converts an item, a key or a map value; nil
// stays nil.
func fromWireMap(m map[string]*AttributeValue) (map[string]*types.Item, error) {
	return fromWireMapDepth(m, 0)
}

func fromWireMapDepth(m map[string]*AttributeValue, depth int) (map[string]*types.Item, error) {
	if m == nil {
		return nil, nil
	}

	out := make(map[string]*types.Item, len(m))

	for k, v := range m {
		if err := checkAttributeName(k); err != nil {
			return nil, err
		}

		it, err := fromWireDepth(v, depth)
		if err != nil {
			return nil, err
		}

		out[k] = it
	}

	return out, nil
}

// toWire converts a stored value for a response.
func toWire(it *types.Item) *AttributeValue {
	if it == nil {
		return nil
	}

	out := &AttributeValue{S: it.S, N: it.N, B: it.B, BOOL: it.BOOL, NULL: it.NULL, SS: it.SS, NS: it.NS, BS: it.BS}

	if it.L != nil {
		out.L = make([]*AttributeValue, len(it.L))
		for i, e := range it.L {
			out.L[i] = toWire(e)
		}
	}

	if it.M != nil {
		out.M = toWireMap(it.M)
	}

	return out
}

// toWireMap converts an item for a response; nil stays nil.
func toWireMap(m map[string]*types.Item) map[string]*AttributeValue {
	if m == nil {
		return nil
	}

	out := make(map[string]*AttributeValue, len(m))
	for k, v := range m {
		out[k] = toWire(v)
	}

	return out
}

// apiError is an error DynamoDB answers with: its type and message.
type apiError struct {
	Code    string
	Message string
}

func (e *apiError) Error() string        { return e.Code + ": " + e.Message }
func (e *apiError) ErrorCode() string    { return e.Code }
func (e *apiError) ErrorMessage() string { return e.Message }

// ErrorFault is smithy.APIError's: the client's fault.
func (e *apiError) ErrorFault() smithy.ErrorFault { return smithy.FaultClient }

func validation(format string, args ...any) error {
	return &apiError{Code: "ValidationException", Message: fmt.Sprintf(format, args...)}
}
