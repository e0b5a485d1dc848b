package prove

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// Result is one expectation's outcome.
type Result struct {
	Pattern string
	Params  dynamo.Params
	// IDs are a batch read's ids; Expected and Actual then name one item
	// per id, in order, NoItem where an id has none.
	IDs []dynamo.Params
	// Expected and Actual name example items (an item that is not one of
	// the examples is named by its entity and key).
	Expected, Actual []string
	// Ordered is true when order matters (the pattern has a sort).
	Ordered bool
	// Requests counts the requests the read made (GetItem/Query only: the
	// runtime has no Scan); Planned is what the plan says it takes.
	Requests, Planned int
	// Capacity is the consumed read capacity.
	Capacity float64
	// Hidden counts the expired items the read read and hid: each page
	// they took room in is read on (more requests than planned).
	Hidden int
	// Count is the number expected of a pattern that returns one (a
	// count, a counter's sum); Got is what it returned.
	Count, Got *int64
	// Mismatches say which expected values the items read do not hold.
	Mismatches []string
	Err        error
	Pos        model.Pos
	// NotRun says why the read was not run: the design has errors about
	// its pattern ("" when it ran).
	NotRun string
}

// OK reports whether the read returned exactly what was expected, in the
// planned number of requests.
func (r *Result) OK() bool {
	if r.NotRun != "" || r.Err != nil || !r.requestsOK() || len(r.Mismatches) > 0 {
		return false
	}
	if r.Count != nil {
		return r.Got != nil && *r.Got == *r.Count
	}
	if r.Ordered {
		return slices.Equal(r.Expected, r.Actual)
	}
	return slices.Equal(sorted(r.Expected), sorted(r.Actual))
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// StepResult is one example write's outcome.
type StepResult struct {
	Write  string
	Params dynamo.Params
	// Fails is the condition expected to fail as the step names it ("":
	// none); FailsOn is what it names (patterns.Model.FailsOf, the stable
	// vocabulary: docs/writes.md). Err is what the write returned.
	Fails   string
	FailsOn model.FailsSpec
	Err     error
	Pos     model.Pos
	// NotRun says why the write was not run: the design has errors about
	// its write pattern ("" when it ran).
	NotRun string
}

// failsOn is what the step's fails: names: FailsOn, or Fails read as a
// string (a StepResult made by hand).
func (r *StepResult) failsOn() model.FailsSpec {
	if r.FailsOn.Kind == "" && r.Fails != "" {
		return model.ParseFails(r.Fails)
	}
	return r.FailsOn
}

// OK reports whether the write ended as expected: done, or refused by
// the condition named.
func (r *StepResult) OK() bool {
	ok, _ := r.matches()
	return ok
}

// matches reports whether the write ended as expected, and whether fails:
// named the condition by an earlier keyplan's wording of it.
func (r *StepResult) matches() (ok, earlier bool) {
	if r.NotRun != "" {
		return false, false
	}
	f := r.failsOn()
	if f.Kind == "" {
		return r.Err == nil, false
	}
	var ce *dynamo.ConditionError
	if !errors.As(r.Err, &ce) {
		return false, false
	}
	for _, c := range ce.Clauses {
		if ok, earlier := c.Matches(f, ce.Condition); ok {
			return true, earlier
		}
	}
	return len(ce.Clauses) == 0 && f.Text != "" && strings.HasPrefix(ce.Condition, f.Text), false
}

// String renders a step's outcome as one line.
func (r *StepResult) String() string {
	head := fmt.Sprintf("write %s(%s)", r.Write, paramText(r.Params))
	ok, earlier := r.matches()
	switch {
	case r.NotRun != "":
		return "SKIP " + head + ": not run: " + r.NotRun
	case ok && r.failsOn().Kind == "":
		return "ok   " + head
	case ok && earlier:
		return fmt.Sprintf("ok   %s: refused as expected (%v); fails: %q is an earlier keyplan's wording: %s names the condition in words that stay", head, r.Err, r.Fails, stableNames(r.Err))
	case ok:
		return fmt.Sprintf("ok   %s: refused as expected (%v)", head, r.Err)
	case r.failsOn().Kind == "":
		return fmt.Sprintf("FAIL %s: %v", head, r.Err)
	case r.Err == nil:
		return fmt.Sprintf("FAIL %s: succeeded; expected the condition %q to fail", head, r.Fails)
	}
	msg := fmt.Sprintf("FAIL %s: expected the condition %q to fail, got: %v", head, r.Fails, r.Err)
	if names := stableNames(r.Err); names != "" {
		msg += "; fails: " + names + " names what failed"
	}
	return msg
}

// stableNames says how fails: names the condition a refused write
// failed on ("version (or rev)"; "" when err is no ConditionError).
func stableNames(err error) string {
	var ce *dynamo.ConditionError
	if !errors.As(err, &ce) {
		return ""
	}
	var alts []string
	for _, c := range ce.Clauses {
		names := c.Stable()
		s := quoteFails(names[0])
		if len(names) > 1 && names[1] != "" {
			s += " (or " + quoteFails(names[1]) + ")"
		}
		alts = append(alts, s)
	}
	return strings.Join(alts, " or ")
}

// quoteFails writes a fails: value as YAML takes it: a string with a
// colon quoted.
func quoteFails(s string) string {
	if strings.Contains(s, ": ") && !strings.HasPrefix(s, "{") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// Report is what Validate found.
type Report struct {
	// Loaded counts the example items written.
	Loaded int
	// LoadErrors name the example items the design could not hold.
	LoadErrors []error
	// Steps are the example writes' outcomes, in order.
	Steps   []*StepResult
	Results []*Result
	// Proof is the proof by generated data (ValidateOptions.Generate;
	// nil: none).
	Proof *Proof
	// Notes say how the proof was made where it differs from the model
	// (ValidateOptions.IndexKeys), each a "note: " line of WriteText.
	Notes []string
	// Unchecked are the example items an existing table's reads returned
	// that were compared by key only, and why (ValidateExisting).
	Unchecked []string
}

// OK reports whether every item loaded, every step ended as expected and
// every expectation held.
func (r *Report) OK() bool {
	if len(r.LoadErrors) > 0 || r.Proof != nil && !r.Proof.OK() {
		return false
	}
	for _, x := range r.Steps {
		if !x.OK() {
			return false
		}
	}
	for _, x := range r.Results {
		if !x.OK() {
			return false
		}
	}
	return true
}

// Summary is the report's last line, for the model file: the items
// loaded (and refused), the writes and expectations, how many failed (by
// kind, when not only expectations) and how many were not run, and where
// (the engine's address). Its counts add up: loaded and refused are the
// example items, and failed is the sum of its kinds.
func (r *Report) Summary(file, where string) string {
	var failedSteps, failedResults int
	for _, x := range r.Steps {
		if !x.OK() && x.NotRun == "" {
			failedSteps++
		}
	}
	for _, x := range r.Results {
		if !x.OK() && x.NotRun == "" {
			failedResults++
		}
	}
	failed := len(r.LoadErrors) + failedSteps + failedResults
	steps, notRun, loaded := "", "", ""
	if len(r.Steps) > 0 {
		steps = fmt.Sprintf("%d write(s), ", len(r.Steps))
	}
	if n := len(r.LoadErrors); n > 0 {
		loaded = fmt.Sprintf(", %d refused", n)
	}
	// What failed adds up, by kind, when it is not only expectations.
	if failed > failedResults {
		var parts []string
		for _, p := range []struct {
			n    int
			what string
		}{{len(r.LoadErrors), "item(s)"}, {failedSteps, "write(s)"}, {failedResults, "expectation(s)"}} {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
			}
		}
		notRun = " (" + strings.Join(parts, ", ") + ")"
	}
	if n := r.NotRun(); n > 0 {
		notRun = fmt.Sprintf(", %d not run (their patterns have errors)", n)
	}
	switch p := r.Proof; {
	case p == nil:
	case p.NotRun != "":
		notRun += "; generated data: not run (fails)" // Report.OK: nothing proven where a proof was asked
	case p.Waived != "":
		notRun += "; generated data: not run (waived, no failure)"
	case p.OK():
		notRun += fmt.Sprintf("; generated data (seed %d): ok", p.Seed)
	default:
		notRun += fmt.Sprintf("; generated data (seed %d): differs", p.Seed)
	}
	return fmt.Sprintf("%s: %d item(s) loaded%s, %s%d expectation(s), %d failed%s (%s)", file, r.Loaded, loaded, steps, len(r.Results), failed, notRun, where)
}

// NotRun counts the example writes and expectations not run (their
// patterns have errors).
func (r *Report) NotRun() int {
	n := 0
	for _, x := range r.Steps {
		if x.NotRun != "" {
			n++
		}
	}
	for _, x := range r.Results {
		if x.NotRun != "" {
			n++
		}
	}
	return n
}

// WriteText writes the report a line per outcome: the items that did not
// load, each example write, each expectation; a failure or an outcome not
// run starts with its place in the model file (file:line:col). It returns
// the failures (those not run apart: NotRun).
func (r *Report) WriteText(w io.Writer, file string) (failed int, err error) {
	var lines []string
	for _, n := range r.Notes {
		lines = append(lines, "note: "+n)
	}
	for _, e := range r.LoadErrors {
		lines = append(lines, fmt.Sprintf("FAIL %v", e))
		failed++
	}
	add := func(line string, ok, ran bool, at model.Pos) {
		if !ok && ran {
			failed++
		}
		if !ok {
			line = at.In(file) + ": " + line
		}
		lines = append(lines, line)
	}
	for _, s := range r.Steps {
		add(s.String(), s.OK(), s.NotRun == "", s.Pos)
	}
	for _, x := range r.Results {
		add(x.String(), x.OK(), x.NotRun == "", x.Pos)
	}
	for _, u := range r.Unchecked {
		lines = append(lines, "note: "+u)
	}
	if p := r.Proof; p != nil {
		if !p.OK() && p.NotRun == "" {
			failed++
		}
		lines = append(lines, strings.TrimSuffix(p.Text(file), "\n"))
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return failed, err
		}
	}
	return failed, nil
}

