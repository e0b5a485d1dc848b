package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

// earlier are the artifacts of the compatibility corpus (testdata/compat:
// its README says which commit of keyplan wrote each and how), and what
// this keyplan's commands do with them: never exit 2, and keyplan diff
// names the upgrade changes that keyplan lock then records.
var earlier = []struct {
	model string // under testdata/compat
	// upgrades are the upgrade changes keyplan diff names first; diff
	// is its exit code (1: a migration, or a cleanup, in progress).
	upgrades []string
	diff     int
	// warns are the check warnings the deployed design draws.
	warns []string
	// migrating: a migration is in progress (keyplan migrate goes on);
	// decimal: the model has a decimal example value in a plain number.
	migrating, decimal bool
}{
	{"49c3aed/projecthub/projecthub.yaml", []string{"KP617", "KP618"}, 0, []string{"KP109"}, false, false},
	{"49c3aed/migrating/projecthub.yaml", []string{"KP617", "KP618", "KP618", "KP619"}, 1, []string{"KP109"}, true, false},
	{"49c3aed/photos/photos.yaml", []string{"KP617"}, 0, []string{"KP109"}, false, false},
	{"49c3aed/decimal/ledger.yaml", []string{"KP617"}, 0, nil, false, true},
	{"3b50108/projecthub/projecthub.yaml", []string{"KP617", "KP618"}, 0, []string{"KP109"}, false, false},
	{"6828c90/cleanup/shop.yaml", []string{"KP617", "KP620"}, 1, nil, false, false},
	{"4f20f45/cleanup/shop.yaml", []string{"KP617"}, 1, nil, false, false},
	{"4f20f45/migrating/projecthub.yaml", []string{"KP617"}, 1, nil, true, false},
}

// upgraded copies a corpus artifact (the model and its lock) into a
// fresh directory, as the user's repository holds it.
func upgraded(t *testing.T, model string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{model, patterns.LockPath(model)} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "compat", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, filepath.Base(model))
}

// The acceptance of upgrading keyplan (issue 33): on each artifact an
// earlier keyplan wrote, check, plan, diff, gen go and lock exit 0 or 1,
// never 2; diff names the upgrade changes first; lock records them (the
// lock is then format 2 with its digest), after which diff names none
// and lock has nothing to record; a migration in progress stays at its
// phase.
func TestEarlierArtifactsUpgrade(t *testing.T) {
	enginepass.Independent(t)
	for _, a := range earlier {
		t.Run(a.model, func(t *testing.T) {
			if a.decimal {
				t.Log("a decimal example value in a plain number: check refuses it until issue 35.1's fix (the outside branch)")
			}
			model := upgraded(t, a.model)
			run := func(want int, args ...string) string {
				t.Helper()
				code, out, errs := keyplan(args...)
				if code != want {
					t.Fatalf("keyplan %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errs)
				}
				return out
			}
			out := run(0, "check", model)
			for _, w := range a.warns {
				if !strings.Contains(out, "warning ["+w+"]") {
					t.Errorf("check does not warn %s:\n%s", w, out)
				}
			}
			run(0, "plan", model, "--format", "json")
			got := diffIDs(t, run(a.diff, "diff", model, "--format", "json"))
			if !slices.Equal(got[:min(len(got), len(a.upgrades))], a.upgrades) {
				t.Errorf("diff names %v first, want the upgrade changes %v", got, a.upgrades)
			}
			if text := run(a.diff, "diff", model); strings.Contains(text, "edited by hand") || strings.Contains(text, "no change: the lock is up to date") {
				t.Errorf("diff says:\n%s", text)
			}
			run(0, "gen", "go", model, "--package", "hubdb", "--out", filepath.Join(t.TempDir(), "hubdb"))
			before, _ := patterns.LoadLock(patterns.LockPath(model))
			out = run(0, "lock", model)
			for _, id := range a.upgrades {
				if !strings.Contains(out, "["+id+"]") && before.Migration == nil {
					t.Errorf("lock does not say it records %s:\n%s", id, out)
				}
			}
			after, err := patterns.LoadLock(patterns.LockPath(model))
			if err != nil || after.Format != patterns.LockFormat || after.Keyplan == "" || len(after.Upgrades()) != 0 {
				t.Fatalf("the lock written: %v, format %d by %q, upgrades %v", err, after.Format, after.Keyplan, after.Upgrades())
			}
			if mg := before.Migration; mg != nil && (after.Migration == nil || after.Migration.Current != mg.Current) {
				t.Errorf("the migration moved: at phase %d, then %+v", mg.Current, after.Migration)
			}
			if got := diffIDs(t, run(a.diff, "diff", model, "--format", "json")); slices.ContainsFunc(got, func(id string) bool { return slices.Contains(a.upgrades, id) }) {
				t.Errorf("once recorded, diff still names %v", got)
			}
			if out := run(0, "lock", model); !strings.Contains(out, "nothing") {
				t.Errorf("lock again:\n%s", out)
			}
			run(0, "check", model)
		})
	}
}

// diffIDs are the change rule ids keyplan diff --format json lists, in
// order.
func diffIDs(t *testing.T, out string) []string {
	t.Helper()
	var v struct{ Changes []struct{ ID string } }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("diff JSON: %v\n%s", err, out)
	}
	var ids []string
	for _, c := range v.Changes {
		ids = append(ids, c.ID)
	}
	return ids
}

