package prove

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// failsDesk is a model whose every step is refused, each by one kind of
// condition: a create of an item there (absent), a stale version, a
// declared condition, a unique value taken, a delete of an item not there
// (exists). Each step's fails: is filled in by the test.
const failsDesk = testmodel.DeskFailsEveryStep

// examples.steps[].fails names a condition in words that stay: the
// stable forms match their condition and no other; each earlier wording
// keyplan gave a condition (the table of docs/writes.md: 166c88c, 3df626b,
// a1fb4d3) still matches it, and the line says which stable form to
// write instead; a fails: that matches nothing fails, naming the stable
// form of what did fail.
func TestFailsNamesTheCondition(t *testing.T) {
	ctx := context.Background()
	type kind int
	const (
		absent kind = iota
		version
		condition
		unique
		exists
	)
	cases := []struct {
		step    kind
		fails   string
		ok      bool
		earlier bool
		// names: what the FAIL line names (a miss), or the stable form
		// the line points to (an earlier wording).
		names string
	}{
		{absent, "absent", true, false, ""},
		{absent, "a new item", true, false, ""},
		{absent, `"a new item (if: absent)"`, true, false, ""},
		{absent, "no such item exists yet", true, true, "absent names the condition"},
		{absent, "no such", true, true, "absent"},
		{absent, "the item is new", true, true, "absent"},
		{absent, `"the item is new (if: absent)"`, true, true, "absent"},
		{absent, "exists", false, false, "fails: absent names what failed"},
		{absent, "version", false, false, "fails: absent names what failed"},
		{version, "version", true, false, ""},
		{version, "revision", true, false, ""},
		{version, "revision still 5", true, false, ""},
		{version, "revision is still 5", true, true, "version (or revision) names"},
		{version, `"revision is still 5 (the version read)"`, true, true, "version (or revision)"},
		{version, "revision is still 6", false, false, "fails: version (or revision) names what failed"},
		{version, "{status: OPEN}", false, false, "fails: version (or revision) names what failed"},
		{version, "absent", false, false, "version (or revision)"},
		{condition, "{status: OPEN}", true, false, ""},
		{condition, "status", true, false, ""},
		{condition, "status = OPEN", true, false, ""},
		{condition, "version", false, false, "fails: {status: OPEN} (or status) names what failed"},
		{condition, "condition failed", false, false, "fails: {status: OPEN} (or status) names what failed"},
		{unique, `"unique: TicketByHandle"`, true, false, ""},
		{unique, "{unique: TicketByHandle}", true, false, ""},
		{unique, "TicketByHandle", true, false, ""},
		{unique, "absent", false, false, `fails: "unique: TicketByHandle" names what failed`},
		{unique, `"unique: TicketByEmail"`, false, false, `fails: "unique: TicketByHandle" names what failed`},
		{exists, "exists", true, false, ""},
		{exists, "an existing item", true, false, ""},
		{exists, "the item exists", true, true, "exists names"},
		{exists, "absent", false, false, "fails: exists names what failed"},
	}
	// The five refusals, once, on the engine: every step named right.
	right := []string{"absent", "version", "{status: OPEN}", `"unique: TicketByHandle"`, "exists"}
	parse := func(fails []string) *model.Model {
		t.Helper()
		args := make([]any, len(fails))
		for i, f := range fails {
			args[i] = f
		}
		m, err := model.Parse("desk.yaml", []byte(fmt.Sprintf(failsDesk, args...)))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	d, err := patterns.Plan(parse(right))
	if err != nil {
		t.Fatal(err)
	}
	rep := Validate(ctx, fresh(t, d))
	if len(rep.Steps) != len(right) || len(rep.LoadErrors) > 0 {
		t.Fatalf("steps %v, load errors %v", rep.Steps, rep.LoadErrors)
	}
	for i, st := range rep.Steps {
		if !st.OK() {
			t.Errorf("step %d, named right: %s", i+1, st)
		}
	}
	// Each case: the step's fails: as the model reads it, against the
	// refusal the engine gave.
	for _, c := range cases {
		fails := append([]string(nil), right...)
		fails[c.step] = c.fails
		m := parse(fails)
		st := m.Examples.Steps[c.step]
		r := &StepResult{Write: st.Write, Params: dynamo.Params(st.Params), Fails: failsText(st), FailsOn: m.FailsOf(st), Err: rep.Steps[c.step].Err}
		ok, earlier := r.matches()
		if line := r.String(); ok != c.ok || earlier != c.earlier || !strings.Contains(line, c.names) {
			t.Errorf("fails: %s: ok %v, earlier %v, want %v, %v and %q in\n%s", c.fails, ok, earlier, c.ok, c.earlier, c.names, line)
		}
	}
}

// A fails: written as a condition: clause, or as a unique pattern, must
// name one the step's write has: the model is refused otherwise, naming
// the file, the step and what it may name.
func TestFailsNamesAConditionTheWriteHas(t *testing.T) {
	for _, c := range []struct{ fails, want string }{
		{"{status: CLOSED}", `desk.yaml:29:7: examples.steps[2].fails: {status: CLOSED} is no condition: clause of CloseTicket; expected one of: exists, version, {status: OPEN}, "unique: TicketByHandle", "unique: TicketByEmail"`},
		{`"unique: GetTicket"`, `examples.steps[2].fails: unique: GetTicket names no unique pattern of what CloseTicket writes`},
		{"{status: OPEN, handle: h1}", "examples.steps[2].fails: expected one condition"},
		{`"unique: TicketByName"`, "unique: TicketByName names no unique pattern"},
	} {
		fails := []any{"absent", "version", c.fails, `"unique: TicketByHandle"`, "exists"}
		_, err := model.Parse("desk.yaml", []byte(fmt.Sprintf(failsDesk, fails...)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fails: %s: %v, want %q", c.fails, err, c.want)
		}
	}
}
