package enginediff

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The bounded run make test makes: these seeds, each a sequence of
// SequenceSteps steps. make fuzz runs for $ENGINEDIFF_FUZZTIME instead,
// from a seed of the clock (printed).
const (
	BoundedSeeds  = 150
	SequenceSteps = 30
	// ShrinkBudget bounds the runs shrinking one difference takes.
	ShrinkBudget = 300
)

// EnvFuzzTime, when set (a duration), makes TestDifferential run random
// seeds for that long and report every kind of difference it meets;
// EnvSeeds changes the number of seeds of the bounded run.
const (
	EnvFuzzTime = "ENGINEDIFF_FUZZTIME"
	EnvSeeds    = "ENGINEDIFF_SEEDS"
)

// The in-process engine answers every request of many random sequences
// as DynamoDB Local does, or as a known difference says.
func TestDifferential(t *testing.T) {
	r := pair(t, knownDifferences)
	ctx := context.Background()
	var budget time.Duration
	if v := os.Getenv(EnvFuzzTime); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s=%q: expected a duration such as 60s: %v", EnvFuzzTime, v, err)
		}
		budget = d
	}
	seeds := uint64(BoundedSeeds)
	if v := os.Getenv(EnvSeeds); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			t.Fatalf("%s=%q: expected a number of seeds", EnvSeeds, v)
		}
		seeds = n
	}
	start := uint64(1)
	if budget > 0 {
		start = uint64(time.Now().UnixNano())
		t.Logf("fuzzing for %s from seed %d", budget, start)
	}
	hits := map[string]int{}
	found := map[string]bool{}
	unjudged, stopped, runs := 0, 0, 0
	began := time.Now()
	for seed := start; ; seed++ {
		if budget == 0 && seed >= start+seeds {
			break
		}
		if budget > 0 && time.Since(began) > budget {
			break
		}
		runs++
		res := r.Run(ctx, Generate(seed, SequenceSteps))
		for _, h := range res.Known {
			hits[h.Name]++
		}
		unjudged += len(res.Unjudged)
		if res.Stopped {
			stopped++
		}
		if res.Mismatch == nil {
			continue
		}
		sig := res.Mismatch.Signature()
		if found[sig] {
			continue
		}
		found[sig] = true
		m := r.Shrink(ctx, res.Mismatch, ShrinkBudget)
		t.Errorf("seed %d: a difference no known one explains (shrunk from %d steps to %d; kind %q):\n%s",
			seed, len(res.Mismatch.Steps), len(m.Steps), sig, m.Report())
		if budget == 0 {
			break // the bounded run reports the first
		}
	}
	names := slices.Sorted(maps.Keys(hits))
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "\n  %4d %s", hits[n], n)
	}
	t.Logf("%d sequences in %s; %d stopped early by a known difference in a write, %d steps DynamoDB Local failed on (not judged); known differences met:%s",
		runs, time.Since(began).Round(time.Millisecond), stopped, unjudged, b.String())
}

// Every known difference still differs, as its name says, on its
// shortest sequence: when the engine is fixed the list shrinks, it never
// passes silently.
func TestKnownDifferences(t *testing.T) {
	r := pair(t, knownDifferences)
	names := map[string]bool{}
	for _, k := range knownDifferences {
		t.Run(k.Name, func(t *testing.T) {
			if names[k.Name] {
				t.Fatalf("two known differences are named %q", k.Name)
			}
			names[k.Name] = true
			if k.Why == "" || len(k.Repro) == 0 || k.Match == nil {
				t.Fatalf("a known difference needs Why, Match and Repro")
			}
			res := r.Run(context.Background(), k.Repro)
			switch {
			case len(res.Known) > 0 && res.Known[len(res.Known)-1].Name == k.Name && res.Known[len(res.Known)-1].Step == len(k.Repro)-1:
			case res.Mismatch != nil:
				t.Errorf("the repro now differs otherwise (is the difference fixed, or its Match too narrow?):\n%s", res.Mismatch.Report())
			case len(res.Known) > 0:
				t.Errorf("the repro's last step no longer differs as %q; it meets %v", k.Name, res.Known)
			default:
				t.Errorf("%s and %s now agree on the repro: the difference is fixed, remove it from knownDifferences", r.Ref.Name, r.Got.Name)
			}
		})
	}
}

// Every fixed difference stays fixed: both engines agree on its repro at
// every step, and no known difference explains a step of it.
func TestFixedDifferences(t *testing.T) {
	r := pair(t, knownDifferences)
	for _, k := range fixedDifferences {
		t.Run(k.Name, func(t *testing.T) {
			if slices.ContainsFunc(knownDifferences, func(o Known) bool { return o.Name == k.Name }) {
				t.Fatalf("%q is both known and fixed", k.Name)
			}
			if k.Why == "" || len(k.Repro) == 0 || k.Match == nil {
				t.Fatalf("a fixed difference keeps its Why, Match and Repro")
			}
			res := r.Run(context.Background(), k.Repro)
			switch {
			case res.Mismatch != nil:
				t.Errorf("the fixed difference is back, or the repro differs otherwise:\n%s", res.Mismatch.Report())
			case len(res.Known) > 0:
				t.Errorf("the repro meets known differences %v", res.Known)
			}
		})
	}
}
