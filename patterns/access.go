package patterns

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Access is what some requests need: the DynamoDB actions and the indexes
// ("table" or GSI names) they run on. The construct turns it into IAM
// statements on the table's ARN and its indexes' ARNs.
type Access struct {
	// Actions are the reads' actions, and Indexes the indexes they run
	// on, together; Statements says which action runs on which index.
	Actions []string
	Indexes []string
	// Writes are the writes' item actions, on the table alone.
	Writes []string

	// on holds each index's read actions.
	on map[string][]string
}

// Statement is one set of read actions on exactly the indexes that each
// of them runs on.
type Statement struct {
	Actions []string
	Indexes []string
}

// Statements groups the reads by the indexes they run on: one statement
// per set of actions, each on the indexes whose reads are exactly that
// set, so that no action is granted on an index no pattern runs it on
// (GetItem on the table and Query on GSI1 are two statements). In order
// of their actions, then indexes. An Access made by hand (no record of
// which action runs where) is one statement of its Actions on its
// Indexes.
func (a Access) Statements() []Statement {
	if len(a.Actions) == 0 {
		return nil
	}
	if a.on == nil {
		return []Statement{{Actions: slices.Clone(a.Actions), Indexes: slices.Clone(a.Indexes)}}
	}
	by := map[string]*Statement{}
	var keys []string
	for _, ix := range a.Indexes {
		acts := slices.Sorted(slices.Values(a.on[ix]))
		k := strings.Join(acts, " ")
		if by[k] == nil {
			by[k] = &Statement{Actions: acts}
			keys = append(keys, k)
		}
		by[k].Indexes = append(by[k].Indexes, ix)
	}
	slices.Sort(keys)
	out := make([]Statement, 0, len(keys))
	for _, k := range keys {
		out = append(out, *by[k])
	}
	return out
}

// ErrNoPatterns: an access asked for no pattern at all.
var ErrNoPatterns = errors.New("name at least one pattern")

// Access computes the least privilege for the named patterns: each read
// pattern's operation on the index it reads, each write pattern's item
// actions on the table (Write.Actions). Every unknown or unserved
// pattern is named in the error.
func (d *Design) Access(names ...string) (Access, error) {
	var a Access
	var bad []string
	for _, n := range names {
		p := d.Pattern(n)
		if w := d.model.Write(n); p == nil && w != nil {
			for _, action := range w.Actions(d.model) {
				if action = "dynamodb:" + action; !slices.Contains(a.Writes, action) {
					a.Writes = append(a.Writes, action)
				}
			}
			continue
		}
		switch {
		case p == nil:
			all := make([]string, 0, len(d.Patterns)+len(d.model.Writes))
			for _, x := range d.Patterns {
				all = append(all, x.Name)
			}
			for _, x := range d.model.Writes {
				all = append(all, x.Name)
			}
			bad = append(bad, fmt.Sprintf("unknown pattern %q (the design has %s)", n, strings.Join(all, ", ")))
			continue
		case !p.Served():
			bad = append(bad, fmt.Sprintf("pattern %q is not served by any index", n))
			continue
		}
		a.add(p.Action(), p.Index)
	}
	a.sort()
	if len(bad) > 0 {
		return a, errors.New(strings.Join(bad, "; "))
	}
	if len(names) == 0 {
		return a, ErrNoPatterns
	}
	return a, nil
}

func (a *Access) add(action, index string) {
	if !slices.Contains(a.Actions, action) {
		a.Actions = append(a.Actions, action)
	}
	if index != "" && !slices.Contains(a.Indexes, index) {
		a.Indexes = append(a.Indexes, index)
	}
	if index != "" && !slices.Contains(a.on[index], action) {
		if a.on == nil {
			a.on = map[string][]string{}
		}
		a.on[index] = append(a.on[index], action)
	}
}

func (a *Access) sort() {
	slices.Sort(a.Actions)
	slices.Sort(a.Indexes)
	slices.Sort(a.Writes)
}

// Handlers lists the stream handlers the design's model calls for, in
// the order of Handlers(): fanout for copies, counters for counters,
// archive for archive.
func (d *Design) Handlers() []Handler {
	need := map[Handler]bool{}
	for _, e := range d.model.Entities {
		need[HandlerFanout] = need[HandlerFanout] || len(e.Copies) > 0
		need[HandlerCounters] = need[HandlerCounters] || len(e.Counters) > 0
		need[HandlerArchive] = need[HandlerArchive] || e.Archive
	}
	var out []Handler
	for _, h := range Handlers() {
		if need[h] {
			out = append(out, h)
		}
	}
	return out
}