// counter counts the requests a client makes.
type counter struct {
	dynamo.Client
	n int
}

func (c *counter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n++
	return c.Client.GetItem(ctx, in, opts...)
}

func (c *counter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.n++
	return c.Client.Query(ctx, in, opts...)
}

// BatchGetItem counts a batch read's requests, when the client reads
// batches (a counter is a BatchReader whatever its client: GetBatch then
// names the client that is not).
func (c *counter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	br, ok := c.Client.(dynamo.BatchReader)
	if !ok {
		return nil, fmt.Errorf("%w (%T)", dynamo.ErrNoBatchReader, c.Client)
	}
	c.n++
	return br.BatchGetItem(ctx, in, opts...)
}

// Validate writes the model's example items into the (empty) table with
// Create, then runs every expected read and compares what comes back with
// what the examples say: in order when the pattern sorts, as a set
// otherwise.
func Validate(ctx context.Context, t *dynamo.Table) *Report { return validate(ctx, t, true, nil) }

// ValidateExisting runs the expected reads against a table that already
// holds the example items (and maybe much more): nothing is written.
// Items are named by the example whose keys they have, and each example
// item a read returns is compared with the table's item attribute by
// attribute (itemDifferences): a difference is a mismatch.
func ValidateExisting(ctx context.Context, t *dynamo.Table) *Report {
	return validate(ctx, t, false, nil)
}

