package gen

// gapsTest runs the code generated for the gaps model (issue 26's
// features: a set, a list and a map entry written, a sharded counter's
// sum, a count, expired items hidden from reads and shown by one that
// includes them, a derived attribute's key recomputed, a transaction of
// two items of one entity) on the engine, each write also applied to the
// reference evaluator (patterns/oracle, which never looks at keys): both
// take it, or both refuse it (the generated method with a
// *dynamo.ConditionError, naming the condition, and nothing changes);
// after the writes every read the generated code offers returns what the
// reference says. TestGeneratedCodeBuilds writes it beside the generated
// package and runs it.
const gapsTest = `package gapsdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
	"github.com/keyplan/keyplan/patterns/oracle"
)

func TestGeneratedCodeOnTheEngine(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := Design()
	if err != nil {
		t.Fatal(err)
	}
	m := d.Model()
	// The clock reads hide expired items by: items that expire before it
	// but after today are hidden by the runtime, never swept by the engine.
	now := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	past, future := now.Add(-48*time.Hour).Unix(), now.Add(48*time.Hour).Unix()
	db, err := Open(engine.DB, engine.TableName(t, d), dynamo.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	ref := oracle.NewState(m)
	ref.SetNow(now)

	refused := 0
	step := func(name string, params map[string]any, run func() error) {
		t.Helper()
		got, want := run(), ref.Write(m.Write(name), params)
		var ce *dynamo.ConditionError
		switch {
		case want != nil && !errors.Is(want, oracle.ErrCondition):
			t.Fatalf("%s %v: the reference finds it invalid: %v", name, params, want)
		case want == nil && got != nil:
			t.Errorf("%s %v: %v; the reference takes it", name, params, got)
		case want != nil && !errors.As(got, &ce):
			t.Errorf("%s %v: %v; the reference refuses it (%v), want a *dynamo.ConditionError", name, params, got, want)
		case want != nil && ce.Condition == "":
			t.Errorf("%s %v: refused without naming the condition: %v", name, params, got)
		case want != nil:
			refused++
		}
	}

	anyMap := func(m map[string]string) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	ann := AddUserParams{UserID: "ann", Name: "Ann", Following: 4, Prefs: map[string]string{"lang": "en"}}
	for _, u := range []AddUserParams{ann, {UserID: "a#b", Name: "A#B", Prefs: map[string]string{}}, {UserID: "ab", Name: "AB", Followers: 7, Prefs: map[string]string{}}, ann} {
		step("AddUser", map[string]any{"userId": u.UserID, "name": u.Name, "followers": u.Followers, "following": u.Following, "prefs": anyMap(u.Prefs)},
			func() error { return db.AddUser(ctx, u) })
	}
	since := time.Date(2099, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range [][2]string{{"ann", "ab"}, {"ann", "a#b"}, {"ab", "ann"}} {
		step("FollowUser", map[string]any{"followerId": f[0], "followeeId": f[1], "since": since, "follower.userId": f[0], "followee.userId": f[1]},
			func() error {
				return db.FollowUser(ctx, FollowUserParams{FollowerID: f[0], FolloweeID: f[1], Since: since, FollowerUserID: f[0], FolloweeUserID: f[1]})
			})
	}
	for _, b := range [][]string{{"early", "helpful"}, {"helpful", "a#b"}} {
		step("AddBadges", map[string]any{"userId": "ab", "badges": b}, func() error { return db.AddBadges(ctx, AddBadgesParams{UserID: "ab", Badges: b}) })
	}
	step("DropBadges", map[string]any{"userId": "ab", "badges": []string{"early"}}, func() error { return db.DropBadges(ctx, DropBadgesParams{UserID: "ab", Badges: []string{"early"}}) })
	step("AddBadges", map[string]any{"userId": "nobody", "badges": []string{"x"}}, func() error { return db.AddBadges(ctx, AddBadgesParams{UserID: "nobody", Badges: []string{"x"}}) })
	for _, u := range []string{"ab", "nobody"} {
		step("SetTheme", map[string]any{"userId": u, "prefs.theme": "dark%"}, func() error { return db.SetTheme(ctx, SetThemeParams{UserID: u, PrefsTheme: "dark%"}) })
	}
	for _, p := range []AddPostParams{{PostID: "p1", AuthorID: "ann", Title: "Hello", Status: PostStatusLive, Edits: []string{}}, {PostID: "p2", AuthorID: "ab", Title: "Draft", Status: PostStatusDraft, Edits: []string{"one"}}} {
		step("AddPost", map[string]any{"postId": p.PostID, "authorId": p.AuthorID, "title": p.Title, "status": string(p.Status), "edits": p.Edits},
			func() error { return db.AddPost(ctx, p) })
	}
	for _, id := range []string{"p1", "p2"} {
		step("EditPost", map[string]any{"postId": id, "title": "Hello, world", "edit": []string{"title: → Hello, world"}},
			func() error { return db.EditPost(ctx, EditPostParams{PostID: id, Title: "Hello, world", Edit: []string{"title: → Hello, world"}}) })
	}
	for range 5 {
		step("CountView", map[string]any{"postId": "p1"}, func() error { return db.CountView(ctx, CountViewParams{PostID: "p1"}) })
	}
	for i, exp := range []*int64{nil, &past, &future, &future} {
		c := AddCommentParams{PostID: "p1", CommentID: fmt.Sprintf("c%d", i), CreatedAt: since.Add(time.Duration(i%3) * time.Hour), Body: "body #%", ExpiresAt: exp}
		params := map[string]any{"postId": c.PostID, "commentId": c.CommentID, "createdAt": c.CreatedAt, "body": c.Body}
		if exp != nil {
			params["expiresAt"] = *exp
		}
		step("AddComment", params, func() error { return db.AddComment(ctx, c) })
	}
	for i, exp := range []int64{past, future, future} {
		s := StartSessionParams{SessionID: fmt.Sprintf("s%d", i), UserID: "ann", ExpiresAt: exp}
		step("StartSession", map[string]any{"sessionId": s.SessionID, "userId": s.UserID, "expiresAt": s.ExpiresAt}, func() error { return db.StartSession(ctx, s) })
	}
	for _, o := range []OpenTicketParams{{TicketID: "t1", Repo: "keyplan", IssueNumber: 26, Title: "gaps"}, {TicketID: "t2", Repo: "keyplan#", IssueNumber: 6, Title: "prefix"}, {TicketID: "t1", Repo: "x", IssueNumber: 1, Title: "again"}} {
		step("OpenTicket", map[string]any{"ticketId": o.TicketID, "repo": o.Repo, "issueNumber": o.IssueNumber, "title": o.Title}, func() error { return db.OpenTicket(ctx, o) })
	}
	step("Renumber", map[string]any{"ticketId": "t1", "repo": "keyplan", "issueNumber": int64(27)}, func() error {
		return db.Renumber(ctx, RenumberParams{TicketID: "t1", Repo: "keyplan", IssueNumber: 27})
	})
	if refused < 5 {
		t.Errorf("only %d write(s) refused: the refused path is not run", refused)
	}

	check := func(pattern string, params map[string]any, got []*oracle.Item, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s %v: %v", pattern, params, err)
			return
		}
		ans, err := ref.Read(m.Pattern(pattern), params, nil)
		if err != nil {
			t.Fatalf("%s %v: the reference: %v", pattern, params, err)
		}
		if ans.Number != nil {
			t.Fatalf("%s returns a number", pattern)
		}
		if err := ans.Check(m, got, false); err != nil {
			t.Errorf("%s %v: %v", pattern, params, err)
		}
	}
	number := func(pattern string, params map[string]any, got int64, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s %v: %v", pattern, params, err)
			return
		}
		ans, err := ref.Read(m.Pattern(pattern), params, nil)
		if err != nil {
			t.Fatalf("%s %v: the reference: %v", pattern, params, err)
		}
		if err := ans.CheckNumber(got); err != nil {
			t.Errorf("%s %v: %v", pattern, params, err)
		}
	}
	item := func(entity string, v interface{ Values() dynamo.Values }) []*oracle.Item {
		return []*oracle.Item{oracle.FromRuntime(m, entity, v.Values())}
	}
	for _, id := range []string{"ann", "ab", "a#b", "a", "nobody"} {
		u, err := db.GetUser(ctx, id)
		var got []*oracle.Item
		if u != nil {
			got = item("User", u)
		}
		check("GetUser", map[string]any{"userId": id}, got, err)
	}
	for _, id := range []string{"p1", "p2", "p"} {
		p, err := db.GetPost(ctx, id)
		var got []*oracle.Item
		if p != nil {
			got = item("Post", p)
		}
		check("GetPost", map[string]any{"postId": id}, got, err)
		views, err := db.PostViews(ctx, id)
		number("PostViews", map[string]any{"postId": id}, views, err)
		n, err := db.CommentCount(ctx, id, Options{})
		number("CommentCount", map[string]any{"postId": id}, n, err)
		var with []*oracle.Item
		for it, err := range db.PostWithCommentsAll(ctx, id, Options{}) {
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case it.Post != nil:
				with = append(with, item("Post", it.Post)...)
			case it.Comment != nil:
				with = append(with, item("Comment", it.Comment)...)
			}
		}
		check("PostWithComments", map[string]any{"postId": id}, with, nil)
		var all []*oracle.Item
		for c, err := range db.AllCommentsAll(ctx, id, Options{}) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, item("Comment", &c)...)
		}
		check("AllComments", map[string]any{"postId": id}, all, nil)
	}
	var sessions []*oracle.Item
	for s, err := range db.UserSessionsAll(ctx, "ann", Options{}) {
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, oracle.FromRuntime(m, "Session", map[string]any{"sessionId": s.SessionID, "expiresAt": s.ExpiresAt}))
	}
	check("UserSessions", map[string]any{"userId": "ann"}, sessions, nil)
	for _, id := range []string{"s0", "s1"} {
		s, err := db.GetSession(ctx, id)
		var got []*oracle.Item
		if s != nil {
			got = item("Session", s)
		}
		check("GetSession", map[string]any{"sessionId": id}, got, err)
	}
	for _, n := range []string{"keyplan#26", "keyplan#27", "keyplan##6", "keyplan#", "x#1"} {
		var got []*oracle.Item
		for tk, err := range db.TicketsByNumberAll(ctx, n, Options{}) {
			if err != nil {
				t.Fatal(err)
			}
			// Values are what the runtime takes: not the derived number,
			// which the read decodes.
			vals := tk.Values()
			vals["ticketNumber"] = tk.TicketNumber
			got = append(got, oracle.FromRuntime(m, "Ticket", vals))
		}
		check("TicketsByNumber", map[string]any{"ticketNumber": n}, got, nil)
	}
	// The refused AddUser of ann names what held it back.
	err = db.AddUser(ctx, ann)
	var ce *dynamo.ConditionError
	if !errors.As(err, &ce) || !strings.Contains(ce.Condition, "exists") {
		t.Errorf("a second AddUser of ann: %v, want a ConditionError saying the item exists", err)
	}
}
`
