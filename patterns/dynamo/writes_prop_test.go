package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Random sequences of creates, updates, replaces and deletes on a model
// with sparse and composite GSI keys and a version: after every step each
// item's stored key attributes are what Item computes from its values as a
// shadow copy holds them, and every read pattern returns exactly what a
// brute-force filter over the shadow returns (in order where it sorts).
// Some writes are stale on purpose: they must fail and change nothing.
func TestWritesKeepKeysAndReads(t *testing.T) {
	t.Parallel()
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			writesProperty(t, rand.New(rand.NewPCG(seed, 42)), 60)
		})
	}
}

func writesProperty(t *testing.T, rnd *rand.Rand, steps int) {
	tbl := fresh(t, design(t, ticketsModel))
	ctx := context.Background()
	shadow := map[string]Values{} // ticketId -> values as stored
	ids := []string{"t1", "t2", "t3", "t4", "t5", "t6"}
	people := []string{"ann", "bob", "cy"}
	statuses := []string{"OPEN", "PENDING", "CLOSED"}
	pick := func(s []string) string { return s[rnd.IntN(len(s))] }
	rev := func(v Values) int { return v["revision"].(int) }
	for step := range steps {
		id := pick(ids)
		cur, exists := shadow[id]
		var err error
		var next Values // the values after a successful write
		stale := rnd.IntN(5) == 0
		op := rnd.IntN(6)
		if !exists {
			op = 0
		}
		what := ""
		switch op {
		case 0: // create (fails when it exists)
			v := Values{"ticketId": id, "assigneeId": pick(people), "status": pick(statuses), "priority": rnd.IntN(10),
				"title": "t", "openedAt": fmt.Sprintf("2026-03-%02dT09:00:00Z", 1+rnd.IntN(28))}
			what = "OpenTicket"
			err = tbl.Write(ctx, "OpenTicket", Params(v))
			next = with(v, "revision", 1)
		case 1: // status: in and out of the sparse index
			s := pick(statuses)
			p := Params{"ticketId": id, "status": s, "assigneeId": cur["assigneeId"], "priority": cur["priority"], "revision": rev(cur)}
			if stale {
				p["priority"] = (cur["priority"].(int) + 1) % 10 // not what the item holds
			}
			what = "SetStatus"
			err = tbl.Write(ctx, "SetStatus", p)
			next = with(with(cur, "status", s), "revision", rev(cur)+1)
		case 2: // reassign: both GSI keys move
			a := pick(people)
			p := Params{"ticketId": id, "assigneeId": a, "status": cur["status"], "priority": cur["priority"], "openedAt": cur["openedAt"], "revision": rev(cur)}
			if stale {
				p["revision"] = rev(cur) + 2
			}
			what = "Reassign"
			err = tbl.Write(ctx, "Reassign", p)
			next = with(with(cur, "assigneeId", a), "revision", rev(cur)+1)
		case 3: // a new priority through Update: only GSI1's key reads it
			pr := rnd.IntN(10)
			ch := Changes{Set: Values{"priority": pr}, With: Values{"assigneeId": cur["assigneeId"], "status": cur["status"]}, Version: rev(cur)}
			if stale {
				ch.Version = rev(cur) + 3
			}
			what = "Update priority"
			err = tbl.Update(ctx, "Ticket", Values{"ticketId": id}, ch)
			next = with(with(cur, "priority", pr), "revision", rev(cur)+1)
		case 4: // replace from the values read
			n := with(with(with(cur, "title", fmt.Sprint("r", step)), "status", pick(statuses)), "assigneeId", pick(people))
			old := cur
			if stale {
				old = with(cur, "title", "not what it says")
			}
			what = "Replace"
			err = tbl.Replace(ctx, "Ticket", old, n)
			next = with(n, "revision", rev(cur)+1)
			if sameTicket(cur, n) {
				next = cur // nothing to change: no write
			}
		case 5:
			p := Params{"ticketId": id, "revision": rev(cur)}
			if stale {
				p["revision"] = rev(cur) + 1
			}
			what = "DeleteTicket"
			err = tbl.Write(ctx, "DeleteTicket", p)
		}
		wantFail := (op == 0 && exists) || (op != 0 && stale && !(op == 4 && sameTicket(cur, next)))
		switch {
		case wantFail && !errors.Is(err, ErrCondition):
			t.Fatalf("step %d %s %s: %v, want a failed condition", step, what, id, err)
		case !wantFail && err != nil:
			t.Fatalf("step %d %s %s: %v", step, what, id, err)
		case !wantFail && op == 5:
			delete(shadow, id)
		case !wantFail:
			shadow[id] = next
		}
		checkAgainstShadow(t, tbl, shadow, people, fmt.Sprintf("step %d (%s %s)", step, what, id))
	}
}

