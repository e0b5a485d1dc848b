package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// The fanout handler driven by the engine's own change records, read
// through its Streams API and handed over as Lambda's event source
// mapping would (its filters, batches, redelivery): an author with more
// posts than one invocation's budget is renamed twice in a row, one of
// her posts deleted by the application, another author's posts untouched.
// The continuations go through the stream as real records too; at the
// end every post of hers carries the last name, the deleted one is not
// re-created, and no continuation is left. Then some posts expire by the
// TTL (the engine's clock moved past it, its sweeper deleting them): a
// rename after that updates the others and brings none back. On
// DynamoDB Local (Streams, no TTL expiry) the expiries are skipped;
// dynalite has no Streams.
func TestFanoutOnTheEnginesStream(t *testing.T) {
	const posts, budget, page = 45, 10, 4
	d := streamtest.Design(t, streamtest.BlogModel)
	live := engine.LiveTable(t, d)
	client := streamtest.Client(engine.Endpoint, 0)
	tbl := dynamo.New(d, client, live.Name)
	ctx := context.Background()
	h := newHandler(patterns.NewLock(d), client, live.Name, quiet)
	h.budget, h.page = budget, page
	mapping := live.Mapping(t, patterns.HandlerFanout, h.Handle)

	now := time.Now()
	for _, a := range []dynamo.Values{{"authorId": "a1", "name": "Ada", "postCount": 0}, {"authorId": "a2", "name": "Grace", "postCount": 0}} {
		if err := tbl.Create(ctx, "Author", a); err != nil {
			t.Fatal(err)
		}
	}
	post := func(author, id, name string, expires bool) {
		v := dynamo.Values{"authorId": author, "postId": id, "authorName": name, "title": "t " + id}
		if expires {
			v["expiresAt"] = now.Add(time.Hour).Unix()
		}
		if err := tbl.Create(ctx, "Post", v); err != nil {
			t.Fatal(err)
		}
	}
	for i := range posts {
		post("a1", fmt.Sprintf("p%02d", i), "Ada", i >= posts-5) // the last five expire
	}
	for i := range 3 {
		post("a2", fmt.Sprintf("q%d", i), "Grace", false)
	}
	rename := func(name string) {
		t.Helper()
		if err := tbl.Update(ctx, "Author", dynamo.Values{"authorId": "a1"}, dynamo.Changes{Set: dynamo.Values{"name": name}}); err != nil {
			t.Fatal(err)
		}
	}
	rename("Ada Lovelace")
	rename("Countess Ada")
	if err := tbl.Delete(ctx, "Post", dynamo.Values{"authorId": "a1", "postId": "p00"}); err != nil {
		t.Fatal(err)
	}

	// census counts the posts by authorName (and the continuations) with
	// a Scan, not the handler's own reads.
	census := func() (map[string]int, int) {
		t.Helper()
		byName, continuations := map[string]int{}, 0
		for _, it := range evolvetest.ScanAll(t, client, live.Name) {
			entity, v, err := tbl.Decode(it)
			switch {
			case err != nil && strings.HasPrefix(keyOf(it, d.PK), patterns.FanoutTag):
				continuations++
			case err != nil:
				t.Fatalf("an item of no entity: %v", it)
			case entity == "Post":
				byName[v["authorId"].(string)+":"+fmt.Sprint(v["authorName"])]++
			}
		}
		return byName, continuations
	}
	delivered, err := mapping.Drain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName, left := census()
	if want := map[string]int{"a1:Countess Ada": posts - 1, "a2:Grace": 3}; fmt.Sprint(byName) != fmt.Sprint(want) || left != 0 {
		t.Errorf("posts by author and name %v, %d continuation(s) left; want %v and none", byName, left, want)
	}
	if renames, conts := delivered2(delivered, d); renames != 2 || conts == 0 {
		t.Errorf("delivered %d rename(s) and %d continuation record(s); want the 2 renames and the continuations' records", renames, conts)
	}
	if h.updated < posts-1 {
		t.Errorf("%d copies updated for %d posts", h.updated, posts-1)
	}

	t.Run("expiries", func(t *testing.T) {
		last, err := tbl.Key("Post", dynamo.Values{"authorId": "a1", "postId": fmt.Sprintf("p%02d", posts-1)})
		if err != nil {
			t.Fatal(err)
		}
		live.Expire(t, now.Add(2*time.Hour), func() bool {
			out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(live.Name), Key: last, ConsistentRead: aws.Bool(true)})
			return err == nil && out.Item == nil
		})
		rename("Ada, again")
		if _, err := mapping.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		byName, left := census()
		if want := map[string]int{"a1:Ada, again": posts - 6, "a2:Grace": 3}; fmt.Sprint(byName) != fmt.Sprint(want) || left != 0 {
			t.Errorf("after the expiries and a rename: %v, %d continuation(s) left; want %v and none", byName, left, want)
		}
	})
}

// delivered2 counts the renames of an author and the records of
// continuations among what a mapping delivered.
func delivered2(rs []events.DynamoDBEventRecord, d *patterns.Design) (renames, continuations int) {
	for _, r := range rs {
		pk := r.Change.Keys[d.PK].String()
		switch {
		case strings.HasPrefix(pk, patterns.FanoutTag):
			continuations++
		case r.EventName == "MODIFY" && r.Change.OldImage["name"].String() != r.Change.NewImage["name"].String():
			renames++
		}
	}
	return renames, continuations
}

func keyOf(it map[string]types.AttributeValue, name string) string {
	s, _ := it[name].(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}
