package server

// DynamoDB Streams: the change records of a table whose
// StreamSpecification is enabled, kept in shards as DynamoDB keeps them.
// A stream's open shard takes its writes; it closes when the stream is
// disabled or its table deleted, or when it has been open ShardLifetime
// on the engine's clock (DynamoDB rolls a shard over every few hours),
// and a child shard (ParentShardId: the closed one) then takes the
// writes. A record is readable for StreamRetention (24 hours) after it
// was written, a closed shard until its records are gone, and a
// disabled stream for StreamRetention after it was disabled. The Streams
// API itself is streamsapi.go.

import (
	"fmt"
	"hash/fnv"
	"sort"
	"time"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

const (
	// MaxStreamRecords is how many records a stream keeps at most (the
	// oldest go first, as if trimmed), so a long-running engine's memory
	// stays bounded.
	MaxStreamRecords = 100_000
	// StreamRetention is how long DynamoDB keeps a stream record (and a
	// disabled stream).
	StreamRetention = 24 * time.Hour
	// ShardLifetime is how long a shard takes writes before it closes and
	// a child shard takes them over.
	ShardLifetime = 4 * time.Hour
	// IteratorLifetime is how long a shard iterator can be used after
	// GetShardIterator or GetRecords returned it.
	IteratorLifetime = 15 * time.Minute
)

// The identity DynamoDB gives the records of items TTL deleted.
const (
	ttlPrincipal    = "dynamodb.amazonaws.com"
	ttlIdentityType = "Service"
	region          = "us-east-1"
	account         = "000000000000"
)

type streamRecord struct {
	seq       uint64
	eventName string
	keys      map[string]*types.Item
	newImage  map[string]*types.Item
	oldImage  map[string]*types.Item
	at        time.Time
	size      int
	byTTL     bool
}

// shard is a part of a stream: its records in sequence order.
type shard struct {
	id, parent string
	created    time.Time
	// start is the shard's first sequence number (reserved: no record
	// has it); end its last once it is closed (0: open).
	start, end uint64
	closedAt   time.Time
	records    []streamRecord
	// trimmed is the last sequence number trimmed from the shard (0:
	// none): an iterator at or before it reads trimmed data.
	trimmed uint64
}

func (sh *shard) open() bool { return sh.end == 0 }

type stream struct {
	arn, label, table string
	viewType          ddbtypes.StreamViewType
	keySchema         []keySchemaElementJSON
	created           time.Time
	enabled           bool
	disabledAt        time.Time
	// shards in creation order, which is their ids' order.
	shards []*shard
	// records counts the records of every shard.
	records int
	// lastShard is the number in the newest shard's id.
	lastShard int64
}

// streamARN is the ARN of a table's stream with label.
func streamARN(table, label string) string {
	return tableArn(table) + "/stream/" + label
}

// startStream opens a new stream on table (CreateTable or UpdateTable
// enabling one, or Load) and makes it the table's current one.
func (c *Client) startStream(table *core.Table, m *tableMeta, view ddbtypes.StreamViewType, label string, created time.Time) {
	arn := streamARN(table.Name, label)
	for c.streams[arn] != nil { // enabled twice within a millisecond
		label += "0"
		arn += "0"
	}

	s := &stream{
		arn: arn, label: label, table: table.Name, viewType: view, created: created, enabled: true,
		keySchema: keySchemaJSON(table.Description(table.Name).KeySchema),
	}
	c.openShard(s, "", c.now())
	c.streams[arn] = s
	m.streamArn, m.streamLabel, m.streamView, m.streamCreated = arn, label, view, created
}

// openShard starts s's next shard, a child of parent ("" for none).
func (c *Client) openShard(s *stream, parent string, at time.Time) {
	n := max(at.UnixMilli(), s.lastShard+1)
	s.lastShard = n

	h := fnv.New32a()
	_, _ = fmt.Fprintf(h, "%s/%d", s.arn, n)

	c.seq++
	s.shards = append(s.shards, &shard{id: fmt.Sprintf("shardId-%020d-%08x", n, h.Sum32()), parent: parent, created: at, start: c.seq})
}

// openShardOf is s's open shard (nil once s is disabled).
func (s *stream) openShardOf() *shard {
	if len(s.shards) == 0 || !s.shards[len(s.shards)-1].open() {
		return nil
	}

	return s.shards[len(s.shards)-1]
}

// closeShard closes sh at the sequence numbers given so far.
func (c *Client) closeShard(sh *shard, at time.Time) {
	sh.end, sh.closedAt = c.seq, at
}

// endStream closes a table's current stream (disabled, or the table
// deleted): its records stay readable for StreamRetention.
func (c *Client) endStream(m *tableMeta) {
	s := c.streams[m.streamArn]
	if s == nil || !s.enabled {
		return
	}

	now := c.now()
	c.roll(s, now)

	if sh := s.openShardOf(); sh != nil {
		c.closeShard(sh, now)
	}

	s.enabled, s.disabledAt = false, now
	m.streamArn = ""
}

// roll closes s's open shard once it has been open ShardLifetime and
// opens its child. A clock moved far ahead skips the shards that would
// have opened and closed empty meanwhile: the child starts at the last
// lifetime boundary before now.
func (c *Client) roll(s *stream, now time.Time) {
	sh := s.openShardOf()
	if sh == nil || now.Sub(sh.created) < ShardLifetime {
		return
	}

	closed := sh.created.Add(ShardLifetime)
	c.closeShard(sh, closed)

	periods := now.Sub(sh.created) / ShardLifetime
	c.openShard(s, sh.id, sh.created.Add(periods*ShardLifetime))
}

// trim drops what DynamoDB no longer keeps: records older than
// StreamRetention (and the oldest past MaxStreamRecords), closed shards
// whose records are all gone and that closed more than StreamRetention
// ago, and disabled streams StreamRetention after they were disabled.
func (c *Client) trim(s *stream, now time.Time) {
	horizon := now.Add(-StreamRetention)

	for _, sh := range s.shards {
		n := sort.Search(len(sh.records), func(i int) bool { return !sh.records[i].at.Before(horizon) })
		c.dropRecords(s, sh, n)
	}

	for s.records > MaxStreamRecords {
		for _, sh := range s.shards {
			if len(sh.records) > 0 {
				c.dropRecords(s, sh, min(len(sh.records), s.records-MaxStreamRecords))
				break
			}
		}
	}

	kept := s.shards[:0]

	for _, sh := range s.shards {
		if sh.open() || len(sh.records) > 0 || !sh.closedAt.Before(horizon) {
			kept = append(kept, sh)
		}
	}

	clear(s.shards[len(kept):])
	s.shards = kept

	if !s.enabled && s.disabledAt.Before(horizon) {
		delete(c.streams, s.arn)
	}
}

// dropRecords trims sh's first n records.
func (c *Client) dropRecords(s *stream, sh *shard, n int) {
	if n == 0 {
		return
	}

	sh.trimmed = sh.records[n-1].seq
	sh.records = append(sh.records[:0:0], sh.records[n:]...)
	s.records -= n
}

// maintain rolls and trims s as of now.
func (c *Client) maintain(s *stream) {
	now := c.now()
	c.roll(s, now)
	c.trim(s, now)
}

// commit applies a prepared write and records it on the table's stream.
func (c *Client) commit(w *core.Write, byTTL bool) {
	w.Commit()

	if c.journal != nil {
		c.journalWrite(w, c.seq)
	}

	m := c.meta[w.Table.Name]
	if m == nil || m.streamArn == "" {
		return
	}

	var name string

	switch {
	case w.Old == nil && w.New == nil:
		return
	case w.Old == nil:
		name = "INSERT"
	case w.New == nil:
		name = "REMOVE"
	case types.Equal(&types.Item{M: w.Old}, &types.Item{M: w.New}):
		return // nothing changed: no record, as on DynamoDB
	default:
		name = "MODIFY"
	}

	s := c.streams[m.streamArn]
	now := c.now()
	c.roll(s, now)

	c.seq++
	rec := streamRecord{seq: c.seq, eventName: name, at: now, byTTL: byTTL}

	img := w.New
	if img == nil {
		img = w.Old
	}

	rec.keys = keysOf(w.Table, img)

	switch s.viewType {
	case ddbtypes.StreamViewTypeNewImage:
		rec.newImage = w.New
	case ddbtypes.StreamViewTypeOldImage:
		rec.oldImage = w.Old
	case ddbtypes.StreamViewTypeNewAndOldImages:
		rec.newImage, rec.oldImage = w.New, w.Old
	}

	rec.size = types.ItemSize(rec.keys) + types.ItemSize(rec.newImage) + types.ItemSize(rec.oldImage)

	sh := s.openShardOf()
	sh.records = append(sh.records, rec)
	s.records++

	if s.records > MaxStreamRecords {
		c.trim(s, now)
	}
}

func keysOf(t *core.Table, item map[string]*types.Item) map[string]*types.Item {
	out := map[string]*types.Item{}

	for _, k := range t.Description(t.Name).KeySchema {
		if v, ok := item[k.AttributeName]; ok {
			out[k.AttributeName] = v
		}
	}

	return out
}

func seqString(n uint64) string { return fmt.Sprintf("%021d", n) }

// ExpireTTL deletes the items whose TTL attribute (a number of epoch
// seconds) is at or before now, on every table with TTL enabled, as
// DynamoDB's TTL process does: each deletion is a stream REMOVE record
// whose userIdentity is the DynamoDB service. A TTL more than five years
// in the past is ignored, as DynamoDB ignores it. It also trims the
// streams (StreamRetention). It returns how many items it deleted.
func (c *Client) ExpireTTL() int {
	c.mu.Lock()
	defer c.mu.Unlock()

	now := c.now()
	deleted := 0

	for _, name := range sortedKeys(c.tables) {
		t, m := c.tables[name], c.meta[name]
		if !m.ttlEnabled() {
			continue
		}

		attr := m.ttlAttribute

		var expired []map[string]*types.Item

		t.Each(func(item map[string]*types.Item) bool {
			if expiredAt(item[attr], now) {
				expired = append(expired, item)
			}

			return true
		})

		for _, item := range expired {
			w, err := t.PrepareDelete(keysOf(t, item), nil)
			if err != nil {
				continue
			}

			c.commit(w, true)
			deleted++
		}
	}

	for _, arn := range sortedKeys(c.streams) {
		c.maintain(c.streams[arn])
	}

	return deleted
}

// TTLHorizon is how far in the past a TTL may be and still expire an item.
const TTLHorizon = 5 * 365 * 24 * time.Hour

func expiredAt(v *types.Item, now time.Time) bool {
	if types.TypeOf(v) != types.TypeN {
		return false
	}

	r, err := types.ParseNumber(*v.N)
	if err != nil {
		return false
	}

	secs, _ := r.Float64()
	at := time.Unix(int64(secs), 0)

	return !at.After(now) && now.Sub(at) <= TTLHorizon
}

// SetClock sets the clock TTL expiry, stream records and transaction
// tokens read (tests move it).
func (c *Client) SetClock(now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()

	c.now = now
}
