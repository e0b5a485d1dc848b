package server

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// The responses a request reads most (GetItem, Query, Scan and the single
// writes) are encoded by hand, appending to one buffer: encoding/json
// reflects over every attribute value, calls its MarshalJSON, and then
// re-scans what that wrote. The output is the same JSON (encoding/json's
// escaping, without its HTML escaping; map keys sorted), checked against
// encoding/json by TestEncodeMatchesEncodingJSON.

// appender is a response that encodes itself.
type appender interface {
	appendJSON(b []byte) ([]byte, error)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it with SetEscapeHTML(false): invalid UTF-8 becomes U+FFFD,
// U+2028 and U+2029 are escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0

	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}

			b = append(b, s[start:i]...)

			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}

			i++
			start = i

			continue
		}

		r, size := utf8.DecodeRuneInString(s[i:])

		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}

		i += size
		start = i
	}

	b = append(b, s[start:]...)

	return append(b, '"')
}

func appendStrings(b []byte, list []*string) []byte {
	b = append(b, '[')

	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}

		if s == nil {
			b = append(b, "null"...)
		} else {
			b = appendString(b, *s)
		}
	}

	return append(b, ']')
}

func appendBinary(b []byte, v []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)

	return append(b, '"')
}

func appendBinaries(b []byte, list [][]byte) []byte {
	b = append(b, '[')

	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}

		if v == nil {
			b = append(b, "null"...)
		} else {
			b = appendBinary(b, v)
		}
	}

	return append(b, ']')
}

// value is what an attribute value holds, whichever form it comes in: T
// is AttributeValue (the wire's) or types.Item (as stored). One encoder
// (appendAttr, appendMap) writes both, through a view of each (wire,
// stored).
type value[T any] struct {
	S, N       *string
	B          []byte
	BOOL, NULL *bool
	SS, NS     []*string
	BS         [][]byte
	L          []*T
	M          map[string]*T
}

// view is how the encoder sees a T (wire, stored).
type view[T any] func(*T) value[T]

func wire(a *AttributeValue) value[AttributeValue] {
	return value[AttributeValue]{S: a.S, N: a.N, B: a.B, BOOL: a.BOOL, NULL: a.NULL, SS: a.SS, NS: a.NS, BS: a.BS, L: a.L, M: a.M}
}

func stored(a *types.Item) value[types.Item] {
	return value[types.Item]{S: a.S, N: a.N, B: a.B, BOOL: a.BOOL, NULL: a.NULL, SS: a.SS, NS: a.NS, BS: a.BS, L: a.L, M: a.M}
}

// appendAttr appends one attribute value ({"S":"x"}), its one type even
// when empty; nil is null.
func appendAttr[T any](b []byte, a *T, see view[T]) []byte {
	if a == nil {
		return append(b, "null"...)
	}

	switch v := see(a); {
	case v.S != nil:
		b = append(b, `{"S":`...)
		b = appendString(b, *v.S)
	case v.N != nil:
		b = append(b, `{"N":`...)
		b = appendString(b, *v.N)
	case v.B != nil:
		b = append(b, `{"B":`...)
		b = appendBinary(b, v.B)
	case v.BOOL != nil:
		b = append(b, `{"BOOL":`...)
		b = strconv.AppendBool(b, *v.BOOL)
	case v.NULL != nil:
		b = append(b, `{"NULL":`...)
		b = strconv.AppendBool(b, *v.NULL)
	case v.SS != nil:
		b = append(b, `{"SS":`...)
		b = appendStrings(b, v.SS)
	case v.NS != nil:
		b = append(b, `{"NS":`...)
		b = appendStrings(b, v.NS)
	case v.BS != nil:
		b = append(b, `{"BS":`...)
		b = appendBinaries(b, v.BS)
	case v.L != nil:
		b = append(b, `{"L":[`...)

		for i, e := range v.L {
			if i > 0 {
				b = append(b, ',')
			}

			b = appendAttr(b, e, see)
		}

		b = append(b, ']')
	case v.M != nil:
		b = append(b, `{"M":`...)
		b = appendMap(b, v.M, see)
	default:
		return append(b, "{}"...)
	}

	return append(b, '}')
}

// appendMap appends an item (a map of attribute values), its names in
// order; nil is null.
func appendMap[T any](b []byte, m map[string]*T, see view[T]) []byte {
	if m == nil {
		return append(b, "null"...)
	}

	var buf [16]string

	names := buf[:0]
	for k := range m {
		names = append(names, k)
	}

	slices.Sort(names)

	b = append(b, '{')

	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}

		b = appendString(b, k)
		b = append(b, ':')
		b = appendAttr(b, m[k], see)
	}

	return append(b, '}')
}

