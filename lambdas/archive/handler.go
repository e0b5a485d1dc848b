package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// Line is one archived item, a JSON line of the object. Item is the item
// exactly as it was stored: the stream's old image in DynamoDB JSON
// ({"N": "12.50"}), every attribute (keys, and those the model does not
// declare, included), numbers as their decimal strings.
type Line struct {
	Entity    string                                   `json:"entity"`
	EventID   string                                   `json:"eventID"`
	Sequence  string                                   `json:"sequenceNumber"`
	ExpiredAt time.Time                                `json:"expiredAt"`
	Item      map[string]events.DynamoDBAttributeValue `json:"item"`
}

// handler keeps TTL expiries of the archived entities: removals made by
// the TTL service only, written as gzipped JSON lines, one object per
// batch, keyed by the model's table name (the prefix the construct grants),
// date and the batch's sequence range (a retried batch overwrites its own
// object).
type handler struct {
	tbl      *dynamo.Table
	table    string // the model's table name: the objects' prefix
	bucket   string
	s3       Putter
	log      *slog.Logger
	archived map[string]bool
}

func newHandler(l *patterns.Lock, s3c Putter, table, bucket string, log *slog.Logger) *handler {
	d := l.Latest()
	h := &handler{tbl: dynamo.NewRollout(l, nil, table), table: d.Table, bucket: bucket, s3: s3c, log: log, archived: map[string]bool{}}
	for _, e := range d.Model().Entities {
		h.archived[e.Name] = e.Archive
	}
	return h
}

// Handle archives a batch's expiries; a malformed record fails alone, a
// failed write fails the records it carried.
func (h *handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	f := stream.NewFailures(h.log)
	var lines []Line
	var carried []events.DynamoDBEventRecord
	for _, r := range ev.Records {
		if !stream.Expiry(r) {
			continue // not an expiry: nothing to keep
		}
		ch, err := stream.Decode(h.tbl, r)
		if err != nil {
			f.Fail(ctx, r, err)
			continue
		}
		if !h.archived[ch.Entity] {
			continue
		}
		lines = append(lines, Line{Entity: ch.Entity, EventID: r.EventID, Sequence: r.Change.SequenceNumber,
			ExpiredAt: r.Change.ApproximateCreationDateTime.UTC(), Item: r.Change.OldImage})
		carried = append(carried, r)
	}
	if len(lines) > 0 {
		if err := h.put(ctx, lines); err != nil {
			for _, r := range carried {
				f.Fail(ctx, r, err)
			}
		} else {
			h.log.InfoContext(ctx, "archived", "items", len(lines), "bucket", h.bucket, "key", h.key(lines))
		}
	}
	resp := f.Response()
	h.log.InfoContext(ctx, "batch done", "records", len(ev.Records), "archived", len(lines), "failed", len(resp.BatchItemFailures))
	return resp, nil
}

// gzips reuses compressors: a new one allocates most of a megabyte.
var gzips = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// key is table/yyyy/mm/dd/first-last.jsonl.gz. Stream records do not carry
// their shard's id; a batch comes from one shard, and its sequence range
// names it within the shard.
func (h *handler) key(lines []Line) string {
	day := lines[0].ExpiredAt
	return fmt.Sprintf("%s/%04d/%02d/%02d/%s-%s.jsonl.gz", h.table, day.Year(), day.Month(), day.Day(),
		lines[0].Sequence, lines[len(lines)-1].Sequence)
}

func (h *handler) put(ctx context.Context, lines []Line) error {
	var buf bytes.Buffer
	zw := gzips.Get().(*gzip.Writer)
	defer gzips.Put(zw)
	zw.Reset(&buf)
	enc := json.NewEncoder(zw)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return h.s3.Put(ctx, Object{Bucket: h.bucket, Key: h.key(lines), Body: buf.Bytes(),
		ContentType: "application/x-ndjson", ContentEncoding: "gzip"})
}
