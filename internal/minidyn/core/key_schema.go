package core

import (
	"strings"

	"github.com/keyplan/keyplan/internal/minidyn/types"
)

// keySchema names the key attributes of a table or an index.
type keySchema struct {
	HashKey  string
	RangeKey string
}

// Encoded keys: a key's parts are joined by keySeparator, and an index
// entry is its index key, entrySeparator, and the item's primary key. No
// two keys collide (escapeKeyPart keeps NUL out of the parts), and each
// part sorts as DynamoDB orders that key type (strings and binaries by
// bytes, numbers by value), so the items of one partition sort by their
// sort key and an index's entries by their index key, then primary key.
const (
	entrySeparator = "\x00\x00"
	keySeparator   = "\x00\x01"
	// afterValue, appended to an encoded sort key value, sorts after
	// every key holding that value and before every greater value.
	afterValue = "\x00\x02"
)

// attributes are the key attributes, hash first.
func (ks keySchema) attributes() []string {
	if ks.RangeKey == "" {
		return []string{ks.HashKey}
	}

	return []string{ks.HashKey, ks.RangeKey}
}

// encode is the item's encoded key; ok is false when the item lacks a
// key attribute or holds one of another type than attrs defines (an item
// that is not in a sparse index).
func (ks keySchema) encode(attrs map[string]string, item map[string]*types.Item) (string, bool) {
	hash, ok := encodePart(item[ks.HashKey], attrs[ks.HashKey])
	if !ok || ks.RangeKey == "" {
		return hash, ok
	}

	sortPart, ok := encodePart(item[ks.RangeKey], attrs[ks.RangeKey])

	return hash + keySeparator + sortPart, ok
}

// encodePart is one key attribute's value, encoded to sort in DynamoDB's
// order for its type.
func encodePart(v *types.Item, typ string) (string, bool) {
	if types.TypeOf(v) != typ {
		return "", false
	}

	switch typ {
	case types.TypeS:
		return escapeKeyPart(*v.S), true
	case types.TypeB:
		return escapeKeyPart(string(v.B)), true
	case types.TypeN:
		n, err := types.OrderedNumber(*v.N)
		return n, err == nil
	}

	return "", false
}

// escapeKeyPart doubles every NUL as NUL 0xFF, which sorts after the
// separators' NUL 0x00..0x02 and keeps byte order.
func escapeKeyPart(s string) string {
	if !strings.Contains(s, "\x00") {
		return s
	}

	return strings.ReplaceAll(s, "\x00", "\x00\xff")
}

// HashKeyPart is the partition key's part of an encoded key (what Scan's
// segments are assigned by).
func HashKeyPart(key string) string {
	if i := strings.Index(key, keySeparator); i >= 0 {
		return key[:i]
	}

	return key
}

func (ks keySchema) describe() []types.KeySchemaElement {
	desc := []types.KeySchemaElement{{AttributeName: ks.HashKey, KeyType: "HASH"}}

	if ks.RangeKey != "" {
		desc = append(desc, types.KeySchemaElement{AttributeName: ks.RangeKey, KeyType: "RANGE"})
	}

	return desc
}

// keyItem is the item's key attributes.
func (ks keySchema) keyItem(item map[string]*types.Item) map[string]*types.Item {
	out := map[string]*types.Item{}

	for _, a := range ks.attributes() {
		if v, ok := item[a]; ok {
			out[a] = v
		}
	}

	return out
}
