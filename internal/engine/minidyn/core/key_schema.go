package core

import (
	"strings"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// keySchema names the key attributes of a table or an index: one HASH
// attribute and at most one RANGE attribute on a table or an LSI; on a
// GSI up to MaxKeyAttributes of each (a multi-attribute key).
type keySchema struct {
	Hash  []string
	Range []string
}

// MaxKeyAttributes is how many attributes a GSI's partition key, and its
// sort key, may each hold (DynamoDB's multi-attribute keys).
const MaxKeyAttributes = 4

// Encoded keys: a key's parts are joined by keySeparator (between the
// partition and the sort key, and between the attributes of a
// multi-attribute sort key) or hashSeparator (between the attributes of a
// multi-attribute partition key), and an index entry is its index key,
// entrySeparator, and the item's primary key. No two keys collide
// (escapeKeyPart keeps NUL out of the parts), and each part sorts as
// DynamoDB orders that key type (strings and binaries by bytes, numbers by
// value), so the items of one partition sort by their sort key (a
// multi-attribute one by its attributes left to right) and an index's
// entries by their index key, then primary key.
const (
	entrySeparator = "\x00\x00"
	keySeparator   = "\x00\x01"
	// afterValue, appended to an encoded sort key value, sorts after
	// every key holding that value and before every greater value.
	afterValue    = "\x00\x02"
	hashSeparator = "\x00\x03"
)

// HashKey is the (first) partition key attribute.
func (ks keySchema) HashKey() string { return ks.Hash[0] }

// RangeKey is the single sort key attribute of a table or an LSI ("" for
// none).
func (ks keySchema) RangeKey() string {
	if len(ks.Range) == 0 {
		return ""
	}

	return ks.Range[0]
}

// attributes are the key attributes, partition key first.
func (ks keySchema) attributes() []string {
	out := make([]string, 0, len(ks.Hash)+len(ks.Range))
	out = append(out, ks.Hash...)

	return append(out, ks.Range...)
}

// isRange reports whether name is a sort key attribute.
func (ks keySchema) isRange(name string) bool {
	for _, r := range ks.Range {
		if r == name {
			return true
		}
	}

	return false
}

// encode is the item's encoded key; ok is false when the item lacks a
// key attribute or holds one of another type than attrs defines (an item
// that is not in a sparse index: a multi-attribute key needs every one of
// its attributes).
func (ks keySchema) encode(attrs map[string]string, item map[string]*types.Item) (string, bool) {
	var b strings.Builder

	for n, a := range ks.Hash {
		part, ok := encodePart(item[a], attrs[a])
		if !ok {
			return "", false
		}

		if n > 0 {
			b.WriteString(hashSeparator)
		}

		b.WriteString(part)
	}

	for _, a := range ks.Range {
		part, ok := encodePart(item[a], attrs[a])
		if !ok {
			return "", false
		}

		b.WriteString(keySeparator)
		b.WriteString(part)
	}

	return b.String(), true
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
// separators' NUL 0x00..0x03 and keeps byte order.
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
	desc := make([]types.KeySchemaElement, 0, len(ks.Hash)+len(ks.Range))

	for _, a := range ks.Hash {
		desc = append(desc, types.KeySchemaElement{AttributeName: a, KeyType: "HASH"})
	}

	for _, a := range ks.Range {
		desc = append(desc, types.KeySchemaElement{AttributeName: a, KeyType: "RANGE"})
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