// On the in-process engine (named: the artifacts are the point, and the
// engine passes prove the engines elsewhere): keyplan validate proves
// each earlier model's examples (fails: in the words of its keyplan, the
// nested collection read served as this keyplan derives it), and keyplan
// migrate takes a migration an earlier keyplan started to its end with
// this keyplan's phases: at 49c3aed, the second new GSI's phase
// backfilled nothing, so the tasks already there would never have been
// read by TasksByTitle (KP619).
func TestEarlierModelsValidateAndMigrate(t *testing.T) {
	enginepass.Independent(t)
	conn, err := localengine.Connect(context.Background(), localengine.Options{Name: localengine.Memory})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Stop()
	ep := conn.Endpoint
	for _, a := range earlier {
		t.Run(a.model, func(t *testing.T) {
			model := upgraded(t, a.model)
			// A short proof on generated data: the examples are the point.
			if code, out, errs := keyplan("validate", model, "--engine", localengine.Memory, "--generate", "8"); code != 0 {
				t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
			}
			if !a.migrating {
				return
			}
			l, err := patterns.LoadLock(patterns.LockPath(model))
			if err != nil {
				t.Fatal(err)
			}
			m, err := kpmodel.Load(model)
			if err != nil {
				t.Fatal(err)
			}
			table := fmt.Sprintf("earlier-%d", tableSeq.Add(1))
			client := localengine.Client(ep, 0)
			ctx := context.Background()
			if err := dynamo.CreateLockTable(ctx, client, l, table); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}) })
			// The items as the accepted design wrote them, before the
			// migration.
			v1 := dynamo.New(l.Accepted, nil, table)
			var items []map[string]types.AttributeValue
			for _, it := range m.Examples.Items {
				its, err := v1.Items(it.Entity, it.Values)
				if err != nil {
					t.Fatal(err)
				}
				items = append(items, its...)
			}
			if err := dynamo.BatchPut(ctx, client, table, items); err != nil {
				t.Fatal(err)
			}
			if code, out, errs := keyplan("migrate", model, "--table", table, "--endpoint", ep, "--apply-indexes"); code != 0 {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errs)
			}
			done, err := patterns.LoadLock(patterns.LockPath(model))
			if err != nil || done.Migration != nil {
				t.Fatalf("after migrate: %v, %+v", err, done)
			}
			// Every task already there is read by the new patterns.
			rt := dynamo.New(done.Accepted, client, table)
			for _, it := range m.Examples.Items {
				if it.Entity != "Task" {
					continue
				}
				page, err := rt.Read(ctx, "TasksByTitle", dynamo.Request{Params: dynamo.Params{"title": it.Values["title"]}})
				if err != nil || len(page.Items) != 1 {
					t.Errorf("TasksByTitle(%v) after the migration: %v items, %v", it.Values["title"], page, err)
				}
			}
		})
	}
}

// The fix KP109 names for a deployed base key that holds an attribute
// beside the id (49c3aed's hand-made photos layout): add the attribute
// to the id. The warning goes, keyplan diff names the edit and no table
// change, and keyplan validate's generated proof, waived before, runs
// and passes.
func TestDeployedBaseKeyFixNeedsNoTableChange(t *testing.T) {
	enginepass.Independent(t)
	model := upgraded(t, "49c3aed/photos/photos.yaml")
	src, _ := os.ReadFile(model)
	fixed := strings.Replace(string(src), "    id: [photoId, username]\n", "    id: [photoId, username, likeId]\n", 1)
	if fixed == string(src) {
		t.Fatal("the edit changed nothing")
	}
	os.WriteFile(model, []byte(fixed), 0o644)
	if code, out, errs := keyplan("check", model); code != 0 || strings.Contains(out, "KP109") || strings.Contains(out, "KP104") {
		t.Errorf("check: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := keyplan("diff", model, "--format", "json")
	if ids := diffIDs(t, out); code != 0 || !slices.Equal(ids, []string{"KP617", "KP621"}) {
		t.Errorf("diff: exit %d, changes %v\n%s", code, ids, errs)
	}
	if code, out, errs := keyplan("validate", model, "--engine", localengine.Memory); code != 0 || !strings.Contains(out, "ok   generated data") {
		t.Errorf("validate: exit %d\n%s%s", code, out, errs)
	}
}
