package enginediff

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Outcome is what a step's answer is compared by: the answer's body with
// what may differ between correct engines taken out (ConsumedCapacity,
// error messages, the order of a set's members, of a Scan's items, of a
// BatchGetItem's items, of index items with equal index keys) and what
// must not kept (every key, every value's type and spelling, Count,
// ScannedCount, LastEvaluatedKey, error names, cancellation reasons).
type Outcome map[string]any

// Canon is o as canonical JSON (keys sorted): two outcomes are equal
// when their Canon is.
func (o Outcome) Canon() string {
	b, err := json.Marshal(o)
	if err != nil {
		return fmt.Sprintf("unencodable: %v", err)
	}
	return string(b)
}

func canon(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// errorOutcome is an error's name and what DynamoDB returns with it
// besides a message: the item of a failed condition, a transaction's
// reasons (codes and items).
func errorOutcome(r Response) Outcome {
	o := Outcome{"error": r.ErrorType()}
	if it, ok := r.Body["Item"].(map[string]any); ok {
		o["Item"] = normItem(it)
	}
	if rs, ok := r.Body["CancellationReasons"].([]any); ok {
		var out []any
		for _, x := range rs {
			m, _ := x.(map[string]any)
			c := map[string]any{"Code": m["Code"]}
			if it, ok := m["Item"].(map[string]any); ok {
				c["Item"] = normItem(it)
			}
			out = append(out, c)
		}
		o["CancellationReasons"] = orEmpty(out)
	}
	if r.ErrorType() == "http 200" || strings.HasPrefix(r.ErrorType(), "http ") {
		o["body"] = r.Body
	}
	return o
}

// normAV puts a set's members in order, in depth.
func normAV(v any) any {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return v
	}
	out := map[string]any{}
	for t, x := range m {
		switch t {
		case "SS", "NS", "BS":
			l, _ := x.([]any)
			l = slices.Clone(l)
			sort.Slice(l, func(i, j int) bool { return fmt.Sprint(l[i]) < fmt.Sprint(l[j]) })
			out[t] = l
		case "L":
			l, _ := x.([]any)
			n := make([]any, len(l))
			for i, e := range l {
				n[i] = normAV(e)
			}
			if l == nil && x != nil {
				out[t] = x
			} else {
				out[t] = n
			}
		case "M":
			if mm, ok := x.(map[string]any); ok {
				out[t] = normItem(mm)
			} else {
				out[t] = x
			}
		default:
			out[t] = x
		}
	}
	return out
}

func normItem(it map[string]any) map[string]any {
	out := make(map[string]any, len(it))
	for k, v := range it {
		out[k] = normAV(v)
	}
	return out
}

func normItems(v any) any {
	l, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(l))
	for i, x := range l {
		if m, ok := x.(map[string]any); ok {
			out[i] = normItem(m)
		} else {
			out[i] = x
		}
	}
	return out
}

// sortCanon puts l in one order whatever the engine answered first. The
// order is by each element's value, not its spelling (canonical
// numbers, empty lists, maps and binaries alike), so two answers that
// spell a value differently still line up item by item and differ only
// where they spell it.
func sortCanon(l []any) []any {
	l = slices.Clone(l)
	key := make(map[int]string, len(l))
	idx := make([]int, len(l))
	for i := range l {
		idx[i] = i
		key[i] = canon(untyped(canonicalNumbers(l[i])))
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if key[idx[a]] != key[idx[b]] {
			return key[idx[a]] < key[idx[b]]
		}
		return canon(l[idx[a]]) < canon(l[idx[b]])
	})
	out := make([]any, len(l))
	for i, j := range idx {
		out[i] = l[j]
	}
	return out
}

// untyped is v with each empty list, map or binary written {}.
func untyped(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for t, y := range x {
				if (t == "L" || t == "M") && len(asList(y)) == 0 && len(asMap(y)) == 0 || t == "B" && y == "" {
					return map[string]any{}
				}
			}
		}
		out := map[string]any{}
		for k, y := range x {
			out[k] = untyped(y)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = untyped(y)
		}
		return out
	}
	return v
}

// bodyOutcome is a successful single answer's outcome.
func bodyOutcome(op string, body map[string]any) Outcome {
	o := Outcome{}
	for k, v := range body {
		switch k {
		case "ConsumedCapacity", "ItemCollectionMetrics":
		case "Item", "Attributes", "LastEvaluatedKey":
			if m, ok := v.(map[string]any); ok {
				o[k] = normItem(m)
			} else {
				o[k] = v
			}
		case "Items":
			o[k] = normItems(v)
		case "Responses":
			o[k] = normResponses(op, v)
		case "TableDescription":
			o[k] = tableOutcome(v)
		default:
			o[k] = v
		}
	}
	return o
}

