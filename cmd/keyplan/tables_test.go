package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// A model of two tables: keyplan lock writes one lock per table beside
// the model, diff compares each table with its own, and a change to one
// table is that table's change only; plan and check cover both.
func TestTablesLockDiff(t *testing.T) {
	enginepass.Independent(t)
	dir := t.TempDir()
	src, err := os.ReadFile("../../patterns/testdata/tables/storefront.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "storefront.yaml")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := keyplan("lock", file); code != 0 || !strings.Contains(out, "storefront.Orders.lock.json: written") || !strings.Contains(out, "storefront.Sessions.lock.json: written") {
		t.Fatalf("lock: %d\n%s%s", code, out, errs)
	}
	for _, name := range []string{"storefront.Orders.lock.json", "storefront.Sessions.lock.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "storefront.lock.json")); err == nil {
		t.Error("a model of two tables wrote the one-table lock")
	}
	if code, out, errs := keyplan("diff", file); code != 0 || strings.Count(out, "no change: the lock is up to date") != 2 {
		t.Fatalf("diff: %d\n%s%s", code, out, errs)
	}
	// A new read of carts by sku: the Sessions table gets a GSI (synthetic:
	// a backfill, exit 1), the Orders table no change.
	changed := strings.Replace(string(src), "  CartItems:", "  CartsBySku:        {query: Cart, where: [sku], rate: 1}\n  CartItems:", 1)
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := keyplan("diff", file)
	orders, sessions, _ := strings.Cut(out, "table Sessions (")
	if code != 1 || !strings.Contains(orders, "table Orders (") || !strings.Contains(orders, "no change") || strings.Contains(sessions, "no change") || !strings.Contains(sessions, "CartsBySku") {
		t.Fatalf("diff after a change to Sessions: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := keyplan("check", file); code != 0 || strings.Count(out, "0 error(s)") != 2 ||
		!strings.Contains(out, "storefront.yaml (table Orders): 0 error(s)") || !strings.Contains(out, "storefront.yaml (table Sessions): 0 error(s)") {
		t.Fatalf("check: %d\n%s%s", code, out, errs)
	}
	if code, out, _ := keyplan("plan", file); code != 0 || !strings.Contains(out, "table Orders") || !strings.Contains(out, "table Sessions") {
		t.Fatalf("plan: %d\n%s", code, out)
	}
}

// keyplan validate proves each table of a model of two on a table of its
// own: the examples, and generated data compared with the reference
// evaluator; gen go writes the package of the table --table names.
func TestTablesValidateAndGen(t *testing.T) {
	const file = "../../patterns/testdata/tables/storefront.yaml"
	code, out, errs := keyplan("validate", "--generate", "20", "--seed", "7", "--endpoint", engine(t), file)
	if code != 0 || strings.Count(out, "generated data (seed 7): ok") != 2 || !strings.Contains(out, "ok   CartItems(sessionId=s2): [k1]") || !strings.Contains(out, "ok   CustomerOrders(customerId=t1): [o1 t1] in order") {
		t.Fatalf("validate: %d\nstdout: %q\nstderr: %q", code, out, errs)
	}
	dir := t.TempDir()
	// without --table: one package for the model's tables
	if code, out, errs := keyplan("gen", "go", file, "--package", "storefrontdb", "--out", filepath.Join(dir, "all")); code != 0 || !strings.Contains(out, "package storefrontdb") {
		t.Errorf("gen without --table: %d %s%s", code, out, errs)
	} else if src, err := os.ReadFile(filepath.Join(dir, "all", "keyplan.gen.go")); err != nil || !strings.Contains(string(src), "return db.tOrders.Write(ctx, \"PlaceOrder\"") || !strings.Contains(string(src), "func (db *DB) GetSession(") {
		t.Errorf("the model's package: %v", err)
	}
	if code, _, errs := keyplan("gen", "go", file, "--package", "x", "--out", dir, "--table", "Carts"); code != 2 || !strings.Contains(errs, `--table "Carts": the model declares tables Orders, Sessions`) {
		t.Errorf("gen --table Carts: %d %s", code, errs)
	}
	if code, out, errs := keyplan("gen", "go", file, "--package", "ordersdb", "--out", dir, "--table", "Orders"); code != 0 || !strings.Contains(out, "package ordersdb") {
		t.Fatalf("gen --table Orders: %d %s%s", code, out, errs)
	}
	src, err := os.ReadFile(filepath.Join(dir, "keyplan.gen.go"))
	if err != nil || !strings.Contains(string(src), "func (db *DB) PlaceOrder(") || strings.Contains(string(src), "GetSession") {
		t.Errorf("the Orders package: %v", err)
	}
}

// plan --format html draws one self-contained page: of the table --table
// names in a model of several, refused (exit 2, naming the tables) without
// it, where it printed two documents one after the other; plan --table
// plans that table alone in every format.
func TestTablesPlanPage(t *testing.T) {
	enginepass.Independent(t)
	const file = "../../patterns/testdata/tables/storefront.yaml"
	if code, out, errs := keyplan("plan", "--format", "html", file); code != 2 || out != "" || !strings.Contains(errs, "--table NAME") {
		t.Errorf("plan --format html of two tables: %d %q %s", code, out, errs)
	}
	if code, out, errs := keyplan("plan", "--format", "html", "--table", "Sessions", file); code != 0 || strings.Count(out, "<!DOCTYPE html>") != 1 || !strings.Contains(out, "<title>keyplan: Sessions</title>") {
		t.Errorf("plan --format html --table Sessions: %d, %d page(s) %s", code, strings.Count(out, "<!DOCTYPE html>"), errs)
	}
	if code, out, errs := keyplan("plan", "--table", "Orders", file); code != 0 || !strings.Contains(out, "table Orders") || strings.Contains(out, "table Sessions") {
		t.Errorf("plan --table Orders: %d %s%s", code, out, errs)
	}
	if code, _, errs := keyplan("plan", "--table", "Carts", file); code != 2 || !strings.Contains(errs, `--table "Carts": the model declares tables Orders, Sessions`) {
		t.Errorf("plan --table Carts: %d %s", code, errs)
	}
}

// In a model of one table, --table picks nothing: a name that is not its
// table is planned as before (a script that passed the deployed table's
// name keeps working), with a note that names the table planned.
func TestOneTableNamedOtherwise(t *testing.T) {
	const file = "../../examples/leaderboard.yaml"
	code, out, errs := keyplan("plan", "--table", "prod-scores", file)
	if code != 0 || out == "" || !strings.Contains(errs, `--table "prod-scores": the model's one table is `) {
		t.Errorf("plan --table prod-scores: %d %q %s", code, out, errs)
	}
	if code, out, errs := keyplan("gen", "go", file, "--package", "scoresdb", "--out", t.TempDir(), "--table", "prod-scores"); code != 0 || !strings.Contains(out, "package scoresdb") || !strings.Contains(errs, "leaderboard.yaml: --table") {
		t.Errorf("gen --table prod-scores: %d %s%s", code, out, errs)
	}
	if code, _, errs := keyplan("plan", "--table", "Leaderboard", file); code != 0 || errs != "" {
		t.Errorf("plan --table Leaderboard (its own): %d %s", code, errs)
	}
}

// The README's plan of the leaderboard is what keyplan prints (it once
// lacked lines keyplan had added since).
func TestReadmePlanIsTheOutput(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "$ go run ./cmd/keyplan plan examples/leaderboard.yaml\n"
	_, sample, ok := strings.Cut(string(readme), cmd)
	sample, _, closed := strings.Cut(sample, "```")
	if !ok || !closed {
		t.Fatalf("the README has no %q block", strings.TrimSpace(cmd))
	}
	code, out, errs := keyplan("plan", "../../examples/leaderboard.yaml")
	if out = strings.ReplaceAll(out, "../../examples/", "examples/"); code != 0 || out != sample {
		t.Errorf("keyplan plan examples/leaderboard.yaml: exit %d %s\n%s\nthe README shows:\n%s", code, errs, out, sample)
	}
}