// validate is Validate (load) or ValidateExisting; cleanup is the lock's
// record of what a finished migration left in the items (nil: none).
func validate(ctx context.Context, t *dynamo.Table, load bool, cleanup *patterns.Cleanup) *Report {
	rep := &Report{}
	ex := t.Design().Model().Examples
	if ex == nil {
		return rep
	}
	c := &counter{Client: t.Probe().Client()}
	opts := t.Options()
	if ex.Now != "" { // the examples' clock: TTLs before it have passed
		if now, err := time.Parse(time.RFC3339, ex.Now); err == nil {
			opts = append(opts, dynamo.WithClock(func() time.Time { return now }))
		}
	}
	run := dynamo.New(t.Design(), c, t.Name(), opts...)
	if l, _ := t.Probe().Rollout(); l != nil {
		run = dynamo.NewRollout(l, c, t.Name(), opts...) // a table in the middle of a migration
	}
	names := map[string]string{} // entity + base key -> example item name
	examples := map[string]*model.ExampleItem{}
	differs := map[string][]string{} // example item name -> its differences from the table's (existing)
	for _, it := range ex.Items {
		examples[it.Name] = it
		if load {
			if err := run.Create(ctx, it.Entity, dynamo.Values(it.Values)); err != nil {
				rep.LoadErrors = append(rep.LoadErrors, fmt.Errorf("%s: example item %s: %w", it.Pos.In(t.Design().Model().Source), it.Name, err))
				continue
			}
			rep.Loaded++
		}
		key, _ := t.Key(it.Entity, dynamo.Values(it.Values))
		names[it.Entity+"\x00"+dynamo.KeyText(t.Design(), key)] = it.Name
	}
	written := map[string]bool{} // example items the example writes change (existing: not run)
	for _, st := range ex.Steps {
		if !load {
			if t.Design().Model().FailsOf(st).Kind == "" {
				markWritten(t, st, names, written)
			}
			continue // a table that holds data is only read
		}
		r := &StepResult{Write: st.Write, Params: dynamo.Params(st.Params), Fails: failsText(st), FailsOn: t.Design().Model().FailsOf(st), Pos: st.Pos,
			NotRun: erring(t.Design(), patterns.Subject{Kind: patterns.SubjectWrite, Name: st.Write})}
		if r.NotRun != "" {
			rep.Steps = append(rep.Steps, r)
			continue
		}
		r.Err = run.Write(ctx, st.Write, dynamo.Params(st.Params))
		if r.Err == nil && st.Item != "" {
			w := t.Design().Model().Write(st.Write).Named()
			key, _ := t.Key(w.Entity, dynamo.Values(st.Params))
			names[w.Entity+"\x00"+dynamo.KeyText(t.Design(), key)] = st.Item
		}
		rep.Steps = append(rep.Steps, r)
	}
	for _, x := range ex.Expect {
		p := t.Design().Model().Pattern(x.Pattern)
		r := &Result{Pattern: x.Pattern, Params: dynamo.Params(x.Params), Expected: x.Items, Ordered: len(p.Sort) > 0,
			Planned: t.Design().Pattern(x.Pattern).Requests, Pos: x.Pos,
			NotRun: erring(t.Design(), patterns.Subject{Kind: patterns.SubjectPattern, Name: x.Pattern})}
		if r.NotRun != "" {
			rep.Results = append(rep.Results, r)
			continue
		}
		c.n = 0
		if p.Batch {
			expectBatch(run, ctx, c, x, r, names)
			rep.Results = append(rep.Results, r)
			continue
		}
		if x.Count != nil {
			r.Count = x.Count
			r.Got, r.Capacity, r.Hidden, r.Err = run.Probe().Number(ctx, x.Pattern, &dynamo.Request{Params: dynamo.Params(x.Params), ConsumedCapacity: true})
			r.Requests = c.n
			rep.Results = append(rep.Results, r)
			continue
		}
		page, err := run.Probe().Read(ctx, x.Pattern, &dynamo.Request{Params: dynamo.Params(x.Params), ConsumedCapacity: true})
		r.Requests = c.n
		if err != nil {
			r.Err = err
		} else {
			r.Capacity, r.Hidden = page.Capacity, page.Hidden
			r.Actual = []string{}
			read := map[string]dynamo.Item{}
			for _, it := range page.Items {
				key, _ := t.Key(it.Entity, it.Values)
				name, ok := names[it.Entity+"\x00"+dynamo.KeyText(t.Design(), key)]
				if !ok {
					name = fmt.Sprintf("%s(%s)", it.Entity, dynamo.KeyText(t.Design(), key))
				}
				r.Actual = append(r.Actual, name)
				read[name] = it
			}
			r.Mismatches = append(readObjects(ctx, run, read), mismatches(t, x.Values, read)...)
			for _, name := range r.Actual {
				if e := examples[name]; e != nil && !load {
					if _, done := differs[name]; !done && written[name] {
						differs[name] = nil
						rep.Unchecked = append(rep.Unchecked, fmt.Sprintf("%s is compared by key only: example writes change it (not run with --existing), so the table may hold it before them or after", name))
					}
					if _, done := differs[name]; !done {
						differs[name] = itemDifferences(t, ctx, e, cleanup)
					}
					r.Mismatches = append(r.Mismatches, differs[name]...)
				}
			}
		}
		rep.Results = append(rep.Results, r)
	}
	return rep
}

