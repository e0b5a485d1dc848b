package view

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/report"
)

// Engine names what runs the reads, for the page.
const Engine = "keyplan's runtime on the in-process engine"

// table is the name of the table a sample is written to (it lives only in
// the engine the sample starts, so any valid name will do).
const table = "keyplan-view"

// Options choose the items of a sample.
type Options struct {
	// Items are the items to write, in order; nil: the model's
	// examples.items, then its examples.steps (the writes the expectations
	// are read after). Generated items plug in here.
	Items []*model.ExampleItem
	// Source says where Items come from, for the page (default: "the
	// examples of FILE", or "N item(s)").
	Source string
}

// SampleTimeout bounds Sample (writing a design's examples into the
// in-process engine and reading them back) when its context has no
// deadline: keyplan plan --format html and keyplan export workbench.
const SampleTimeout = time.Minute

// Sample writes items into a fresh table of the design on the in-process
// engine (in memory, on a loopback port, stopped when done) with keyplan's
// runtime, reads the table back as it holds them, and runs reads of every
// pattern the design serves: the examples' expectations (when the items
// are the examples), then, for each pattern they do not read, one read
// with the parameters of the first item that has them. The result is what
// report.WriteHTML shows; an item the runtime refuses, or a read that
// fails, is in it with the reason. Without a deadline on ctx, the work
// takes at most SampleTimeout.
func Sample(ctx context.Context, d *patterns.Design, o Options) (*report.Sample, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, SampleTimeout)
		defer cancel()
	}
	m := d.Model()
	if m == nil {
		return nil, errors.New("view: the design has no model (plan one from a model file)")
	}
	client, stop, err := inProcess()
	if err != nil {
		return nil, err
	}
	defer stop()
	if err := dynamo.CreateTable(ctx, client, d, table); err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	var opts []dynamo.Option
	if m.Examples != nil && m.Examples.Now != "" && o.Items == nil {
		if now, err := time.Parse(time.RFC3339, m.Examples.Now); err == nil { // the examples' clock
			opts = append(opts, dynamo.WithClock(func() time.Time { return now }))
		}
	}
	t := dynamo.New(d, client, table, opts...)
	s := &report.Sample{Source: o.Source, Engine: Engine}
	items, examples := o.Items, o.Items == nil
	if examples {
		if m.Examples != nil {
			items = m.Examples.Items
		}
		if s.Source == "" && m.Source != "" {
			s.Source = "the examples of " + m.Source
		}
	}
	if s.Source == "" {
		s.Source = fmt.Sprintf("%d item(s)", len(items))
	}
	names := map[string]string{} // base key -> item name
	var failed []*report.SampleItem
	for _, it := range items {
		err := t.Create(ctx, it.Entity, dynamo.Values(it.Values))
		if err != nil {
			failed = append(failed, &report.SampleItem{Name: it.Name, Entity: it.Entity, Attrs: display(it.Values), Err: err.Error()})
			continue
		}
		if key, err := t.Key(it.Entity, dynamo.Values(it.Values)); err == nil {
			names[keyText(d, key)] = it.Name
		}
	}
	if examples && m.Examples != nil {
		for _, st := range m.Examples.Steps {
			err := t.Write(ctx, st.Write, dynamo.Params(st.Params))
			if err == nil && st.Item != "" {
				if w := m.Write(st.Write); w != nil {
					if key, kerr := t.Key(w.Named().Entity, dynamo.Values(st.Params)); kerr == nil {
						names[keyText(d, key)] = st.Item
					}
				}
			}
		}
	}
	stored, guards, err := scan(ctx, client, t)
	if err != nil {
		return nil, fmt.Errorf("view: reading the table back: %w", err)
	}
	for _, it := range stored {
		name, ok := names[keyText(d, it.raw)]
		if !ok {
			name = it.entity + "(" + keyText(d, it.raw) + ")"
		}
		s.Items = append(s.Items, &report.SampleItem{Name: name, Entity: it.entity, Attrs: storedText(it.raw)})
	}
	s.Items = append(s.Items, failed...)
	if guards > 0 {
		s.Source += fmt.Sprintf(" (and %d unique-value guard item(s), not shown)", guards)
	}
	name := func(raw map[string]types.AttributeValue) string {
		if n, ok := names[keyText(d, raw)]; ok {
			return n
		}
		e, _, err := t.Decode(raw)
		if err != nil {
			e = "item"
		}
		return e + "(" + keyText(d, raw) + ")"
	}
	read := func(p *model.Pattern, params map[string]any, from string) *report.SampleRead {
		r := &report.SampleRead{Pattern: p.Name, Params: paramList(m, p, params), From: from, Ordered: len(p.Sort) > 0, Items: []string{}}
		if d.Pattern(p.Name).Batch { // a batch of one id: the item's
			return batchRead(ctx, t, r, []map[string]any{params}, name)
		}
		if pp := d.Pattern(p.Name); pp.Count || pp.Sum != "" { // a number
			var n int64
			var err error
			if pp.Count {
				n, err = t.Count(ctx, p.Name, dynamo.Request{Params: dynamo.Params(params)})
			} else {
				n, err = t.Sum(ctx, p.Name, dynamo.Params(params))
			}
			if err != nil {
				r.Err = err.Error()
				return r
			}
			r.Number = &n
			return r
		}
		page, err := t.Read(ctx, p.Name, dynamo.Request{Params: dynamo.Params(params)})
		if err != nil {
			r.Err = err.Error()
			return r
		}
		for _, it := range page.Items {
			r.Items = append(r.Items, name(it.Raw))
		}
		return r
	}
	read1 := map[string]bool{}
	if examples && m.Examples != nil {
		for _, x := range m.Examples.Expect {
			p := m.Pattern(x.Pattern)
			if pp := d.Pattern(x.Pattern); p == nil || pp == nil || !pp.Served() {
				continue
			}
			from := "examples.expect at " + x.Pos.In(m.Source)
			r := read(p, x.Params, from)
			if x.IDs != nil {
				r = batchRead(ctx, t, &report.SampleRead{Pattern: p.Name, From: from, Items: []string{}}, x.IDs, name)
			}
			r.Expected = append([]string{}, x.Items...)
			for i, e := range r.Expected {
				if e == "" {
					r.Expected[i] = dynamo.NoItem
				}
			}
			if x.Count != nil {
				r.Expected, r.ExpectedNumber = nil, x.Count
			}
			s.Reads = append(s.Reads, r)
			read1[p.Name] = true
		}
	}
	for _, p := range m.Patterns {
		if pp := d.Pattern(p.Name); read1[p.Name] || pp == nil || !pp.Served() {
			continue
		}
		if it, params := firstWith(m, p, items); it != nil {
			s.Reads = append(s.Reads, read(p, params, "the parameters of item "+it.Name))
		}
	}
	// The page lists reads by pattern, in the model's order.
	order := map[string]int{}
	for i, p := range m.Patterns {
		order[p.Name] = i
	}
	sort.SliceStable(s.Reads, func(i, j int) bool { return order[s.Reads[i].Pattern] < order[s.Reads[j].Pattern] })
	return s, nil
}

