package dynamo

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cursors. A page's LastEvaluatedKey, as an opaque string a caller can
// hand to a client and take back (Page.Cursor, Request.Cursor): the
// base64 (URL alphabet, unpadded) of a small JSON document naming the
// pattern that made it and holding the key. It continues only that
// pattern's read: given to another, it is refused (ErrCursor), so a
// client cannot replay one read's position on another index or
// partition. A cursor is not a secret and not signed: it holds the key
// of an item the caller was just shown.

// ErrCursor is what a cursor that is not one, or is another pattern's,
// fails a read with (errors.Is).
var ErrCursor = errors.New("invalid cursor")

// cursorVersion is the cursor format; a newer runtime reads every older one.
const cursorVersion = 1

type cursorDoc struct {
	V int                  `json:"v"`
	P string               `json:"p"`
	K map[string]cursorVal `json:"k"`
}

// cursorVal is one key attribute: a string (S), a number (N) or bytes (B,
// base64 in the JSON), the only types a key attribute can have.
type cursorVal struct {
	S *string `json:"S,omitempty"`
	N *string `json:"N,omitempty"`
	B []byte  `json:"B,omitempty"`
}

// Cursor is the opaque cursor of pattern's read continuing after key (a
// page's LastEvaluatedKey); "" for no key (the last page).
func Cursor(pattern string, key map[string]types.AttributeValue) (string, error) {
	if len(key) == 0 {
		return "", nil
	}
	doc := cursorDoc{V: cursorVersion, P: pattern, K: map[string]cursorVal{}}
	for name, v := range key {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			doc.K[name] = cursorVal{S: &v.Value}
		case *types.AttributeValueMemberN:
			doc.K[name] = cursorVal{N: &v.Value}
		case *types.AttributeValueMemberB:
			doc.K[name] = cursorVal{B: v.Value}
		default:
			return "", fmt.Errorf("%w: key attribute %s is a %T, not a string, number or binary", ErrCursor, name, v)
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// CursorKey is the key a cursor continues pattern's read after. It fails
// with ErrCursor when the string is not a cursor or another pattern made
// it.
func CursorKey(pattern, cursor string) (map[string]types.AttributeValue, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return nil, fmt.Errorf("%w: not a cursor a page gave (not base64url): %v", ErrCursor, err)
	}
	var doc cursorDoc
	if err := json.Unmarshal(b, &doc); err != nil || doc.V < 1 || len(doc.K) == 0 {
		return nil, fmt.Errorf("%w: not a cursor a page gave (its content is not a key)", ErrCursor)
	}
	if doc.V > cursorVersion {
		return nil, fmt.Errorf("%w: cursor format %d is newer than this runtime's (%d): a newer keyplan made it", ErrCursor, doc.V, cursorVersion)
	}
	if doc.P != pattern {
		return nil, fmt.Errorf("%w: the cursor continues pattern %s, not %s: pass it only to the read whose page gave it", ErrCursor, doc.P, pattern)
	}
	key := map[string]types.AttributeValue{}
	for name, v := range doc.K {
		switch {
		case v.S != nil && v.N == nil && v.B == nil:
			key[name] = &types.AttributeValueMemberS{Value: *v.S}
		case v.N != nil && v.S == nil && v.B == nil:
			key[name] = &types.AttributeValueMemberN{Value: *v.N}
		case v.B != nil && v.S == nil && v.N == nil:
			key[name] = &types.AttributeValueMemberB{Value: v.B}
		default:
			return nil, fmt.Errorf("%w: key attribute %s holds no single string, number or binary", ErrCursor, name)
		}
	}
	return key, nil
}

// startAt turns a request's cursor into its start key (pattern's: another
// pattern's cursor is refused).
func (r *Request) startAt(pattern string) error {
	if r.Cursor == "" {
		return nil
	}
	if r.StartKey != nil {
		return fmt.Errorf("%w: a request takes a cursor or a start key, not both", ErrCursor)
	}
	key, err := CursorKey(pattern, r.Cursor)
	if err != nil {
		return err
	}
	r.StartKey, r.Cursor = key, ""
	return nil
}
