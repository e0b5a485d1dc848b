package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/keyplan/keyplan/lambdas/internal/stream/streamtest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

const model = "../../examples/leaderboard.yaml"

var quiet = slog.New(slog.NewJSONHandler(io.Discard, nil))

// loadBatch reads testdata/batch.json: a frozen batch of this handler's
// cases (the records of the example model's items).
func loadBatch(t testing.TB) events.DynamoDBEvent {
	return streamtest.Batch(t, "testdata/batch.json")
}

// fakeS3 accepts signed PUTs, failing the first failures of them with 503.
type fakeS3 struct {
	mu       sync.Mutex
	objects  map[string][]byte
	headers  map[string]http.Header
	failures int
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failures > 0 {
		f.failures--
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "<Error><Code>SlowDown</Code></Error>")
		return
	}
	if r.Method != http.MethodPut || !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKID/") {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.objects[r.URL.Path] = body
	f.headers[r.URL.Path] = r.Header.Clone()
}

func newFake(failures int) (*fakeS3, *s3Putter, func()) {
	f := &fakeS3{objects: map[string][]byte{}, headers: map[string]http.Header{}, failures: failures}
	srv := httptest.NewServer(f)
	c := newS3(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")},
		func(o *s3.Options) {
			o.BaseEndpoint, o.UsePathStyle = aws.String(srv.URL), true
			o.Retryer = retry.NewStandard(func(o *retry.StandardOptions) { o.MaxBackoff = 10 * time.Millisecond })
		})
	return f, c, srv.Close
}

// The frozen batch: the TTL service's removals of matches are archived,
// one object for the batch keyed by its first line; the expiry without an
// old image (nothing to keep) is skipped and counted, not failed; the
// application's removal, the insert and the player's expiry are not
// archived.
func TestArchivesExpiriesOnly(t *testing.T) {
	ev := loadBatch(t)
	fake, s3c, stop := newFake(1) // the first PUT is throttled: retried
	defer stop()
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(streamtest.Design(t, model)), s3c, "Leaderboard", "archive-bucket", log)
	resp, err := h.Handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v, want none (the record without an image is skipped)", resp.BatchItemFailures)
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricUndecodable] != 1 || m[patterns.MetricRecords] != 6 || m[patterns.MetricFailed] != 0 {
		t.Errorf("metrics %v (%v): want 6 records, 1 undecodable, none failed", m, err)
	}
	if len(fake.objects) != 1 {
		t.Fatalf("%d objects, want one per batch", len(fake.objects))
	}
	for path, body := range fake.objects {
		want := "/archive-bucket/Leaderboard/2026/11/21/" + ev.Records[0].Change.SequenceNumber + "-" + ev.Records[0].EventID + ".jsonl.gz"
		if path != want {
			t.Errorf("key %s, want %s", path, want)
		}
		hd := fake.headers[path]
		if hd.Get("Content-Encoding") != "gzip" || hd.Get("X-Amz-Server-Side-Encryption") != "" {
			t.Errorf("headers %v", hd)
		}
		ls := lines(t, body)
		if len(ls) != 2 || ls[0].Entity != "Match" || ls[0].Item["result"].String() != "win" || ls[1].Item["result"].String() != "draw" {
			t.Errorf("archived %+v", ls)
		}
	}
}

// When the object cannot be written, the records it carried fail (and
// only they): Lambda redelivers them, and the retried batch writes the
// same key.
func TestArchiveWriteFailure(t *testing.T) {
	ev := loadBatch(t)
	_, s3c, stop := newFake(10)
	defer stop()
	h := newHandler(patterns.NewLock(streamtest.Design(t, model)), s3c, "Leaderboard", "archive-bucket", quiet)
	resp, _ := h.Handle(context.Background(), ev)
	var got []string
	for _, f := range resp.BatchItemFailures {
		got = append(got, f.ItemIdentifier)
	}
	want := []string{ev.Records[0].Change.SequenceNumber, ev.Records[5].Change.SequenceNumber}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("failures %v, want %v", got, want)
	}
}

func fixtureFor(b testing.TB) events.DynamoDBEvent { return loadBatch(b) }

func designFor(b testing.TB) *patterns.Design { return streamtest.Design(b, model) }

