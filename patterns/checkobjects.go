package patterns

import (
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// KP708: an item keeping values in S3 (store: s3) is written alone: the
// runtime writes its objects before the item and deletes the old ones
// after, which it finds in the item's old image, and DynamoDB returns
// none for a transaction's or a batch's items (dynamo.ErrObjectsAlone).
// So no batch or transaction writes such an entity, and it has no unique
// values, whose guard items every create writes beside it.
func ruleObjectsAlone(d *Design) []finding {
	var out []finding
	m := d.model
	kept := func(name string) []string {
		var attrs []string
		if e := m.Entity(name); e != nil {
			for _, a := range e.ObjectAttrs() {
				attrs = append(attrs, name+"."+a.Name)
			}
		}
		return attrs
	}
	for _, w := range m.Writes {
		steps := w.Items()
		for _, s := range steps {
			attrs := kept(s.Entity)
			if len(attrs) == 0 {
				continue
			}
			switch {
			case w.Op == model.WriteBatch:
				out = append(out, finding{write(w), w.Pos,
					fmt.Sprintf("%s is a batch of %s, which keeps %s in S3: a batch returns no old images, so the runtime cannot find the objects a write replaces and refuses it", w.Name, s.Entity, strings.Join(attrs, ", ")),
					fmt.Sprintf("write %s with a put or delete per item (one call each), or keep %s in the item", s.Entity, strings.Join(attrs, ", "))})
			case len(steps) > 1:
				out = append(out, finding{write(w), w.Pos,
					fmt.Sprintf("%s writes %s, which keeps %s in S3, in a transaction with other items: a transaction returns no old images, so the runtime cannot find the objects a write replaces and refuses it", w.Name, s.Entity, strings.Join(attrs, ", ")),
					fmt.Sprintf("write %s in a write of its own, or keep %s in the item", s.Entity, strings.Join(attrs, ", "))})
			default:
				continue
			}
			break // one finding a write
		}
	}
	for _, e := range m.Entities {
		attrs := kept(e.Name)
		if u := m.UniquePatterns(e); len(attrs) > 0 && len(u) > 0 {
			out = append(out, finding{entity(e), u[0].Pos,
				fmt.Sprintf("%s keeps %s in S3 and has a unique value (%s): every create writes its guard item beside the item, in a transaction, which returns no old images, so the runtime refuses it", e.Name, strings.Join(attrs, ", "), u[0].Name),
				fmt.Sprintf("keep %s in the item, or drop unique: true from %s (a value kept unique by the application)", strings.Join(attrs, ", "), u[0].Name)})
		}
	}
	return out
}