// firstWith finds the first item a read of p can take its parameters
// from: one of p's entities, holding every attribute p's where names and
// the constants its filter fixes.
func firstWith(m *model.Model, p *model.Pattern, items []*model.ExampleItem) (*model.ExampleItem, map[string]any) {
	where := m.Where(p)
	for _, it := range items {
		if !slices.Contains(p.Entities, it.Entity) {
			continue
		}
		params := map[string]any{}
		ok := true
		for _, a := range where {
			v, has := it.Values[a]
			if !has || v == nil {
				ok = false
				break
			}
			params[a] = v
		}
		for _, c := range p.Filter {
			if text(it.Values[c.Attr]) != c.Value {
				ok = false
			}
		}
		if ok {
			return it, params
		}
	}
	return nil, nil
}

// paramList orders a read's parameters as the pattern's where names
// them, the others after by name.
func paramList(m *model.Model, p *model.Pattern, params map[string]any) []report.Param {
	var out []report.Param
	seen := map[string]bool{}
	for _, a := range m.Where(p) {
		if v, ok := params[a]; ok {
			out = append(out, report.Param{Name: a, Value: text(v)})
			seen[a] = true
		}
	}
	var rest []string
	for a := range params {
		if !seen[a] {
			rest = append(rest, a)
		}
	}
	sort.Strings(rest)
	for _, a := range rest {
		out = append(out, report.Param{Name: a, Value: text(params[a])})
	}
	return out
}

