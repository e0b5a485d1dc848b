package dynamo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

const gapsModel = "../testdata/models/gaps.yaml"

// An item whose TTL has passed is hidden from every read of its entity
// (GetItem and Query, a page, every page, a count) and shown by a pattern
// that says expired: include, before DynamoDB deletes it: the items
// expire an hour from now on the engine's clock (its sweeper, when it
// has one, leaves them; DynamoDB Local has none), and the runtime's clock
// is moved two hours on.
func TestExpiredItemsHidden(t *testing.T) {
	ctx := context.Background()
	d := design(t, gapsModel)
	writer := fresh(t, d)
	now := time.Now()
	soon, later := now.Add(time.Hour).Unix(), now.Add(48*time.Hour).Unix()
	for _, it := range []struct {
		entity string
		v      Values
	}{
		{"Post", Values{"postId": "p1", "authorId": "ann", "title": "Hello", "status": "LIVE", "edits": []string{}}},
		{"Comment", Values{"postId": "p1", "commentId": "old", "createdAt": "2026-01-01T00:00:00Z", "body": "b", "expiresAt": soon}},
		{"Comment", Values{"postId": "p1", "commentId": "new", "createdAt": "2026-01-03T00:00:00Z", "body": "b", "expiresAt": soon}},
		{"Comment", Values{"postId": "p1", "commentId": "mid", "createdAt": "2026-01-02T00:00:00Z", "body": "b", "expiresAt": later}},
		{"Comment", Values{"postId": "p1", "commentId": "kept", "createdAt": "2025-12-01T00:00:00Z", "body": "b"}},
		{"Session", Values{"sessionId": "s1", "userId": "ann", "expiresAt": soon}},
		{"Session", Values{"sessionId": "s2", "userId": "ann", "expiresAt": later}},
	} {
		if err := writer.Create(ctx, it.entity, it.v); err != nil {
			t.Fatal(err)
		}
	}
	moved := New(d, client, writer.Name(), WithClock(func() time.Time { return now.Add(2 * time.Hour) }))
	read := func(tbl *Table, pattern string, params Params, limit int32) []string {
		t.Helper()
		var out []string
		if tbl.d.Pattern(pattern).Operation == patterns.GetItem {
			it, err := tbl.Get(ctx, pattern, params)
			if err != nil {
				t.Fatal(err)
			}
			if it != nil {
				out = append(out, name(it))
			}
			return out
		}
		page, err := tbl.Read(ctx, pattern, Request{Params: params, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			out = append(out, name(&it))
		}
		return out
	}
	tests := []struct {
		pattern     string
		params      Params
		now, moved  []string
		countNow    int64
		countMoved  int64
		includeOnly bool
	}{
		{pattern: "PostWithComments", params: Params{"postId": "p1"}, now: []string{"new", "mid", "old", "kept", "p1"}, moved: []string{"mid", "kept", "p1"}},
		{pattern: "AllComments", params: Params{"postId": "p1"}, now: []string{"kept", "old", "mid", "new"}, moved: []string{"kept", "old", "mid", "new"}, includeOnly: true},
		{pattern: "UserSessions", params: Params{"userId": "ann"}, now: []string{"s1", "s2"}, moved: []string{"s2"}},
		{pattern: "GetSession", params: Params{"sessionId": "s1"}, now: []string{"s1"}, moved: nil},
		{pattern: "GetSession", params: Params{"sessionId": "s2"}, now: []string{"s2"}, moved: []string{"s2"}},
	}
	for _, tt := range tests {
		if got := read(writer, tt.pattern, tt.params, 0); !slices.Equal(got, tt.now) {
			t.Errorf("%s%v now: %v, want %v", tt.pattern, tt.params, got, tt.now)
		}
		if got := read(moved, tt.pattern, tt.params, 0); !slices.Equal(got, tt.moved) {
			t.Errorf("%s%v two hours on: %v, want %v", tt.pattern, tt.params, got, tt.moved)
		}
	}
	// Every pattern that reads an entity with a ttl hides, but the one
	// that says expired: include.
	for _, pp := range d.Patterns {
		include := d.Model().Pattern(pp.Name).Expired == model.ExpiredInclude
		hasTTL := slices.ContainsFunc(pp.Entities, func(e string) bool { return d.Model().Entity(e).TTLAttr() != nil })
		if hasTTL && (pp.HideExpired == "") != include {
			t.Errorf("%s: hides by %q, expired: include %v", pp.Name, pp.HideExpired, include)
		}
	}
	// A page of two, newest first: the two newest comments expired, so
	// the first request's page is empty and the runtime reads on.
	c := &counter{Client: client}
	limited := New(d, c, writer.Name(), WithClock(func() time.Time { return now.Add(2 * time.Hour) }))
	page, err := limited.Read(ctx, "PostWithComments", Request{Params: Params{"postId": "p1"}, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range page.Items {
		got = append(got, name(&it))
	}
	if !slices.Equal(got, []string{"mid", "kept"}) || page.Hidden != 2 || page.Requests < 2 || c.n != page.Requests {
		t.Errorf("a page of 2: %v, %d hidden, %d requests (%d made); want [mid kept], 2 hidden, 2 or more", got, page.Hidden, page.Requests, c.n)
	}
	// The rest of the pages, and every page at once.
	next, err := limited.Read(ctx, "PostWithComments", Request{Params: Params{"postId": "p1"}, Limit: 2, StartKey: page.LastEvaluatedKey})
	if err != nil || len(next.Items) != 1 || name(&next.Items[0]) != "p1" {
		t.Errorf("the next page: %v, %v; want [p1]", next, err)
	}
	got = nil
	for it, err := range limited.All(ctx, "PostWithComments", Request{Params: Params{"postId": "p1"}, Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, name(&it))
	}
	if !slices.Equal(got, []string{"mid", "kept", "p1"}) {
		t.Errorf("All, pages of 1: %v, want [mid kept p1]", got)
	}
	// A count sums every page: pages of one comment each, the expired
	// ones read and not counted.
	for _, x := range []struct {
		tbl  *Table
		want int64
	}{{writer, 4}, {moved, 2}, {limited, 2}} {
		for _, limit := range []int32{0, 1} {
			if n, err := x.tbl.Count(ctx, "CommentCount", Request{Params: Params{"postId": "p1"}, Limit: limit}); err != nil || n != x.want {
				t.Errorf("CommentCount, pages of %d: %d, %v; want %d", limit, n, err, x.want)
			}
		}
	}
	c.n = 0
	if _, err := limited.Count(ctx, "CommentCount", Request{Params: Params{"postId": "p1"}, Limit: 1}); err != nil || c.n < 4 {
		t.Errorf("CommentCount, pages of 1: %d requests for 4 comments (%v)", c.n, err)
	}
	// DynamoDB still holds the expired items: hiding them is the
	// runtime's doing, not a deletion.
	key, _ := writer.Key("Session", Values{"sessionId": "s1"})
	out, err := engine.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(writer.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		t.Errorf("the engine no longer holds s1 (%v): the test shows nothing", err)
	}
}

// name names an item of the gaps model by its id.
func name(it *Item) string {
	for _, k := range []string{"commentId", "sessionId", "postId", "userId", "ticketId"} {
		if v, ok := it.Values[k].(string); ok {
			return v
		}
	}
	return it.Entity
}

// Following a user moves both users' counts in one transaction: each
// step names its item (as: follower, as: followee). Refused as a whole
// when either count's condition fails, applied to both otherwise.
func TestFollowTransaction(t *testing.T) {
	ctx := context.Background()
	tbl := fresh(t, design(t, gapsModel))
	users := map[string]Values{
		"ann":  {"userId": "ann", "name": "Ann", "followers": 0, "following": 4},
		"bob":  {"userId": "bob", "name": "Bob", "followers": 0, "following": 0},
		"cat":  {"userId": "cat", "name": "Cat", "followers": 1000000, "following": 0},
		"dora": {"userId": "dora", "name": "Dora", "followers": 7, "following": 2},
		"eve":  {"userId": "eve", "name": "Eve", "followers": 3, "following": 5},
	}
	for _, v := range users {
		v["prefs"] = map[string]string{}
		if err := tbl.Create(ctx, "User", v); err != nil {
			t.Fatal(err)
		}
	}
	follow := func(follower, followee string) error {
		return tbl.Write(ctx, "FollowUser", Params{"followerId": follower, "followeeId": followee, "since": "2026-06-01T00:00:00Z",
			"follower.userId": follower, "followee.userId": followee})
	}
	counts := func(user string) (followers, following int64) {
		t.Helper()
		it, err := tbl.Get(ctx, "GetUser", Params{"userId": user})
		if err != nil || it == nil {
			t.Fatalf("GetUser %s: %v, %v", user, it, err)
		}
		return it.Values["followers"].(int64), it.Values["following"].(int64)
	}
	follows := func(follower, followee string) bool {
		key, _ := tbl.Key("Follow", Values{"followerId": follower, "followeeId": followee})
		out, err := engine.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl.Name()), Key: key, ConsistentRead: aws.Bool(true)})
		return err == nil && out.Item != nil
	}
	tests := []struct {
		name               string
		follower, followee string
		fails              string // the condition, or "" to succeed
		step               int
	}{
		{"the follower's count at its limit", "eve", "dora", "following < 5", 2},
		{"the followee's count at its limit", "bob", "cat", "followers < 1000000", 3},
		{"both within their limits", "dora", "bob", "", 0},
		{"at the limit after that", "ann", "bob", "", 0},
		{"and then past it", "ann", "dora", "following < 5", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f1, g1 := counts(tt.follower)
			f2, g2 := counts(tt.followee)
			err := follow(tt.follower, tt.followee)
			F1, G1 := counts(tt.follower)
			F2, G2 := counts(tt.followee)
			if tt.fails != "" {
				var ce *ConditionError
				if !errors.As(err, &ce) || ce.Step != tt.step || !strings.HasPrefix(ce.Condition, tt.fails) {
					t.Fatalf("err %v; want step %d's condition %q to fail", err, tt.step, tt.fails)
				}
				if F1 != f1 || G1 != g1 || F2 != f2 || G2 != g2 || follows(tt.follower, tt.followee) {
					t.Errorf("refused, yet something moved: %s %d/%d→%d/%d, %s %d/%d→%d/%d, follow item %v",
						tt.follower, f1, g1, F1, G1, tt.followee, f2, g2, F2, G2, follows(tt.follower, tt.followee))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if G1 != g1+1 || F1 != f1 || F2 != f2+1 || G2 != g2 || !follows(tt.follower, tt.followee) {
				t.Errorf("applied, but %s follows %d→%d (want +1), %s has %d→%d followers (want +1), follow item %v",
					tt.follower, g1, G1, tt.followee, f2, F2, follows(tt.follower, tt.followee))
			}
		})
	}
	// One user cannot follow themselves through this transaction: both
	// steps would write one item, which DynamoDB refuses.
	if err := follow("bob", "bob"); err == nil {
		t.Error("bob followed bob: one transaction wrote one item twice")
	}
	// A parameter of the step's item left out is missing, not taken from
	// another step.
	err := tbl.Write(ctx, "FollowUser", Params{"followerId": "bob", "followeeId": "dora", "since": "2026-06-01T00:00:00Z", "follower.userId": "bob"})
	if !errors.Is(err, ErrMissing) {
		t.Errorf("without followee.userId: %v, want ErrMissing", err)
	}
}

// A sorted collection is read whole: a range on its sort attribute would
// leave its owner out, so the runtime refuses it and says why (it used
// to say the pattern had no sort attribute).
func TestSortedCollectionRange(t *testing.T) {
	tbl := fresh(t, design(t, gapsModel))
	_, err := tbl.Read(context.Background(), "PostWithComments", Request{Params: Params{"postId": "p1"}, Range: &Range{Op: ">=", Value: "2026-01-01T00:00:00Z"}})
	if !errors.Is(err, ErrBadRange) || !strings.Contains(err.Error(), "sorted collection") {
		t.Errorf("a range on PostWithComments: %v", err)
	}
	if _, err := tbl.Read(context.Background(), "AllComments", Request{Params: Params{"postId": "p1"}, Range: &Range{Op: ">=", Value: "2026-01-01T00:00:00Z"}}); err != nil {
		t.Errorf("a range on AllComments (one entity): %v", err)
	}
}
