package gen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Every example and test model generates, gofmt'ed, headed, and the same
// twice (compiling and running it is the outside-module test's, in
// cmd/keyplan, and examples/shopdb's).
func TestEveryModelGenerates(t *testing.T) {
	for _, f := range testmodel.Files(t) {
		d := keyplantest.Design(t, f)
		a, err := Go(d, Options{Package: "db", Source: f})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		b, _ := Go(d, Options{Package: "db", Source: f})
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs differ", f)
		}
		if !bytes.HasPrefix(a, []byte(Header+"\n")) {
			t.Errorf("%s: no generated-code header", f)
		}
		if !bytes.Contains(a, []byte("environment variable "+patterns.TableNameEnv+" the construct")) {
			t.Errorf("%s: Open's comment does not name the variable the construct sets, %s", f, patterns.TableNameEnv)
		}
		for _, p := range d.Model().Patterns {
			if !bytes.Contains(a, []byte("func (db *DB) "+Exported(p.Name)+"(")) {
				t.Errorf("%s: no method for pattern %s", f, p.Name)
			}
		}
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"customerId": "CustomerID", "orderIds": "OrderIDs", "name": "Name", "in-progress": "InProgress", "2fa": "X2fa", "avatarUrl": "AvatarURL", "Id": "Id"} {
		if got := Exported(in); got != want {
			t.Errorf("Exported(%q) = %q, want %q", in, got, want)
		}
	}
}

