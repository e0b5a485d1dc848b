package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// Every range on every sort-key shape the checks accept is sent as a
// request the engine takes (it refuses a BETWEEN whose upper bound is below
// its lower one, and "" as a key value) and answers what the reference
// evaluator answers: shapes bare ("{v}", the sort attribute is the whole
// key), prefixed ("V#{v}"), labelled ("v_{v}", no separator) and
// composite ("V#{v}#{id}"), over strings, numbers and times (another
// entity's items beside them in the partition where the shape has a
// prefix), with every operator and every pair of bounds (issue 35: a `>` on
// a bare "{last_active}" went out as BETWEEN "…$" AND "$").
func TestRangesOnEverySortKeyShape(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	types := []struct {
		name, decl string
		values     []any
		prefixes   []any // begins_with arguments
	}{
		{"string", "{type: string, maxLength: 20}", []any{"a", "ab", "a#b", "a$", "%", "b", "z~"}, []any{"a", "a#", "z", "q"}},
		{"number", "{type: number, min: -50, max: 500}", []any{-50, -5, 0, 3, 7, 500}, nil},
		{"time", "time", []any{base.Add(-time.Hour), base, base.Add(time.Millisecond), base.Add(24 * time.Hour)}, nil},
	}
	shapes := []struct{ name, sk string }{
		{"bare", "{v}"}, {"prefixed", "V#{v}"}, {"labelled", "v_{v}"}, {"composite", "V#{v}#{id}"},
	}
	for _, ty := range types {
		for _, sh := range shapes {
			t.Run(ty.name+"/"+sh.name, func(t *testing.T) {
				d := planned(t, fmt.Sprintf(`table: Shapes
entities:
  Thing:
    id: [id]
    attributes:
      id: {type: string, maxLength: 10}
      owner: {type: string, maxLength: 10}
      v: %s
    keys:
      table: {pk: "T#{id}", sk: T}
      GSI1: {pk: "O#{owner}", sk: "%s"}
%s
patterns:
  GetThing: {get: Thing}
  ByV: {query: Thing, where: [owner], sort: v}
  ByVDesc: {query: Thing, where: [owner], sort: v desc}
`, ty.decl, sh.sk, other(sh.name)))
				rangesAgree(t, d, ty.name == "string" && sh.name != "composite", ty.values, ty.prefixes)
			})
		}
	}
}

// other is an entity whose GSI1 items sort after Thing's in a partition
// (none beside a bare sort key: KP103 refuses that layout).
func other(shape string) string {
	if shape == "bare" {
		return ""
	}
	return `  Other:
    id: [oid]
    attributes:
      oid: {type: string, maxLength: 10}
      owner: {type: string, maxLength: 10}
    keys:
      table: {pk: "X#{oid}", sk: X}
      GSI1: {pk: "O#{owner}", sk: "~{oid}"}`
}

