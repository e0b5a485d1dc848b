package enginediff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// MaxPages bounds how many pages a Query or Scan step follows: an engine
// that returns the same LastEvaluatedKey forever is a difference, not a
// hung test.
const MaxPages = 200

// Engine is one side of a comparison.
type Engine struct {
	Name   string
	Client *Client
}

// Mismatch is a step whose outcomes differ between the reference and
// the engine under test.
type Mismatch struct {
	// Steps is the sequence up to and including the step that differs.
	Steps []Step
	// Step is the index of the step that differs.
	Step int
	// Request is what was sent (table names as in Steps).
	Request map[string]any
	// Ref and Got are the outcomes on the reference and on the engine.
	Ref, Got Outcome
	// RefMessage and GotMessage are their errors' messages, if any.
	RefMessage, GotMessage string
	Diff                   Difference
	Schema                 Schema
	// Tables are the table names the run gave the placeholders.
	RefName, GotName string
}

// Op is the operation that differs.
func (m *Mismatch) Op() string { return m.Steps[m.Step].Op }

// Signature says what kind of difference m is (Signature), with the
// start of the reference's error message, if any (DynamoDB Local's
// messages name the rule broken): what shrinking keeps.
func (m *Mismatch) Signature() string {
	s := Signature(m.Op(), &m.Diff, m.Ref, m.Got)
	if msg := digits.ReplaceAllString(m.RefMessage, ""); msg != "" {
		s += " (" + firstWords(msg, 6) + ")"
	}
	return s
}

// firstWords is s's first n words.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

// Known is a difference between the engines that is written down: what
// DynamoDB does, what the engine does instead, whether it matches a
// mismatch, and the shortest sequence that shows it.
type Known struct {
	Name string
	// Why says what DynamoDB (Local) answers and what the engine does.
	Why   string
	Match func(*Mismatch) bool
	// Reference says DynamoDB Local, not the engine, differs from AWS
	// here (Why cites the evidence): the engine is right.
	Reference bool
	// Repro is the shortest sequence known to show it; its last step
	// differs.
	Repro []Step
}

// Hit is a known difference met by a run.
type Hit struct {
	Name string
	Step int
}

// Result is a run's verdict.
type Result struct {
	// Mismatch is the first difference no Known matches (nil: none).
	Mismatch *Mismatch
	// Known lists the known differences met before it.
	Known []Hit
	// Stopped says the run ended early: a known difference in a write
	// (or a step the reference failed) left the two tables different, so
	// later steps could only differ.
	Stopped bool
	// Unjudged are the steps the reference failed on (HTTP 500).
	Unjudged []int
}

// Runner runs sequences on a reference engine and an engine under test.
type Runner struct {
	Ref, Got Engine
	Known    []Known
	// Prefix starts the table names of this runner's runs (several
	// runners can share engines).
	Prefix string
	n      atomic.Int64
}

// SchemaOf reads the table's schema from the sequence's CreateTable of
// TableT (an empty schema without one).
func SchemaOf(steps []Step) Schema {
	for _, s := range steps {
		if s.Op != "CreateTable" || s.Req["TableName"] != TableT {
			continue
		}
		var sch Schema
		types := map[string]string{}
		for _, d := range asList(s.Req["AttributeDefinitions"]) {
			m := asMap(d)
			n, _ := m["AttributeName"].(string)
			t, _ := m["AttributeType"].(string)
			types[n] = t
		}
		keys := func(ks any) (KeyAttr, *KeyAttr) {
			var h KeyAttr
			var r *KeyAttr
			for _, k := range asList(ks) {
				m := asMap(k)
				n, _ := m["AttributeName"].(string)
				if m["KeyType"] == "HASH" {
					h = KeyAttr{n, types[n]}
				} else {
					r = &KeyAttr{n, types[n]}
				}
			}
			return h, r
		}
		sch.Hash, sch.Range = keys(s.Req["KeySchema"])
		for _, kind := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
			for _, x := range asList(s.Req[kind]) {
				m := asMap(x)
				ix := Index{Local: kind == "LocalSecondaryIndexes"}
				ix.Name, _ = m["IndexName"].(string)
				ix.Hash, ix.Range = keys(m["KeySchema"])
				p := asMap(m["Projection"])
				ix.Projection, _ = p["ProjectionType"].(string)
				for _, a := range asList(p["NonKeyAttributes"]) {
					s, _ := a.(string)
					ix.NonKey = append(ix.NonKey, s)
				}
				sch.Indexes = append(sch.Indexes, ix)
			}
		}
		return sch
	}
	return Schema{}
}

func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case float64:
		return int(x), true
	case json.Number:
		i, err := x.Int64()
		return int(i), err == nil
	}
	return 0, false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// names are a run's table names for the placeholders.
type names map[string]string

