package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/engine/dynalite"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// A user's module, outside this repository (a temporary directory with a
// replace pointing here, made as the README says): keyplan as a Go tool
// (go tool keyplan), its exit codes, validate on the in-process engine
// with no Node.js on PATH, then on dynalite installed on demand into a
// fresh cache, code generated for every example model and for the names
// of issue 28 compiled and vetted, the shop's generated code run in the
// user's own test against the engine dynamotest starts, the CDK CLI's
// node_modules skipped as the README says, and the README's CDK app on an
// environment-agnostic stack with tablerules: it synthesizes, and a table
// the rules refuse fails the synth.
func TestOutsideModule(t *testing.T) {
	base := enginepass.Parallel(t)
	if testing.Short() {
		t.Skip("builds a module of its own (about 30 s)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache") // no dynalite here yet: validate installs it
	env := append(base, dynalite.EnvCache+"="+cache, dynalite.EnvPath+"=", dynalite.EnvEndpoint+"=", localengine.EnvEngine+"=", "GOFLAGS=")
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	goOnly := "PATH=" + filepath.Dir(goBin) // go, and no node or npm
	var extra []string                      // set for one run
	run := func(want int, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, append(env, extra...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		if code != want {
			t.Fatalf("%s %s: exit %d, want %d\n%s", name, strings.Join(args, " "), code, want, out.String())
		}
		return out.String()
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, from))
		if err != nil {
			t.Fatal(err)
		}
		write(to, string(b))
	}
	write("go.mod", "module example.com/shop\n\ngo 1.26\n")
	copyFile("go.sum", "go.sum")
	models, _ := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
	for _, m := range models {
		base := filepath.Base(m)
		copyFile(filepath.Join("examples", base), base)
		lock := strings.TrimSuffix(base, ".yaml") + ".lock.json"
		if _, err := os.Stat(filepath.Join(root, "examples", lock)); err == nil {
			copyFile(filepath.Join("examples", lock), lock)
		}
	}
	write("broken.yaml", "table: T\nentities: [\n")

	// keyplan as a tool from a local checkout, as the README says (go get
	// -tool asks the module proxy before it reads a replace): each line of
	// its block, the checkout's path for ../keyplan.
	for _, line := range readmeBlock(t, root, "With a local checkout") {
		args := strings.Fields(strings.ReplaceAll(line, "../keyplan", filepath.ToSlash(root)))
		run(0, args[0], args[1:]...)
	}
	// npm i aws-cdk in the module's root: its cdk init templates are files
	// named .go that are not Go, and go vet ./... fails on them until the
	// README's line tells Go to skip node_modules.
	write("node_modules/aws-cdk/lib/init-templates/app/go/%name%.template.go", "package main\n\ntype %name.PascalCased%StackProps struct {\n}\n")
	if out := run(1, "go", "vet", "./..."); !strings.Contains(out, `invalid input file name "%name%.template.go"`) {
		t.Fatalf("go vet with the CDK CLI's templates:\n%s", out)
	}
	ignore := readmeBlock(t, root, "`npm i aws-cdk`")
	if len(ignore) != 1 || ignore[0] != "go mod edit -ignore=./node_modules" {
		t.Fatalf("the README's fix for node_modules is %q", ignore)
	}
	run(0, "go", "mod", "edit", "-ignore=./node_modules")
	if out := run(0, "go", "tool", "keyplan", "check", "ecommerce.yaml", "leaderboard.yaml"); !strings.Contains(out, "0 error(s)") {
		t.Fatalf("check:\n%s", out)
	}
	run(2, "go", "tool", "keyplan", "check", "broken.yaml") // unusable input stays 2 through go tool
	extra = []string{goOnly, "CGO_ENABLED=0"}
	if out := run(0, "go", "tool", "keyplan", "validate", "ecommerce.yaml"); strings.Contains(out, "installing") || strings.Contains(out, "emulates") {
		t.Fatalf("validate on the in-process engine installed something or emulated transactions:\n%s", out)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("the in-process engine touched the cache: %v", err)
	}
	extra = nil
	if out := run(0, "go", "tool", "keyplan", "validate", "--engine", "dynalite", "ecommerce.yaml"); !strings.Contains(out, "installing the local engine") {
		t.Fatalf("validate --engine dynalite did not say it installs the engine:\n%s", out)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("no engine in the cache: %v", err)
	}
	for _, m := range models {
		name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(m), ".yaml"), "-", "")
		pkg := name + "db"
		if name == "ecommerce" {
			pkg = "shopdb"
		}
		run(0, "go", "tool", "keyplan", "gen", "go", filepath.Base(m), "--package", pkg, "--out", pkg)
	}
	// Every kind of attribute, required and optional, through gen.
	write("kinds.yaml", kindsModel)
	run(0, "go", "tool", "keyplan", "gen", "go", "kinds.yaml", "--package", "kindsdb", "--out", "kindsdb")
	// The names that made generated code fail to compile (issue 28):
	// renamed, and the code compiles and vets below; package main is
	// refused before anything is written.
	copyFile("patterns/gen/testdata/issue28names.yaml", "names.yaml")
	run(0, "go", "tool", "keyplan", "gen", "go", "names.yaml", "--package", "namesdb", "--out", "namesdb")
	if out := run(2, "go", "tool", "keyplan", "gen", "go", "names.yaml", "--package", "main", "--out", "cmd/names"); !strings.Contains(out, "expected a Go package name other than main") {
		t.Fatalf("gen go --package main:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "cmd")); !os.IsNotExist(err) {
		t.Fatalf("gen go --package main wrote something: %v", err)
	}
	write("app_test.go", appTest)
	// The README's CDK app, on an environment-agnostic stack (no env: a
	// replica's region is {"Ref": "AWS::Region"}), with tablerules.
	write("infra/main.go", infraApp)
	run(0, "go", "mod", "tidy")
	run(0, "go", "vet", "./...")
	if out := run(0, "go", "test", "-count=1", "-v", "./..."); !strings.Contains(out, "--- PASS: TestShop") || !strings.Contains(out, "--- PASS: TestKinds") || !strings.Contains(out, "--- PASS: TestNames") {
		t.Fatalf("the user's test did not run:\n%s", out)
	}
	out := filepath.Join(t.TempDir(), "cdk.out")
	extra = []string{"CDK_OUTDIR=" + out, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20"}
	run(0, "go", "run", "./infra")
	if b, err := os.ReadFile(filepath.Join(out, "Things.template.json")); err != nil || !strings.Contains(string(b), `"Region": {`) && !strings.Contains(string(b), `"Region":{`) {
		t.Fatalf("the agnostic stack's template (a replica region that is a Ref): %v\n%.2000s", err, b)
	}
	// A table tablerules refuses (TableV2's defaults: no point-in-time
	// recovery, no deletion protection) fails the synth: go run exits
	// non-zero, naming the rules.
	extra = append(extra, "PLAIN_TABLE=1")
	if out := run(1, "go", "run", "./infra"); !strings.Contains(out, "KPG1") || !strings.Contains(out, "KPG2") || !strings.Contains(out, "${AWS::Region}") {
		t.Fatalf("tablerules on a non-compliant table of an agnostic stack:\n%s", out)
	}
	extra = nil
}

// readmeBlock is the first sh block of the README after the text after,
// a command a line.
func readmeBlock(t *testing.T, root, after string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), after)
	if !ok {
		t.Fatalf("the README has no %q", after)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("the README has no sh block after %q", after)
	}
	return strings.Split(strings.TrimSpace(block), "\n")
}

