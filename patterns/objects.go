package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Large values in S3 (issue 39 part 4): an attribute declared
// store: s3 keeps its value as an object in the bucket the construct
// makes; the item holds the object's key (ObjectKey), so a value far
// above DynamoDB's 400 KB item fits. The runtime (patterns/dynamo,
// objects.go) writes the object before the item and deletes the old one
// after; a read returns the key and the value is read on demand.

// objectMove says, for an attribute kept as locked (was) and as
// planned (now), how a change of its store moves the values the items
// hold ("": no change): the migration's backfill does it (the compare
// marks the entity backfilled).
func objectMove(was, now *model.Attribute) string {
	switch {
	case now.InS3() && !was.InS3():
		return " (the migration's backfill moves each value the items hold into S3: the object written, then the item rewritten with its key, on condition it still holds the value; keyplan migrate)"
	case was.InS3() && !now.InS3():
		return " (the migration's backfill moves each value back into its item: the object read, the item rewritten with its value on condition it still holds the key, then the object deleted; keyplan migrate)"
	}
	return ""
}

// StoreMove is an attribute whose store a migration changes: its
// values move into S3 (IntoS3) or back into their items; Entity and
// Attr are the target's names.
type StoreMove struct {
	Entity, Attr string
	IntoS3       bool
}

// StoreMoves lists, in the target's order, the attributes whose store
// the lock's migration changes (nil without one): what its backfill
// moves (patterns/dynamo/migrate's Rekeyer) and what the construct's
// backfill job is granted on the objects bucket.
func (l *Lock) StoreMoves() []StoreMove {
	if l == nil || l.Migration == nil || l.Migration.Target == nil || l.Accepted == nil {
		return nil
	}
	var out []StoreMove
	for _, e := range l.Migration.Target.Model().Entities {
		old := e.Name
		if e.RenamedFrom != "" && l.Accepted.Model().Entity(e.RenamedFrom) != nil {
			old = e.RenamedFrom
		}
		fe := l.Accepted.Model().Entity(old)
		if fe == nil {
			continue
		}
		for _, a := range e.Attributes {
			if was := fe.Attr(a.Name); was != nil && was.InS3() != a.InS3() {
				out = append(out, StoreMove{Entity: e.Name, Attr: a.Name, IntoS3: a.InS3()})
			}
		}
	}
	return out
}

// objectFix is KP304's fix: store: s3 on the largest string or binary
// the item holds that no key or read needs inline (nil: none), or a
// lower maxLength.
func objectFix(e *model.Entity, largest *model.Attribute, bytes int) string {
	if largest == nil {
		return "keep large values in S3 and store their key, or lower maxLength"
	}
	return fmt.Sprintf("declare store: s3 on %s.%s (up to %d bytes): its value is then kept in S3 and the item holds its %d-byte key; or lower its maxLength",
		e.Name, largest.Name, bytes, model.ObjectKeyBytes(e.Name, largest.Name))
}

// PriceS3Put is S3 Standard's price of one PUT request in us-east-1, in
// USD ($0.005 per 1,000; DELETE is free), from
// https://aws.amazon.com/s3/pricing/, read 2026-12-01.
const PriceS3Put = 0.005 / 1000

// ObjectCost is what the values kept in S3 cost each month: a PUT of
// each object an item write stores (a put stores every store: s3
// attribute, an update those it sets). Reads are on demand (a GET when
// the application asks for the value) and storage depends on how many
// items there are: neither is counted, Assumptions says so.
type ObjectCost struct {
	// Attributes are the attributes kept in S3, Entity.attr.
	Attributes []string `json:"attributes"`
	// PutsPerSecond are the objects written per second at the rates.
	PutsPerSecond float64 `json:"putsPerSecond"`
	// Monthly is those PUTs' monthly price, in USD.
	Monthly float64 `json:"monthlyUSD"`
}

// Summary is the ObjectCost as one sentence, as plan prints it:
// "Doc.body, Doc.notes kept in S3 (store: s3): 2 PUTs/s, $25.92/month
// beside the table's (S3 Standard PUTs; ...)".
func (o *ObjectCost) Summary() string {
	return fmt.Sprintf("%s kept in S3 (store: s3): %g PUTs/s, $%.2f/month beside the table's (S3 Standard PUTs, us-east-1; GETs, on demand, and storage are not counted)",
		strings.Join(o.Attributes, ", "), o.PutsPerSecond, o.Monthly)
}

// objectCost is the estimate's ObjectCost (nil: nothing kept in S3).
func objectCost(d *Design, r rates, z *sizer) *ObjectCost {
	if !d.model.HasObjects() {
		return nil
	}
	oc := &ObjectCost{}
	written := map[string]bool{}
	for _, w := range d.model.Writes {
		rate := r.write(w)
		for _, fx := range d.effects(w) {
			written[fx.e.Name] = true
			for _, a := range fx.e.ObjectAttrs() {
				if fx.s.Op == model.WritePut || (fx.s.Op == model.WriteUpdate && slices.Contains(fx.s.Set, a.Name)) {
					oc.PutsPerSecond += rate
				}
			}
		}
	}
	for _, e := range d.model.Entities {
		for _, a := range e.ObjectAttrs() {
			oc.Attributes = append(oc.Attributes, e.Name+"."+a.Name)
			if !written[e.Name] {
				oc.PutsPerSecond += r.entity(e) // each item write taken to store it
			}
		}
	}
	oc.Monthly = oc.PutsPerSecond * PriceS3Put * 3600 * HoursPerMonth
	z.assumed["values kept in S3 (store: s3) cost their PUTs; their GETs (on demand) and storage are not counted"] = true
	return oc
}