func sameTicket(a, b Values) bool {
	for _, k := range []string{"assigneeId", "status", "priority", "title", "openedAt"} {
		if fmt.Sprint(a[k]) != fmt.Sprint(b[k]) {
			return false
		}
	}
	return true
}

// keyAttrs are the key attributes an item carries.
func keyAttrs(item map[string]types.AttributeValue) map[string]string {
	out := map[string]string{}
	for k, v := range item {
		if k == "PK" || k == "SK" || (len(k) > 3 && k[:3] == "GSI") {
			out[k] = text(v)
		}
	}
	return out
}

func checkAgainstShadow(t *testing.T, tbl *Table, shadow map[string]Values, people []string, at string) {
	t.Helper()
	ctx := context.Background()
	stored := scanAll(t, tbl)
	if len(stored) != len(shadow) {
		t.Fatalf("%s: %d items stored, the shadow holds %d", at, len(stored), len(shadow))
	}
	for _, it := range stored {
		id := text(it["ticketId"])
		v, ok := shadow[id]
		if !ok {
			t.Fatalf("%s: %s is stored, the shadow deleted it", at, id)
		}
		want, err := tbl.item("Ticket", v)
		if err != nil {
			t.Fatal(err)
		}
		if got, w := keyAttrs(it), keyAttrs(want); !maps.Equal(got, w) {
			t.Fatalf("%s: %s's keys\n got %v\nwant %v", at, id, got, w)
		}
		for _, a := range []string{"assigneeId", "status", "priority", "revision", "title"} {
			if text(it[a]) != fmt.Sprint(v[a]) {
				t.Fatalf("%s: %s.%s is %s, the shadow says %v", at, id, a, text(it[a]), v[a])
			}
		}
	}
	read := func(pattern string, p Params) []string {
		var out []string
		for it, err := range tbl.All(ctx, pattern, Request{Params: p}) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, it.Values["ticketId"].(string))
		}
		return out
	}
	for _, a := range people {
		var open, all []Values
		for _, v := range shadow {
			if v["assigneeId"] == a {
				all = append(all, v)
				if v["status"] == "OPEN" {
					open = append(open, v)
				}
			}
		}
		order := func(vs []Values, by string) []string {
			sort.Slice(vs, func(i, j int) bool {
				x, y := fmt.Sprintf("%v#%v", vs[i][by], vs[i]["ticketId"]), fmt.Sprintf("%v#%v", vs[j][by], vs[j]["ticketId"])
				return x > y // desc
			})
			var ids []string
			for _, v := range vs {
				ids = append(ids, v["ticketId"].(string))
			}
			return ids
		}
		if got, want := read("OpenTickets", Params{"assigneeId": a}), order(open, "priority"); !slices.Equal(got, want) {
			t.Fatalf("%s: OpenTickets(%s) = %v, the shadow says %v", at, a, got, want)
		}
		if got, want := read("TicketsByAssignee", Params{"assigneeId": a}), order(all, "openedAt"); !slices.Equal(got, want) {
			t.Fatalf("%s: TicketsByAssignee(%s) = %v, the shadow says %v", at, a, got, want)
		}
	}
	for id := range shadow {
		it, err := tbl.Get(ctx, "GetTicket", Params{"ticketId": id})
		if err != nil || it == nil {
			t.Fatalf("%s: GetTicket(%s): %v %v", at, id, it, err)
		}
	}
}
