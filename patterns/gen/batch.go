package gen

import (
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// batchRead writes a batch pattern's method (batch: true): many ids in
// one call, an entry per id in their order.
//
//	GetTickets(ctx, ids []string) ([]*Ticket, error)
//	GetComments(ctx, ids []CommentKey) ([]*Comment, error)
//
// An entity whose id is one attribute takes its values; one of several
// takes a key struct of them (<Entity>Key, shared by its batch patterns).
func (g *gen) batchRead(p *model.Pattern, name, item, decode string, params []param) error {
	e := g.m.Entity(p.Entities[0])
	idType := params[0].typ
	if len(params) > 1 {
		idType = Exported(e.Name) + "Key"
		if !g.keyTypes[idType] {
			if err := g.claim(idType, "the id of "+e.Name+" (its batch reads)"); err != nil {
				return err
			}
			g.keyTypes[idType] = true
			g.p("// %s is one %s's id, for its batch reads.", idType, e.Name)
			g.p("type %s struct {", idType)
			for _, a := range params {
				f, _ := g.field(e, e.Attr(a.attr))
				g.p("%s %s", f, a.typ)
			}
			g.p("}")
			g.p("")
		}
	}
	var args []string
	for _, a := range params {
		from := "id"
		if len(params) > 1 {
			f, _ := g.field(e, e.Attr(a.attr))
			from = "id." + f
		}
		args = append(args, fmt.Sprintf("%q: %s", a.attr, a.value(from)))
	}
	g.p("// %s reads %s items by %s, many in one call:", name, e.Name, strings.Join(e.ID, ", "))
	g.p("// BatchGetItem, %d ids a request (more ids take more requests), ids", model.MaxBatchGetKeys)
	g.p("// the table leaves unprocessed asked again with backoff. It returns one")
	g.p("// entry per id, in the order of ids: nil for an id with no %s; an id", e.Name)
	g.p("// given twice is answered twice. Ids never read come back in a")
	g.p("// *dynamo.BatchReadError (its Unread are their indexes), the entries")
	g.p("// read beside it.")
	g.p("func (db *DB) %s(ctx context.Context, ids []%s) ([]*%s, error) {", name, idType, item)
	g.p("params := make([]dynamo.Params, len(ids))")
	g.p("for i, id := range ids {")
	g.p("params[i] = dynamo.Params{%s}", strings.Join(args, ", "))
	g.p("}")
	g.p("its, err := db.t.GetBatch(ctx, %q, params)", p.Name)
	g.p("if its == nil { return nil, err }")
	g.p("out := make([]*%s, len(its))", item)
	g.p("for i, it := range its {")
	g.p("if it == nil { continue }")
	g.p("v, derr := %s(*it)", decode)
	g.p("if derr != nil { return nil, derr }")
	g.p("out[i] = &v")
	g.p("}")
	g.p("return out, err")
	g.p("}")
	g.p("")
	return nil
}
