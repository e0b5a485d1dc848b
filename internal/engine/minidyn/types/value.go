package types

import (
	"bytes"
	"slices"
	"strings"
)

// The DynamoDB type names of an attribute value.
const (
	TypeS    = "S"
	TypeN    = "N"
	TypeB    = "B"
	TypeBOOL = "BOOL"
	TypeNULL = "NULL"
	TypeSS   = "SS"
	TypeNS   = "NS"
	TypeBS   = "BS"
	TypeL    = "L"
	TypeM    = "M"
)

// TypeOf is the DynamoDB type of v: the one field it holds (an empty
// list, map or binary holds its field as a non-nil empty value); "" for a
// value that holds none.
func TypeOf(v *Item) string {
	switch {
	case v == nil:
		return ""
	case v.S != nil:
		return TypeS
	case v.N != nil:
		return TypeN
	case v.B != nil:
		return TypeB
	case v.BOOL != nil:
		return TypeBOOL
	case v.NULL != nil:
		return TypeNULL
	case v.SS != nil:
		return TypeSS
	case v.NS != nil:
		return TypeNS
	case v.BS != nil:
		return TypeBS
	case v.L != nil:
		return TypeL
	case v.M != nil:
		return TypeM
	}

	return ""
}

// IsScalarKeyType reports whether t can be a key attribute's type.
func IsScalarKeyType(t string) bool { return t == TypeS || t == TypeN || t == TypeB }

// Compare orders two values of the same scalar type (S and B by bytes, N
// by value); ok is false for any other pair, which DynamoDB does not order.
func Compare(a, b *Item) (c int, ok bool) {
	ta, tb := TypeOf(a), TypeOf(b)
	if ta != tb {
		return 0, false
	}

	switch ta {
	case TypeS:
		return strings.Compare(*a.S, *b.S), true
	case TypeB:
		return bytes.Compare(a.B, b.B), true
	case TypeN:
		x, err1 := ParseNumber(*a.N)
		y, err2 := ParseNumber(*b.N)

		if err1 != nil || err2 != nil {
			return 0, false
		}

		return x.Cmp(y), true
	}

	return 0, false
}

// Equal reports whether two values are equal as DynamoDB compares them:
// same type, numbers by value, sets whatever their order, lists element
// by element, maps key by key.
func Equal(a, b *Item) bool {
	ta := TypeOf(a)
	if ta == "" || ta != TypeOf(b) {
		return false
	}

	switch ta {
	case TypeS, TypeN, TypeB:
		c, ok := Compare(a, b)
		return ok && c == 0
	case TypeBOOL:
		return *a.BOOL == *b.BOOL
	case TypeNULL:
		return true
	case TypeSS:
		return sameSet(a.SS, b.SS, func(x, y *string) bool { return *x == *y })
	case TypeNS:
		return sameSet(a.NS, b.NS, func(x, y *string) bool {
			c, ok := Compare(&Item{N: x}, &Item{N: y})
			return ok && c == 0
		})
	case TypeBS:
		return sameSet(a.BS, b.BS, bytes.Equal)
	case TypeL:
		return slices.EqualFunc(a.L, b.L, Equal)
	case TypeM:
		if len(a.M) != len(b.M) {
			return false
		}

		for k, v := range a.M {
			w, ok := b.M[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}

		return true
	}

	return false
}

func sameSet[E any](a, b []E, eq func(E, E) bool) bool {
	if len(a) != len(b) {
		return false
	}

	for _, x := range a {
		if !slices.ContainsFunc(b, func(y E) bool { return eq(x, y) }) {
			return false
		}
	}

	return true
}

// Clone is a deep copy of v.
func Clone(v *Item) *Item {
	if v == nil {
		return nil
	}

	c := &Item{}

	switch TypeOf(v) {
	case TypeS:
		s := *v.S
		c.S = &s
	case TypeN:
		n := *v.N
		c.N = &n
	case TypeB:
		c.B = bytes.Clone(v.B)
		if c.B == nil {
			c.B = []byte{}
		}
	case TypeBOOL:
		b := *v.BOOL
		c.BOOL = &b
	case TypeNULL:
		b := *v.NULL
		c.NULL = &b
	case TypeSS:
		c.SS = cloneStrings(v.SS)
	case TypeNS:
		c.NS = cloneStrings(v.NS)
	case TypeBS:
		c.BS = make([][]byte, len(v.BS))
		for i, b := range v.BS {
			c.BS[i] = bytes.Clone(b)
		}
	case TypeL:
		c.L = make([]*Item, len(v.L))
		for i, e := range v.L {
			c.L[i] = Clone(e)
		}
	case TypeM:
		c.M = CloneMap(v.M)
	}

	return c
}

// CloneMap is a deep copy of an item or a map attribute; nil stays nil.
func CloneMap(m map[string]*Item) map[string]*Item {
	if m == nil {
		return nil
	}

	c := make(map[string]*Item, len(m))
	for k, v := range m {
		c[k] = Clone(v)
	}

	return c
}

func cloneStrings(ss []*string) []*string {
	out := make([]*string, len(ss))

	for i, s := range ss {
		if s != nil {
			v := *s
			out[i] = &v
		}
	}

	return out
}

// SortSet puts a set's elements in DynamoDB's order, the order its keys
// sort in: a string set by the bytes of each string's UTF-8, a number
// set by value, a binary set by its bytes unsigned (DynamoDB Local
// 1.25.1 returns every set so, whatever order it was written in;
// TestSetsComeBackInDynamoDBsOrder). Other values are left alone.
func SortSet(v *Item) {
	switch {
	case v == nil:
	case v.SS != nil:
		slices.SortFunc(v.SS, func(a, b *string) int { return strings.Compare(*a, *b) })
	case v.NS != nil:
		slices.SortStableFunc(v.NS, func(a, b *string) int { return CompareNumbers(*a, *b) })
	case v.BS != nil:
		slices.SortFunc(v.BS, bytes.Compare)
	}
}

// CompareNumbers compares two DynamoDB numbers by value (-1, 0, 1); one
// that is no number sorts as its text, after every number.
func CompareNumbers(a, b string) int {
	x, errA := ParseNumber(a)
	y, errB := ParseNumber(b)

	switch {
	case errA == nil && errB == nil:
		return x.Cmp(y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}

	return strings.Compare(a, b)
}
