package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/aws/aws-lambda-go/events"

	"github.com/keyplan/keyplan/lambdas/internal/stream"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// Line is one archived item, a JSON line of the object. Item is the item
// exactly as it was stored: the stream's old image in DynamoDB JSON
// ({"N": "12.50"}), every attribute (keys, and those the model does not
// declare, included), numbers as their decimal strings, whatever they
// hold (NULL, another type than the model's): the archive decodes only
// the keys, to know the entity. Entity is "" for an item whose keys are no
// entity's (another application's, an earlier model's): archived all the
// same, since the table no longer holds it. Unreadable names attributes
// of the image that held nothing to write (none, from a real stream).
type Line struct {
	Entity     string                                   `json:"entity"`
	EventID    string                                   `json:"eventID"`
	Sequence   string                                   `json:"sequenceNumber"`
	ExpiredAt  time.Time                                `json:"expiredAt"`
	Item       map[string]events.DynamoDBAttributeValue `json:"item"`
	Unreadable []string                                 `json:"unreadable,omitempty"`
}

// handler keeps TTL expiries of the archived entities: removals made by
// the TTL service only, written as gzipped JSON lines, one object per
// batch, keyed by the model's table name (the prefix the construct
// grants), the date and the first line's sequence number and event id
// (ObjectKey). Every write is idempotent across redelivery: Lambda
// delivers a batch again from its first failed record, which (a write
// fails only for the whole object) is the object's first line, so the
// retry writes the same key, holding the same lines and maybe more that
// arrived since: one copy of each expiry, whatever the retries.
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

// Handle archives a batch's expiries. A record it cannot archive (no old
// image) is skipped and counted, not failed; a failed write fails the
// records it carried.
func (h *handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	b := stream.NewBatch(h.log, ev)
	var lines []Line
	var carried []events.DynamoDBEventRecord
	for _, r := range ev.Records {
		if !stream.Expiry(r) {
			continue // not an expiry: nothing to keep
		}
		ch, err := stream.Decode(h.tbl, r)
		switch {
		case errors.Is(err, stream.ErrNoEntity):
			b.Skip(ctx, r, err) // counted; archived all the same (Line)
		case err != nil:
			b.Skip(ctx, r, err) // no image to keep
			continue
		case ch.Entity == "" || !h.archived[ch.Entity]:
			continue // keyplan's own item, or an entity not archived
		}
		l := Line{EventID: r.EventID, Sequence: r.Change.SequenceNumber, ExpiredAt: r.Change.ApproximateCreationDateTime.UTC()}
		if ch != nil {
			l.Entity = ch.Entity
		}
		l.Item, l.Unreadable = writable(r.Change.OldImage)
		lines = append(lines, l)
		carried = append(carried, r)
	}
	archived := 0
	if len(lines) > 0 {
		if err := h.put(ctx, lines); err != nil {
			for _, r := range carried {
				b.Fail(ctx, r, err)
			}
		} else {
			archived = len(lines)
			h.log.InfoContext(ctx, "archived", "items", len(lines), "bucket", h.bucket, "key", h.key(lines))
		}
	}
	return b.Done(ctx, "archived", archived), nil
}

// writable is an image with the attributes that hold something to write
// (a value aws-lambda-go cannot marshal, which no real stream sends, is
// named instead).
func writable(img map[string]events.DynamoDBAttributeValue) (map[string]events.DynamoDBAttributeValue, []string) {
	var bad []string
	for k, v := range img {
		if !marshals(v) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return img, nil
	}
	sort.Strings(bad)
	out := maps.Clone(img)
	for _, k := range bad {
		delete(out, k)
	}
	return out, bad
}

// marshals reports whether aws-lambda-go writes the value (it panics on
// one that holds nothing).
func marshals(v events.DynamoDBAttributeValue) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, err := json.Marshal(v)
	return err == nil
}

// gzips reuses compressors: a new one allocates most of a megabyte.
var gzips = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// key is the object's key for a batch's lines (ObjectKey of the first).
func (h *handler) key(lines []Line) string {
	return ObjectKey(h.table, lines[0].ExpiredAt, lines[0].Sequence, lines[0].EventID)
}

// ObjectKey is table/yyyy/mm/dd/sequence-eventID.jsonl.gz: the day the
// first line expired, its sequence number (which orders the objects of a
// shard) and its event id (unique to the record in the stream: stream
// records do not carry their shard's id, and two shards may number alike).
// The key depends on the first line alone, so a redelivered batch, which
// starts at its first failed record, overwrites its own object.
func ObjectKey(table string, day time.Time, sequence, eventID string) string {
	return fmt.Sprintf("%s/%04d/%02d/%02d/%s-%s.jsonl.gz", table, day.Year(), day.Month(), day.Day(), keySafe(sequence), keySafe(eventID))
}

// keySafe keeps an object key's part to letters, digits and '-', '_',
// '.' (the rest as '_').
func keySafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
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
