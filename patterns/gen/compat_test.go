package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The packages earlier keyplans generated (testdata/compat, README.md
// there says which commit wrote each and how), as a user's module holds
// them: each is compiled against this runtime, vetted and run by a test
// written beside it here (never in the old package), which proves the
// request the runtime serves for the nested collection read: task t1's
// comments, never task t10's (49c3aed and 3b50108 embed the begins_with
// prefix read that returned both).
var earlierPackages = []struct {
	dir string // under testdata/compat
	// lock: the package embeds its lock (Lock(), the rollout runtime),
	// not the design alone.
	lock bool
	// recorded: the embedded design records TaskWithComments as this
	// prefix read (what this runtime no longer serves).
	recorded string
}{
	{"49c3aed/projecthub/hubdb", false, `begins_with(SK, "TASK#{taskId}")`},
	{"3b50108/projecthub/hubdb", false, `begins_with(SK, "TASK#{taskId}")`},
	{"4f20f45/migrating/hubdb", true, ""},
}

// earlierPackagesTest is the test written beside each package: the table
// is created as the embedded design (or lock, at its phase) deploys it,
// tasks t1 and t10 each get a comment through the generated writes, and
// TaskWithComments for t1 returns t1 and its comment alone.
const earlierPackagesTest = `package hubdb

import (
	"context"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

func TestTaskWithCommentsHasNoLeak(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := Design()
	if err != nil {
		t.Fatalf("the embedded design does not open: %v", err)
	}
	recorded := ""
	for _, p := range d.RecordedPlans() {
		if p.Name == "TaskWithComments" {
			recorded = p.Text
		}
	}
	if want := RECORDED; want != "" && !strings.Contains(recorded, want) {
		t.Fatalf("the package records TaskWithComments as %q, want the earlier %q: is it the one an earlier keyplan wrote?", recorded, want)
	}
	CREATE
	db, err := Open(engine.DB, "hub")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"t1", "t10"} {
		if err := db.CreateTask(ctx, CreateTaskParams{TenantID: "acme", ProjectID: "p1", TaskID: id, Title: "task " + id, Status: TaskStatusOpen, Estimate: 3}); err != nil {
			t.Fatal(err)
		}
		if err := db.AddComment(ctx, AddCommentParams{TenantID: "acme", ProjectID: "p1", TaskID: id, CommentID: "c-" + id, Body: "on " + id}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := db.TaskWithComments(ctx, "acme", "p1", "t1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range page.Items {
		switch {
		case it.Task != nil:
			got = append(got, "task "+it.Task.TaskID)
		case it.Comment != nil:
			got = append(got, "comment "+it.Comment.CommentID+" of "+it.Comment.TaskID)
		}
	}
	if strings.Join(got, ", ") != "task t1, comment c-t1 of t1" {
		t.Errorf("TaskWithComments(t1) = %v, want t1 and its comment alone (served %s)", got, d.Pattern("TaskWithComments").Text)
	}
}
`

// writeEarlierPackages writes the earlier packages and their tests into
// the module at dir, and returns their directories there (for go test).
func writeEarlierPackages(t *testing.T, dir string) []string {
	t.Helper()
	var dirs []string
	for _, p := range earlierPackages {
		src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "compat", p.dir, File))
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.Join("earlier", strings.Split(p.dir, "/")[0], "hubdb")
		create := `if err := dynamo.CreateTable(ctx, engine.Raw, d, "hub"); err != nil {
		t.Fatal(err)
	}`
		if p.lock {
			create = `l, err := Lock()
	if err != nil {
		t.Fatalf("the embedded lock does not open: %v", err)
	}
	if err := dynamo.CreateLockTable(ctx, engine.Raw, l, "hub"); err != nil {
		t.Fatal(err)
	}`
		}
		test := strings.NewReplacer("RECORDED", "`"+p.recorded+"`", "CREATE", create).Replace(earlierPackagesTest)
		for name, b := range map[string][]byte{File: src, "hub_test.go": []byte(test)} {
			path := filepath.Join(dir, rel, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, "./"+filepath.ToSlash(rel))
	}
	return dirs
}
