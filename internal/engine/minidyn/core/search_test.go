package core

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/engine/minidyn/expression"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

func sv(s string) *types.Item { return &types.Item{S: &s} }
func nv(n string) *types.Item { return &types.Item{N: &n} }

func ptr(s string) *string { return &s }

// searchTable: hash p (S), range c (N); GSI gsi_g on g (S) and gr (N);
// LSI lsi_l on p and l (S), KEYS_ONLY.
func searchTable(t *testing.T) *Table {
	t.Helper()

	all, keys := ProjectionAll, ProjectionKeysOnly
	tbl, err := NewTable(Definition{
		Name: "search",
		Attributes: []types.AttributeDefinition{
			{AttributeName: ptr("p"), AttributeType: ptr("S")}, {AttributeName: ptr("c"), AttributeType: ptr("N")},
			{AttributeName: ptr("g"), AttributeType: ptr("S")}, {AttributeName: ptr("gr"), AttributeType: ptr("N")},
			{AttributeName: ptr("l"), AttributeType: ptr("S")},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: "p", KeyType: "HASH"}, {AttributeName: "c", KeyType: "RANGE"}},
		GSIs: []IndexDefinition{{Name: "gsi_g", Projection: &types.Projection{ProjectionType: &all},
			KeySchema: []types.KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}, {AttributeName: "gr", KeyType: "RANGE"}}}},
		LSIs: []IndexDefinition{{Name: "lsi_l", Projection: &types.Projection{ProjectionType: &keys},
			KeySchema: []types.KeySchemaElement{{AttributeName: "p", KeyType: "HASH"}, {AttributeName: "l", KeyType: "RANGE"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}

	return tbl
}

var (
	hashes  = []string{"a", "ab", "a#b", "a\x00", "a\x01", "b", "a%"}
	numbers = []string{"-100", "-10", "-1.5", "-1", "-0.5", "0", "0.5", "1", "1.5", "10", "100", "100000"}
	gs      = []string{"x", "xy", "x#", "x\x00y"}
	ls      = []string{"k", "ka", "k\x00", "k#", "kb"}
)

// TestQueryReturnsWhatABruteForceFilterSelects checks Search against a
// reference that never looks at the encoded keys: it filters every item
// by the key condition's meaning and sorts by the values themselves. Keys
// are chosen to catch encoding mistakes: prefixes of each other, NUL and
// 0x01 bytes, negative and fractional numbers, equal sort values in other
// partitions.
func TestQueryReturnsWhatABruteForceFilterSelects(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tbl := searchTable(t)

	var items []map[string]*types.Item

	for _, p := range hashes {
		for _, c := range numbers {
			if rng.IntN(3) == 0 {
				continue
			}

			it := map[string]*types.Item{"p": sv(p), "c": nv(c)}
			if rng.IntN(4) > 0 {
				it["g"], it["gr"] = sv(gs[rng.IntN(len(gs))]), nv(numbers[rng.IntN(len(numbers))])
			}

			if rng.IntN(3) > 0 {
				it["l"] = sv(ls[rng.IntN(len(ls))])
			}

			w, err := tbl.PreparePut(it, nil)
			if err != nil {
				t.Fatal(err)
			}

			w.Commit()

			items = append(items, it)
		}
	}

	type target struct {
		index, hash, rng, rngType string
		hashes, values            []string
	}

	targets := []target{
		{"", "p", "c", "N", hashes, numbers},
		{"gsi_g", "g", "gr", "N", gs, numbers},
		{"lsi_l", "p", "l", "S", hashes, ls},
	}

	ops := []string{"", "=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"}

	for round := range 3000 {
		tg := targets[rng.IntN(len(targets))]
		op := ops[rng.IntN(len(ops))]

		if op == "begins_with" && tg.rngType == "N" {
			op = "="
		}

		hash := tg.hashes[rng.IntN(len(tg.hashes))]
		lo, hi := tg.values[rng.IntN(len(tg.values))], tg.values[rng.IntN(len(tg.values))]

		val := func(s string) *types.Item {
			if tg.rngType == "N" {
				return nv(s)
			}

			return sv(s)
		}

		if op == "BETWEEN" {
			if c, _ := types.Compare(val(lo), val(hi)); c > 0 {
				lo, hi = hi, lo
			}
		}

		if op == "begins_with" {
			lo = lo[:rng.IntN(len(lo)+1)]
		}

		kc := &expression.KeyCondition{Hash: []*types.Item{sv(hash)}, Op: op}
		if op != "" {
			kc.Lo = val(lo)
		}

		if op == "BETWEEN" {
			kc.Hi = val(hi)
		}

		forward := rng.IntN(2) == 0
		limit := int64(rng.IntN(6))
		want := reference(items, tg.index, tg.hash, tg.rng, kc, forward)

		var got []string

		in := SearchInput{Index: tg.index, Key: kc, Forward: forward, Limit: limit}

		for pages := 0; ; pages++ {
			res, err := tbl.Search(in)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}

			for _, it := range res.Items {
				got = append(got, *it["p"].S+"/"+*it["c"].N)
			}

			if res.LastKey == nil {
				break
			}

			if pages > len(items) {
				t.Fatalf("round %d: no end of pages", round)
			}

			in.ExclusiveStartKey = res.LastKey
		}

		if !slices.Equal(got, want) {
			t.Fatalf("round %d: %s %s %s %q %q..%q forward=%v limit=%d\n got %q\nwant %q",
				round, tg.index, tg.hash, op, hash, lo, hi, forward, limit, got, want)
		}
	}
}

// reference is what a Query returns, computed from the values alone.
func reference(items []map[string]*types.Item, index, hash, rng string, kc *expression.KeyCondition, forward bool) []string {
	var sel []map[string]*types.Item

	for _, it := range items {
		h, r := it[hash], it[rng]
		if h == nil || r == nil || !types.Equal(h, kc.Hash[0]) {
			continue
		}

		var ok bool

		c, _ := types.Compare(r, kc.Lo)

		switch kc.Op {
		case "":
			ok = true
		case "=":
			ok = c == 0
		case "<":
			ok = c < 0
		case "<=":
			ok = c <= 0
		case ">":
			ok = c > 0
		case ">=":
			ok = c >= 0
		case "BETWEEN":
			d, _ := types.Compare(r, kc.Hi)
			ok = c >= 0 && d <= 0
		case "begins_with":
			ok = strings.HasPrefix(*r.S, *kc.Lo.S)
		}

		if ok {
			sel = append(sel, it)
		}
	}

	slices.SortStableFunc(sel, func(a, b map[string]*types.Item) int {
		for _, k := range []string{rng, "p", "c"} {
			if c, _ := types.Compare(a[k], b[k]); c != 0 {
				return c
			}
		}

		return 0
	})

	if !forward {
		slices.Reverse(sel)
	}

	out := make([]string, len(sel))
	for i, it := range sel {
		out[i] = fmt.Sprintf("%s/%s", *it["p"].S, *it["c"].N)
	}

	return out
}