// StreamFilter keeps the stream records a handler needs: its events on
// one entity's items (told apart by the constant their base sort keys
// start with), or on the handler's own items (Entity ""), and for the
// archive only removals by the TTL service.
type StreamFilter struct {
	Entity string
	Events []StreamEvent
	// SortKey is the base table's sort-key attribute; Lead is the
	// constant the entity's sort keys start with: the whole key when
	// Prefix is false, else the start of it.
	SortKey string
	Lead    string
	Prefix  bool
	// TTLOnly keeps only removals made by the TTL service.
	TTLOnly bool
}

// Pattern is the filter as a Lambda event filter pattern (the JSON of
// FilterCriteria.Filters[].Pattern).
func (f StreamFilter) Pattern() map[string]any {
	events := make([]any, len(f.Events))
	for i, e := range f.Events {
		events[i] = string(e)
	}
	var match any = []any{f.Lead}
	if f.Prefix {
		match = []any{map[string]any{"prefix": f.Lead}}
	}
	p := map[string]any{
		"eventName": events,
		"dynamodb":  map[string]any{"Keys": map[string]any{f.SortKey: map[string]any{"S": match}}},
	}
	if f.TTLOnly {
		p["userIdentity"] = map[string]any{"type": []any{TTLIdentityType}, "principalId": []any{TTLPrincipal}}
	}
	return p
}

// StreamFilters are the filters a handler's event source mapping needs,
// one per entity whose changes it reads.
func (d *Design) StreamFilters(h Handler) []StreamFilter {
	var out []StreamFilter
	seen := map[string]bool{}
	add := func(entity string, ttl bool, events ...StreamEvent) {
		if seen[entity] {
			return
		}
		seen[entity] = true
		k := d.Entity(entity).Key(model.BaseIndex)
		lead := ""
		for _, s := range k.SK {
			if s.Lit == "" {
				break
			}
			lead += s.Lit
		}
		out = append(out, StreamFilter{Entity: entity, Events: events, SortKey: d.SK, Lead: lead,
			Prefix: len(k.SK.Attrs()) > 0, TTLOnly: ttl})
	}
	for _, e := range d.model.Entities {
		switch h {
		case HandlerFanout:
			for _, c := range e.Copies {
				add(c.FromEntity, false, EventModify)
			}
			if len(e.Copies) > 0 && !seen[FanoutTag] {
				// Its continuations: the copies a record left to update.
				seen[FanoutTag] = true
				out = append(out, StreamFilter{Events: []StreamEvent{EventInsert, EventModify}, SortKey: d.SK, Lead: FanoutTag})
			}
		case HandlerCounters:
			for _, c := range e.Counters {
				add(c.Child, false, EventInsert, EventModify, EventRemove)
			}
		case HandlerArchive:
			if e.Archive {
				add(e.Name, true, EventRemove)
			}
		}
	}
	return out
}

// HandlerAccess is what a stream handler does to the table: write actions
// on the base table, the patterns it reads, and the actions on its own
// items alone (those whose partition keys start with OwnPrefix).
type HandlerAccess struct {
	TableActions []string
	Reads        []string
	OwnActions   []string
	OwnPrefix    string
}

// HandlerAccess computes a handler's least privilege on the table (its
// stream, logs and queue are the construct's).
func (d *Design) HandlerAccess(h Handler) HandlerAccess {
	switch h {
	case HandlerFanout:
		var reads []string
		for _, e := range d.model.Entities {
			for _, c := range e.Copies {
				if !slices.Contains(reads, c.Via) {
					reads = append(reads, c.Via)
				}
			}
		}
		// Its continuations: read (consistently), written, advanced, removed.
		return HandlerAccess{TableActions: []string{"dynamodb:UpdateItem"}, Reads: reads,
			OwnActions: []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem"}, OwnPrefix: FanoutTag}
	case HandlerCounters:
		// Each record's transaction: a marker Put and the parent's Update.
		return HandlerAccess{TableActions: []string{"dynamodb:PutItem", "dynamodb:UpdateItem"}}
	}
	return HandlerAccess{}
}
