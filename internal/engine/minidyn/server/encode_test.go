package server

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// plain is v as encoding/json sees it without the hand-written encoder:
// maps, slices and scalars, which it encodes with sorted keys.
func plain(v *AttributeValue) any {
	if v == nil {
		return nil
	}

	strs := func(l []*string) []any {
		out := []any{}
		for _, s := range l {
			if s == nil {
				out = append(out, nil)
			} else {
				out = append(out, *s)
			}
		}

		return out
	}

	switch {
	case v.S != nil:
		return map[string]any{"S": *v.S}
	case v.N != nil:
		return map[string]any{"N": *v.N}
	case v.B != nil:
		return map[string]any{"B": v.B}
	case v.BOOL != nil:
		return map[string]any{"BOOL": *v.BOOL}
	case v.NULL != nil:
		return map[string]any{"NULL": *v.NULL}
	case v.SS != nil:
		return map[string]any{"SS": strs(v.SS)}
	case v.NS != nil:
		return map[string]any{"NS": strs(v.NS)}
	case v.BS != nil:
		out := []any{}
		for _, b := range v.BS {
			out = append(out, b)
		}

		return map[string]any{"BS": out}
	case v.L != nil:
		out := []any{}
		for _, e := range v.L {
			out = append(out, plain(e))
		}

		return map[string]any{"L": out}
	case v.M != nil:
		return map[string]any{"M": plainMap(v.M)}
	}

	return map[string]any{}
}

func plainMap(m map[string]*AttributeValue) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = plain(v)
	}

	return out
}

// nasty strings: JSON's escapes, invalid UTF-8, U+2028/9, HTML
// characters (not escaped), multi-byte runes.
var nasty = []string{"", "a", "a#b", "%", `"`, `\`, "\x00", "\x1f", "\b\f\n\r\t", "\x7f", "\xff", "a\xc3", "\u2028\u2029", "<a&b>", "é", "日本", "🙂", "\ufffd", "x\"y\\z"}

func randString(r *rand.Rand) string {
	var b bytes.Buffer
	for range r.IntN(4) {
		b.WriteString(nasty[r.IntN(len(nasty))])
	}

	return b.String()
}

func randValue(r *rand.Rand, depth int) *AttributeValue {
	s := func() *string { v := randString(r); return &v }
	strs := func() []*string {
		out := []*string{}
		for range r.IntN(3) {
			out = append(out, s())
		}

		return out
	}
	t := true

	switch n := r.IntN(11); {
	case n == 0:
		return &AttributeValue{S: s()}
	case n == 1:
		v := strconv.Itoa(r.IntN(2000) - 1000)
		return &AttributeValue{N: &v}
	case n == 2:
		return &AttributeValue{B: []byte(randString(r))}
	case n == 3:
		return &AttributeValue{BOOL: &t}
	case n == 4:
		return &AttributeValue{NULL: &t}
	case n == 5:
		return &AttributeValue{SS: strs()}
	case n == 6:
		a, b := strconv.Itoa(r.IntN(10)), strconv.Itoa(10+r.IntN(10))
		return &AttributeValue{NS: []*string{&a, &b}}
	case n == 7:
		return &AttributeValue{BS: [][]byte{[]byte(randString(r)), {}}}
	case n == 8 && depth < 3:
		l := []*AttributeValue{}
		for range r.IntN(3) {
			l = append(l, randValue(r, depth+1))
		}

		return &AttributeValue{L: l}
	case n == 9 && depth < 3:
		return &AttributeValue{M: randMap(r, depth+1)}
	}

	return &AttributeValue{S: s()}
}

func randMap(r *rand.Rand, depth int) map[string]*AttributeValue {
	m := map[string]*AttributeValue{}
	for range r.IntN(20) {
		m[randString(r)] = randValue(r, depth)
	}

	return m
}

// TestEncodeMatchesEncodingJSON: the hand-written encoder writes what
// encoding/json writes (SetEscapeHTML(false), keys sorted) for random
// items of every type, nested, with names and values that need escaping,
// both from the wire types and from the stored ones, and a whole Query
// page decodes to what encoding/json's does.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 21))
	storedChecked := 0

	for n := range 2000 {
		m := randMap(r, 0)

		var want bytes.Buffer

		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)

		if err := enc.Encode(plainMap(m)); err != nil {
			t.Fatal(err)
		}

		wantS := string(bytes.TrimSuffix(want.Bytes(), []byte("\n")))

		if got := string(appendValues(nil, m)); got != wantS {
			t.Fatalf("%d: wire item:\n got %s\nwant %s", n, got, wantS)
		}

		stored, err := fromWireMap(m)
		if err != nil {
			continue // a value the engine refuses (an empty set, a bad number) is never stored
		}

		if got := string(appendItems(nil, stored)); got != string(appendValues(nil, toWireMap(stored))) {
			t.Fatalf("%d: stored item:\n got %s\nwant %s", n, got, appendValues(nil, toWireMap(stored)))
		}

		storedChecked++
	}

	if storedChecked < 200 {
		t.Fatalf("only %d of the random items were valid to store", storedChecked)
	}

	// A Query page: the fast encoding and encoding/json's of the same
	// output decode alike.
	items := []map[string]*types.Item{}
	for range 5 {
		m, err := fromWireMap(map[string]*AttributeValue{"p": {S: ptr("a<b>&\u2028")}, "n": {N: ptr("1000")}, "l": {L: []*AttributeValue{}}, "m": {M: map[string]*AttributeValue{}}})
		if err != nil {
			t.Fatal(err)
		}

		items = append(items, m)
	}

	p := &page{items: items, last: items[0]}
	fast, err := (&QueryOutput{Count: 5, ScannedCount: 7, page: p}).appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}

	wireItems, last := p.wire()

	slow, err := json.Marshal(&QueryOutput{Items: wireItems, Count: 5, ScannedCount: 7, LastEvaluatedKey: last})
	if err != nil {
		t.Fatal(err)
	}

	var a, b any
	if err := json.Unmarshal(fast, &a); err != nil {
		t.Fatalf("%v: %s", err, fast)
	}

	if err := json.Unmarshal(slow, &b); err != nil {
		t.Fatal(err)
	}

	if ja, jb := mustJSON(t, a), mustJSON(t, b); ja != jb {
		t.Fatalf("page:\n fast %s\n slow %s", ja, jb)
	}

	// Select COUNT: no Items key at all.
	count, _ := (&QueryOutput{Count: 5, ScannedCount: 5, page: &page{count: true}}).appendJSON(nil)
	if string(count) != `{"Count":5,"ScannedCount":5}` {
		t.Fatalf("COUNT page: %s", count)
	}
}

func ptr(s string) *string { return &s }

func mustJSON(t *testing.T, v any) string {
	t.Helper()

	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}

	return string(b)
}
