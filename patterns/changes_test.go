package patterns

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// Every change rule is documented in docs/checks.md with an edit that
// raises it and one that does not, and each does what the documentation
// says: the model before is locked (and, for a migration in progress, the
// lock has started one to the migrating model), the edited model is
// planned with the lock and compared.
func TestChangeRulesFireAndStayQuiet(t *testing.T) {
	seen := map[string]map[string]bool{}
	plan := func(t *testing.T, text string, l *Lock) *Design {
		t.Helper()
		m, err := model.Parse("checks.md", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		d, err := PlanLocked(m, l)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, x := range docExamples(t) {
		if x.lock != "" {
			if seen[x.rule] == nil {
				seen[x.rule] = map[string]bool{}
			}
			seen[x.rule][x.kind] = true
			t.Run(x.rule+"/lock-"+x.kind, func(t *testing.T) { upgradeExample(t, x) })
			continue
		}
		if x.before == "" {
			continue // a check rule (checks_test.go)
		}
		if seen[x.rule] == nil {
			seen[x.rule] = map[string]bool{}
		}
		seen[x.rule][x.kind] = true
		t.Run(x.rule+"/"+x.kind, func(t *testing.T) {
			lock := NewLock(plan(t, x.before, nil))
			if x.migrating != "" {
				to := plan(t, x.migrating, lock)
				if err := lock.Apply(to, Compare(lock, to)); err != nil || lock.Migration == nil {
					t.Fatalf("starting the migration: %v", err)
				}
				for x.migrated && lock.Migration != nil {
					if err := lock.Advance(); err != nil {
						t.Fatal(err)
					}
				}
				if x.migrated && lock.Cleanup == nil {
					t.Fatal("the migration left nothing to clean up")
				}
			}
			df := Compare(lock, plan(t, x.model, lock))
			var hits []Change
			for _, c := range df.Changes {
				if c.ID == x.rule {
					hits = append(hits, c)
				}
			}
			r, ok := changeRuleByID(x.rule)
			if !ok {
				t.Fatalf("%s is not a change rule", x.rule)
			}
			switch x.kind {
			case "fail":
				if len(hits) == 0 {
					t.Fatalf("%s not raised; changes: %+v", x.rule, df.Changes)
				}
				for _, h := range hits {
					if h.Severity != r.Severity || h.Kind != r.Kind || h.Subject.Name == "" || h.Message == "" {
						t.Errorf("change lacks a field or has another severity: %+v", h)
					}
				}
				refused := len(df.Errors()) > 0
				if refused != (r.Severity == SeverityError) {
					t.Errorf("refused %v for a rule of severity %s", refused, r.Severity)
				}
			case "pass":
				if len(hits) > 0 {
					t.Fatalf("%s raised: %+v", x.rule, hits)
				}
				if errs := df.Errors(); len(errs) > 0 {
					t.Errorf("the passing edit is refused: %+v", errs)
				}
			}
		})
	}
	for _, r := range ChangeRules() {
		if !seen[r.ID]["fail"] || !seen[r.ID]["pass"] {
			t.Errorf("%s lacks a documented edit that raises it or one that does not in docs/checks.md", r.ID)
		}
	}
}

// upgradeExample runs an upgrade rule's documented example: a model of
// the compatibility corpus with the lock an earlier keyplan wrote beside
// it, which raises the rule (fail); once keyplan lock has recorded it
// (the lock written again and read back), it does not (pass).
func upgradeExample(t *testing.T, x docExample) {
	model := filepath.Join("..", strings.TrimSpace(x.lock))
	d, lock, err := Open(model)
	if err != nil {
		t.Fatal(err)
	}
	df := Compare(lock, d)
	if x.kind == "pass" {
		if err := lock.Apply(d, df); err != nil {
			t.Fatal(err)
		}
		b, err := lock.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if lock, err = ReadLock(LockPath(model), bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		if err := lock.Check(); err != nil {
			t.Fatal(err)
		}
		df = Compare(lock, d)
	}
	r, ok := changeRuleByID(x.rule)
	if !ok {
		t.Fatalf("%s is not a change rule", x.rule)
	}
	var hits []Change
	for _, c := range df.Changes {
		if c.ID == x.rule {
			hits = append(hits, c)
		}
	}
	switch {
	case x.kind == "fail" && len(hits) == 0:
		t.Fatalf("%s not raised by %s; changes: %+v", x.rule, model, df.Changes)
	case x.kind == "pass" && len(hits) > 0:
		t.Fatalf("%s raised once keyplan lock recorded it: %+v", x.rule, hits)
	}
	for _, h := range hits {
		if h.Severity != r.Severity || h.Kind != r.Kind || h.Subject.Name == "" || h.Message == "" {
			t.Errorf("change lacks a field or has another severity: %+v", h)
		}
	}
	if errs := df.Errors(); len(errs) > 0 {
		t.Errorf("an upgrade is refused: %+v", errs)
	}
}

func changeRuleByID(id string) (ChangeRule, bool) {
	i := slices.IndexFunc(changeRules, func(r ChangeRule) bool { return r.ID == id })
	if i < 0 {
		return ChangeRule{}, false
	}
	return changeRules[i], true
}

// Change rule ids are stable: released ids keep their meaning and
// severity.
func TestChangeRuleIDsStable(t *testing.T) {
	want := "KP601 info gsi-created,KP602 info gsi-deleted,KP603 warning projection-replaced,KP604 warning key-rewritten,KP605 error removed," +
		"KP606 warning renamed,KP607 error base-key-changed,KP608 warning ttl-changed,KP609 error migration-pending,KP610 warning shape-added,KP611 info pattern-added,KP612 info pattern-removed,KP613 error unique-guard,KP614 warning placement-kept,KP615 info index-build,KP616 error cleanup-pending," +
		"KP617 info lock-format,KP618 info request-derived,KP619 warning phases-derived,KP620 warning cleanup-recorded,KP621 info model-changed,KP622 error consistency-changed,KP623 error lsi-replaces-table"
	var got []string
	for _, r := range ChangeRules() {
		got = append(got, r.ID+" "+string(r.Severity)+" "+string(r.Kind))
	}
	if strings.Join(got, ",") != want {
		t.Errorf("change rules changed:\n got %s\nwant %s", strings.Join(got, ","), want)
	}
}