func (n names) body(req map[string]any) []byte {
	b, err := json.Marshal(req)
	if err != nil {
		panic(fmt.Sprintf("enginediff: a generated request does not encode: %v", err)) // a bug in this package
	}
	for p, name := range n {
		b = bytes.ReplaceAll(b, []byte(`"`+p+`"`), []byte(`"`+name+`"`))
	}
	return b
}

// placeholders puts the placeholders back into what an engine answered
// (a table's name in BatchGetItem's Responses, UnprocessedItems).
func (n names) placeholders(o Outcome) Outcome {
	b, err := json.Marshal(o)
	if err != nil {
		return o
	}
	for p, name := range n {
		b = bytes.ReplaceAll(b, []byte(`"`+name+`"`), []byte(`"`+p+`"`))
	}
	var out Outcome
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&out) != nil {
		return o
	}
	return out
}

// Exec runs one step on c and returns its outcome, and the message of
// the error it ended with (not compared: only the error's name is).
func Exec(ctx context.Context, c *Client, n names, sch Schema, s Step) (Outcome, string) {
	var o Outcome
	var last Response
	switch s.Op {
	case "Query":
		o = query(ctx, c, n, sch, s.Req, &last)
	case "Scan":
		o = scan(ctx, c, n, s.Req, &last)
	default:
		last = c.Do(ctx, s.Op, n.body(s.Req))
		switch {
		case s.Op == "DeleteTable":
			// the table a CreateTable tried: whether there was one to
			// delete is that CreateTable's outcome, compared already
			o = Outcome{}
		case last.ErrorType() != "":
			o = errorOutcome(last)
		default:
			o = bodyOutcome(s.Op, last.Body)
		}
	}
	if keys := writtenKeys(sch, s); len(keys) > 0 {
		// what the write left at each key it names: a write refused
		// must change nothing, one answered alike must leave the same
		after := make([]any, len(keys))
		for i, k := range keys {
			r := c.Do(ctx, "GetItem", n.body(map[string]any{"TableName": TableT, "Key": k, "ConsistentRead": true}))
			switch {
			case r.ErrorType() != "":
				after[i] = map[string]any{"error": r.ErrorType()}
			case r.Body["Item"] != nil:
				after[i] = normItem(asMap(r.Body["Item"]))
			default:
				after[i] = nil
			}
		}
		o["after"] = after
	}
	return n.placeholders(o), last.Message()
}

// writtenKeys are the table's keys a write step names (its item's, or
// each of a batch's or a transaction's), each once; none for a read, or
// for a key the schema cannot make of what the step says.
func writtenKeys(sch Schema, s Step) []map[string]any {
	var out []map[string]any
	seen := map[string]bool{}
	add := func(it any) {
		m := asMap(it)
		k := map[string]any{}
		for _, n := range sch.KeyNames() {
			v, ok := m[n]
			if !ok || n == "" {
				return
			}
			k[n] = v
		}
		if c := canon(k); !seen[c] {
			seen[c] = true
			out = append(out, k)
		}
	}
	if sch.Hash.Name == "" {
		return nil
	}
	switch s.Op {
	case "PutItem":
		if s.Req["TableName"] == TableT {
			add(s.Req["Item"])
		}
	case "UpdateItem", "DeleteItem":
		if s.Req["TableName"] == TableT {
			add(s.Req["Key"])
		}
	case "BatchWriteItem":
		for _, w := range asList(asMap(s.Req["RequestItems"])[TableT]) {
			add(asMap(asMap(w)["PutRequest"])["Item"])
			add(asMap(asMap(w)["DeleteRequest"])["Key"])
		}
	case "TransactWriteItems":
		for _, a := range asList(s.Req["TransactItems"]) {
			for kind, x := range asMap(a) {
				if asMap(x)["TableName"] != TableT {
					continue
				}
				if kind == "Put" {
					add(asMap(x)["Item"])
				} else {
					add(asMap(x)["Key"])
				}
			}
		}
	}
	return out
}

func withStart(req map[string]any, lek any) map[string]any {
	r := make(map[string]any, len(req)+1)
	for k, v := range req {
		r[k] = v
	}
	if lek != nil {
		r["ExclusiveStartKey"] = lek
	}
	return r
}

