package gen

import (
	"github.com/keyplan/keyplan/patterns/model"
)

// objectReads writes, for each attribute kept in S3 (store: s3), the
// typed accessor that reads its value on demand: Load<Entity><Attr>
// (db.LoadDocBody(ctx, doc)), one GetObject of the key the item holds
// (the struct's field after a read). They come last, and a name already
// taken is left to what took it (the accessor is then
// Load<Entity><Attr>Object), as entityWrites does.
func (g *gen) objectReads() {
	for _, name := range g.entityNames() {
		e := g.m.Entity(name)
		tn := Exported(name)
		for _, a := range e.ObjectAttrs() {
			method := ""
			for _, m := range []string{"Load" + tn + Exported(a.Name), "Load" + tn + Exported(a.Name) + "Object"} {
				if _, taken := g.names[m]; !taken {
					method = m
					break
				}
			}
			if method == "" {
				continue
			}
			g.names[method] = "the accessor of " + name + "." + a.Name
			f, typ := g.field(e, a)
			g.p("// %s reads %s.%s's value, kept in S3 (store: s3), from the object", method, name, a.Name)
			g.p("// whose key v.%s holds as a read returns it: one GetObject, on the", f)
			g.p("// ObjectStore Open was given (dynamo.WithObjects); dynamo.ErrNoObject if")
			if a.Optional {
				g.p("// the bucket has no such object. nil, nil when v holds none.")
			} else if typ == "[]byte" {
				g.p("// the bucket has no such object. The bytes are the object's, as written.")
			} else {
				g.p("// the bucket has no such object.")
			}
			g.p("func (db *DB) %s(ctx context.Context, v *%s) (%s, error) {", method, tn, typ)
			// A binary's field is a []byte, nil when an optional one is
			// absent; a string's a string, or a *string.
			binary := typ == "[]byte"
			val, zero := "v."+f, `""`
			switch {
			case binary && a.Optional:
				g.p("if v.%s == nil { return nil, nil }", f)
				zero = "nil"
			case binary:
				zero = "nil"
			case a.Optional:
				g.p("if v.%s == nil { return nil, nil }", f)
				val, zero = "*v."+f, "nil"
			}
			g.p("b, err := db.t.Object(ctx, %q, %q, dynamo.Values{%q: %s})", name, a.Name, a.Name, val)
			g.p("if err != nil { return %s, err }", zero)
			switch {
			case binary:
				g.p("return b, nil")
			case a.Optional:
				g.p("s := %s(b)", baseTypeBuiltin(typ[1:]))
				g.p("return &s, nil")
			default:
				g.p("return %s(b), nil", typ)
			}
			g.p("}")
			g.p("")
		}
	}
}

// objectNote is the struct field's note of an attribute kept in S3.
func objectNote(a *model.Attribute) string {
	if !a.InS3() {
		return ""
	}
	return "kept in S3: a read gives its object's key (the Load method reads the value); a write given that key keeps the object, given a value stores it"
}
