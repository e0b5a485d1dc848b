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

func bv(s string) *types.Item { return &types.Item{B: []byte(s)} }

// multiTable: hash p (S); GSI multi on partition (t S, n N), sort (s S,
// m N, b B): a multi-attribute key of every key type.
func multiTable(t *testing.T) *Table {
	t.Helper()

	all := ProjectionAll
	def := func(n, typ string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: ptr(n), AttributeType: ptr(typ)}
	}
	el := func(n, typ string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: n, KeyType: typ}
	}

	tbl, err := NewTable(Definition{
		Name:       "multi",
		Attributes: []types.AttributeDefinition{def("p", "S"), def("t", "S"), def("n", "N"), def("s", "S"), def("m", "N"), def("b", "B")},
		KeySchema:  []types.KeySchemaElement{el("p", "HASH")},
		GSIs: []IndexDefinition{{Name: "multi", Projection: &types.Projection{ProjectionType: &all},
			KeySchema: []types.KeySchemaElement{el("t", "HASH"), el("n", "HASH"), el("s", "RANGE"), el("m", "RANGE"), el("b", "RANGE")}}},
	})
	if err != nil {
		t.Fatal(err)
	}

	return tbl
}

// TestMultiAttributeQueryReturnsWhatABruteForceFilterSelects checks
// Search on a multi-attribute GSI against a reference that never looks at
// the encoded keys: it keeps the items holding every key attribute (the
// others are not indexed), filters them by the key condition's meaning
// (equality on each partition attribute, equality on the leading sort
// attributes, the condition on the next one) and sorts them by the sort
// attributes left to right, as values. The values are chosen to catch
// encoding mistakes: strings that are prefixes of each other or hold NUL,
// 0x01..0x03 and '#', negative and fractional numbers, equal values.
func TestMultiAttributeQueryReturnsWhatABruteForceFilterSelects(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tbl := multiTable(t)

	ts := []string{"a", "ab", "a#b", "a\x00", "a\x03", "b"}
	ns := []string{"-1", "0", "1", "10", "1.5"}
	ss := []string{"x", "xy", "x\x00", "x\x01", "x\x02", "x\x03", "x#", "y"}
	ms := []string{"-100", "-1.5", "-1", "0", "0.5", "1", "10", "100"}
	bs := []string{"\x00", "\x00\x00", "\x01", "k", "k\x00", "kk"}
	pick := func(vs []string) string { return vs[rng.IntN(len(vs))] }

	var items []map[string]*types.Item

	for i := range 600 {
		it := map[string]*types.Item{"p": sv(fmt.Sprintf("p%03d", i))}
		// Each key attribute is missing from some items: those items
		// are not in the index.
		for _, kv := range []struct {
			name string
			v    *types.Item
		}{{"t", sv(pick(ts))}, {"n", nv(pick(ns))}, {"s", sv(pick(ss))}, {"m", nv(pick(ms))}, {"b", bv(pick(bs))}} {
			if rng.IntN(12) > 0 {
				it[kv.name] = kv.v
			}
		}

		w, err := tbl.PreparePut(it, nil)
		if err != nil {
			t.Fatal(err)
		}

		w.Commit()

		items = append(items, it)
	}

	sortNames := []string{"s", "m", "b"}
	sortValues := [][]string{ss, ms, bs}
	mk := []func(string) *types.Item{sv, nv, bv}
	ops := []string{"=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"}

	for round := range 4000 {
		kc := &expression.KeyCondition{Hash: []*types.Item{sv(pick(ts)), nv(pick(ns))}}

		// k sort attributes used: the first k-1 by equality, the k-th by
		// op.
		k := rng.IntN(len(sortNames) + 1)
		for i := 0; i+1 < k; i++ {
			kc.Eq = append(kc.Eq, mk[i](pick(sortValues[i])))
		}

		if k > 0 {
			i := k - 1
			op := ops[rng.IntN(len(ops))]

			if op == "begins_with" && sortNames[i] == "m" {
				op = ">="
			}

			lo, hi := pick(sortValues[i]), pick(sortValues[i])
			if op == "BETWEEN" {
				if c, _ := types.Compare(mk[i](lo), mk[i](hi)); c > 0 {
					lo, hi = hi, lo
				}
			}

			if op == "begins_with" {
				lo = lo[:rng.IntN(len(lo)+1)]
			}

			kc.Op, kc.Lo = op, mk[i](lo)
			if op == "BETWEEN" {
				kc.Hi = mk[i](hi)
			}
		}

		forward := rng.IntN(2) == 0
		limit := int64(rng.IntN(5))
		want := multiReference(items, kc, sortNames, forward)

		var got []string

		in := SearchInput{Index: "multi", Key: kc, Forward: forward, Limit: limit}

		for pages := 0; ; pages++ {
			res, err := tbl.Search(in)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}

			for _, it := range res.Items {
				got = append(got, *it["p"].S)
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
			t.Fatalf("round %d: hash %v eq %v %s %v..%v forward=%v limit=%d\n got %q\nwant %q",
				round, kc.Hash, kc.Eq, kc.Op, kc.Lo, kc.Hi, forward, limit, got, want)
		}
	}
}