// query follows a Query's pages. On the table they are compared in
// order, as they are. On an index, items with equal index keys may come
// in any order (DynamoDB does not say which), so each run of such items
// is put in one order and each LastEvaluatedKey cut to the index's keys.
func query(ctx context.Context, c *Client, n names, sch Schema, req map[string]any, last *Response) Outcome {
	ixName, _ := req["IndexName"].(string)
	ix := sch.index(ixName)
	var pages, items []any
	var lek any
	count := 0
	for p := 0; ; p++ {
		if p == MaxPages {
			return Outcome{"error": fmt.Sprintf("more than %d pages", MaxPages)}
		}
		r := c.Do(ctx, "Query", n.body(withStart(req, lek)))
		*last = r
		if r.ErrorType() != "" {
			o := errorOutcome(r)
			if p > 0 {
				o["page"] = p
			}
			return o
		}
		body := bodyOutcome("Query", r.Body)
		lek = r.Body["LastEvaluatedKey"]
		if ix == nil {
			pages = append(pages, body)
		} else {
			page := map[string]any{}
			for k, v := range body {
				switch k {
				case "Items":
					l := asList(v)
					items = append(items, l...)
					page[k] = len(l)
				case "Count":
					if x, err := v.(json.Number).Int64(); err == nil {
						count += int(x)
					}
				case "LastEvaluatedKey":
					page[k] = cut(asMap(v), ix.Hash, ix.Range)
				default:
					page[k] = v
				}
			}
			page["shape"] = pageShape(body)
			pages = append(pages, page)
		}
		if lek == nil {
			break
		}
	}
	if ix == nil {
		return Outcome{"pages": pages}
	}
	return Outcome{"pages": pages, "Count": count, "Items": tiesSorted(items, ix.Hash, ix.Range)}
}

func cut(it map[string]any, h KeyAttr, r *KeyAttr) map[string]any {
	out := map[string]any{h.Name: it[h.Name]}
	if r != nil {
		out[r.Name] = it[r.Name]
	}
	return out
}

// tiesSorted sorts each run of items with equal index keys; if an item
// lacks the keys (a projection left them out), all of them.
func tiesSorted(items []any, h KeyAttr, r *KeyAttr) []any {
	keyOf := func(x any) (string, bool) {
		m := asMap(x)
		hv, ok := m[h.Name]
		if !ok {
			return "", false
		}
		if r == nil {
			return canon(hv), true
		}
		rv, ok := m[r.Name]
		return canon(hv) + canon(rv), ok
	}
	var out []any
	for i := 0; i < len(items); {
		k, ok := keyOf(items[i])
		if !ok {
			return sortCanon(items)
		}
		j := i + 1
		for ; j < len(items); j++ {
			if k2, ok := keyOf(items[j]); !ok || k2 != k {
				break
			}
		}
		out = append(out, sortCanon(items[i:j])...)
		i = j
	}
	if out == nil {
		return []any{}
	}
	return out
}

