package singletable_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
)

// A model path is data, never code: synthesizing a table whose model sits
// under a directory named like a shell command substitution runs no
// command. The handlers' bundling (GoFunction, which runs its build under
// bash -c) must never see the path.
func TestHostileModelPathRunsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes and bundles the stream handlers")
	}
	tmp := t.TempDir()
	// GIVEN a model under a directory whose name substitutes commands
	// that create a file (relative: GoFunction's shell runs in the module
	// root, which is this repository's root here).
	marker := fmt.Sprintf(".keyplan-pwned-%d", time.Now().UnixNano())
	pwned := filepath.Join("..", "..", marker)
	t.Cleanup(func() { os.Remove(pwned) })
	dir := filepath.Join(tmp, "m$(touch "+marker+") `touch "+marker+"` \"'")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile("../../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "leaderboard.yaml")
	if err := os.WriteFile(file, model, 0o644); err != nil {
		t.Fatal(err)
	}
	// WHEN an app with its table and stream handlers is synthesized
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(filepath.Join(tmp, "cdk.out"))})
	stack := awscdk.NewStack(app, jsii.String("Hostile"), nil)
	table := singletable.New(stack, "Leaderboard", &singletable.Props{ModelFile: file,
		Acknowledge: map[string]string{"KP401": "test"}})
	if table.Table == nil || len(table.Handlers) == 0 {
		t.Fatal("the table and its handlers were not built")
	}
	app.Synth(nil)
	// THEN no command ran
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("the model path was executed as a shell command: %s exists", pwned)
	}
	// AND the handlers still get the model, through the design layer.
	tmpl := assertions.Template_FromStack(stack, nil)
	tmpl.ResourceCountIs(jsii.String("AWS::Lambda::LayerVersion"), jsii.Number(1))
}