// infraApp is the README's CDK app, with the model of the kinds test, on
// an environment-agnostic stack, checked by tablerules; PLAIN_TABLE adds
// a TableV2 with its defaults, which tablerules refuses.
const infraApp = `package main

import (
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"
	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/constructs/tablerules"
)

func main() {
	defer singletable.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Things"), nil)
	singletable.New(stack, "Kinds", &singletable.Props{ModelFile: "kinds.yaml"})
	if os.Getenv("PLAIN_TABLE") != "" {
		awsdynamodb.NewTableV2(stack, jsii.String("Plain"), &awsdynamodb.TablePropsV2{
			PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("pk"), Type: awsdynamodb.AttributeType_STRING},
		})
	}
	awscdk.Aspects_Of(app).Add(tablerules.NewAspect(), nil)
	app.Synth(nil)
}
`

// kindsModel has an attribute of every kind, required and optional.
const kindsModel = `table: Kinds
entities:
  Thing:
    id: [thingId]
    attributes:
      thingId: {type: string, maxLength: 20}
      note: {type: string, maxLength: 20, optional: true}
      state: {type: string, values: [NEW, DONE]}
      phase: {type: string, values: [ONE, TWO], optional: true}
      at: time
      seen: {type: time, optional: true}
      flag: bool
      maybe: {type: bool, optional: true}
      count: {type: number, min: 0, max: 1000}
      ratio: {type: number, optional: true}
patterns:
  GetThing: {get: Thing}
`

