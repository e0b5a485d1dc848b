package prove

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// Proof by generated data. Prove loads generated items into a table
// through the runtime, applies random sequences of writes (the model's
// write patterns and the runtime's general writes, well formed and not)
// to the table and to the reference evaluator (package oracle, which
// computes every answer from the items' attributes and never from a key),
// and after each step compares every read pattern, with parameters of
// items present and absent, against the reference: the same items, in
// order where the pattern sorts, on the first page and over all pages;
// and the table's whole content against the reference's items.

// ProveOptions configure Prove. The zero value is a small proof.
type ProveOptions struct {
	// Seed makes the run reproducible.
	Seed uint64
	// Items is how many generated items of each entity are created
	// first. Default: 20.
	Items int
	// Steps is how many write steps follow. Default: 60.
	Steps int
	// Reads is how many reads of each pattern are compared after the
	// items are loaded and after each step. Default: 2.
	Reads int
	// Fresh returns a new, empty table of the same design and a function
	// that drops it: Prove replays shorter sequences on fresh tables to
	// shrink a mismatch to the fewest steps that show it. Nil: no
	// shrinking.
	Fresh func(ctx context.Context) (*dynamo.Table, func(), error)
	// ShrinkRuns bounds the replays of shrinking. Default: 200.
	ShrinkRuns int
}

func (o *ProveOptions) defaults() {
	if o.Items == 0 {
		o.Items = 20
	}
	if o.Steps == 0 {
		o.Steps = 60
	}
	if o.Reads == 0 {
		o.Reads = 2
	}
	if o.ShrinkRuns == 0 {
		o.ShrinkRuns = 200
	}
}

// Tables returns a ProveOptions.Fresh over an engine: each call creates
// a new table of the design named prefix-N (admin creates and deletes
// it; the runtime writes through c; a design keeping values in S3 gets
// an object store in memory of its own), and the function it returns
// deletes it.
func Tables(admin dynamo.TableAdmin, c dynamo.Client, d *patterns.Design, prefix string) func(ctx context.Context) (*dynamo.Table, func(), error) {
	n := 0
	var mu sync.Mutex
	return func(ctx context.Context) (*dynamo.Table, func(), error) {
		mu.Lock()
		n++
		name := fmt.Sprintf("%s-%d", prefix, n)
		mu.Unlock()
		drop := func() { // only ever a table this call created
			_, _ = admin.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		}
		created, err := dynamo.CreateScratchTable(ctx, admin, patterns.NewLock(d), name)
		if err != nil {
			if created { // made, but not active in time
				drop()
			}
			return nil, nil, err
		}
		return dynamo.New(d, c, name, proofObjects(d)...), drop, nil
	}
}

// ProveDesign proves a design on an engine, as keyplan validate does: on
// tables of its own (ScratchTable's name, -g-N), created with admin and
// dropped however it ends; the runtime writes through db. o.Fresh is
// Tables' over them. A design with errors is not run (Proof.NotRun): its
// plan promises nothing of what they concern.
func ProveDesign(ctx context.Context, admin dynamo.TableAdmin, db dynamo.Client, d *patterns.Design, o ProveOptions) (*Proof, error) {
	if errs := d.Errors(); len(errs) > 0 {
		return &Proof{Seed: o.Seed, Items: o.Items, NotRun: fmt.Sprintf("the design has %d error(s) (keyplan check)", len(errs))}, nil
	}
	// The reference identifies an item by its id; a deployed base key
	// that holds more (KP109) stores two items of one id, which the
	// reference refuses: nothing generated would agree.
	for _, x := range d.Diagnostics {
		if x.ID == patterns.DeployedBaseRule {
			return &Proof{Seed: o.Seed, Items: o.Items, Waived: fmt.Sprintf("%s's deployed base key identifies its items by more than their id (%s, keyplan check), which the reference evaluator does not model", x.Subject.Name, x.ID)}, nil
		}
	}
	o.Fresh = Tables(admin, db, d, ScratchTable(d.Table, time.Now())+"-g")
	t, drop, err := o.Fresh(ctx)
	if err != nil {
		return nil, err
	}
	defer drop()
	return Prove(ctx, t, o)
}