// Names Go cannot hold apart are refused with what collides.
func TestRefusals(t *testing.T) {
	collide := func(yaml string) error {
		t.Helper()
		m, err := model.Parse("m.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Go(d, Options{Package: "db"})
		return err
	}
	for name, c := range map[string]struct{ yaml, want string }{
		"fields": {`table: T
entities:
  Doc:
    id: [docId]
    attributes: {docId: string, doc_id: string}
patterns:
  GetDoc: {get: Doc}
`, "attributes docId and doc_id both become the Go field DocID"},
		"pattern and entity": {`table: T
entities:
  Doc:
    id: [docId]
    attributes: {docId: string}
patterns:
  Doc: {get: Doc}
`, "pattern Doc becomes the Go name Doc, which entity Doc already takes"},
		"reserved": {`table: T
entities:
  Doc:
    id: [docId]
    attributes: {docId: string}
patterns:
  Open: {get: Doc}
`, "pattern Open becomes the Go name Open, which keyplan's generated API already takes"},
	} {
		if err := collide(c.yaml); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	d := keyplantest.Design(t, "../../examples/ecommerce.yaml")
	for _, pkg := range []string{"", "func", "shop-db", "_", "main"} {
		if _, err := Go(d, Options{Package: pkg}); err == nil || !strings.Contains(err.Error(), "expected a Go package name") {
			t.Errorf("package %q: %v", pkg, err)
		}
	}
}

// plan parses and plans a model given as text.
func plan(t *testing.T, yaml string) *patterns.Design {
	t.Helper()
	return keyplantest.Parse(t, "m.yaml", []byte(yaml))
}

// issueNames is testdata/issue28names.yaml: the names that made
// generated code fail to compile (issue 28). The outside module's test
// (cmd/keyplan) generates code from the same file.
func issueNames(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/issue28names.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The names of issue 28 compile, renamed by the documented rule.
func TestIssueNamesCompile(t *testing.T) {
	d := plan(t, issueNames(t))
	for _, dg := range d.Diagnostics {
		if dg.Severity == patterns.SeverityError {
			t.Fatalf("the model has an error (keyplan gen go would refuse it): %v", dg)
		}
	}
	src, err := Go(d, Options{Package: "db"})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheck(t, "db", src); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"func (db *DB) GetDoc(ctx context.Context, it_ string) (*Doc, error)",
		"func (db *DB) ByDynamo(ctx context.Context, dynamo_ string, o Options)",
		"func (db *DB) ByString(ctx context.Context, string_ string, o Options)",
		"func (db *DB) ByReadPage(ctx context.Context, readPage_ string, o Options)",
		"func (db *DB) ByDecoder(ctx context.Context, decodeDoc_ string, o Options)",
		"func (db *DB) ByAb(ctx context.Context, ab string, ab_ string, o Options)",
		"func (db *DB) ByNil(ctx context.Context, nil_ string) (*Doc, error)",
		"func (db *DB) ByCtx(ctx context.Context, ctx_ DocCtx, o_ float64, o Options)",
		"func (db *DB) GetNote(ctx context.Context, it_ string, err_ string) (*Note, error)",
		`x["values"] = v.Values_`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("no %q in the generated code", want)
		}
	}
}

// Generated code, and the same code compiled by go build and vetted by
// go vet in a module of its own (the bounded version of FuzzGenCompiles,
// with the real toolchain): the models of issue 28, and each example
// with an odd but legal package name; the shop's code mid-migration and
// the gaps model's (gapsTest) are run on the engine, and so are the
// packages earlier keyplans generated (earlierPackages).
func TestGeneratedCodeBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// The repository's requirements (so nothing is looked up), keyplan
	// itself replaced by this checkout.
	mod := strings.Replace(string(gomod), "module "+patterns.Module, "module example.com/gencheck", 1) +
		"\nrequire " + patterns.Module + " v0.0.0-00010101000000-000000000000\n\nreplace " + patterns.Module + " => " + filepath.ToSlash(root) + "\n"
	write("go.mod", []byte(mod))
	write("go.sum", sum)
	gen := func(dir, pkg string, d *patterns.Design) {
		t.Helper()
		src, err := Go(d, Options{Package: pkg})
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join(dir, "keyplan.gen.go"), src)
	}
	gen("issue", "db", plan(t, issueNames(t)))
	for i, f := range testmodel.Files(t) {
		pkg := []string{"dynamo", "fmt", "string", "nil", "types", "patterns"}[i%6]
		gen(fmt.Sprintf("m%d", i), pkg, keyplantest.Design(t, f))
	}
	// The shop in the middle of a migration, generated with its lock: the
	// code reads and writes through the rollout runtime (run against the
	// engine by the test written beside it).
	_, _, lock := evolvetest.ShopMigration(t, root)
	src, err := Go(lock.Latest(), Options{Package: "shopdb", Lock: lock})
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join("migrating", "keyplan.gen.go"), src)
	write(filepath.Join("migrating", "migrating_test.go"), []byte(migratingTest))
	// The gaps model's code, run on the engine against the reference.
	gen("gaps", "gapsdb", keyplantest.Design(t, "../testdata/models/gaps.yaml"))
	write(filepath.Join("gaps", "gaps_test.go"), []byte(gapsTest))
	// The tickets' batch reads, run on the engine against the reference.
	gen("tickets", "ticketsdb", keyplantest.Design(t, "../testdata/models/tickets.yaml"))
	write(filepath.Join("tickets", "tickets_test.go"), []byte(ticketsTest))
	// A model without write patterns: its entities' typed Create, Put and
	// Delete, and pages continued by their cursors (issue 35, item 11).
	gen("typed", "typeddb", plan(t, typedModel))
	write(filepath.Join("typed", "typed_test.go"), []byte(typedTest))
	// The arena model's code: its LSIs read consistently.
	gen("arena", "arenadb", keyplantest.Design(t, "../testdata/models/arena.yaml"))
	write(filepath.Join("arena", "arena_test.go"), []byte(arenaTest))
	// Values kept in S3: their typed accessors, on an object store.
	gen("docs", "docsdb", plan(t, docsModel))
	write(filepath.Join("docs", "docs_test.go"), []byte(docsTest))
	// A model of two tables, one package: run on the engine.
	src, err = GoTables(storefrontTables(t), Options{Package: "storefrontdb"})
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join("storefront", "keyplan.gen.go"), src)
	write(filepath.Join("storefront", "storefront_test.go"), []byte(storefrontTest))
	// The packages earlier keyplans generated (testdata/compat), with a
	// test of each: generated code is a contract.
	earlier := writeEarlierPackages(t, dir)
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, append([]string{"test", "-count=1", "./migrating", "./gaps", "./tickets", "./typed", "./arena", "./docs", "./storefront"}, earlier...)} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// migratingTest runs the shop's code generated during its migration to
// ShopV2 (phase 1: GSI3 created, Order and Product still to backfill) on
// the engine: a pattern new in the target answers ErrNotReady instead of
// an engine error or an empty page, the patterns of the accepted design
// still answer, and a write carries both designs' keys.
const migratingTest = `package shopdb

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

func TestDuringTheMigration(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	l, err := Lock()
	if err != nil || l.Migration == nil {
		t.Fatalf("the embedded lock: %v", err)
	}
	if err := dynamo.CreateLockTable(ctx, engine.Raw, l, "shop-migrating"); err != nil {
		t.Fatal(err)
	}
	db, err := Open(engine.DB, "shop-migrating")
	if err != nil {
		t.Fatal(err)
	}
	p := Product{ProductID: "p1", Name: "Mug", Category: "kitchen", Price: 800, Inventory: 3}
	if err := db.Runtime().Create(ctx, "Product", p.Values()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ProductsByPrice(ctx, "kitchen", Options{}); !errors.Is(err, dynamo.ErrNotReady) {
		t.Errorf("a pattern new in the target during phase 1: %v, want dynamo.ErrNotReady", err)
	}
	page, err := db.ProductsByCategory(ctx, "kitchen", Options{})
	if err != nil || len(page.Items) != 1 {
		t.Errorf("a pattern of the accepted design: %+v, %v", page, err)
	}
	key, _ := db.Runtime().Key("Product", p.Values())
	out, err := engine.Raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("shop-migrating"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"GSI1PK", "GSI2PK"} {
		if out.Item[k] == nil {
			t.Errorf("the product written lacks %s: %v", k, out.Item)
		}
	}
	// A lock that leads elsewhere is refused.
	l.Migration = nil
	if _, err := OpenLock(l, engine.DB, "shop-migrating"); err == nil {
		t.Error("OpenLock took a lock that leads to another design")
	}
}
`

