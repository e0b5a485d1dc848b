package dynamo

import (
	"encoding/base64"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// A page's cursor is its key, opaque and bound to the pattern that made
// it: it reads back as the key for that pattern and is refused, naming
// both, for any other; what is not a cursor is refused too (issue 35,
// item 11).
func TestCursorBoundToItsPattern(t *testing.T) {
	enginepass.Independent(t)
	key := map[string]types.AttributeValue{
		"PK":     &types.AttributeValueMemberS{Value: "T#t1#%{}"},
		"SK":     &types.AttributeValueMemberS{Value: ""},
		"GSI1SK": &types.AttributeValueMemberN{Value: "12.5"},
		"bin":    &types.AttributeValueMemberB{Value: []byte{0, 255}},
	}
	c, err := Cursor("Tickets", key)
	if err != nil || c == "" || strings.ContainsAny(c, "{\"=+/") {
		t.Fatalf("Cursor: %q, %v (want opaque base64url)", c, err)
	}
	got, err := CursorKey("Tickets", c)
	if err != nil || !maps.EqualFunc(got, key, func(a, b types.AttributeValue) bool { return sameKeyValue(a, b) }) {
		t.Errorf("CursorKey: %v, %v; want %v", got, err, key)
	}
	if c, err := Cursor("Tickets", nil); c != "" || err != nil {
		t.Errorf("no key: %q, %v", c, err)
	}
	for _, x := range []struct{ name, pattern, cursor, want string }{
		{"another pattern's", "TenantTickets", c, "the cursor continues pattern Tickets, not TenantTickets"},
		{"not base64", "Tickets", "!!", "not base64url"},
		{"not a key", "Tickets", base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"p":"Tickets"}`)), "its content is not a key"},
		{"two types", "Tickets", base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"p":"Tickets","k":{"PK":{"S":"a","N":"1"}}}`)), "PK holds no single"},
		{"newer", "Tickets", base64.RawURLEncoding.EncodeToString([]byte(`{"v":2,"p":"Tickets","k":{"PK":{"S":"a"}}}`)), "newer than this runtime's"},
	} {
		if _, err := CursorKey(x.pattern, x.cursor); !errors.Is(err, ErrCursor) || !strings.Contains(err.Error(), x.want) {
			t.Errorf("%s: %v, want ErrCursor saying %q", x.name, err, x.want)
		}
	}
	r := Request{Cursor: c, StartKey: key}
	if err := r.startAt("Tickets"); !errors.Is(err, ErrCursor) {
		t.Errorf("a cursor and a start key: %v", err)
	}
}

func sameKeyValue(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && string(a.Value) == string(b.Value)
	}
	return false
}
