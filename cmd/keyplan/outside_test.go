package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/dynalite"
	localengine "github.com/keyplan/keyplan/internal/engine"
)

// A user's module, outside this repository (a temporary directory with a
// replace pointing here): keyplan as a Go tool (go tool keyplan), its exit
// codes, validate on the in-process engine with no Node.js on PATH, then
// on dynalite installed on demand into a fresh cache,
// code generated for every example model compiled and vetted, and the
// shop's generated code run in the user's own test against the engine
// dynamotest starts.
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own (about 30 s)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache") // no dynalite here yet: validate installs it
	env := append(os.Environ(), dynalite.EnvCache+"="+cache, dynalite.EnvPath+"=", dynalite.EnvEndpoint+"=", localengine.EnvEngine+"=", "GOFLAGS=")
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
	write("go.mod", "module example.com/shop\n\ngo 1.26\n\nrequire github.com/keyplan/keyplan v0.0.0-00010101000000-000000000000\n\nreplace github.com/keyplan/keyplan => "+filepath.ToSlash(root)+"\n")
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

	// The tool line go get -tool writes (go get itself would ask the module
	// proxy about an unpublished path first; the replace makes it this
	// checkout).
	run(0, "go", "mod", "edit", "-tool=github.com/keyplan/keyplan/cmd/keyplan")
	run(0, "go", "mod", "tidy")
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
	write("app_test.go", appTest)
	run(0, "go", "mod", "tidy")
	run(0, "go", "vet", "./...")
	if out := run(0, "go", "test", "-count=1", "-v", "./..."); !strings.Contains(out, "--- PASS: TestShop") || !strings.Contains(out, "--- PASS: TestKinds") {
		t.Fatalf("the user's test did not run:\n%s", out)
	}
}

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
