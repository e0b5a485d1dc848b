package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Regression tests for what the proof by generated data (Prove) found in
// the runtime, each as it was found, without the oracle.

func planned(t *testing.T, src string) *patterns.Design {
	t.Helper()
	m, err := model.Parse("found.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return d
}

// An empty string is refused whether or not a key holds the attribute:
// before, chat's Room accepted topic "" (no key reads it) and refused an
// empty roomId, so which items were valid depended on the layout.
func TestEmptyStringRefusedInAndOutOfKeys(t *testing.T) {
	tbl := New(planned(t, `table: Chat
entities:
  Room:
    id: [roomId]
    attributes: {roomId: string, topic: string}
patterns:
  GetRoom: {get: Room}
`), nil, "Chat")
	for _, v := range []Values{{"roomId": "", "topic": "t"}, {"roomId": "r", "topic": ""}} {
		if _, err := tbl.Item("Room", v); !errors.Is(err, model.ErrValue) {
			t.Errorf("%v: got %v, want a value error", v, err)
		}
	}
}

// A read by id whose filter constant the key does not hold verifies it on
// the item: it failed on every read ("attribute s: value <nil>") because
// it looked for the constant among the caller's parameters.
func TestVerifiedFilterConstant(t *testing.T) {
	d := planned(t, `table: Gen
entities:
  C:
    id: [cId]
    attributes:
      cId: {type: string, maxLength: 20}
      s: {values: [s1, s2, s3]}
patterns:
  P1: {query: C, where: [cId], filter: {s: s1}}
`)
	if pp := d.Pattern("P1"); len(pp.Verify) == 0 {
		t.Fatalf("the plan no longer verifies s (%s): this test needs a pattern that does", pp.Text)
	}
	tbl := fresh(t, d)
	ctx := context.Background()
	for id, s := range map[string]string{"a": "s1", "b": "s2"} {
		if err := tbl.Create(ctx, "C", Values{"cId": id, "s": s}); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]int{"a": 1, "b": 0} {
		page, err := tbl.Read(ctx, "P1", Request{Params: Params{"cId": id}})
		if err != nil || len(page.Items) != want {
			t.Errorf("P1(%s): %v, %v; want %d item(s)", id, page, err, want)
		}
	}
}

// A parameter is checked even when the range holds no value: a cId too
// long for its maxLength was answered with no items.
func TestBadParameterWithEmptyRange(t *testing.T) {
	tbl := New(planned(t, `table: Gen
entities:
  A:
    id: [aId, n]
    attributes:
      aId: {type: string, maxLength: 5}
      n: {type: number, min: 0, max: 999}
patterns:
  ByA: {query: A, where: [aId], sort: n}
`), nil, "Gen")
	_, err := tbl.QueryInput("ByA", Request{Params: Params{"aId": "toolong"}, Range: &Range{Op: Lt, Value: 0}})
	if err == nil || errors.Is(err, ErrEmptyRange) {
		t.Errorf("got %v, want the parameter refused", err)
	}
}

// A range on a sort attribute after a label that does not end with the
// separator (ElectroDB's createdat_) keeps every key of the label: > and
// >= missed every item, bounded by "createdat_$", below any value.
func TestRangeAfterALabel(t *testing.T) {
	if got := upper("$video_1#createdat_"); got != "$video_1#createdat`" {
		t.Errorf("upper: %q", got)
	}
	if got := upper("é"); got != "ê" {
		t.Errorf("upper(é): %q", got)
	}
	if got := upper("MATCH#"); got != "MATCH$" {
		t.Errorf("upper(MATCH#): %q", got)
	}
	d := planned(t, `table: Electro
entities:
  Video:
    id: [username, videoId]
    attributes:
      username: {type: string, maxLength: 30}
      videoId: {type: string, maxLength: 30}
      createdAt: time
      category: {type: string, maxLength: 30}
    keys:
      table: {pk: "$vc#username_{username}", sk: "$video_1#videoid_{videoId}"}
      GSI1: {pk: "$vc#category_{category}", sk: "$video_1#createdat_{createdAt}#username_{username}#videoid_{videoId}"}
patterns:
  GetVideo: {get: Video}
  VideosByCategory: {query: Video, where: [category], sort: createdAt desc}
`)
	tbl := fresh(t, d)
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := tbl.Create(ctx, "Video", Values{"username": "A", "videoId": "v", "createdAt": at, "category": "a"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Range{{Op: Gt, Value: at.Add(-time.Millisecond)}, {Op: Ge, Value: at}, {Op: Between, Value: at, Upper: at.Add(time.Hour)}} {
		page, err := tbl.Read(ctx, "VideosByCategory", Request{Params: Params{"category": "a"}, Range: r})
		if err != nil || len(page.Items) != 1 {
			var got []string
			if page != nil {
				for _, it := range page.Items {
					got = append(got, it.Values["videoId"].(string))
				}
			}
			t.Errorf("%s %v: %s, %v; want the video", r.Op, r.Value, strings.Join(got, " "), err)
		}
	}
}

// Replace passes an immutable attribute as old gives it: it rebuilt no GSI
// key that reads one beside what it changes ("pass s in With"), though
// old holds it; and it holds only if the item still has it.
func TestReplaceKnowsImmutableAttributes(t *testing.T) {
	for _, keys := range keyings {
		t.Run(string(keys), func(t *testing.T) { replaceKnowsImmutableAttributes(t, keys) })
	}
}

func replaceKnowsImmutableAttributes(t *testing.T, keys model.IndexKeys) {
	d := planned(t, "indexKeys: "+string(keys)+"\n"+`table: Gen
entities:
  B:
    id: [bId]
    attributes:
      bId: {type: string, maxLength: 20}
      s: {values: [s1, s2, s3], immutable: true}
      n: {type: number, min: 0, max: 999}
patterns:
  GetB: {get: B}
  ByS: {query: B, where: [s], sort: n}
`)
	needsNative(t, d)
	tbl := fresh(t, d)
	ctx := context.Background()
	old := Values{"bId": "b", "s": "s1", "n": 1}
	if err := tbl.Create(ctx, "B", old); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Replace(ctx, "B", old, Values{"bId": "b", "s": "s1", "n": 2}); err != nil {
		t.Fatal(err)
	}
	page, err := tbl.Read(ctx, "ByS", Request{Params: Params{"s": "s1"}, Range: &Range{Op: Eq, Value: 2}})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("the rebuilt key: %v, %v", page, err)
	}
	// Read as if s were s2: the item is not so.
	err = tbl.Replace(ctx, "B", Values{"bId": "b", "s": "s2", "n": 2}, Values{"bId": "b", "s": "s2", "n": 3})
	if !errors.Is(err, ErrChanged) {
		t.Errorf("got %v, want ErrChanged", err)
	}
}

// Two unique gets on one attribute keep one guard: a Replace that moved
// the value wrote the guard twice, and the transaction was refused
// ("write the same item").
func TestTwoUniqueGetsOnOneAttribute(t *testing.T) {
	for _, keys := range keyings {
		t.Run(string(keys), func(t *testing.T) { twoUniqueGetsOnOneAttribute(t, keys) })
	}
}

func twoUniqueGetsOnOneAttribute(t *testing.T, keys model.IndexKeys) {
	d := planned(t, "indexKeys: "+string(keys)+"\n"+`table: Gen
entities:
  A:
    id: [aId, seq]
    attributes:
      aId: {type: string, maxLength: 20}
      seq: {type: number, min: 0, max: 999}
      q: {type: string, maxLength: 20}
patterns:
  P0: {get: A, where: [q], unique: true}
  P2: {get: A, where: [q], unique: true}
`)
	needsNative(t, d)
	tbl := fresh(t, d)
	ctx := context.Background()
	old := Values{"aId": "a", "seq": 1, "q": "ab"}
	if err := tbl.Create(ctx, "A", old); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Replace(ctx, "A", old, Values{"aId": "a", "seq": 1, "q": "aa"}); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Create(ctx, "A", Values{"aId": "b", "seq": 1, "q": "aa"}); !errors.Is(err, ErrNotUnique) {
		t.Errorf("a second item with q=aa: %v, want ErrNotUnique", err)
	}
	if err := tbl.Create(ctx, "A", Values{"aId": "b", "seq": 1, "q": "ab"}); err != nil {
		t.Errorf("q=ab is free again: %v", err)
	}
}

// A parameter no key holds (verified on the item) is checked too: an
// empty q was answered with no items.
func TestVerifiedParameterChecked(t *testing.T) {
	d := planned(t, testmodel.GenPairQuery)
	if len(d.Pattern("P").Verify) == 0 {
		t.Fatalf("the plan no longer verifies q (%s): this test needs a pattern that does", d.Pattern("P").Text)
	}
	tbl := New(d, nil, "Gen")
	for _, q := range []any{"", strings.Repeat("x", 21), 5} {
		if _, err := tbl.QueryInput("P", Request{Params: Params{"aId": "a", "q": q}}); !errors.Is(err, model.ErrValue) {
			t.Errorf("q=%v: got %v, want a value error", q, err)
		}
	}
}

// A < range on a time at the least value keys hold (year 0000) holds no
// value: it was refused as invalid (the value before it is in year -1).
func TestTimeRangeBelowTheLeastTime(t *testing.T) {
	d := planned(t, `table: Readings
entities:
  Reading:
    id: [deviceId, at]
    attributes: {deviceId: {type: string, maxLength: 40}, at: time}
patterns:
  DeviceReadings: {query: Reading, where: [deviceId], sort: at}
`)
	tbl := fresh(t, d)
	ctx := context.Background()
	least := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := tbl.Create(ctx, "Reading", Values{"deviceId": "d", "at": least}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    *Range
		want int
	}{{&Range{Op: Lt, Value: least}, 0}, {&Range{Op: Le, Value: least}, 1}, {&Range{Op: Ge, Value: least}, 1}} {
		page, err := tbl.Read(ctx, "DeviceReadings", Request{Params: Params{"deviceId": "d"}, Range: c.r})
		if err != nil || len(page.Items) != c.want {
			t.Errorf("%s %v: %v, %v; want %d item(s)", c.r.Op, c.r.Value, page, err, c.want)
		}
	}
}

// A declared delete of an entity with unique values takes them, as the
// item holds them, so that their guards go with it: without them the
// runtime conditioned on their absence and the delete never held.
func TestDeclaredDeleteTakesUniqueValues(t *testing.T) {
	d := planned(t, `table: Accounts
entities:
  Account:
    id: [accountId]
    attributes: {accountId: {type: string, maxLength: 20}, email: {type: string, maxLength: 60}}
patterns:
  GetAccount: {get: Account}
  ByEmail: {get: Account, where: [email], unique: true}
writes:
  Close: {delete: Account}
`)
	if got := d.Model().Params(d.Model().Write("Close")); !slices.Equal(got, []string{"accountId", "email"}) {
		t.Errorf("Close takes %v", got)
	}
	tbl := fresh(t, d)
	ctx := context.Background()
	if err := tbl.Create(ctx, "Account", Values{"accountId": "a", "email": "a@x"}); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Write(ctx, "Close", Params{"accountId": "a", "email": "b@x"}); !errors.Is(err, ErrChanged) {
		t.Errorf("not the item's email: %v, want ErrChanged", err)
	}
	if err := tbl.Write(ctx, "Close", Params{"accountId": "a", "email": "a@x"}); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Create(ctx, "Account", Values{"accountId": "b", "email": "a@x"}); err != nil {
		t.Errorf("the email is free again: %v", err)
	}
}

// An update that removes a sparse key's attribute takes the item out of
// the index, and one whose equality condition fixes the key's other
// attribute rebuilds the key from it (KP701 passes both): the runtime
// refused both ("pass replyTo in With") while the plan and the reference
// did the write.
func TestUpdateRemovesSparseKeyOrKnowsPinned(t *testing.T) {
	d := design(t, "testdata/issue22/remove-sparse-key.yaml")
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	tbl := fresh(t, d)
	ctx := context.Background()
	for _, v := range []Values{
		{"threadId": "t", "replyId": "a", "replyTo": "x", "score": 5, "body": "b"},
		{"threadId": "t", "replyId": "ab", "replyTo": "x", "score": 7, "body": "b"},
	} {
		if err := tbl.Create(ctx, "Reply", v); err != nil {
			t.Fatal(err)
		}
	}
	replies := func() []string {
		t.Helper()
		page, err := tbl.Read(ctx, "RepliesTo", Request{Params: Params{"replyTo": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range page.Items {
			ids = append(ids, fmt.Sprint(it.Values["replyId"]))
		}
		return ids
	}
	if err := tbl.Write(ctx, "Rescore", Params{"threadId": "t", "replyId": "a", "score": 9, "replyTo": "x"}); err != nil {
		t.Fatal(err)
	}
	if got := replies(); !slices.Equal(got, []string{"a", "ab"}) {
		t.Errorf("after Rescore a to 9: %v, want [a ab] (score desc)", got)
	}
	if err := tbl.Write(ctx, "Rescore", Params{"threadId": "t", "replyId": "a", "score": 1, "replyTo": "y"}); !errors.Is(err, ErrCondition) {
		t.Errorf("Rescore as if a replied to y: %v, want ErrCondition", err)
	}
	if err := tbl.Write(ctx, "Detach", Params{"threadId": "t", "replyId": "ab"}); err != nil {
		t.Fatal(err)
	}
	if got := replies(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("after Detach ab: %v, want [a]", got)
	}
}