// The hand-written stream event: only the TTL service's removal of a post
// is archived, with every attribute of its old image.
func TestStreamEvent(t *testing.T) {
	ev := streamtest.Event(t)
	fake, s3c, stop := newFake(0)
	defer stop()
	h := newHandler(patterns.NewLock(streamtest.Design(t, streamtest.BlogModel)), s3c, "Blog-Table-1X2Y3Z", "archive-bucket", quiet)
	resp, err := h.Handle(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v, %v", resp.BatchItemFailures, err)
	}
	if len(fake.objects) != 1 {
		t.Fatalf("%d objects, want 1", len(fake.objects))
	}
	for key, body := range fake.objects {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var lines []Line
		sc := bufio.NewScanner(zr)
		for sc.Scan() {
			var l Line
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, l)
		}
		if !strings.HasPrefix(key, "/archive-bucket/Blog/2025/11/21/") || len(lines) != 1 ||
			lines[0].Entity != "Post" || lines[0].Item["postId"].String() != "p1" || lines[0].Item["title"].String() != "Notes on the Analytical Engine" ||
			lines[0].Sequence != ev.Records[4].Change.SequenceNumber {
			t.Errorf("object %s holds %+v", key, lines)
		}
	}
}

// The archive keeps the item exactly as stored: an attribute the model
// does not declare, a number past float64's precision, the keys. An
// expiry whose keys are no item of the design is archived too (the table
// no longer holds it), its entity "", and counted; one holding a value
// aws-lambda-go cannot write (hand-made: no stream sends one) is archived
// without it, named. Nothing fails.
func TestArchiveKeepsItemsExactly(t *testing.T) {
	d := streamtest.Design(t, model)
	fake, s3c, stop := newFake(0)
	defer stop()
	log, out := streamtest.NewLog()
	h := newHandler(patterns.NewLock(d), s3c, "Leaderboard", "archive-bucket", log)
	tbl := dynamo.New(d, nil, "Leaderboard")
	item, err := tbl.Item("Match", dynamo.Values{"playerId": "p1", "playedAt": "2026-06-01T10:00:00Z", "result": "win",
		"ratingDelta": 5, "mapId": "dust", "expiresAt": 1900000000})
	if err != nil {
		t.Fatal(err)
	}
	item["legacyScore"] = &types.AttributeValueMemberN{Value: "9007199254740993.25"}
	item["notes"] = &types.AttributeValueMemberSS{Value: []string{"a", "b"}}
	kept := streamtest.Expiry(streamtest.Record(d, "Leaderboard", item, nil))
	stranger := streamtest.Expiry(streamtest.Record(d, "Leaderboard", map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "OTHER#1"}, "SK": &types.AttributeValueMemberS{Value: "X"}}, nil))
	empty := streamtest.Expiry(streamtest.Record(d, "Leaderboard", item, nil))
	empty.Change.OldImage = streamtest.Image(item) // its own copy
	empty.Change.OldImage["mapId"] = events.DynamoDBAttributeValue{}
	resp, err := h.Handle(context.Background(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{kept, stranger, empty}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 0 {
		t.Errorf("failures %+v, want none", resp.BatchItemFailures)
	}
	if m, err := out.Metrics(); err != nil || m[patterns.MetricNoEntity] != 1 {
		t.Errorf("metrics %v (%v): want the stranger counted", m, err)
	}
	if len(fake.objects) != 1 {
		t.Fatalf("%d objects", len(fake.objects))
	}
	for _, body := range fake.objects {
		ls := lines(t, body)
		if len(ls) != 3 || ls[1].Entity != "" || ls[1].Item["PK"].String() != "OTHER#1" || strings.Join(ls[2].Unreadable, ",") != "mapId" || len(ls[2].Item) != len(item)-1 {
			t.Errorf("archived %+v", ls)
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(zr)
		for _, want := range []string{`"legacyScore":{"N":"9007199254740993.25"}`, `"notes":{"SS":["a","b"]}`, `"PK":{"S":"PLAYER#p1"}`, `"ratingDelta":{"N":"5"}`} {
			if !strings.Contains(string(raw), want) {
				t.Errorf("the archived line lacks %s:\n%s", want, raw)
			}
		}
	}
}
