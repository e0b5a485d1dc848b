package enginediff

import (
	"context"
	"regexp"
	"slices"
	"strings"
)

// Shrink makes m's sequence shorter and simpler while it still shows a
// difference of the same signature: steps removed (halves, then
// quarters, down to single steps), then parts of steps (optional
// parameters, an item's attributes, a batch's or a transaction's
// entries, a table's indexes, elements of lists and maps). It runs at
// most budget sequences and returns the smallest mismatch found (m
// itself if nothing smaller shows it).
func (r *Runner) Shrink(ctx context.Context, m *Mismatch, budget int) *Mismatch {
	sig := m.Signature()
	best := m
	try := func(steps []Step) bool {
		if budget <= 0 {
			return false
		}
		budget--
		res := r.Run(ctx, steps)
		if res.Mismatch != nil && res.Mismatch.Signature() == sig {
			best = res.Mismatch
			return true
		}
		return false
	}
	for progress := true; progress && budget > 0; {
		progress = false
		for size := len(best.Steps) / 2; size >= 1; size /= 2 {
			for i := 0; i+size <= len(best.Steps) && budget > 0; {
				cand := append(slices.Clone(best.Steps[:i]), best.Steps[i+size:]...)
				if len(cand) > 0 && try(cand) {
					progress = true
					continue
				}
				i += size
			}
		}
		for i := 0; i < len(best.Steps) && budget > 0; i++ {
			for _, s := range simpler(best.Steps[i]) {
				if i >= len(best.Steps) {
					break
				}
				cand := slices.Clone(best.Steps)
				cand[i] = s
				if try(cand) {
					progress = true
					break
				}
			}
		}
	}
	return best
}

// optional are request parameters a step can do without.
var optional = []string{"ReturnValues", "ReturnValuesOnConditionCheckFailure", "ConsistentRead", "Limit", "ScanIndexForward",
	"Select", "TotalSegments", "ProjectionExpression", "FilterExpression", "ConditionExpression", "IndexName"}

// simpler are the steps one simplification away from s.
func simpler(s Step) []Step {
	var out []Step
	each := func(f func(req map[string]any) bool) {
		req := deepCopy(s.Req).(map[string]any)
		if f(req) {
			prunePlaceholders(req)
			out = append(out, Step{s.Op, req})
		}
	}
	for _, k := range optional {
		if _, ok := s.Req[k]; ok {
			each(func(req map[string]any) bool { delete(req, k); return true })
		}
	}
	if s.Op == "CreateTable" {
		for _, kind := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
			for i := range asList(s.Req[kind]) {
				each(func(req map[string]any) bool {
					l := slices.Delete(asList(req[kind]), i, i+1)
					if len(l) == 0 {
						delete(req, kind)
					} else {
						req[kind] = l
					}
					pruneDefinitions(req)
					return true
				})
			}
		}
		return out
	}
	// every list of requests or keys, every item
	var walk func(path []any, v any)
	walk = func(path []any, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				walk(append(slices.Clone(path), k), y)
			}
		case []any:
			last, _ := path[len(path)-1].(string)
			if last == "TransactItems" || last == "Keys" || last == TableT || last == "L" {
				for i := range x {
					each(func(req map[string]any) bool {
						parent, key := at(req, path)
						l := asList(parent[key.(string)])
						parent[key.(string)] = slices.Delete(l, i, i+1)
						return true
					})
				}
			}
			for i, y := range x {
				walk(append(slices.Clone(path), i), y)
			}
		}
		if m, ok := v.(map[string]any); ok && len(path) > 0 {
			last, _ := path[len(path)-1].(string)
			if last == "Item" || last == "M" {
				for k := range m {
					if last == "Item" && (k == "pk" || k == "sk") {
						continue
					}
					each(func(req map[string]any) bool {
						parent, key := at(req, path)
						switch kk := key.(type) {
						case string:
							delete(asMap(parent[kk]), k)
						}
						return true
					})
				}
			}
		}
	}
	walk(nil, s.Req)
	return out
}

// at is the map holding path's last element, and that element.
func at(req map[string]any, path []any) (map[string]any, any) {
	var cur any = req
	var parent map[string]any
	for i, p := range path {
		if i == len(path)-1 {
			if pm, ok := cur.(map[string]any); ok {
				parent = pm
			}
			return parent, p
		}
		switch k := p.(type) {
		case string:
			cur = asMap(cur)[k]
		case int:
			cur = asList(cur)[k]
		}
	}
	return parent, nil
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, y := range x {
			out[k] = deepCopy(y)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = deepCopy(y)
		}
		return out
	}
	return v
}

var placeholder = regexp.MustCompile(`[#:][A-Za-z0-9_]+`)

// prunePlaceholders drops the names and values no expression of req (or
// of a transaction's action) uses any more.
func prunePlaceholders(req map[string]any) {
	var exprs []string
	for k, v := range req {
		if s, ok := v.(string); ok && strings.HasSuffix(k, "Expression") {
			exprs = append(exprs, s)
		}
	}
	used := map[string]bool{}
	for _, e := range exprs {
		for _, p := range placeholder.FindAllString(e, -1) {
			used[p] = true
		}
	}
	for _, k := range []string{"ExpressionAttributeNames", "ExpressionAttributeValues"} {
		m, ok := req[k].(map[string]any)
		if !ok {
			continue
		}
		for p := range m {
			if !used[p] {
				delete(m, p)
			}
		}
		if len(m) == 0 {
			delete(req, k)
		}
	}
	for _, v := range req {
		switch x := v.(type) {
		case map[string]any:
			prunePlaceholders(x)
		case []any:
			for _, y := range x {
				if m, ok := y.(map[string]any); ok {
					prunePlaceholders(m)
				}
			}
		}
	}
}

// pruneDefinitions drops attribute definitions no key schema names.
func pruneDefinitions(req map[string]any) {
	used := map[string]bool{}
	addKeys := func(ks any) {
		for _, k := range asList(ks) {
			n, _ := asMap(k)["AttributeName"].(string)
			used[n] = true
		}
	}
	addKeys(req["KeySchema"])
	for _, kind := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
		for _, ix := range asList(req[kind]) {
			addKeys(asMap(ix)["KeySchema"])
		}
	}
	var defs []any
	for _, d := range asList(req["AttributeDefinitions"]) {
		if n, _ := asMap(d)["AttributeName"].(string); used[n] {
			defs = append(defs, d)
		}
	}
	req["AttributeDefinitions"] = defs
}