// appendValue appends one attribute value as the wire has it.
func appendValue(b []byte, a *AttributeValue) []byte { return appendAttr(b, a, wire) }

// appendValues appends an item as the wire has it.
func appendValues(b []byte, m map[string]*AttributeValue) []byte { return appendMap(b, m, wire) }

// appendItems appends an item as stored.
func appendItems(b []byte, m map[string]*types.Item) []byte { return appendMap(b, m, stored) }

// appendCapacity appends ,"ConsumedCapacity":{...} when there is one.
func appendCapacity(b []byte, cc *consumedJSON) ([]byte, error) {
	if cc == nil {
		return b, nil
	}

	raw, err := json.Marshal(cc)
	if err != nil {
		return b, err
	}

	if len(b) > 1 {
		b = append(b, ',')
	}

	b = append(b, `"ConsumedCapacity":`...)

	return append(b, raw...), nil
}

// appendWriteOutput is a single write's response: Attributes (when there
// are any) and ConsumedCapacity.
func appendWriteOutput(b []byte, attributes map[string]*AttributeValue, cc *consumedJSON) ([]byte, error) {
	b = append(b, '{')

	if len(attributes) > 0 {
		b = append(b, `"Attributes":`...)
		b = appendValues(b, attributes)
	}

	b, err := appendCapacity(b, cc)

	return append(b, '}'), err
}

func (o *PutItemOutput) appendJSON(b []byte) ([]byte, error) {
	return appendWriteOutput(b, o.Attributes, o.ConsumedCapacity)
}

func (o *DeleteItemOutput) appendJSON(b []byte) ([]byte, error) {
	return appendWriteOutput(b, o.Attributes, o.ConsumedCapacity)
}

func (o *UpdateItemOutput) appendJSON(b []byte) ([]byte, error) {
	return appendWriteOutput(b, o.Attributes, o.ConsumedCapacity)
}

func (o *GetItemOutput) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')

	switch {
	case o.stored != nil:
		b = append(b, `"Item":`...)
		b = appendItems(b, o.stored)
	case o.Item != nil:
		b = append(b, `"Item":`...)
		b = appendValues(b, *o.Item)
	}

	b, err := appendCapacity(b, o.ConsumedCapacity)

	return append(b, '}'), err
}

// appendPage is a Query's or Scan's response, from its page as stored
// (p) or from the exported fields (p nil).
func appendPage(b []byte, p *page, items *[]map[string]*AttributeValue, count, scanned int32, last map[string]*AttributeValue, cc *consumedJSON) ([]byte, error) {
	if p != nil {
		return appendItemsPage(b, p.items, !p.count, count, scanned, p.last, stored, cc)
	}

	var list []map[string]*AttributeValue
	if items != nil {
		list = *items
	}

	return appendItemsPage(b, list, items != nil, count, scanned, last, wire, cc)
}

// appendItemsPage is appendPage for items of one form: Items when
// withItems, Count, ScannedCount, LastEvaluatedKey when there is one, and
// ConsumedCapacity.
func appendItemsPage[T any](b []byte, items []map[string]*T, withItems bool, count, scanned int32, last map[string]*T, see view[T], cc *consumedJSON) ([]byte, error) {
	b = append(b, '{')

	if withItems {
		b = append(b, `"Items":[`...)

		for i, it := range items {
			if i > 0 {
				b = append(b, ',')
			}

			b = appendMap(b, it, see)
		}

		b = append(b, "],"...)
	}

	b = append(b, `"Count":`...)
	b = strconv.AppendInt(b, int64(count), 10)
	b = append(b, `,"ScannedCount":`...)
	b = strconv.AppendInt(b, int64(scanned), 10)

	if len(last) > 0 {
		b = append(b, `,"LastEvaluatedKey":`...)
		b = appendMap(b, last, see)
	}

	b, err := appendCapacity(b, cc)

	return append(b, '}'), err
}

func (o *QueryOutput) appendJSON(b []byte) ([]byte, error) {
	return appendPage(b, o.page, o.Items, o.Count, o.ScannedCount, o.LastEvaluatedKey, o.ConsumedCapacity)
}

func (o *ScanOutput) appendJSON(b []byte) ([]byte, error) {
	return appendPage(b, o.page, o.Items, o.Count, o.ScannedCount, o.LastEvaluatedKey, o.ConsumedCapacity)
}