// Text is the proof for the model file: "ok   generated data," and what
// it did; SKIP and why it did not run; or FAIL, the mismatch and the steps
// that show it, then a line naming what differs and the command that
// replays it.
func (p *Proof) Text(file string) string {
	switch {
	case p.NotRun != "":
		return fmt.Sprintf("SKIP generated data: not run: %s\n", p.NotRun)
	case p.Waived != "":
		return fmt.Sprintf("SKIP generated data: not run (no failure): %s\n", p.Waived)
	case p.OK():
		return fmt.Sprintf("ok   generated data, %s\n", p)
	}
	return fmt.Sprintf("FAIL generated data, %s\n%s: %s differs from the reference on generated data; replay: keyplan validate %s --generate %d --seed %d\n",
		p, file, p.Mismatch.Subject, file, p.Items, p.Seed)
}

// Proof is what Prove did and found.
type Proof struct {
	// Seed and Items are the generator's: its seed, and the items of each
	// entity it was asked for.
	Seed  uint64
	Items int
	// Loads, Steps and Reads count the creates of generated items, the
	// write steps and the reads compared; Done and Refused count the
	// writes (creates and steps) both did, and both refused (stale, taken,
	// invalid); Answered counts the reads whose answer held an item.
	Loads, Steps, Reads, Done, Refused, Answered int
	// Skipped counts reads the runtime refuses by design (a < range on a
	// string that ends its sort key) that the reference answers.
	Skipped int
	// Mismatch is the first difference found, shrunk (nil: none).
	Mismatch *Mismatch
	// NotRun says why nothing was proven (ProveDesign of a design with
	// errors).
	NotRun string
	// Waived says why nothing was proven by design, which is no failure:
	// a deployed base key that identifies items by more than their id
	// (KP109), which the reference does not model.
	Waived string
}

// OK reports whether the proof ran and found no difference.
func (p *Proof) OK() bool { return p.Mismatch == nil && p.NotRun == "" }

func (p *Proof) String() string {
	// The writes' outcomes add up to the creates and steps: done, refused
	// by both, and the one that differs when a write is the mismatch.
	differs := ""
	if p.Mismatch != nil && p.Mismatch.Kind == "write" {
		differs = ", 1 differs"
	}
	s := fmt.Sprintf("seed %d: %d create(s) of generated items, %d write step(s): %d done, %d refused by both%s; %d read(s) compared with the reference (%d with items)",
		p.Seed, p.Loads, p.Steps, p.Done, p.Refused, differs, p.Reads, p.Answered)
	if p.Skipped > 0 {
		s += fmt.Sprintf(", %d not sent (< on a string or binary that ends its sort key: the runtime refuses it by design)", p.Skipped)
	}
	if p.Mismatch != nil {
		s += "\n" + p.Mismatch.String()
	}
	return s
}

// Mismatch is a difference between the table and the reference.
type Mismatch struct {
	// Subject names the read pattern, the write (pattern, or general
	// write and entity), or "table content".
	Subject string
	// Kind is "read", "write" or "content".
	Kind string
	// Read is the read that differs (Kind "read").
	Read *oracle.Read
	// Detail says what differs.
	Detail string
	// sig tells this mismatch from others of the same subject (what the
	// reference and the table each did), so shrinking keeps to it.
	sig string
	// Ops is the shortest sequence of write steps found, from an empty
	// table, after which the difference shows (the last one is the write
	// that differs, for Kind "write"); Original is how many steps the run
	// had taken when it was found.
	Ops      []*oracle.Op
	Original int
}

func (m *Mismatch) String() string {
	var b strings.Builder
	switch m.Kind {
	case "read":
		fmt.Fprintf(&b, "MISMATCH pattern %s: %s: %s\n", m.Subject, m.Read, m.Detail)
	case "write":
		fmt.Fprintf(&b, "MISMATCH write %s: %s\n", m.Subject, m.Detail)
	default:
		fmt.Fprintf(&b, "MISMATCH %s: %s\n", m.Subject, m.Detail)
	}
	fmt.Fprintf(&b, "  after %d step(s) from an empty table (shrunk from %d):", len(m.Ops), m.Original)
	for i, op := range m.Ops {
		fmt.Fprintf(&b, "\n  %3d. %s", i+1, op)
	}
	return b.String()
}