// text renders a value as the model file writes it.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// display renders values the runtime did not write (a refused item).
func display(v map[string]any) map[string]string {
	out := make(map[string]string, len(v))
	for k, x := range v {
		out[k] = text(x)
	}
	return out
}

// storedText renders a stored item's attributes: strings and numbers as
// DynamoDB holds them, others as their JSON.
func storedText(raw map[string]types.AttributeValue) map[string]string {
	out := make(map[string]string, len(raw))
	for k, av := range raw {
		out[k] = avText(av)
	}
	return out
}

func avText(av types.AttributeValue) string {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberBOOL:
		return strconv.FormatBool(x.Value)
	case *types.AttributeValueMemberNULL:
		return "null"
	case *types.AttributeValueMemberSS:
		b, _ := json.Marshal(x.Value)
		return string(b)
	case *types.AttributeValueMemberNS:
		return "[" + strings.Join(x.Value, ",") + "]"
	case *types.AttributeValueMemberL:
		parts := make([]string, len(x.Value))
		for i, v := range x.Value {
			parts[i] = avText(v)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *types.AttributeValueMemberM:
		keys := make([]string, 0, len(x.Value))
		for k := range x.Value {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + avText(x.Value[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *types.AttributeValueMemberB:
		return base64.StdEncoding.EncodeToString(x.Value) // as a model file writes a binary
	}
	return fmt.Sprintf("%T", av)
}

// keyText is an item's base key, "PK SK".
func keyText(d *patterns.Design, item map[string]types.AttributeValue) string {
	return avText(item[d.PK]) + " " + avText(item[d.SK])
}

type storedItem struct {
	entity string
	raw    map[string]types.AttributeValue
}

// scan reads every item of the table (a sample is small) and tells them
// by entity; items that are no entity's (the guards of unique values) are
// only counted.
func scan(ctx context.Context, c *dynamodb.Client, t *dynamo.Table) ([]storedItem, int, error) {
	var out []storedItem
	guards := 0
	in := &dynamodb.ScanInput{TableName: aws.String(t.Name())}
	for {
		page, err := c.Scan(ctx, in)
		if err != nil {
			return nil, 0, err
		}
		for _, raw := range page.Items {
			e, _, err := t.Decode(raw)
			if err != nil {
				guards++
				continue
			}
			out = append(out, storedItem{e, raw})
		}
		if len(page.LastEvaluatedKey) == 0 {
			return out, guards, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// inProcess starts a fresh in-process engine (internal/engine's memory
// engine: in this process, on a loopback port) and returns a client of it
// and how to stop it.
func inProcess() (*dynamodb.Client, func(), error) {
	run, err := engine.Start(engine.Memory, "")
	if err != nil {
		return nil, nil, fmt.Errorf("view: starting the in-process engine: %w", err)
	}
	return engine.Client(run.Endpoint, 0), run.Stop, nil
}

// batchRead runs a batch pattern's read of ids: its items named in the
// ids' order, dynamo.NoItem for an id with none; its parameter is the
// ids.
func batchRead(ctx context.Context, t *dynamo.Table, r *report.SampleRead, ids []map[string]any, name func(map[string]types.AttributeValue) string) *report.SampleRead {
	r.Ordered = true
	params := make([]dynamo.Params, len(ids))
	var shown []string
	for i, id := range ids {
		params[i] = dynamo.Params(id)
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(id)) {
			kv = append(kv, k+"="+text(id[k]))
		}
		shown = append(shown, "{"+strings.Join(kv, ", ")+"}")
	}
	r.Params = []report.Param{{Name: "ids", Value: "[" + strings.Join(shown, ", ") + "]"}}
	items, err := t.GetBatch(ctx, r.Pattern, params)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	for _, it := range items {
		if it == nil {
			r.Items = append(r.Items, dynamo.NoItem)
			continue
		}
		r.Items = append(r.Items, name(it.Raw))
	}
	return r
}
