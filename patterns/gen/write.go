package gen

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/keyplan/keyplan/internal/atomicfile"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// File is the file WriteDir writes in its directory.
const File = "keyplan.gen.go"

// WriteDir generates the design's code (Go) and replaces dir/File with it
// atomically (internal/atomicfile: a reader sees the old file or the new
// one, and nothing planted at a temporary name is followed), creating dir
// when it is missing. It returns the file's path and size.
func WriteDir(dir string, d *patterns.Design, o Options) (path string, size int, err error) {
	src, err := Go(d, o)
	if err != nil {
		return "", 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}
	path = filepath.Join(dir, File)
	return path, len(src), atomicfile.WriteFile(path, src, 0o644)
}

// entityWrites writes each entity's typed Create, Put and Delete, whether
// or not a write pattern names it (the runtime's Create, Put and Delete
// by the entity's name). They come after every pattern's and write
// pattern's method, and a name one of those (or anything else) already
// takes is left to it: code generated before keeps its names and
// compiles as it did. Put is there only for an entity it may write (no
// unique alternate key, version or attribute a stream handler keeps:
// those take Create, Update and Delete).
func (g *gen) entityWrites() {
	for _, name := range g.entityNames() {
		e := g.m.Entity(name)
		tn := Exported(name)
		free := func(method, what string) bool {
			if _, taken := g.names[method]; taken {
				return false
			}
			g.names[method] = what + " of entity " + name
			return true
		}
		if free("Create"+tn, "the typed create") {
			g.p("// Create%s writes a new %s item (and its unique values' guards):", tn, name)
			g.p("// dynamo.ErrExists if its key is taken, dynamo.ErrNotUnique if a unique")
			g.p("// value is (both within a *dynamo.ConditionError).")
			g.p("func (db *DB) Create%s(ctx context.Context, v *%s) error {", tn, tn)
			g.p("return db.t.Create(ctx, %q, v.Values())", name)
			g.p("}")
			g.p("")
		}
		if g.puttable(e) && free("Put"+tn, "the typed put") {
			g.p("// Put%s writes a %s item whatever is there (create or overwrite).", tn, name)
			g.p("func (db *DB) Put%s(ctx context.Context, v *%s) error {", tn, tn)
			g.p("return db.t.Put(ctx, %q, v.Values())", name)
			g.p("}")
			g.p("")
		}
		if free("Delete"+tn, "the typed delete") {
			g.p("// Delete%s removes a %s item and its unique values' guards: v holds its", tn, name)
			g.p("// id (and the version and unique values it has); dynamo.ErrChanged (in")
			g.p("// a *dynamo.ConditionError) if it is gone or not as v says.")
			g.p("func (db *DB) Delete%s(ctx context.Context, v *%s) error {", tn, tn)
			g.p("return db.t.Delete(ctx, %q, v.Values())", name)
			g.p("}")
			g.p("")
		}
	}
}

// puttable reports whether the runtime's Put may write entity e: it has
// no unique alternate key, no version and no attribute a stream handler
// keeps.
func (g *gen) puttable(e *model.Entity) bool {
	if e.Version != "" {
		return false
	}
	for _, p := range g.m.Patterns {
		if p.Unique && slices.Contains(p.Entities, e.Name) {
			return false
		}
	}
	for _, a := range e.Attributes {
		if e.Maintained(a.Name) {
			return false
		}
	}
	return true
}