// ProofNow is the clock a proof reads by, on the table (WithClock) and
// the reference alike: far in the future, so that no engine deletes an
// item whose ttl is drawn around it, half of them before it (expired:
// reads hide them) and half after.
var ProofNow = time.Unix(4102444800+50_000_000, 0).UTC()

// withProofClock is the table read by ProofNow (its other options
// kept: its object store).
func withProofClock(t *dynamo.Table) *dynamo.Table {
	return dynamo.New(t.Design(), t.Probe().Client(), t.Name(), append(t.Options(), dynamo.WithClock(func() time.Time { return ProofNow }))...)
}

// newRef is the reference for a proof: empty, its clock ProofNow, each
// sorted collection's owner at the end the design reads it.
func newRef(d *patterns.Design) *oracle.State {
	m := d.Model()
	s := oracle.NewState(m)
	s.SetNow(ProofNow)
	for _, p := range m.Patterns {
		if pp := d.Pattern(p.Name); pp != nil && m.SortedMember(p) != "" {
			s.SetOwnerFirst(p.Name, pp.OwnerFirst(p))
		}
	}
	return s
}

// Prove runs a proof on an empty table of the design (see ProveOptions);
// a design keeping values in S3 needs the table's object store
// (WithObjects), and each value a read returns is read from it before it
// is compared. It returns an error only when the engine fails (not for a
// mismatch).
func Prove(ctx context.Context, t *dynamo.Table, o ProveOptions) (*Proof, error) {
	o.defaults()
	m := t.Design().Model()
	t = withProofClock(t)
	g := oracle.NewGenerator(m, o.Seed)
	g.Size, g.Now = o.Items, ProofNow
	run := &proofRun{t: t, ref: newRef(t.Design()), proof: &Proof{Seed: o.Seed, Items: o.Items}}
	var ops []*oracle.Op
	found := func(mm *Mismatch) (*Proof, error) {
		mm.Original = len(ops)
		run.proof.Mismatch = mm
		if o.Fresh != nil {
			if err := shrink(ctx, m, o, ops, mm); err != nil {
				return run.proof, err
			}
		} else {
			mm.Ops = ops
		}
		return run.proof, nil
	}
	step := func(op *oracle.Op) (*Mismatch, error) {
		ops = append(ops, op)
		mm, err := run.op(ctx, op)
		if mm != nil || err != nil {
			return mm, err
		}
		return run.content(ctx)
	}
	for range o.Items {
		for _, e := range m.Entities {
			run.proof.Loads++
			if mm, err := step(g.Create(run.ref, e.Name)); mm != nil || err != nil {
				if err != nil {
					return run.proof, err
				}
				return found(mm)
			}
		}
	}
	reads := func() (*Mismatch, error) {
		for _, p := range m.Patterns {
			for range o.Reads {
				if mm, err := run.read(ctx, g.Read(run.ref, p)); mm != nil || err != nil {
					return mm, err
				}
			}
		}
		return nil, nil
	}
	if mm, err := reads(); mm != nil || err != nil {
		if err != nil {
			return run.proof, err
		}
		return found(mm)
	}
	for range o.Steps {
		run.proof.Steps++
		mm, err := step(g.Op(run.ref))
		if mm == nil && err == nil {
			mm, err = reads()
		}
		if err != nil {
			return run.proof, err
		}
		if mm != nil {
			return found(mm)
		}
	}
	return run.proof, nil
}

// proofRun is one table and the reference beside it.
type proofRun struct {
	t     *dynamo.Table
	ref   *oracle.State
	proof *Proof
}

