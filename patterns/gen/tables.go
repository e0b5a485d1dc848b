package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/keyplan/keyplan/internal/atomicfile"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// One package for a model of several tables (tables:): every entity,
// pattern and write of the model, each bound to its table, through one
// DB that Open makes from the deployed names of the tables (a resolver:
// the model's table name to the deployed one). The methods are those a
// package of one table has (names are one namespace across the tables);
// DB.Transact runs write patterns of several tables as one transaction
// (dynamo.TransactTables). A package of one table (Go, gen go --table)
// is unchanged.

// modelReserved are the names a model's package defines besides the
// entities', patterns' and the tables' constants.
var modelReserved = []string{"DB", "Open", "OpenLocks", "Lock", "Design", "Options", "Page", "Runtime", "Transact", "Tables"}

// Table is one table of a model, for GoTables: its design and, when it
// has one, its lock (which must have accepted the design).
type Table struct {
	Design *patterns.Design
	Lock   *patterns.Lock
}

// GoTables writes one package for the tables of a model (o.Lock is not
// read: each table's is its own).
func GoTables(ts []Table, o Options) ([]byte, error) {
	if err := CheckPackage(o.Package); err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("no table")
	}
	names := map[string]string{}
	for _, r := range modelReserved {
		names[r] = "keyplan's generated API"
	}
	decoders := map[string]bool{}
	gens := make([]*gen, len(ts))
	fields := make([]string, len(ts))
	for i, t := range ts {
		g := newGen(t.Design)
		g.names = names
		for k := range g.decoders {
			decoders[k] = true
		}
		g.decoders = decoders
		gens[i] = g
		fields[i] = "t" + Exported(t.Design.Table)
		if err := g.claim("Table"+Exported(t.Design.Table), "table "+t.Design.Table); err != nil {
			return nil, err
		}
		if t.Lock != nil && !t.Lock.Accepts(t.Design) {
			return nil, fmt.Errorf("table %s: its lock %s has not accepted the model's design (no table has it, and no code is generated for it): keyplan diff shows the change, keyplan lock accepts it", t.Design.Table, t.Lock.Source())
		}
	}
	top := gens[0]
	var tableNames []string
	for _, t := range ts {
		tableNames = append(tableNames, t.Design.Table)
	}
	top.p("%s", Header)
	if o.Source != "" {
		top.p("// Source: %s (keyplan gen go)", commentText(o.Source))
	}
	top.p("")
	top.p("// Package %s reads and writes the tables %s as the model's keyplan designs say:", o.Package, commentText(strings.Join(tableNames, ", ")))
	top.p("// one typed method per access pattern, each one GetItem, Query or write of its table.")
	top.p("package %s", o.Package)
	top.p("")
	top.imports()
	top.p("")
	top.p("// The model's tables, by their names in the model (Open resolves each to its deployed name).")
	top.p("const (")
	for _, t := range ts {
		top.p("Table%s = %q", Exported(t.Design.Table), t.Design.Table)
	}
	top.p(")")
	top.p("")
	top.p("// Tables are the model's tables, in the order declared.")
	top.p("var Tables = []string{%s}", tableList(ts))
	for i, t := range ts {
		if len(t.Design.Indexes) == 0 {
			continue
		}
		top.p("")
		top.p("// The %s table's GSIs.", commentText(t.Design.Table))
		top.p("const (")
		for _, ix := range t.Design.Indexes {
			name := "Index" + Exported(t.Design.Table) + Exported(ix.Name)
			if err := gens[i].claim(name, "index "+ix.Name+" of table "+t.Design.Table); err != nil {
				return nil, err
			}
			top.p("%s = %q", name, ix.Name)
		}
		top.p(")")
	}
	if err := embedTables(top, ts, fields, o); err != nil {
		return nil, err
	}
	top.helpers()
	var src bytes.Buffer
	src.Write(top.buf.Bytes())
	for i, g := range gens {
		g.buf.Reset()
		if err := g.body(); err != nil {
			return nil, err
		}
		body := bytes.ReplaceAll(g.buf.Bytes(), []byte("db.t."), []byte("db."+fields[i]+"."))
		body = bytes.ReplaceAll(body, []byte("db.t,"), []byte("db."+fields[i]+","))
		src.Write(body)
	}
	out, err := format.Source(src.Bytes())
	if err != nil {
		return nil, fmt.Errorf("generated code does not parse (a keyplan bug): %w", err)
	}
	return out, nil
}