// scan follows a Scan's pages (every segment's, when TotalSegments is
// given without Segment). Which items a page or a segment holds is the
// engine's to choose, so the outcome is the items of all pages in one
// order, the sums of Count and ScannedCount, the number of pages (not
// for segments), and the shapes of the pages.
func scan(ctx context.Context, c *Client, n names, req map[string]any, last *Response) Outcome {
	segs := 0 // 0: as the request says
	_, hasSeg := req["Segment"]
	if t, ok := asInt(req["TotalSegments"]); ok && !hasSeg && t > 0 {
		segs = t
	}
	var items []any
	var count, scanned, pages int64
	shapes := map[string]bool{}
	sawItems := false
	for seg := range max(segs, 1) {
		r0 := req
		if segs > 0 {
			r0 = withStart(req, nil)
			r0["Segment"] = seg
		}
		var lek any
		for p := 0; ; p++ {
			if p == MaxPages {
				return Outcome{"error": fmt.Sprintf("more than %d pages", MaxPages)}
			}
			r := c.Do(ctx, "Scan", n.body(withStart(r0, lek)))
			*last = r
			if r.ErrorType() != "" {
				return errorOutcome(r)
			}
			pages++
			body := bodyOutcome("Scan", r.Body)
			if l, ok := body["Items"]; ok {
				sawItems = true
				items = append(items, asList(l)...)
			}
			for k, dst := range map[string]*int64{"Count": &count, "ScannedCount": &scanned} {
				if x, ok := body[k].(json.Number); ok {
					v, _ := x.Int64()
					*dst += v
				}
			}
			if segs > 1 {
				shapes[pageShape(body, "LastEvaluatedKey")] = true
			} else {
				shapes[pageShape(body)] = true
			}
			if lek = r.Body["LastEvaluatedKey"]; lek == nil {
				break
			}
		}
	}
	o := Outcome{"Count": count, "ScannedCount": scanned, "shapes": sortedKeys(shapes)}
	if sawItems {
		o["Items"] = sortCanon(orEmpty(items))
	}
	if segs <= 1 {
		o["pages"] = pages
	}
	return o
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Run runs steps on both engines, step by step, and stops at the first
// difference no Known matches. A known difference in a read is passed
// over; in a write, the run goes on only while both tables still hold
// the same items.
func (r *Runner) Run(ctx context.Context, steps []Step) Result {
	id := r.n.Add(1)
	n := names{TableT: fmt.Sprintf("%s%d_T", r.Prefix, id), TableU: fmt.Sprintf("%s%d_U", r.Prefix, id)}
	defer func() {
		// the run's tables, and any a CreateTable named itself (a name
		// too short for DynamoDB that the engine may have accepted)
		tables := []string{n[TableT], n[TableU]}
		for _, s := range steps {
			if t, ok := s.Req["TableName"].(string); ok && s.Op == "CreateTable" && t != TableT && t != TableU {
				tables = append(tables, t)
			}
		}
		for _, e := range []Engine{r.Ref, r.Got} {
			for _, t := range tables {
				e.Client.Do(context.WithoutCancel(ctx), "DeleteTable", []byte(`{"TableName":"`+t+`"}`))
			}
		}
	}()
	sch := SchemaOf(steps)
	var res Result
	for i, s := range steps {
		ref, refMsg := Exec(ctx, r.Ref.Client, n, sch, s)
		ref = canonicalNumbers(ref).(Outcome)
		got, gotMsg := Exec(ctx, r.Got.Client, n, sch, s)
		if internal(ref) {
			// The reference failed (DynamoDB Local answers
			// InternalFailure to an UpdateItem without an
			// UpdateExpression asking for UPDATED_NEW): it does not judge
			// this step.
			res.Unjudged = append(res.Unjudged, i)
			if !r.sameTable(ctx, n, sch) {
				res.Stopped = true
				return res
			}
			continue
		}
		d := firstDifference("", ref, got)
		if d == nil {
			continue
		}
		m := &Mismatch{Steps: steps[:i+1], Step: i, Request: s.Req, Ref: ref, Got: got, RefMessage: refMsg, GotMessage: gotMsg,
			Diff: *d, Schema: sch, RefName: r.Ref.Name, GotName: r.Got.Name}
		k := r.match(m)
		if k == "" {
			res.Mismatch = m
			return res
		}
		res.Known = append(res.Known, Hit{k, i})
		if !isRead(s.Op) && !r.sameTable(ctx, n, sch) {
			res.Stopped = true
			return res
		}
	}
	return res
}

// sameTable reports whether both engines' tables hold the same items:
// the same values, however each answers them (a number's spelling, an
// empty list's type, an empty page's keys are compared at each read).
func (r *Runner) sameTable(ctx context.Context, n names, sch Schema) bool {
	check := Step{"Scan", map[string]any{"TableName": TableT, "ConsistentRead": true}}
	a, _ := Exec(ctx, r.Ref.Client, n, sch, check)
	b, _ := Exec(ctx, r.Got.Client, n, sch, check)
	return canon(stored(a)) == canon(stored(b))
}

// stored is what a Scan's outcome says the table holds: its items, each
// number in canonical form and each empty list, map or binary untyped.
func stored(o Outcome) any {
	if e, ok := o["error"]; ok {
		return e
	}
	return sortCanon(untyped(canonicalNumbers(orEmpty(asList(o["Items"])))).([]any))
}

// internal reports whether o is an engine's own failure (HTTP 500).
func internal(o Outcome) bool {
	switch o["error"] {
	case "InternalFailure", "InternalServerError", "http 500":
		return true
	}
	return false
}

func (r *Runner) match(m *Mismatch) string {
	for _, k := range r.Known {
		if k.Match(m) {
			return k.Name
		}
	}
	return ""
}

func isRead(op string) bool {
	switch op {
	case "GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems", "DescribeTable":
		return true
	}
	return false
}

// Report writes m out: the step, what was sent, both outcomes, where
// they differ, and the sequence that leads there.
func (m *Mismatch) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d (%s) differs %s\n", m.Step, m.Op(), m.Diff)
	fmt.Fprintf(&b, "  request:  %s\n", canon(m.Request))
	fmt.Fprintf(&b, "  %s: %s%s\n", m.RefName, m.Ref.Canon(), quoted(m.RefMessage))
	fmt.Fprintf(&b, "  %s: %s%s\n", m.GotName, m.Got.Canon(), quoted(m.GotMessage))
	fmt.Fprintf(&b, "  sequence (%d steps, as a Known's Repro):\n%s\n", len(m.Steps), ReproJSON(m.Steps))
	return b.String()
}

func quoted(msg string) string {
	if msg == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", msg)
}

// ReproJSON is steps as JSON, a step a line: what a Known's Repro is
// written in.
func ReproJSON(steps []Step) string {
	var b strings.Builder
	b.WriteString("[")
	for i, s := range steps {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
		b.WriteString(canon(s))
	}
	b.WriteString("]")
	return b.String()
}

// ParseSteps reads steps written by ReproJSON.
func ParseSteps(s string) ([]Step, error) {
	var steps []Step
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&steps); err != nil {
		return nil, err
	}
	return steps, nil
}