// WriteDir writes DIR/keyplan.gen.go (making DIR), replacing an older
// file, and never writes through a symlink planted at the name the old
// writer's temporary file had (keyplan.gen.go.tmp).
func TestWriteDir(t *testing.T) {
	d := keyplantest.Design(t, "../../examples/ecommerce.yaml")
	dir := filepath.Join(t.TempDir(), "shopdb")
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		path, size, err := WriteDir(dir, d, Options{Package: "shopdb"})
		if err != nil {
			t.Fatal(err)
		}
		src, _ := os.ReadFile(path)
		if path != filepath.Join(dir, File) || size != len(src) || !bytes.HasPrefix(src, []byte(Header)) {
			t.Fatalf("WriteDir: %s, %d bytes; the file has %d", path, size, len(src))
		}
		if i == 0 && runtime.GOOS != "windows" {
			if err := os.Symlink(victim, path+".tmp"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Errorf("the planted link's target now holds %.40q", got)
	}
	if _, _, err := WriteDir(dir, d, Options{Package: "main"}); err == nil || !strings.Contains(err.Error(), `package "main"`) {
		t.Errorf("package main: %v", err)
	}
}

// What the header's comment quotes (the model's file name) cannot end the
// comment or make the code read as other code: a line break and the
// bidirectional controls are written as their escapes, as everywhere
// keyplan prints text (patterns.Printable). On main a right-to-left
// override reached the generated code as it was.
func TestGeneratedCommentsEscape(t *testing.T) {
	d := keyplantest.Design(t, "../../examples/leaderboard.yaml")
	src, err := Go(d, Options{Package: "db", Source: "models/evil\u202e\u2066lmay.\nfunc init() { panic(1) }.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []rune{'\u202e', '\u2066'} {
		if bytes.ContainsRune(src, r) {
			t.Errorf("the generated code holds %U raw", r)
		}
	}
	if !bytes.Contains(src, []byte(`// Source: models/evil\u202e\u2066lmay.\nfunc init() { panic(1) }.yaml`)) || bytes.Contains(src, []byte("\nfunc init()")) {
		t.Errorf("the header:\n%s", src[:min(len(src), 400)])
	}
}

const typedModel = `table: Desk
entities:
  Tenant:
    id: [tenantId]
    attributes: {tenantId: {type: string, maxLength: 40}, name: {type: string, maxLength: 100}}
  Ticket:
    id: [tenantId, ticketId]
    within: Tenant
    attributes: {tenantId: {type: string, maxLength: 40}, ticketId: {type: string, maxLength: 40}, subject: {type: string, maxLength: 100}}
patterns:
  GetTenant: {get: Tenant}
  GetTicket: {get: Ticket}
  Tickets: {query: Ticket, where: [tenantId]}
  TenantWithTickets: {query: [Tenant, Ticket], where: [tenantId]}
`

// typedTest creates, overwrites and deletes items of a model without
// write patterns through their typed methods, and pages a read with its
// cursor: every ticket once, and the cursor refused by another pattern.
const typedTest = `package typeddb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/dynamo/dynamotest"
)

func TestTypedWritesAndCursors(t *testing.T) {
	ctx := context.Background()
	engine := dynamotest.Start(t)
	d, err := Design()
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(engine.DB, engine.TableName(t, d))
	if err != nil {
		t.Fatal(err)
	}
	// A nil item is refused with what is missing, not a nil dereference.
	for name, write := range map[string]func() error{
		"CreateTenant": func() error { return db.CreateTenant(ctx, nil) },
		"PutTenant":    func() error { return db.PutTenant(ctx, nil) },
		"DeleteTenant": func() error { return db.DeleteTenant(ctx, nil) },
	} {
		if err := write(); !errors.Is(err, dynamo.ErrMissing) || !strings.Contains(err.Error(), "Tenant") {
			t.Errorf("%s(ctx, nil): %v, want dynamo.ErrMissing naming what is missing", name, err)
		}
	}
	acme := &Tenant{TenantID: "t1", Name: "Acme"}
	if err := db.CreateTenant(ctx, acme); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateTenant(ctx, acme); !errors.Is(err, dynamo.ErrExists) {
		t.Errorf("a second create: %v, want dynamo.ErrExists", err)
	}
	if err := db.CreateTenant(ctx, &Tenant{TenantID: "t10", Name: "Other"}); err != nil {
		t.Fatal(err)
	}
	acme.Name = "Acme Inc"
	if err := db.PutTenant(ctx, acme); err != nil {
		t.Fatal(err)
	}
	if got, err := db.GetTenant(ctx, "t1"); err != nil || got == nil || got.Name != "Acme Inc" {
		t.Errorf("after the put: %+v, %v", got, err)
	}
	for i := range 5 {
		if err := db.CreateTicket(ctx, &Ticket{TenantID: "t1", TicketID: fmt.Sprintf("k%d", i), Subject: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateTicket(ctx, &Ticket{TenantID: "t10", TicketID: "k0", Subject: "s"}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	o := Options{Limit: 2}
	pages := 0
	for {
		page, err := db.Tickets(ctx, "t1", o)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range page.Items {
			seen[it.TenantID+"/"+it.TicketID]++
		}
		if page.Cursor == "" {
			if page.Next != nil {
				t.Error("a page with Next and no Cursor")
			}
			break
		}
		if page.Next == nil || strings.Contains(page.Cursor, "TICKET") {
			t.Errorf("cursor %q (Next %v): want an opaque string beside Next", page.Cursor, page.Next)
		}
		if _, err := db.TenantWithTickets(ctx, "t1", Options{Cursor: page.Cursor}); !errors.Is(err, dynamo.ErrCursor) || !strings.Contains(err.Error(), "continues pattern Tickets, not TenantWithTickets") {
			t.Errorf("another pattern's cursor: %v, want dynamo.ErrCursor naming both", err)
		}
		o.Cursor = page.Cursor
		if pages > 5 {
			t.Fatal("the cursor does not advance")
		}
	}
	if len(seen) != 5 || pages < 3 {
		t.Errorf("%d pages, tickets %v: want t1's 5 once each", pages, seen)
	}
	for k, n := range seen {
		if n != 1 || !strings.HasPrefix(k, "t1/") {
			t.Errorf("%s read %d times", k, n)
		}
	}
	if _, err := db.Tickets(ctx, "t1", Options{Cursor: "not-a-cursor!"}); !errors.Is(err, dynamo.ErrCursor) {
		t.Errorf("a string no page gave: %v, want dynamo.ErrCursor", err)
	}
	if err := db.DeleteTicket(ctx, &Ticket{TenantID: "t1", TicketID: "k0"}); err != nil {
		t.Fatal(err)
	}
	if got, err := db.GetTicket(ctx, "t1", "k0"); err != nil || got != nil {
		t.Errorf("after the delete: %+v, %v", got, err)
	}
}
`