// appTest is the user's test: their table, from the generated design, on
// dynamotest's engine, read and written through the generated methods.
const appTest = `package shop

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"example.com/shop/kindsdb"
	"example.com/shop/namesdb"
	"example.com/shop/shopdb"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

func TestShop(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := shopdb.Design()
	if err != nil {
		t.Fatal(err)
	}
	db, err := shopdb.Open(engine.DB, engine.TableName(t, d))
	if err != nil {
		t.Fatal(err)
	}
	mug := shopdb.Product{ProductID: "sku-5", Name: "Mug", Category: "kitchen", Price: 800, Inventory: 1}
	if err := db.Runtime().Create(ctx, "Product", mug.Values()); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	place := func(id string) error {
		return db.PlaceOrder(ctx, shopdb.PlaceOrderParams{OrderID: id, CustomerID: "c1", CustomerName: "Ada",
			Status: shopdb.OrderStatusPending, CreatedAt: at, Total: 800, ShippingAddr: "1 Loop Rd",
			Sku: "sku-5", ProductID: "sku-5", ProductName: "Mug", Quantity: 1, Price: 800})
	}
	if err := place("A1"); err != nil {
		t.Fatal(err)
	}
	var ce *dynamo.ConditionError
	if err := place("A2"); !errors.As(err, &ce) {
		t.Fatalf("no mug left: %v", err)
	}
	pending, err := db.OrdersByStatus(ctx, shopdb.OrderStatusPending, shopdb.Options{})
	if err != nil || len(pending.Items) != 1 || pending.Items[0].OrderID != "A1" || !pending.Items[0].CreatedAt.Equal(at) {
		t.Fatalf("pending: %+v, %v", pending, err)
	}
}

// The generated code of the names of issue 28 reads and writes.
func TestNames(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := namesdb.Design()
	if err != nil {
		t.Fatal(err)
	}
	db, err := namesdb.Open(engine.DB, engine.TableName(t, d))
	if err != nil {
		t.Fatal(err)
	}
	if doc, err := db.GetDoc(ctx, "it-1"); err != nil || doc != nil {
		t.Fatalf("GetDoc of nothing: %v, %v", doc, err)
	}
	if _, err := db.ByAb(ctx, "a", "b", namesdb.Options{}); err != nil {
		t.Fatal(err)
	}
}

// Every kind of attribute round-trips, set and unset.
func TestKinds(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := kindsdb.Design()
	if err != nil {
		t.Fatal(err)
	}
	db, err := kindsdb.Open(engine.DB, engine.TableName(t, d))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	note, phase, maybe, ratio := "hi", kindsdb.ThingPhaseTwo, true, 0.5
	full := kindsdb.Thing{ThingID: "t1", Note: &note, State: kindsdb.ThingStateDone, Phase: &phase, At: at, Seen: &at,
		Flag: true, Maybe: &maybe, Count: 7, Ratio: &ratio}
	bare := kindsdb.Thing{ThingID: "t2", State: kindsdb.ThingStateNew, At: at}
	for _, th := range []kindsdb.Thing{full, bare} {
		if err := db.Runtime().Create(ctx, "Thing", th.Values()); err != nil {
			t.Fatal(err)
		}
		got, err := db.GetThing(ctx, th.ThingID)
		if err != nil || got == nil {
			t.Fatalf("GetThing(%s): %v, %v", th.ThingID, got, err)
		}
		if fmt.Sprint(got.Values()) != fmt.Sprint(th.Values()) {
			t.Errorf("%s round-trips as %v, want %v", th.ThingID, got.Values(), th.Values())
		}
	}
}
`