// op applies a write step to both; a mismatch when one refuses what the
// other does, or they refuse it differently (a failed condition against
// input that is not well formed).
func (r *proofRun) op(ctx context.Context, op *oracle.Op) (*Mismatch, error) {
	want := r.ref.Apply(op)
	got := runOp(r.t, ctx, op)
	if isEngineFailure(got) {
		return nil, got
	}
	if outcome(want) == outcome(got) {
		if want != nil {
			r.proof.Refused++
		} else {
			r.proof.Done++
		}
		return nil, nil
	}
	return &Mismatch{Subject: op.Subject(), Kind: "write", sig: outcome(want) + "/" + outcome(got),
		Detail: fmt.Sprintf("%s: the reference: %s; the table: %s", op, describeOutcome(want), describeOutcome(got))}, nil
}

// isEngineFailure reports an error of the engine itself (not an answer
// to the request): the proof stops there.
func isEngineFailure(err error) bool {
	return err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// outcome classes a write's result: done, refused by a condition, or
// refused as not well formed.
func outcome(err error) string {
	switch {
	case err == nil:
		return "done"
	case errors.Is(err, oracle.ErrCondition), errors.Is(err, dynamo.ErrCondition):
		return "condition"
	}
	return "invalid"
}

func describeOutcome(err error) string {
	switch outcome(err) {
	case "done":
		return "done"
	case "condition":
		return "refused by a condition (" + err.Error() + ")"
	}
	return "refused (" + err.Error() + ")"
}

// runOp runs a write step through the runtime.
func runOp(t *dynamo.Table, ctx context.Context, op *oracle.Op) error {
	switch op.Kind {
	case oracle.OpWrite:
		return t.Write(ctx, op.Write, dynamo.Params(maps.Clone(op.Params)))
	case oracle.OpBatch:
		items := make([]dynamo.Values, len(op.Items))
		for i, it := range op.Items {
			items[i] = dynamo.Values(maps.Clone(it))
		}
		return t.WriteBatch(ctx, op.Write, items)
	case oracle.OpCreate:
		return t.Create(ctx, op.Entity, dynamo.Values(maps.Clone(op.Params)))
	case oracle.OpDelete:
		v, err := asRead(ctx, t, op.Entity, dynamo.Values(maps.Clone(op.Params)))
		if err != nil {
			return err
		}
		return t.Delete(ctx, op.Entity, v)
	case oracle.OpReplace:
		old, err := asRead(ctx, t, op.Entity, dynamo.Values(maps.Clone(op.Old)))
		if err != nil {
			return err
		}
		return t.Replace(ctx, op.Entity, old, dynamo.Values(maps.Clone(op.Params)))
	}
	return fmt.Errorf("unknown op %q", op.Kind)
}

// read compares one read on the table with the reference's answer: the
// first page, every page, and the requests the plan promises.
// readMismatch makes a read's mismatches, signed by who refused it: the
// reference (want), the table (err), or neither (the answers differ).
func readMismatch(rd *oracle.Read, want, err error) func(format string, args ...any) *Mismatch {
	sig := "answers"
	switch {
	case want != nil:
		sig = "reference refuses"
	case err != nil:
		sig = "table refuses"
	}
	return func(format string, args ...any) *Mismatch {
		return &Mismatch{Subject: rd.Pattern, Kind: "read", Read: rd, sig: sig, Detail: fmt.Sprintf(format, args...)}
	}
}

func (r *proofRun) read(ctx context.Context, rd *oracle.Read) (*Mismatch, error) {
	m := r.t.Design().Model()
	p := m.Pattern(rd.Pattern)
	if p.Batch {
		return r.batch(ctx, rd)
	}
	ans, want := r.ref.Read(p, rd.Params, rd.Range)
	req := dynamo.Request{Params: dynamo.Params(maps.Clone(rd.Params))}
	if rd.Range != nil {
		req.Range = &dynamo.Range{Op: dynamo.Comparator(rd.Range.Op), Value: rd.Range.Value, Upper: rd.Range.Upper}
	}
	c := &counter{Client: r.t.Probe().Client()}
	t := dynamo.New(r.t.Design(), c, r.t.Name(), r.t.Options()...)
	if pp := r.t.Design().Pattern(rd.Pattern); pp.Count || pp.Sum != "" {
		return r.number(ctx, t, rd, ans, want, req)
	}
	page, err := t.Read(ctx, rd.Pattern, req)
	if isEngineFailure(err) {
		return nil, err
	}
	mismatch := readMismatch(rd, want, err)
	switch {
	case want != nil && err != nil:
		r.proof.Reads++
		return nil, nil // both refuse it
	case want != nil:
		return mismatch("the reference refuses it (%v); the table answered %d item(s)", want, len(page.Items)), nil
	case err != nil && unsupportedRange(m, p, rd, err):
		r.proof.Skipped++
		return nil, nil
	case err != nil:
		return mismatch("the table refused it: %v (the reference answers %d item(s))", err, len(ans.Items)), nil
	}
	r.proof.Reads++
	if len(ans.Items) > 0 {
		r.proof.Answered++
	}
	if planned := r.t.Design().Pattern(rd.Pattern).Requests; page.Requests != planned && !(page.Requests == 0 && len(page.Items) == 0) {
		return mismatch("the first page took %d request(s); the plan says %d", page.Requests, planned), nil
	}
	if c.n != page.Requests {
		return mismatch("the first page made %d request(s), reported %d", c.n, page.Requests), nil
	}
	first, err := loadObjects(ctx, t, page.Items)
	if err != nil {
		return mismatch("first page: %v", err), nil
	}
	if err := ans.Check(m, fromRuntime(m, first), true); err != nil {
		return mismatch("first page: %v", err), nil
	}
	if r.t.Design().Pattern(rd.Pattern).Operation != patterns.Query {
		return nil, nil
	}
	var all []dynamo.Item
	for it, err := range r.t.All(ctx, rd.Pattern, dynamo.Request{Params: dynamo.Params(maps.Clone(rd.Params)), Range: req.Range}) {
		if err != nil {
			if isEngineFailure(err) {
				return nil, err
			}
			return mismatch("every page: the table refused it: %v", err), nil
		}
		all = append(all, it)
	}
	all, err = loadObjects(ctx, t, all)
	if err != nil {
		return mismatch("every page: %v", err), nil
	}
	if err := ans.Check(m, fromRuntime(m, all), false); err != nil {
		return mismatch("every page: %v", err), nil
	}
	return nil, nil
}

// number compares a read that returns a number (a count, a sharded
// counter's sum) with the reference's.
func (r *proofRun) number(ctx context.Context, t *dynamo.Table, rd *oracle.Read, ans *oracle.Answer, want error, req dynamo.Request) (*Mismatch, error) {
	var got int64
	var err error
	if r.t.Design().Pattern(rd.Pattern).Count {
		got, err = t.Count(ctx, rd.Pattern, req)
	} else {
		got, err = t.Sum(ctx, rd.Pattern, req.Params)
	}
	if isEngineFailure(err) {
		return nil, err
	}
	mismatch := readMismatch(rd, want, err)
	switch {
	case want != nil && err != nil:
		r.proof.Reads++
		return nil, nil
	case want != nil:
		return mismatch("the reference refuses it (%v); the table answered %d", want, got), nil
	case err != nil:
		return mismatch("the table refused it: %v (the reference answers %s)", err, *ans.Number), nil
	}
	r.proof.Reads++
	if *ans.Number != "0" {
		r.proof.Answered++
	}
	if err := ans.CheckNumber(got); err != nil {
		return mismatch("%v", err), nil
	}
	return nil, nil
}

// unsupportedRange: a < range on a string or binary sort attribute that
// ends its key (a type without Discrete values) has no single key condition, and a sorted collection is read whole
// (a range would cut its owner off): the runtime says so (ErrBadRange)
// rather than answer wrong.
func unsupportedRange(m *model.Model, p *model.Pattern, rd *oracle.Read, err error) bool {
	if rd.Range != nil && errors.Is(err, dynamo.ErrBadRange) && m.SortedMember(p) != "" {
		return true // a sorted collection is read whole
	}
	if rd.Range == nil || rd.Range.Op != oracle.Lt || !errors.Is(err, dynamo.ErrBadRange) {
		return false
	}
	s := model.Scalar(m.Entity(p.Entities[0]).Attr(p.Sort[0]).Type)
	return s != nil && !s.Discrete && s.Type != model.TypeBool
}

func fromRuntime(m *model.Model, items []dynamo.Item) []*oracle.Item {
	out := make([]*oracle.Item, len(items))
	for i, it := range items {
		out[i] = oracle.FromRuntime(m, it.Entity, it.Values)
	}
	return out
}

// scanner is the part of a client that reads a whole table.
type scanner interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// content compares everything the table holds (every item but the guards
// of unique values, decoded) with the reference's items. A client that
// cannot Scan skips it.
func (r *proofRun) content(ctx context.Context) (*Mismatch, error) {
	sc, ok := r.t.Probe().Client().(scanner)
	if !ok {
		return nil, nil
	}
	m := r.t.Design().Model()
	var got []*oracle.Item
	shards := map[string]int64{} // a counter's partition key to its sum
	in := &dynamodb.ScanInput{TableName: aws.String(r.t.Name()), ConsistentRead: aws.Bool(true)}
	for {
		out, err := sc.Scan(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", r.t.Name(), err)
		}
		for _, raw := range out.Items {
			pk, _ := raw[r.t.Design().PK].(*types.AttributeValueMemberS)
			if pk != nil && strings.HasPrefix(pk.Value, patterns.GuardTag) {
				continue
			}
			if pk != nil && strings.HasPrefix(pk.Value, patterns.CounterTag) {
				// A sharded counter's shard: summed by partition.
				for k, av := range raw {
					if n, ok := av.(*types.AttributeValueMemberN); ok && k != r.t.Design().PK && k != r.t.Design().SK {
						x, err := strconv.ParseInt(n.Value, 10, 64)
						if err != nil {
							return &Mismatch{Subject: "table content", Kind: "content", Detail: fmt.Sprintf("a counter's shard holds %s", n.Value)}, nil
						}
						shards[pk.Value] += x
					}
				}
				continue
			}
			name, v, err := r.t.Decode(raw)
			if err != nil {
				return &Mismatch{Subject: "table content", Kind: "content", Detail: fmt.Sprintf("an item the table holds is of no entity: %v", err)}, nil
			}
			if v, err = withObjects(ctx, r.t, name, v); err != nil {
				return &Mismatch{Subject: "table content", Kind: "content", Detail: err.Error()}, nil
			}
			got = append(got, oracle.FromRuntime(m, name, v))
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	want := r.ref.Items()
	ans := &oracle.Answer{Items: want}
	if err := ans.Check(m, got, false); err != nil {
		return &Mismatch{Subject: "table content", Kind: "content", Detail: err.Error()}, nil
	}
	// Every counter the reference holds, and no other, in its shards.
	wantShards := map[string]string{}
	for _, c := range r.ref.Counters() {
		e := m.Entity(c.Entity)
		pk, err := r.t.Probe().CounterKey(e.Name, c.Attr, (&oracle.Item{Entity: e.Name, Values: c.ID}).Plain())
		if err != nil {
			return nil, err
		}
		wantShards[pk] = string(c.N)
	}
	for pk, n := range shards {
		if n != 0 && wantShards[pk] != strconv.FormatInt(n, 10) {
			return &Mismatch{Subject: "table content", Kind: "content", Detail: fmt.Sprintf("the counter's shards %s sum to %d; the reference: %s", pk, n, cmp.Or(wantShards[pk], "0"))}, nil
		}
	}
	for pk, n := range wantShards {
		if _, ok := shards[pk]; !ok {
			return &Mismatch{Subject: "table content", Kind: "content", Detail: fmt.Sprintf("the counter %s is %s on the reference; the table holds no shard of it", pk, n)}, nil
		}
	}
	// And each as the patterns that read it say.
	for _, c := range r.ref.Counters() {
		for _, p := range m.Patterns {
			if p.Entities[0] != c.Entity || m.CounterRead(p) != c.Attr {
				continue
			}
			params := dynamo.Params{}
			for _, w := range m.Where(p) {
				params[w] = oracle.Plain(c.ID[w])
			}
			got, err := r.t.Sum(ctx, p.Name, params)
			if isEngineFailure(err) {
				return nil, err
			}
			if err != nil || strconv.FormatInt(got, 10) != string(c.N) {
				return &Mismatch{Subject: "table content", Kind: "content", Detail: fmt.Sprintf("%s(%s) reads %d (%v); the counter is %s", p.Name, paramText(params), got, err, c.N)}, nil
			}
		}
	}
	return nil, nil
}

// shrink replays ever shorter subsequences of ops on fresh tables and
// keeps the shortest after which the mismatch's subject still differs.
func shrink(ctx context.Context, m *model.Model, o ProveOptions, ops []*oracle.Op, mm *Mismatch) error {
	// A write that differs stays last; the steps before it may go.
	pinned := []*oracle.Op(nil)
	rest := slices.Clone(ops)
	if mm.Kind == "write" {
		pinned, rest = rest[len(rest)-1:], rest[:len(rest)-1]
	}
	runs := 0
	var last *Mismatch
	fails := func(cand []*oracle.Op) (bool, error) {
		runs++
		got, err := replay(ctx, o, append(slices.Clone(cand), pinned...), mm)
		if err != nil {
			return false, err
		}
		if got != nil && got.sig != mm.sig {
			got = nil // another difference: not the one shrunk
		}
		if got != nil {
			last = got
		}
		return got != nil, nil
	}
	// The run as it was must show it again from a fresh table.
	ok, err := fails(rest)
	if err != nil {
		return err
	}
	if !ok {
		mm.Ops = ops
		mm.Detail += " (it did not show again on a fresh table: the sequence is not shrunk)"
		return nil
	}
	n := 2
	for len(rest) > 0 && runs < o.ShrinkRuns {
		chunk := (len(rest) + n - 1) / n
		removed := false
		for start := 0; start < len(rest) && runs < o.ShrinkRuns; start += chunk {
			cand := append(slices.Clone(rest[:start]), rest[min(start+chunk, len(rest)):]...)
			ok, err := fails(cand)
			if err != nil {
				return err
			}
			if ok {
				rest, removed = cand, true
				n = max(n-1, 2)
				break
			}
		}
		if !removed {
			if chunk == 1 {
				break
			}
			n = min(2*n, len(rest))
		}
	}
	// Then a batch's items, one at a time.
	for i := 0; i < len(rest) && runs < o.ShrinkRuns; i++ {
		for j := 0; rest[i].Kind == oracle.OpBatch && len(rest[i].Items) > 1 && j < len(rest[i].Items) && runs < o.ShrinkRuns; {
			op := *rest[i]
			op.Items = append(slices.Clone(op.Items[:j]), op.Items[j+1:]...)
			cand := slices.Clone(rest)
			cand[i] = &op
			ok, err := fails(cand)
			if err != nil {
				return err
			}
			if ok {
				rest = cand
				continue
			}
			j++
		}
	}
	// Say what the shortest sequence shows.
	if _, err := fails(rest); err != nil {
		return err
	}
	mm.Ops = append(rest, pinned...)
	if last != nil {
		mm.Detail = last.Detail
		if last.Read != nil {
			mm.Read = last.Read
		}
	}
	return nil
}

// replay runs ops on a fresh table and the reference and returns the
// mismatch of mm's subject they show (nil: none).
func replay(ctx context.Context, o ProveOptions, ops []*oracle.Op, mm *Mismatch) (*Mismatch, error) {
	t, drop, err := o.Fresh(ctx)
	if err != nil {
		return nil, err
	}
	defer drop()
	run := &proofRun{t: withProofClock(t), ref: newRef(t.Design()), proof: &Proof{}}
	for i, op := range ops {
		got, err := run.op(ctx, op)
		if err != nil {
			return nil, err
		}
		if i == len(ops)-1 && mm.Kind == "write" {
			return got, nil
		}
		if got != nil {
			// Another step differs first: the two no longer hold the same
			// items, so this is not the mismatch shrunk.
			return nil, nil
		}
	}
	switch mm.Kind {
	case "read":
		return run.read(ctx, mm.Read)
	case "content":
		return run.content(ctx)
	}
	return nil, nil
}
