package core

import (
	"hash/fnv"
	"maps"
	"strings"

	"github.com/keyplan/keyplan/internal/engine/minidyn/expression"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// SearchInput is one page of a Query (Key set) or a Scan, on the table or
// one of its secondary indexes.
type SearchInput struct {
	Index  string
	Key    *expression.KeyCondition
	Filter *expression.Condition
	// Limit bounds the items read (before the filter); 0: no bound.
	Limit             int64
	ExclusiveStartKey map[string]*types.Item
	Forward           bool
	// Segment and TotalSegments split a parallel Scan (TotalSegments 0:
	// no split).
	Segment, TotalSegments int32
	// FullItems reads whole items through an LSI (a request for attributes
	// the index does not project: DynamoDB fetches them from the table).
	FullItems bool
	// FilterOnItem evaluates the filter on the whole item, not on what the
	// index returns (a Scan of an index filtered on an attribute it does
	// not project).
	FilterOnItem bool
}

// SearchResult is one page of a Query or a Scan.
type SearchResult struct {
	// Items are the items read that passed the filter, as the index
	// projects them.
	Items []map[string]*types.Item
	// LastKey is the key to start the next page from (nil on the last
	// page).
	LastKey map[string]*types.Item
	// Scanned counts the items read; ReadBytes is their size.
	Scanned   int64
	ReadBytes int64
}

// Segment is the Scan segment (of total) an encoded primary key belongs
// to: a hash of its partition key, as DynamoDB assigns segments by
// partition.
func Segment(key string, total int32) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(HashKeyPart(key)))

	return int32(h.Sum32() % uint32(total))
}

// Search reads one page. It walks only the entries the key condition
// selects, from ExclusiveStartKey on: O(log n + entries read).
func (t *Table) Search(in SearchInput) (SearchResult, error) {
	var ix *index

	ks := t.KeySchema

	if in.Index != "" {
		var err error

		if ix, err = t.Index(in.Index); err != nil {
			return SearchResult{}, err
		}

		ks = ix.keySchema
	}

	start, hasStart, err := t.startPosition(ix, in)
	if err != nil {
		return SearchResult{}, err
	}

	lo, hi := "", ""
	bounded := false

	if in.Key != nil {
		lo, hi = t.queryBounds(ks, ix != nil, in.Key)
		bounded = true
	}

	r := SearchResult{Items: []map[string]*types.Item{}}

	var last map[string]*types.Item

	visit := func(pk string, item map[string]*types.Item) bool {
		if in.TotalSegments > 0 && Segment(pk, in.TotalSegments) != in.Segment {
			return true
		}

		if in.Key != nil && !in.Key.MatchSort(item, ks.Range) {
			return true
		}

		r.Scanned++
		last = item

		view := item
		if ix != nil && !(in.FullItems && ix.typ == indexTypeLocal) {
			view = ix.project(item)
		}

		// What an index read reads is the index's entry: its projection.
		entry := view
		if ix != nil && in.FullItems && ix.typ == indexTypeLocal {
			entry = ix.project(item)
		}

		r.ReadBytes += int64(types.ItemSize(entry))

		filtered := view
		if in.FilterOnItem {
			filtered = item
		}

		if in.Filter == nil || in.Filter.Eval(filtered) {
			r.Items = append(r.Items, view)
		}

		// A page ends at Limit items read, or at 1 MB of them.
		return !(in.Limit > 0 && r.Scanned >= in.Limit || r.ReadBytes >= MaxPageBytes)
	}

	// walk visits entries in [from, to) (to "" : to the end), forward or
	// backward, each entry's item through visit.
	if ix == nil {
		walk(&t.items, lo, hi, bounded, start, hasStart, in.Forward, func(k string, item map[string]*types.Item) bool {
			return visit(k, item)
		})
	} else {
		walk(&ix.entries, lo, hi, bounded, start, hasStart, in.Forward, func(_ string, pk string) bool {
			return visit(pk, t.Get(pk))
		})
	}

	stoppedEarly := in.Limit > 0 && r.Scanned >= in.Limit || r.ReadBytes >= MaxPageBytes
	if stoppedEarly && last != nil {
		r.LastKey = t.lastKeyOf(last, ix)
	}

	return r, nil
}

// walk calls fn on the entries of m whose keys are in [lo, hi) (all when
// !bounded), after start when hasStart, in order (or reverse order), until
// fn returns false.
func walk[V any](m *orderedMap[V], lo, hi string, bounded bool, start string, hasStart, forward bool, fn func(string, V) bool) {
	if forward {
		from, inclusive := lo, true
		if hasStart && start >= from {
			from, inclusive = start, false
		}

		m.Ascend(from, inclusive, func(k string, v V) bool {
			if bounded && k >= hi {
				return false
			}

			return fn(k, v)
		})

		return
	}

	from, inclusive, last := hi, false, !bounded
	if hasStart && (!bounded || start < hi) {
		from, inclusive, last = start, false, false
	}

	m.Descend(from, inclusive, last, func(k string, v V) bool {
		if bounded && k < lo {
			return false
		}

		return fn(k, v)
	})
}