// erring says which errors of the design's checks concern a subject ("":
// none): a pattern or a write with one is not run (a read the engine
// serves is no proof of a plan DynamoDB would refuse), the others are.
func erring(d *patterns.Design, s patterns.Subject) string {
	var ids []string
	for _, x := range d.Errors() {
		if x.Subject == s && !slices.Contains(ids, x.ID) {
			ids = append(ids, x.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("%s has error(s) %s (keyplan check)", s, strings.Join(ids, ", "))
}

// String renders a result as one line.
func (r *Result) String() string {
	order := "as a set"
	if r.Ordered {
		order = "in order"
	}
	head := fmt.Sprintf("%s(%s)", r.Pattern, paramText(r.Params))
	if r.IDs != nil {
		order = "in the ids' order"
		ids := make([]string, len(r.IDs))
		for i, id := range r.IDs {
			ids[i] = "{" + paramText(id) + "}"
		}
		head = r.Pattern + "[" + strings.Join(ids, ", ") + "]"
	}
	switch {
	case r.NotRun != "":
		return "SKIP " + head + ": not run: " + r.NotRun
	case r.Err != nil:
		return fmt.Sprintf("FAIL %s: %v", head, r.Err)
	case !r.requestsOK():
		return fmt.Sprintf("FAIL %s: took %d requests, the plan says %d", head, r.Requests, r.Planned)
	case len(r.Mismatches) > 0:
		return fmt.Sprintf("FAIL %s: %s", head, strings.Join(r.Mismatches, "; "))
	case r.Count != nil && !r.OK():
		return fmt.Sprintf("FAIL %s: expected %d, got %s", head, *r.Count, numberText(r.Got))
	case !r.OK():
		return fmt.Sprintf("FAIL %s: expected %s %s, got %s", head, list(r.Expected), order, list(r.Actual))
	}
	hidden := ""
	if r.Hidden > 0 {
		hidden = fmt.Sprintf(", %d expired item(s) read and hidden", r.Hidden)
	}
	if r.Count != nil {
		return fmt.Sprintf("ok   %s: %d, %d request(s), %.1f RCU%s", head, *r.Got, r.Requests, r.Capacity, hidden)
	}
	return fmt.Sprintf("ok   %s: %s %s, %d request(s), %.1f RCU%s", head, list(r.Actual), order, r.Requests, r.Capacity, hidden)
}

// paramText renders parameters as name=value, by name.
func paramText(p dynamo.Params) string {
	params := make([]string, 0, len(p))
	for _, k := range sortedNames(p) {
		params = append(params, fmt.Sprintf("%s=%v", k, p[k]))
	}
	return strings.Join(params, ", ")
}

// sortedNames are a map's keys, in order.
func sortedNames[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func list(s []string) string { return "[" + strings.Join(s, " ") + "]" }

// failsText is a step's fails: as written.
func failsText(st *model.Step) string {
	if st.FailsCondition != nil {
		return st.FailsCondition.Clause()
	}
	return st.Fails
}