// multiReference is what a Query on the multi index returns, computed from
// the values alone.
func multiReference(items []map[string]*types.Item, kc *expression.KeyCondition, sortNames []string, forward bool) []string {
	var sel []map[string]*types.Item

	for _, it := range items {
		if it["t"] == nil || it["n"] == nil || it["s"] == nil || it["m"] == nil || it["b"] == nil {
			continue
		}

		if !types.Equal(it["t"], kc.Hash[0]) || !types.Equal(it["n"], kc.Hash[1]) {
			continue
		}

		ok := true

		for i, v := range kc.Eq {
			if !types.Equal(it[sortNames[i]], v) {
				ok = false
			}
		}

		if ok && kc.Op != "" {
			r := it[sortNames[len(kc.Eq)]]
			c, _ := types.Compare(r, kc.Lo)

			switch kc.Op {
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
				if r.S != nil {
					ok = strings.HasPrefix(*r.S, *kc.Lo.S)
				} else {
					ok = strings.HasPrefix(string(r.B), string(kc.Lo.B))
				}
			}
		}

		if ok {
			sel = append(sel, it)
		}
	}

	slices.SortStableFunc(sel, func(a, b map[string]*types.Item) int {
		for _, k := range append(slices.Clone(sortNames), "p") {
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
		out[i] = *it["p"].S
	}

	return out
}

// TestMultiAttributeKeySchemas: what CreateTable accepts and refuses in a
// multi-attribute key schema (the rules AWS documents: up to four HASH
// then up to four RANGE attributes, HASH first, no name twice, each
// defined; tables and LSIs keep one of each).
func TestMultiAttributeKeySchemas(t *testing.T) {
	all := ProjectionAll
	el := func(spec string) []types.KeySchemaElement {
		var out []types.KeySchemaElement
		for _, f := range strings.Fields(spec) {
			name, typ, _ := strings.Cut(f, ":")
			out = append(out, types.KeySchemaElement{AttributeName: name, KeyType: map[string]string{"h": "HASH", "r": "RANGE"}[typ]})
		}

		return out
	}

	var attrs []types.AttributeDefinition
	for _, n := range strings.Fields("p a b c d e f g h i") {
		attrs = append(attrs, types.AttributeDefinition{AttributeName: ptr(n), AttributeType: ptr("S")})
	}

	cases := []struct {
		name, table, gsi, want string
	}{
		{"two HASH", "p:h", "a:h b:h", ""},
		{"four and four", "p:h", "a:h b:h c:h d:h e:r f:r g:r h:r", ""},
		{"one HASH, two RANGE", "p:h", "a:h b:r c:r", ""},
		{"five HASH", "p:h", "a:h b:h c:h d:h e:h", "at most 4 HASH"},
		{"five RANGE", "p:h", "a:h b:r c:r d:r e:r f:r", "at most 4 RANGE"},
		{"nine attributes", "p:h", "a:h b:h c:h d:h e:r f:r g:r h:r i:r", "length less than or equal to 8"},
		{"HASH after RANGE", "p:h", "a:h b:r c:h", "HASH key attribute must precede the RANGE"},
		{"RANGE first", "p:h", "a:r b:h", "The first KeySchemaElement is not a HASH key type"},
		{"a name twice", "p:h", "a:h b:h a:r", "Two keys can not have the same name"},
		{"undefined", "p:h", "a:h z:h", "not defined in AttributeDefinitions"},
		{"a table keeps one HASH", "p:h a:h", "b:h", "The second KeySchemaElement is not a RANGE key type"},
		{"a table keeps two attributes", "p:h a:r b:r", "c:h", "length less than or equal to 2"},
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			used := map[string]bool{}
			for _, e := range append(el(c.table), el(c.gsi)...) {
				used[e.AttributeName] = true
			}

			var defs []types.AttributeDefinition
			for _, a := range attrs {
				if used[*a.AttributeName] {
					defs = append(defs, a)
				}
			}

			_, err := NewTable(Definition{Name: "schemas", Attributes: defs, KeySchema: el(c.table),
				GSIs: []IndexDefinition{{Name: "gsi", KeySchema: el(c.gsi), Projection: &types.Projection{ProjectionType: &all}}}})

			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("want an error mentioning %q, got %v", c.want, err)
			}
		})
	}
}
