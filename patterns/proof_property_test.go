package patterns_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/prove"
)

// The planner's promise that every read is served, held to what the reads
// return: random models (the property test's, with write patterns) are
// planned, and the designed layout and the hand-made layouts the checks
// accept are each proven on the in-process engine by generated data
// against the reference evaluator (prove.Prove, patterns/oracle), which
// computes answers without looking at a key.

// proofStats counts what the proof compared.
type proofStats struct {
	designs, hands, reads, writes int
}

func proveModel(t *testing.T, e *dynamotest.Engine, seed uint64, layouts int, o prove.ProveOptions, st *proofStats) {
	t.Helper()
	designed, hands := patterns.GenModel(seed, layouts)
	for i, src := range append([]string{designed}, hands...) {
		m, err := model.Parse("gen.yaml", []byte(src))
		if err != nil {
			continue // an invalid draw (a sort on a where attribute, say)
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatalf("seed %d: Plan: %v\n%s", seed, err, src)
		}
		if len(d.Errors()) > 0 {
			if i == 0 {
				t.Fatalf("seed %d: the designed plan has errors: %v\n%s", seed, d.Errors(), src)
			}
			continue // a hand layout the checks refuse
		}
		ctx := context.Background()
		fresh := prove.Tables(e.Raw, e.DB, d, fmt.Sprintf("prop%d-%d", seed, i))
		tbl, drop, err := fresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		o.Seed, o.Fresh = seed, fresh
		p, err := prove.Prove(ctx, tbl, o)
		drop()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !p.OK() {
			kind := "designed"
			if i > 0 {
				kind = fmt.Sprintf("hand layout %d (accepted by the checks)", i)
			}
			t.Fatalf("model seed %d, %s:\n%s\n%s", seed, kind, src, p)
		}
		if i == 0 {
			st.designs++
		} else {
			st.hands++
		}
		st.reads += p.Reads
		st.writes += p.Done + p.Refused
	}
}

// Random models and their accepted hand layouts, proven (bounded for
// make test; FuzzProve runs long in make fuzz).
func TestRandomDesignsProven(t *testing.T) {
	models, layouts := 60, 3
	if testing.Short() {
		models = 10
	}
	e := dynamotest.Start(t)
	var st proofStats
	for seed := range uint64(models) {
		proveModel(t, e, seed, layouts, prove.ProveOptions{Items: 8, Steps: 20, Reads: 1}, &st)
	}
	t.Logf("%d designed layouts and %d accepted hand layouts proven: %d reads and %d writes compared with the reference", st.designs, st.hands, st.reads, st.writes)
	if st.designs < models/2 || st.hands < models/2 {
		t.Errorf("only %d designs and %d hand layouts of %d models: the generator needs work", st.designs, st.hands, models)
	}
}

// FuzzProve drives the same proof from fuzzed seeds, with more data.
func FuzzProve(f *testing.F) {
	for _, s := range []uint64{0, 1, 7, 42, 1234} {
		f.Add(s)
	}
	e, err := dynamotest.New()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(e.Stop)
	f.Fuzz(func(t *testing.T, seed uint64) {
		proveModel(t, e, seed, 3, prove.ProveOptions{Items: 20, Steps: 40, Reads: 2}, &proofStats{})
	})
}
