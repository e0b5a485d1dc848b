package dynamo

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A write with if: absent that finds its item says the item already
// exists, with its key, not the condition's wording alone ("no such item
// exists yet" read as if the item were missing).
func TestIfAbsentSaysTheItemExists(t *testing.T) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	tk := Params(ticket("t9", "ann", "OPEN", 3))
	if err := tbl.Write(ctx, "OpenTicket", tk); err != nil {
		t.Fatal(err)
	}
	err := tbl.Write(ctx, "OpenTicket", tk)
	var ce *ConditionError
	if !errors.As(err, &ce) || !errors.Is(err, ErrExists) {
		t.Fatalf("a second OpenTicket: %v", err)
	}
	want := "Write OpenTicket needs a new item (if: absent): Ticket t9 already exists"
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	if !strings.HasPrefix(ce.Condition, "a new item") {
		t.Errorf("condition %q: examples name it by its start (fails: a new item)", ce.Condition)
	}
}
