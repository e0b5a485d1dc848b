package dynamo

import (
	"context"
	"errors"
	"testing"
)

// Every refused write says what it needed and what it found, never a
// condition and its negation ("the item exists: the item does not
// exist"): Replace, Delete and an update of a missing item, a create of
// an existing one, a stale version, a value passed with the write that
// the item no longer holds, a declared condition, a taken unique value.
// Where the item as it was is unknown (a transaction's step on an engine
// that returned none), every condition of the step is named, not the
// first one as if it were the one.
func TestRefusedWriteMessages(t *testing.T) {
	ctx := context.Background()
	desk := fresh(t, design(t, ticketsModel))
	tk := ticket("t1", "ann", "OPEN", 3)
	tk["revision"] = 1
	setStatus := func(assignee string, revision int) error {
		return desk.Write(ctx, "SetStatus", Params{"ticketId": "t1", "status": "CLOSED", "assigneeId": assignee, "priority": 3, "revision": revision})
	}
	lb := fresh(t, design(t, "../../examples/leaderboard.yaml"))
	p1, p2 := with(player, "handle", "nighthawk"), with(with(player, "playerId", "p2"), "handle", "owl")
	p9 := with(p1, "playerId", "p9")
	type step struct {
		name string
		do   func() error
		want string
		is   error
	}
	steps := []step{
		{"Replace of a missing item", func() error { return desk.Replace(ctx, "Ticket", tk, with(tk, "title", "x")) },
			"Replace Ticket needs an existing item: Ticket t1 does not exist", ErrChanged},
		{"Delete of a missing item", func() error { return desk.Delete(ctx, "Ticket", Values{"ticketId": "t1", "revision": 1}) },
			"Delete Ticket needs an existing item: Ticket t1 does not exist", ErrChanged},
		{"an update of a missing item", func() error { return setStatus("ann", 1) },
			"Write SetStatus needs an existing item: Ticket t1 does not exist", ErrChanged},
		{"the item is created", func() error { return desk.Write(ctx, "OpenTicket", Params(ticket("t1", "ann", "OPEN", 3))) }, "", nil},
		{"Create of an existing item", func() error { return desk.Create(ctx, "Ticket", ticket("t1", "ann", "OPEN", 3)) },
			"Create Ticket needs a new item (if: absent): Ticket t1 already exists", ErrExists},
		{"if: absent on an existing item", func() error { return desk.Write(ctx, "OpenTicket", Params(ticket("t1", "ann", "OPEN", 3))) },
			"Write OpenTicket needs a new item (if: absent): Ticket t1 already exists", ErrExists},
		{"a stale version", func() error { return setStatus("ann", 7) },
			"Write SetStatus needs revision still 7 (the version read): revision is 1", ErrChanged},
		{"a value passed with the write", func() error { return setStatus("bob", 1) },
			"Write SetStatus needs assigneeId = bob: assigneeId is ann", ErrChanged},
		{"Replace from a stale version", func() error {
			old := with(tk, "revision", 5)
			return desk.Replace(ctx, "Ticket", old, with(old, "title", "x"))
		}, "Replace Ticket needs revision still 5 (the version read): revision is 1", ErrChanged},
		{"the ticket is closed", func() error { return setStatus("ann", 1) }, "", nil},
		{"a declared condition", func() error {
			return desk.Write(ctx, "CloseTicket", Params{"ticketId": "t1", "status": "CLOSED", "assigneeId": "ann", "priority": 3, "revision": 2})
		}, "Write CloseTicket needs status ≠ CLOSED: status is CLOSED", nil},
		{"p1 is created", func() error { return lb.Create(ctx, "Player", p1) }, "", nil},
		{"p2 is created", func() error { return lb.Create(ctx, "Player", p2) }, "", nil},
		{"Create of an existing item with unique values", func() error { return lb.Create(ctx, "Player", p1) },
			"Create Player needs a new item (if: absent): Player p1 already exists", ErrExists},
		{"a taken unique value", func() error { return lb.Create(ctx, "Player", with(with(player, "playerId", "p3"), "handle", "owl")) },
			"Create Player needs PlayerByHandle HANDLE#owl free (unique): it is taken by Player p2", ErrNotUnique},
		{"Replace onto a taken unique value", func() error { return lb.Replace(ctx, "Player", p1, with(p1, "handle", "owl")) },
			"Replace Player needs PlayerByHandle HANDLE#owl free (unique): it is taken by Player p2", ErrNotUnique},
		{"Delete of a missing item with a guard (a transaction)", func() error { return lb.Delete(ctx, "Player", p9) },
			"Delete Player: a condition failed, one of: an existing item; handle = nighthawk (item changed or missing)", ErrChanged},
	}
	for _, s := range steps {
		err := s.do()
		if s.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			continue
		}
		var ce *ConditionError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCondition) {
			t.Errorf("%s: %v, want a *ConditionError", s.name, err)
			continue
		}
		if err.Error() != s.want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, err, s.want)
		}
		if s.is != nil && !errors.Is(err, s.is) {
			t.Errorf("%s: %v does not match %v", s.name, err, s.is)
		}
	}
}