// queryBounds is the range [lo, hi) of encoded keys (table keys, or index
// entry keys) that the key condition can select; MatchRange then checks
// each (begins_with and exact bounds).
func (t *Table) queryBounds(ks keySchema, isIndex bool, kc *expression.KeyCondition) (lo, hi string) {
	var b strings.Builder

	for n, a := range ks.Hash {
		if n > 0 {
			b.WriteString(hashSeparator)
		}

		part, _ := encodePart(kc.Hash[n], t.AttributesDef[a])
		b.WriteString(part)
	}

	hash := b.String()

	if len(ks.Range) == 0 {
		if isIndex {
			return hash + entrySeparator, hash + keySeparator
		}

		return hash, hash + entrySeparator
	}

	// The leading sort key attributes compared by equality narrow the
	// partition to their values' span, as a partition is narrowed to its
	// own.
	eq := hash

	for n, v := range kc.Eq {
		part, _ := encodePart(v, t.AttributesDef[ks.Range[n]])
		eq += keySeparator + part
	}

	prefix := eq + keySeparator
	lo, hi = prefix, eq+afterValue

	if kc.Op == "" {
		return lo, hi
	}

	typ := t.AttributesDef[ks.Range[len(kc.Eq)]]
	enc := func(v *types.Item) string {
		e, _ := encodePart(v, typ)
		return prefix + e
	}

	switch kc.Op {
	case "=":
		lo, hi = enc(kc.Lo), enc(kc.Lo)+afterValue
	case "<":
		hi = enc(kc.Lo)
	case "<=":
		hi = enc(kc.Lo) + afterValue
	case ">":
		lo = enc(kc.Lo) + afterValue
	case ">=":
		lo = enc(kc.Lo)
	case "BETWEEN":
		lo, hi = enc(kc.Lo), enc(kc.Hi)+afterValue
	case "begins_with":
		lo = enc(kc.Lo)
		if end := prefixEnd(lo); end != "" && end < hi {
			hi = end
		}
	}

	return lo, hi
}

// startPosition is the encoded position of ExclusiveStartKey (a table key,
// or an index entry key); a page starts after it even if that item has
// since been deleted or moved.
func (t *Table) startPosition(ix *index, in SearchInput) (string, bool, error) {
	start := in.ExclusiveStartKey
	if len(start) == 0 {
		return "", false, nil
	}

	want := map[string]string{}
	for _, a := range t.KeySchema.attributes() {
		want[a] = t.AttributesDef[a]
	}

	if ix != nil {
		for _, a := range ix.keySchema.attributes() {
			want[a] = t.AttributesDef[a]
		}
	}

	if len(start) != len(want) {
		return "", false, validationError("The provided starting key is invalid: The provided key element does not match the schema")
	}

	for a, typ := range want {
		if v, ok := start[a]; !ok || types.TypeOf(v) != typ {
			return "", false, validationError("The provided starting key is invalid: The provided key element does not match the schema")
		}
	}

	if in.Key != nil {
		ks := t.KeySchema
		if ix != nil {
			ks = ix.keySchema
		}

		// AWS refuses a start key on a table without a sort key (its
		// one-item partitions leave nothing after it: ScyllaDB's
		// test_query_no_sort_key_exclusive_start_key, written against
		// AWS); DynamoDB Local reads the empty page.
		if ix == nil && len(ks.Range) == 0 {
			return "", false, validationError("The provided exclusive start key is invalid: ExclusiveStartKey on a table with no sort key")
		}

		if !in.Key.MatchHash(start, ks.Hash) || !in.Key.MatchSort(start, ks.Range) {
			return "", false, validationError("The provided starting key is outside query boundaries based on provided conditions")
		}
	}

	pk, _ := t.KeySchema.encode(t.AttributesDef, start)

	if in.TotalSegments > 0 && Segment(pk, in.TotalSegments) != in.Segment {
		return "", false, validationError("The provided Exclusive start key does not map to the provided segment")
	}
	if ix == nil {
		return pk, true, nil
	}

	ik, _ := ix.keySchema.encode(t.AttributesDef, start)

	return ik + entrySeparator + pk, true, nil
}

// lastKeyOf is the LastEvaluatedKey of a page ending at item: the table's
// key, and the index's key on an index.
func (t *Table) lastKeyOf(item map[string]*types.Item, ix *index) map[string]*types.Item {
	key := t.KeySchema.keyItem(item)

	if ix != nil {
		maps.Copy(key, ix.keySchema.keyItem(item))
	}

	return key
}

// prefixEnd is the least string greater than every string that starts
// with p ("" when there is none: p is all 0xFF).
func prefixEnd(p string) string {
	b := []byte(p)

	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}

	return ""
}
