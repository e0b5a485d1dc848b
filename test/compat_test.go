package test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/patterns"
)

// GIVEN the CDK app of a user who upgraded keyplan, its tables built from
// the models and locks earlier keyplans wrote (testdata/compat: 49c3aed
// before the prefix fix, its migration in progress, 6828c90's cleanup
// recorded without its designs, 4f20f45's migration) WHEN it is
// synthesized with this keyplan (one app, one synth) THEN every table
// synthesizes: no problem, each table with the GSIs its lock's phase
// deploys, the corrected request in the lock the construct keeps, and
// the deployed base key a newer rule refuses (KP109) a warning, not an
// error.
func TestEarlierLocksSynthesize(t *testing.T) {
	out := t.TempDir()
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(out), Context: cdkContext()})
	stack := awscdk.NewStack(app, jsii.String("Upgraded"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("us-east-1")}})
	tables := map[string]*singletable.Table{}
	for _, m := range []string{"49c3aed/projecthub/projecthub.yaml", "49c3aed/migrating/projecthub.yaml", "6828c90/cleanup/shop.yaml", "4f20f45/migrating/projecthub.yaml"} {
		// A copy, as the user's repository holds them: synthesis writes
		// nothing beside the model.
		file := copyCorpus(t, m)
		id := strings.ReplaceAll(strings.Split(m, "/")[0]+strings.Split(m, "/")[1], "-", "")
		tables[m] = singletable.New(stack, id, &singletable.Props{ModelFile: file})
	}
	tmpl := toMap(assertions.Template_FromStack(stack, nil).ToJSON())
	ann := assertions.Annotations_FromStack(stack)
	for m, tbl := range tables {
		t.Run(m, func(t *testing.T) {
			if msg := validate(tbl); msg != "" || tbl.Lock == nil {
				t.Fatalf("synthesis problems: %s", msg)
			}
			want, _ := tbl.Lock.Deployed()
			var names []string
			for _, ix := range want {
				names = append(names, ix.Name)
			}
			found := false
			for _, r := range obj(tmpl["Resources"]) {
				p := obj(r)
				if p["Type"] != "AWS::DynamoDB::GlobalTable" {
					continue
				}
				var got []string
				for _, g := range list(obj(p["Properties"])["GlobalSecondaryIndexes"]) {
					got = append(got, obj(g)["IndexName"].(string))
				}
				found = found || slices.Equal(got, names)
			}
			if !found {
				t.Errorf("no table in the template has the GSIs %v of the lock's phase", names)
			}
			if p := tbl.Lock.Accepted.Pattern("TaskWithComments"); p != nil && !strings.Contains(p.Text, "BETWEEN") {
				t.Errorf("the construct serves TaskWithComments as %s", p.Text)
			}
		})
	}
	kp109 := *ann.FindWarning(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String(`\[KP109\] entity Reaction: its deployed base key`)))
	if len(kp109) != 2 {
		t.Errorf("%d KP109 warnings, want one per 49c3aed table (Reaction's base key holds reactedAt)", len(kp109))
	}
	if d := tables["49c3aed/projecthub/projecthub.yaml"].Design; d == nil || len(d.Errors()) > 0 {
		t.Errorf("the 49c3aed design: %v", d)
	}
}

// copyCorpus copies a corpus model and the lock beside it into a fresh
// directory and returns the model's path there.
func copyCorpus(t *testing.T, model string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{model, patterns.LockPath(model)} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "compat", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, filepath.Base(model))
}