// normResponses: BatchGetItem's items per table in any order;
// TransactGetItems' in the request's.
func normResponses(op string, v any) any {
	switch r := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for t, items := range r {
			if l, ok := normItems(items).([]any); ok {
				out[t] = sortCanon(l)
			} else {
				out[t] = items
			}
		}
		return out
	case []any:
		out := make([]any, len(r))
		for i, x := range r {
			m, _ := x.(map[string]any)
			n := map[string]any{}
			for k, y := range m {
				if it, ok := y.(map[string]any); ok && k == "Item" {
					n[k] = normItem(it)
				} else {
					n[k] = y
				}
			}
			out[i] = n
		}
		return out
	}
	return v
}

// tableOutcome is what a table's description must say: its keys,
// attribute definitions and indexes (names, keys, projections), not its
// times, ARNs or status.
func tableOutcome(v any) any {
	d, _ := v.(map[string]any)
	o := map[string]any{"KeySchema": d["KeySchema"]}
	if a, ok := d["AttributeDefinitions"].([]any); ok {
		o["AttributeDefinitions"] = sortCanon(a)
	}
	for _, k := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
		l, ok := d[k].([]any)
		if !ok {
			continue
		}
		var ixs []any
		for _, x := range l {
			m, _ := x.(map[string]any)
			p, _ := m["Projection"].(map[string]any)
			proj := map[string]any{"ProjectionType": p["ProjectionType"]}
			if nk, ok := p["NonKeyAttributes"].([]any); ok {
				proj["NonKeyAttributes"] = sortCanon(nk)
			}
			ixs = append(ixs, map[string]any{"IndexName": m["IndexName"], "KeySchema": m["KeySchema"], "Projection": proj})
		}
		o[k] = sortCanon(ixs)
	}
	return o
}

// pageShape is the keys an answer carries.
func pageShape(body map[string]any, drop ...string) string {
	var ks []string
	for k := range body {
		if k != "ConsumedCapacity" && !slices.Contains(drop, k) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return strings.Join(ks, ",")
}

// Difference is where two outcomes first differ: a path into them
// ("pages[0].Items[1].a") and the two values there.
type Difference struct {
	Path     string
	Ref, Got any
}

func (d Difference) String() string {
	return fmt.Sprintf("at %s: %s vs %s", orRoot(d.Path), show(d.Ref), show(d.Got))
}

func orRoot(p string) string {
	if p == "" {
		return "the top"
	}
	return p
}

func show(v any) string {
	if v == missing {
		return "(missing)"
	}
	return canon(v)
}

type missingT struct{}

// missing stands for a key one side has and the other lacks.
var missing = missingT{}

// firstDifference walks a and b (decoded JSON) in key order.
func firstDifference(path string, a, b any) *Difference {
	if canon(a) == canon(b) {
		return nil
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok {
		if o, ok := a.(Outcome); ok {
			am, aok = o, true
		}
	}
	if !bok {
		if o, ok := b.(Outcome); ok {
			bm, bok = o, true
		}
	}
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		// an error's name first: it says most
		sort.Slice(ks, func(i, j int) bool {
			if (ks[i] == "error") != (ks[j] == "error") {
				return ks[i] == "error"
			}
			return ks[i] < ks[j]
		})
		for _, k := range ks {
			av, aok := am[k]
			bv, bok := bm[k]
			p := join(path, k)
			switch {
			case !aok:
				return &Difference{p, missing, bv}
			case !bok:
				return &Difference{p, av, missing}
			}
			if d := firstDifference(p, av, bv); d != nil {
				return d
			}
		}
		return nil
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok {
		for i := range min(len(al), len(bl)) {
			if d := firstDifference(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i]); d != nil {
				return d
			}
		}
		if len(al) != len(bl) {
			return &Difference{path + ".length", len(al), len(bl)}
		}
	}
	return &Difference{path, a, b}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

var digits = regexp.MustCompile(`\[\d+\]`)

// Signature is a difference's kind, what shrinking keeps: the operation,
// the path with list positions taken out, and each side's error name.
func Signature(op string, d *Difference, ref, got Outcome) string {
	e := func(o Outcome) string {
		if s, ok := o["error"].(string); ok {
			return s
		}
		return "ok"
	}
	return op + " " + digits.ReplaceAllString(d.Path, "[]") + " " + e(ref) + "/" + e(got)
}
