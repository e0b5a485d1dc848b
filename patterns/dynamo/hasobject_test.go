package dynamo

import (
	"context"
	"errors"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// onlyStore is an ObjectStore that is no ObjectChecker.
type onlyStore struct{ ObjectStore }

// failingGets fails every GetObject as S3 does when it is unreachable.
type failingGets struct{ ObjectStore }

var errUnreachable = errors.New("S3 unreachable")

func (failingGets) GetObject(context.Context, string) ([]byte, error) { return nil, errUnreachable }

// HasObject asks an ObjectChecker, and reads the object of a store that
// is none: a key held is true, one not held false, and the store's own
// failure is an error, never a missing object.
func TestHasObject(t *testing.T) {
	enginepass.Independent(t)
	ctx := context.Background()
	m := &MemoryObjects{}
	held := ObjectKey("Doc", "body")
	if err := m.PutObject(ctx, held, nil); err != nil { // an empty object is an object
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		store ObjectStore
	}{{"checker", m}, {"reads", onlyStore{m}}} {
		t.Run(tc.name, func(t *testing.T) {
			if ok, err := HasObject(ctx, tc.store, held); !ok || err != nil {
				t.Errorf("held: %v, %v", ok, err)
			}
			if ok, err := HasObject(ctx, tc.store, ObjectKey("Doc", "body")); ok || err != nil {
				t.Errorf("not held: %v, %v", ok, err)
			}
		})
	}
	if ok, err := HasObject(ctx, failingGets{m}, held); ok || !errors.Is(err, errUnreachable) {
		t.Errorf("S3 unreachable: %v, %v", ok, err)
	}
}