// rangesAgree loads two items of each value of Thing.v under owner "o"
// (and one under "p", and an Other beside them when the model has one),
// and reads ByV and ByVDesc with every operator over every value (every
// pair for between; begins_with over prefixes): each read is the
// reference evaluator's answer, a disordered between is refused as
// ErrBadRange before any request, and so is "<" when noLess (a string
// ending the sort key).
func rangesAgree(t *testing.T, d *patterns.Design, noLess bool, values, prefixes []any) {
	t.Helper()
	ctx := context.Background()
	m := d.Model()
	tbl := fresh(t, d)
	ref := oracle.NewState(m)
	put := func(entity string, v Values) {
		t.Helper()
		if err := tbl.Create(ctx, entity, v); err != nil {
			t.Fatalf("create %v: %v", v, err)
		}
		if err := ref.Create(entity, map[string]any(v)); err != nil {
			t.Fatalf("reference: create %v: %v", v, err)
		}
	}
	for i, v := range values {
		// two items per value (equal sort values), one in another partition
		put("Thing", Values{"id": fmt.Sprintf("i%d", i), "owner": "o", "v": v})
		put("Thing", Values{"id": fmt.Sprintf("j%d", i), "owner": "o", "v": v})
		put("Thing", Values{"id": fmt.Sprintf("k%d", i), "owner": "p", "v": v})
	}
	if m.Entity("Other") != nil {
		put("Other", Values{"oid": "x", "owner": "o"}) // beside Thing's keys in the partition
	}
	var ranges []*Range
	for _, v := range values {
		for _, op := range []Comparator{Eq, Lt, Le, Gt, Ge} {
			ranges = append(ranges, &Range{Op: op, Value: v})
		}
		for _, u := range values {
			ranges = append(ranges, &Range{Op: Between, Value: v, Upper: u})
		}
	}
	for _, p := range prefixes {
		ranges = append(ranges, &Range{Op: BeginsWith, Value: p})
	}
	for _, pat := range []string{"ByV", "ByVDesc"} {
		p := m.Pattern(pat)
		for _, r := range ranges {
			want, werr := ref.Read(p, map[string]any{"owner": "o"}, &oracle.Range{Op: oracle.RangeOp(r.Op), Value: r.Value, Upper: r.Upper})
			var got []Item
			var err error
			for it, e := range tbl.All(ctx, pat, Request{Params: Params{"owner": "o"}, Range: r}) {
				if e != nil {
					err = e
					break
				}
				got = append(got, it)
			}
			switch {
			case r.Op == Lt && noLess:
				// documented: no single condition says "< s" of a string ending the key
				if !errors.Is(err, ErrBadRange) {
					t.Errorf("%s < %v on a string ending the key: %v; want ErrBadRange", pat, r.Value, err)
				}
			case werr != nil:
				// a disordered between: the runtime says so, no request goes out
				if !errors.Is(err, ErrBadRange) {
					t.Errorf("%s %s: %v; the reference refuses it (%v): want ErrBadRange", pat, r.Op, err, werr)
				}
			case err != nil:
				t.Errorf("%s %s %v %v: %v", pat, r.Op, r.Value, r.Upper, err)
			default:
				if err := want.Check(m, fromRuntime(m, got), false); err != nil {
					t.Errorf("%s %s %v %v: %v", pat, r.Op, r.Value, r.Upper, err)
				}
			}
		}
	}
}

// A number without digits, min or max takes decimals (and whole numbers
// beyond int64), in and out of keys: on a designed layout, synthetic (the
// key form continues the whole part with ".fraction", beyond int64 a form
// of its own) or native (a stored N), every range over decimals, whole
// numbers, zero, their neighbours and DynamoDB's extremes answers what the
// reference answers (issue 35: 12.99 was refused as "expected a whole
// number"). The values are those a float64 holds exactly: the runtime
// reads a decimal back as one.
func TestDecimalRangesOnDesignedKeys(t *testing.T) {
	t.Parallel()
	values := []any{
		json.Number("-100000000000000000000"), json.Number("-1E+19"), int64(math.MinInt64),
		-2.5, -2, -1.75, json.Number("-1E-130"), 0, json.Number("1E-130"), 0.5, 0.05, 3, 3.25, 12.99,
		int64(math.MaxInt64), json.Number("1E+19"), json.Number("1E+20"), json.Number("1E+125"),
	}
	for _, keys := range keyings {
		t.Run(string(keys), func(t *testing.T) {
			d := planned(t, "indexKeys: "+string(keys)+`
table: Decimals
entities:
  Thing:
    id: [id]
    attributes:
      id: {type: string, maxLength: 10}
      owner: {type: string, maxLength: 10}
      v: number
patterns:
  GetThing: {get: Thing}
  ByV: {query: Thing, where: [owner], sort: v}
  ByVDesc: {query: Thing, where: [owner], sort: v desc}
`)
			needsNative(t, d)
			rangesAgree(t, d, false, values, nil)
		})
	}
}
