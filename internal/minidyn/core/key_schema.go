package core

import (
	"errors"
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/internal/minidyn/types"
)

// errInvalidKeyConditionCount matches DynamoDB ValidationException when the Key map
// does not contain exactly the expected number of attributes (hash + range if defined).
//
//nolint:stylecheck,staticcheck,ST1005 // AWS error message
var errInvalidKeyConditionCount = errors.New("The number of conditions on the keys is invalid")

type keySchema struct {
	HashKey   string
	RangeKey  string
	Secondary bool
}

// validatePrimaryKeyMap ensures Key-shaped maps (GetItem, DeleteItem, UpdateItem)
// contain exactly the hash key and, when applicable, the range key attribute names.
func (ks keySchema) validatePrimaryKeyMap(key map[string]*types.Item) error {
	if ks.Secondary {
		return nil
	}

	want := 1
	if ks.RangeKey != "" {
		want = 2
	}

	if len(key) != want {
		return fmt.Errorf("%w; expected %d keys, got %d", errInvalidKeyConditionCount, want, len(key))
	}

	if _, ok := key[ks.HashKey]; !ok {
		return fmt.Errorf("%w; missing hash key", errMissingField)
	}

	if ks.RangeKey != "" {
		if _, ok := key[ks.RangeKey]; !ok {
			return fmt.Errorf("%w; missing range key", errMissingField)
		}
	}

	return nil
}

func (ks keySchema) GetKey(attrs map[string]string, item map[string]*types.Item) (string, error) {
	key, err := ks.getKeyValue(attrs, item)
	if ks.Secondary && errors.Is(err, errMissingField) {
		// secondary indexes are sparse
		err = nil
	}

	return key, err
}

// getKeyValue encodes the item's key as one string: its parts are joined
// by keySeparator, so no two keys collide, and each part sorts as DynamoDB
// orders that key type (strings and binaries by bytes, numbers by value),
// so the items of one partition sort by their sort key.
func (ks keySchema) getKeyValue(attrs map[string]string, item map[string]*types.Item) (string, error) {
	hash, err := keyPart(item, ks.HashKey, attrs[ks.HashKey])
	if err != nil {
		return "", err
	}

	if ks.RangeKey == "" {
		return hash, nil
	}

	sortPart, err := keyPart(item, ks.RangeKey, attrs[ks.RangeKey])
	if err != nil {
		return "", err
	}

	return hash + keySeparator + sortPart, nil
}

// keySeparator joins a key's parts; escapeKeyPart keeps it out of them.
const keySeparator = "\x00\x01"

func keyPart(item map[string]*types.Item, field, typ string) (string, error) {
	val, ok := item[field]
	if !ok {
		return "", fmt.Errorf("%w; field: %q", errMissingField, field)
	}

	switch {
	case typ == "S" && val.S != nil:
		return escapeKeyPart(*val.S), nil
	case typ == "B" && val.B != nil:
		return escapeKeyPart(string(val.B)), nil
	case typ == "N" && val.N != nil:
		n, err := types.OrderedNumber(*val.N)
		if err != nil {
			return "", fmt.Errorf("%w; field %q: %w", ErrInvalidAtrributeValue, field, err)
		}

		return n, nil
	}

	return "", fmt.Errorf("%w; field %q", ErrInvalidAtrributeValue, field)
}

// escapeKeyPart doubles every NUL as NUL 0xFF, which sorts after the
// separator's NUL 0x01 and keeps byte order.
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

func (ks *keySchema) describe() []types.KeySchemaElement {
	desc := []types.KeySchemaElement{}

	keySchemaElement := types.KeySchemaElement{
		AttributeName: ks.HashKey,
		KeyType:       "HASH",
	}
	desc = append(desc, keySchemaElement)

	if ks.RangeKey != "" {
		keySchemaElement := types.KeySchemaElement{
			AttributeName: ks.RangeKey,
			KeyType:       "RANGE",
		}
		desc = append(desc, keySchemaElement)
	}

	return desc
}

func (ks *keySchema) getKeyItem(item map[string]*types.Item) map[string]*types.Item {
	keyItem := map[string]*types.Item{}

	if v, ok := item[ks.HashKey]; ok {
		keyItem[ks.HashKey] = v
	}

	if v, ok := item[ks.RangeKey]; ok && ks.RangeKey != "" {
		keyItem[ks.RangeKey] = v
	}

	return keyItem
}
