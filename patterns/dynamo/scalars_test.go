package dynamo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns/model"
)

// The runtime stores every scalar type of the core's table as its
// DynamoDB type's member, and reads it back to the value it encodes in a
// key alike (a time as time.Time, a binary as []byte).
func TestEveryScalarTypeIsStored(t *testing.T) {
	enginepass.Independent(t)
	for _, s := range model.ScalarTypes() {
		a := &model.Attribute{Name: "v", Type: s.Type}
		for _, v := range s.Valid {
			av, err := stored(a, v)
			if err != nil {
				t.Errorf("%s: stored(%#v): %v", s.Type, v, err)
				continue
			}
			if got := fmt.Sprintf("%T", av); !strings.HasSuffix(got, "Member"+s.Dynamo) {
				t.Errorf("%s: %#v is stored as %s, want %s", s.Type, v, got, s.Dynamo)
			}
			back, err := fromStored(a, av)
			if err != nil {
				t.Errorf("%s: fromStored(%#v): %v", s.Type, av, err)
				continue
			}
			k1, err1 := a.EncodeKey(v)
			k2, err2 := a.EncodeKey(back)
			if err1 != nil || err2 != nil || k1 != k2 {
				t.Errorf("%s: %#v reads back as %#v: keys %q, %q (%v, %v)", s.Type, v, back, k1, k2, err1, err2)
			}
		}
		for _, v := range s.Invalid {
			if _, err := stored(a, v); err == nil {
				t.Errorf("%s: stored(%#v) accepts an invalid value", s.Type, v)
			}
		}
	}
}
