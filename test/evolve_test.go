package test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/patterns"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

// deploy is one `cdk deploy` of the shop's history: the stack the
// construct synthesizes from a model and its lock at that moment.
type deploy struct {
	name  string // "edit 3, phase 2 of 4"
	stack string
}

// The shop walked through its successive edits, each deploy synthesized
// by the construct from the model and the lock at that step (one app, one
// stack per deploy): from any deploy to the next, CloudFormation creates
// or deletes at most one GSI, changes no GSI's keys or projection under
// its name, never changes the table's key schema, and never moves TTL
// from one attribute to another in one step.
func TestEveryDeployIsOneStep(t *testing.T) {
	src, err := os.ReadFile("../" + evolvetest.ShopModel)
	if err != nil {
		t.Fatal(err)
	}
	model := string(src)
	parse := func(text string) *kpmodel.Model {
		m, err := kpmodel.Parse("ecommerce.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	out := t.TempDir()
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(out), Context: cdkContext()})
	var history []deploy
	add := func(name string, m *kpmodel.Model, l *patterns.Lock) {
		id := fmt.Sprintf("Deploy%d", len(history))
		stack := awscdk.NewStack(app, jsii.String(id), nil)
		tbl := singletable.New(stack, "Shop", &singletable.Props{
			Model: m, Lock: evolvetest.RoundTrip(t, l),
			StreamHandlers: &singletable.StreamHandlers{Disabled: true},
			Acknowledge:    map[string]string{"KP401": "a test of deploys"},
		})
		if problems := validate(tbl); problems != "" {
			t.Fatalf("%s: %s", name, problems)
		}
		history = append(history, deploy{name, id})
	}
	m := parse(model)
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	lock := patterns.NewLock(d)
	add("the first deploy", m, lock)
	for k, ed := range evolvetest.ShopEdits {
		next := ed.Apply(model)
		nm := parse(next)
		d, err := patterns.PlanLocked(nm, lock)
		if err != nil {
			t.Fatal(err)
		}
		// Before `keyplan lock` accepts it, the construct refuses the
		// edited model and names the command that shows the change.
		refusedSynth(t, ed.Name, nm, lock)
		df := patterns.Compare(lock, d)
		if ed.Refused {
			if err := lock.Apply(d, df); err == nil {
				t.Fatalf("%s: a refused change was accepted", ed.Name)
			}
			continue
		}
		if err := lock.Apply(d, df); err != nil {
			t.Fatalf("%s: %v", ed.Name, err)
		}
		for lock.Migration != nil {
			mg := lock.Migration
			add(fmt.Sprintf("edit %d (%s), phase %d of %d", k+1, ed.Name, mg.Current+1, len(mg.Phases)), nm, lock)
			if err := lock.Advance(); err != nil {
				t.Fatal(err)
			}
		}
		add(fmt.Sprintf("edit %d (%s), done", k+1, ed.Name), nm, lock)
		model = next
	}
	asm := app.Synth(nil)
	var prev map[string]any
	for i, dp := range history {
		b, err := json.Marshal(asm.GetStackByName(jsii.String(dp.stack)).Template())
		if err != nil {
			t.Fatal(err)
		}
		var tmpl map[string]any
		json.Unmarshal(b, &tmpl)
		table := props(one(t, tmpl, "AWS::DynamoDB::GlobalTable"))
		if i > 0 {
			oneStep(t, dp.name, prev, table)
		}
		prev = table
	}
	t.Logf("%d deploys", len(history))
	if len(history) < 15 {
		t.Errorf("%d deploys: the walk should take more", len(history))
	}
}

// refusedSynth: a model the lock has not accepted fails synthesis, naming
// keyplan diff (its own app: a failing construct would fail the walk's).
func refusedSynth(t *testing.T, edit string, m *kpmodel.Model, l *patterns.Lock) {
	t.Helper()
	stack := newStack("")
	tbl := singletable.New(stack, "Shop", &singletable.Props{Model: m, Lock: l, StreamHandlers: &singletable.StreamHandlers{Disabled: true}})
	got := validate(tbl)
	if !strings.Contains(got, "is not the one its lock") || !strings.Contains(got, "`keyplan diff ") {
		t.Errorf("%s: synthesis before keyplan lock: %q, want a refusal naming keyplan diff", edit, got)
	}
}

// gsis are a table's GSIs by name: their key schema and projection.
func gsis(table map[string]any) map[string][2]any {
	out := map[string][2]any{}
	for _, g := range list(table["GlobalSecondaryIndexes"]) {
		gm := obj(g)
		out[gm["IndexName"].(string)] = [2]any{gm["KeySchema"], gm["Projection"]}
	}
	return out
}

// oneStep checks what one deploy may change.
func oneStep(t *testing.T, name string, before, after map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(before["KeySchema"], after["KeySchema"]) {
		t.Errorf("%s: the table's KeySchema changed (a replacement): %v → %v", name, before["KeySchema"], after["KeySchema"])
	}
	was, is := gsis(before), gsis(after)
	changes := 0
	for n, g := range is {
		old, ok := was[n]
		if !ok {
			changes++
			continue
		}
		if !reflect.DeepEqual(old[0], g[0]) {
			t.Errorf("%s: %s's KeySchema changed in place: %v → %v", name, n, old[0], g[0])
		}
		if !reflect.DeepEqual(old[1], g[1]) {
			t.Errorf("%s: %s's Projection changed in place: %v → %v", name, n, old[1], g[1])
		}
	}
	for n := range was {
		if _, ok := is[n]; !ok {
			changes++
		}
	}
	if changes > 1 {
		t.Errorf("%s: %d GSIs created or deleted in one deploy", name, changes)
	}
	ttl := func(tbl map[string]any) string {
		spec := obj(tbl["TimeToLiveSpecification"])
		if spec["Enabled"] != true {
			return ""
		}
		return spec["AttributeName"].(string)
	}
	if a, b := ttl(before), ttl(after); a != "" && b != "" && a != b {
		t.Errorf("%s: TTL moves from %s to %s in one deploy (DynamoDB needs it disabled in between)", name, a, b)
	}
}
