package model

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// TypeBinary is a byte string, stored as DynamoDB's B; "blob" is its
// other spelling. A value is []byte, or its standard base64 text (as a
// model file's examples and DynamoDB's JSON write it). Like a string it is
// never empty. In a key it is its bytes in lower-case hex: two bytes
// above '$' each, so the key's order is the bytes' order and a value's
// key is a prefix of another's exactly when its bytes are.
const TypeBinary AttrType = "binary"

type binaryCodec struct{}

// bytes reads v as a binary value, checked against maxLength.
func (a *Attribute) bytes(v any) ([]byte, error) {
	var b []byte
	switch x := v.(type) {
	case []byte:
		b = x
	case string:
		var err error
		if b, err = base64.StdEncoding.DecodeString(x); err != nil {
			return nil, &ValueError{Attr: a.Name, Value: v, Msg: "expected standard base64 text (a binary's bytes, as DynamoDB's JSON writes them), such as AAH/"}
		}
	default:
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("expected []byte or base64 text, found %T", v)}
	}
	if len(b) == 0 {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: "a binary cannot be empty: leave an optional attribute out (keyplan refuses an empty value in and out of keys, as it does an empty string)"}
	}
	if a.MaxLength > 0 && len(b) > a.MaxLength {
		return nil, &ValueError{Attr: a.Name, Value: v, Msg: fmt.Sprintf("%d bytes, longer than maxLength %d", len(b), a.MaxLength)}
	}
	return b, nil
}

func (binaryCodec) key(a *Attribute, v any) (string, error) {
	b, err := a.bytes(v)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func (binaryCodec) decode(a *Attribute, s string) (any, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, &ValueError{Attr: a.Name, Value: s, Msg: "expected a binary's key form: hex digits, two a byte"}
	}
	return b, nil
}

func (binaryCodec) fixedWidth(*Attribute) bool { return false }

func (binaryCodec) maxKeyBytes(a *Attribute) (int, bool) {
	return 2 * a.MaxLength, a.MaxLength > 0
}

func (binaryCodec) rangeSide(*Attribute, any) (int, error) { return 0, nil }

func (binaryCodec) text(a *Attribute, v any) (string, error) {
	b, err := a.bytes(v)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

func (binaryCodec) stored(a *Attribute, v any, _ bool) (any, error) { return a.bytes(v) }

func (binaryCodec) fromText(_ *Attribute, s string) (any, error) { return s, nil }

func (binaryCodec) size(e *Entity, a *Attribute) (int, bool, string) {
	if a.MaxLength > 0 {
		return a.MaxLength, e != nil, ""
	}
	return DefaultStringBytes, false, fmt.Sprintf("binaries without maxLength take %d bytes", DefaultStringBytes)
}

func (binaryCodec) maxBytes(a *Attribute) (int, bool) { return a.MaxLength, a.MaxLength > 0 }

func (binaryCodec) encoding(*Attribute) string { return string(TypeBinary) }

func (binaryCodec) goType(*Attribute) string { return "[]byte" }