func tableList(ts []Table) string {
	var s []string
	for _, t := range ts {
		s = append(s, "Table"+Exported(t.Design.Table))
	}
	return strings.Join(s, ", ")
}

// embedTables writes each table's embedded lock (or design), DB with a
// runtime per table, Open, OpenLocks, Lock, Design, Runtime and Transact.
func embedTables(g *gen, ts []Table, fields []string, o Options) error {
	g.p("")
	g.p("// DB is the model's tables, each read and written through its patterns.")
	g.p("type DB struct {")
	for i := range ts {
		g.p("%s *dynamo.Table", fields[i])
	}
	g.p("}")
	for _, t := range ts {
		x := Exported(t.Design.Table)
		if t.Lock != nil {
			raw, err := t.Lock.Bytes()
			if err != nil {
				return err
			}
			g.p(`
// lock%sJSON is the %s table's lock the code was generated with.
const lock%sJSON = %s

var lock%s = sync.OnceValues(func() (*patterns.Lock, error) {
	return patterns.ReadLock("the %s lock embedded in package %s", strings.NewReader(lock%sJSON))
})`, x, commentText(t.Design.Table), x, strconv.Quote(string(raw)), x, commentText(t.Design.Table), o.Package, x)
			continue
		}
		raw, err := t.Design.MarshalJSON()
		if err != nil {
			return err
		}
		g.p(`
// design%sJSON is the %s table's design the code was generated from
// (the model had no lock for it).
const design%sJSON = %s`, x, commentText(t.Design.Table), x, strconv.Quote(string(raw)))
	}
	// design(table) and lock(table)
	g.p("")
	g.p("// lock is the embedded lock of table (nil, nil: the code was generated without one).")
	g.p("func lock(table string) (*patterns.Lock, error) {")
	g.p("switch table {")
	for _, t := range ts {
		x := Exported(t.Design.Table)
		g.p("case Table%s:", x)
		if t.Lock != nil {
			g.p("return lock%s()", x)
		} else {
			g.p("return nil, nil")
		}
	}
	g.p("}")
	g.p("return nil, unknownTable(table)")
	g.p("}")
	g.p(`
func unknownTable(table string) error {
	return fmt.Errorf("table %%q: the model's tables are %%s", table, strings.Join(Tables, ", "))
}

// Lock is the lock of table (a Table constant) the code was generated
// with, a copy of its own for each call (nil, nil: generated without one).
func Lock(table string) (*patterns.Lock, error) {
	switch table {`)
	for _, t := range ts {
		x := Exported(t.Design.Table)
		g.p("case Table%s:", x)
		if t.Lock != nil {
			g.p("return patterns.ReadLock(\"the %s lock embedded in package %s\", strings.NewReader(lock%sJSON))", commentText(t.Design.Table), o.Package, x)
		} else {
			g.p("return nil, nil")
		}
	}
	g.p(`}
	return nil, unknownTable(table)
}

// Design is the design of table the code was generated from.
func Design(table string) (*patterns.Design, error) {
	l, err := lock(table)
	switch {
	case err != nil:
		return nil, err
	case l != nil:
		return l.Latest(), nil
	}
	switch table {`)
	for _, t := range ts {
		if t.Lock == nil {
			x := Exported(t.Design.Table)
			g.p("case Table%s:", x)
			g.p("return patterns.ReadDesign(\"the %s design embedded in package %s\", strings.NewReader(design%sJSON))", commentText(t.Design.Table), o.Package, x)
		}
	}
	g.p(`}
	return nil, unknownTable(table)
}

// Open returns the DB over the model's tables through client (one
// account and Region: a transaction may span them), each table named as
// deployed by name(table): the construct's table name, say from each
// table's environment variable; a map's lookup serves. Each table runs
// as its embedded lock deploys it (OpenLocks: as other locks do).
// Options set up each table's runtime, as a package of one table's Open.
func Open(client dynamo.Client, name func(table string) string, opts ...dynamo.Option) (*DB, error) {
	return OpenLocks(nil, client, name, opts...)
}

// OpenLocks is Open with the locks of locks (by table; a table it does
// not name: its embedded lock), each of which must lead to the design
// the code was generated from.
func OpenLocks(locks map[string]*patterns.Lock, client dynamo.Client, name func(table string) string, opts ...dynamo.Option) (*DB, error) {
	for t := range locks {
		if _, err := Design(t); err != nil {
			return nil, err
		}
	}
	db := &DB{}
	for _, table := range Tables {
		deployed := name(table)
		if deployed == "" {
			return nil, fmt.Errorf("table %%s: no deployed name (the name function returned \"\")", table)
		}
		d, err := Design(table)
		if err != nil {
			return nil, err
		}
		l := locks[table]
		if l == nil {
			if l, err = lock(table); err != nil {
				return nil, err
			}
		} else if !l.Accepts(d) {
			return nil, fmt.Errorf("table %%s: the lock %%s leads to another design than package %s was generated from: generate it again (keyplan gen go)", table, l.Source())
		}
		var t *dynamo.Table
		if l != nil {
			t = dynamo.NewRollout(l, client, deployed, opts...)
		} else {
			t = dynamo.New(d, client, deployed, opts...)
		}
		switch table {`, o.Package)
	for i, t := range ts {
		g.p("case Table%s:", Exported(t.Design.Table))
		g.p("db.%s = t", fields[i])
	}
	g.p(`}
	}
	return db, nil
}

// Runtime is the runtime of table underneath (nil: no such table), for
// what the typed methods do not cover.
func (db *DB) Runtime(table string) *dynamo.Table {
	switch table {`)
	for i, t := range ts {
		g.p("case Table%s:", Exported(t.Design.Table))
		g.p("return db.%s", fields[i])
	}
	g.p(`}
	return nil
}

// Transact runs write patterns of any of the tables as one transaction,
// all or nothing (dynamo.TransactTables): each call's write pattern runs
// on the table that holds its entities.
func (db *DB) Transact(ctx context.Context, calls ...dynamo.WriteCall) error {
	tcs := make([]dynamo.TableCall, len(calls))
	for i, c := range calls {
		tcs[i] = dynamo.TableCall{Table: db.writes(c.Write), Write: c.Write, Params: c.Params}
		if tcs[i].Table == nil {
			return fmt.Errorf("Transact op %%d: %%w %%q (the model's tables write none of that name)", i+1, dynamo.ErrUnknownWrite, c.Write)
		}
	}
	return dynamo.TransactTables(ctx, tcs...)
}

// writes is the runtime of the table whose write pattern name is.
func (db *DB) writes(name string) *dynamo.Table {
	switch name {`)
	for i, t := range ts {
		var ws []string
		for _, w := range t.Design.Model().Writes {
			if w.Op != model.WriteBatch {
				ws = append(ws, strconv.Quote(w.Name))
			}
		}
		if len(ws) > 0 {
			g.p("case %s:", strings.Join(ws, ", "))
			g.p("return db.%s", fields[i])
		}
	}
	g.p(`}
	return nil
}`)
	return nil
}

// WriteTablesDir writes GoTables' package into dir as File.
func WriteTablesDir(dir string, ts []Table, o Options) (path string, size int, err error) {
	src, err := GoTables(ts, o)
	if err != nil {
		return "", 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}
	path = filepath.Join(dir, File)
	return path, len(src), atomicfile.WriteFile(path, src, 0o644)
}
