package oracle

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/keyplan/keyplan/patterns/model"
)

// The gaps model (issue 26): expiring sessions and comments, a sharded
// counter, a follow of two users, sets, lists, maps, a derived number.
func gaps(t *testing.T) (*model.Model, *State) {
	t.Helper()
	src, err := os.ReadFile("../testdata/models/gaps.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := parseModel(t, string(src))
	return m, NewState(m)
}

func mustWrite(t *testing.T, s *State, name string, params map[string]any) {
	t.Helper()
	if err := s.Write(s.Model().Write(name), params); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func ids(ans *Answer, attr string) []string {
	var out []string
	for _, it := range ans.Items {
		out = append(out, it.Values[attr].(string))
	}
	return out
}

// An item whose ttl is before the state's clock is left out of every
// read but one that says expired: include, and not counted; it is
// still held. Expiry is strict: a ttl equal to now has not passed.
func TestExpiredHidden(t *testing.T) {
	m, s := gaps(t)
	now := time.Unix(2_000_000_000, 0)
	s.SetNow(now)
	mustWrite(t, s, "AddPost", map[string]any{"postId": "p", "authorId": "a", "title": "t", "status": "LIVE", "edits": []string{}})
	for _, c := range []struct {
		id  string
		at  string
		ttl any
	}{{"old", "2026-01-01T00:00:00Z", now.Unix() - 1}, {"now", "2026-01-02T00:00:00Z", now.Unix()}, {"kept", "2026-01-03T00:00:00Z", nil}} {
		v := map[string]any{"postId": "p", "commentId": c.id, "createdAt": c.at, "body": "b"}
		if c.ttl != nil {
			v["expiresAt"] = c.ttl
		}
		mustWrite(t, s, "AddComment", v)
	}
	read := func(name string) *Answer {
		ans, err := s.Read(m.Pattern(name), map[string]any{"postId": "p"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	if got := ids(read("AllComments"), "commentId"); !slices.Equal(got, []string{"old", "now", "kept"}) {
		t.Errorf("AllComments (expired: include): %v", got)
	}
	// Newest first, the post at the end.
	ans := read("PostWithComments")
	var got []string
	for _, it := range ans.Items {
		got = append(got, it.Values[map[string]string{"Comment": "commentId", "Post": "postId"}[it.Entity]].(string))
	}
	if !slices.Equal(got, []string{"kept", "now", "p"}) {
		t.Errorf("PostWithComments: %v, want [kept now p]", got)
	}
	if n := read("CommentCount").Number; n == nil || *n != "2" {
		t.Errorf("CommentCount: %v, want 2", n)
	}
	if s.Len() != 4 {
		t.Errorf("%d items held, want 4: an expired item is held until deleted", s.Len())
	}
	s.SetNow(time.Time{})
	if n := read("CommentCount").Number; *n != "3" {
		t.Errorf("without a clock: %s, want 3", *n)
	}
}

// A sharded counter is on no item: an add needs no item and takes no
// condition, a read returns its value, a delete of the item takes it.
func TestCounters(t *testing.T) {
	m, s := gaps(t)
	views := func() string {
		ans, err := s.Read(m.Pattern("PostViews"), map[string]any{"postId": "p"}, nil)
		if err != nil || ans.Number == nil {
			t.Fatalf("PostViews: %v, %v", ans, err)
		}
		return string(*ans.Number)
	}
	if v := views(); v != "0" {
		t.Errorf("before any add: %s", v)
	}
	for range 3 {
		mustWrite(t, s, "CountView", map[string]any{"postId": "p"})
	}
	if v := views(); v != "3" {
		t.Errorf("after 3 adds: %s", v)
	}
	if s.Len() != 0 {
		t.Errorf("an add to a counter made an item")
	}
	if err := s.Create("Post", map[string]any{"postId": "p", "authorId": "a", "title": "t", "status": "LIVE", "edits": []string{}, "views": 5}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a counter given on create: %v", err)
	}
	mustWrite(t, s, "AddPost", map[string]any{"postId": "p", "authorId": "a", "title": "t", "status": "LIVE", "edits": []string{}})
	if v := views(); v != "3" {
		t.Errorf("after the post was created: %s", v)
	}
	if err := s.Delete("Post", map[string]any{"postId": "p"}); err != nil {
		t.Fatal(err)
	}
	if v := views(); v != "0" || len(s.Counters()) != 0 {
		t.Errorf("after the post was deleted: %s, %v", v, s.Counters())
	}
}

// Sets take adds and discards (an empty set is no value), lists appends
// in order, maps entries one by one; a derived value follows its sources.
func TestCollectionsAndDerived(t *testing.T) {
	m, s := gaps(t)
	mustWrite(t, s, "AddUser", map[string]any{"userId": "u", "name": "U", "followers": 0, "following": 0, "badges": []string{}, "prefs": map[string]any{}})
	user := func() Values { return s.Get("User", Values{"userId": "u"}).Values }
	if _, ok := user()["badges"]; ok {
		t.Errorf("an empty set is held: %v", user())
	}
	mustWrite(t, s, "AddBadges", map[string]any{"userId": "u", "badges": []string{"b", "a", "b"}})
	mustWrite(t, s, "AddBadges", map[string]any{"userId": "u", "badges": "c"})
	if got := Text(user()["badges"]); got != `{"a" "b" "c"}` {
		t.Errorf("badges %s", got)
	}
	mustWrite(t, s, "DropBadges", map[string]any{"userId": "u", "badges": []string{"a", "b", "c", "z"}})
	if _, ok := user()["badges"]; ok {
		t.Errorf("discarding every element left %v", user()["badges"])
	}
	if err := s.Write(m.Write("AddBadges"), map[string]any{"userId": "u", "badges": []string{}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("an add of no element: %v", err)
	}
	mustWrite(t, s, "SetTheme", map[string]any{"userId": "u", "prefs.theme": "dark"})
	if got := Text(user()["prefs"]); got != `map[theme:"dark"]` {
		t.Errorf("prefs %s", got)
	}
	mustWrite(t, s, "AddPost", map[string]any{"postId": "p", "authorId": "a", "title": "t", "status": "LIVE", "edits": []string{"one"}})
	mustWrite(t, s, "EditPost", map[string]any{"postId": "p", "title": "t2", "edit": "two"})
	mustWrite(t, s, "EditPost", map[string]any{"postId": "p", "title": "t3", "edit": []string{"three", "four"}})
	if got := Text(s.Get("Post", Values{"postId": "p"}).Values["edits"]); got != `["one" "two" "three" "four"]` {
		t.Errorf("edits %s", got)
	}
	mustWrite(t, s, "OpenTicket", map[string]any{"ticketId": "t", "repo": "kp", "issueNumber": 26, "title": "x"})
	if got := s.Get("Ticket", Values{"ticketId": "t"}).Values["ticketNumber"]; got != "kp#26" {
		t.Errorf("ticketNumber %v", got)
	}
	mustWrite(t, s, "Renumber", map[string]any{"ticketId": "t", "repo": "kp", "issueNumber": 27})
	ans, _ := s.Read(m.Pattern("TicketsByNumber"), map[string]any{"ticketNumber": "kp#27"}, nil)
	if len(ans.Items) != 1 {
		t.Errorf("TicketsByNumber(kp#27) after Renumber: %v", ans.Items)
	}
	if err := s.Create("Ticket", map[string]any{"ticketId": "u", "repo": "kp", "issueNumber": 1, "title": "x", "ticketNumber": "kp#2"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a derived value given otherwise: %v", err)
	}
}

// A transaction's named steps write two items of one entity, each with
// its own parameters; both or neither.
func TestNamedSteps(t *testing.T) {
	m, s := gaps(t)
	for _, u := range []struct {
		id        string
		following int
	}{{"ann", 4}, {"bob", 5}, {"cat", 0}} {
		mustWrite(t, s, "AddUser", map[string]any{"userId": u.id, "name": "N", "followers": 0, "following": u.following, "prefs": map[string]any{}})
	}
	follow := func(a, b string) error {
		return s.Write(m.Write("FollowUser"), map[string]any{"followerId": a, "followeeId": b, "since": "2026-01-01T00:00:00Z", "follower.userId": a, "followee.userId": b})
	}
	count := func(u, attr string) string { return Text(s.Get("User", Values{"userId": u}).Values[attr]) }
	if err := follow("ann", "cat"); err != nil || count("ann", "following") != "5" || count("cat", "followers") != "1" {
		t.Errorf("ann follows cat: %v; ann follows %s, cat has %s followers", err, count("ann", "following"), count("cat", "followers"))
	}
	if err := follow("bob", "cat"); !errors.Is(err, ErrCondition) || count("cat", "followers") != "1" || s.Get("Follow", Values{"followerId": "bob", "followeeId": "cat"}) != nil {
		t.Errorf("bob (at his limit) follows cat: %v; cat has %s followers", err, count("cat", "followers"))
	}
	if err := follow("cat", "cat"); !errors.Is(err, ErrInvalid) {
		t.Errorf("cat follows cat (one item written twice): %v", err)
	}
	err := s.Write(m.Write("FollowUser"), map[string]any{"followerId": "cat", "followeeId": "ann", "since": "2026-01-01T00:00:00Z", "follower.userId": "cat"})
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("without followee.userId: %v", err)
	}
}

// One element added to a number set may come as any number the runtime
// takes as one (it wraps a scalar as a one-element set): an int, a
// float, a json.Number, a Number. make test-scale found json.Number
// refused ("expected a list of numbers") where the table took it.
func TestOneNumberAddedToASet(t *testing.T) {
	m := parseModel(t, `
table: docs
entities:
  Doc:
    id: docId
    attributes:
      docId: string
      scores: {type: set, of: number}
patterns:
  GetDoc: {get: Doc}
writes:
  AddDoc: {put: Doc}
  Score: {update: Doc, add: {scores: $scores}}
`)
	s := NewState(m)
	mustWrite(t, s, "AddDoc", map[string]any{"docId": "a"})
	for _, v := range []any{json.Number("0.5"), int64(2), 3, 4.25, json.Number("1e2")} {
		mustWrite(t, s, "Score", map[string]any{"docId": "a", "scores": v})
	}
	if got := Text(s.Get("Doc", Values{"docId": "a"}).Values["scores"]); got != `{0.5 2 3 4.25 100}` {
		t.Errorf("scores %s", got)
	}
}
