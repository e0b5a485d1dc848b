package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// The size rules: key values within DynamoDB's partition and sort key
// limits, items within the item size limit, from the declared attributes.

// keyBytes is the most bytes a key value rendered from t can take, and the
// attributes whose size is unbounded.
func keyBytes(e *model.Entity, t model.Template) (int, []string) {
	n := 0
	var unbounded []string
	for _, s := range t {
		switch {
		case s.Shards > 0:
			n += model.DecimalLen(int64(s.Shards - 1))
		case s.Attr != "":
			if b, ok := e.Attr(s.Attr).MaxKeyBytes(); ok {
				n += b
			} else {
				unbounded = append(unbounded, s.Attr)
			}
		default:
			n += len(s.Lit)
		}
	}
	return n, unbounded
}

// KP203: key values longer than DynamoDB accepts fail at write time.
func ruleKeySize(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		for _, k := range d.Entity(e.Name).Keys {
			for _, part := range []struct {
				t     model.Template
				name  string
				limit int
			}{{k.PK, "partition", model.MaxPartitionKeyBytes}, {k.SK, "sort", model.MaxSortKeyBytes}} {
				if n, _ := keyBytes(e, part.t); n > part.limit {
					out = append(out, finding{entity(e), e.Pos,
						fmt.Sprintf("the %s key %s on %s can take %d bytes; DynamoDB allows %d", part.name, part.t, k.Index, n, part.limit),
						"lower the maxLength of the attributes in the key"})
				}
			}
		}
	}
	return out
}

// KP204: a key over a string without maxLength cannot be proven to fit.
func ruleKeySizeUnknown(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		var unbounded []string
		for _, k := range d.Entity(e.Name).Keys {
			for _, t := range []model.Template{k.PK, k.SK} {
				_, u := keyBytes(e, t)
				for _, a := range u {
					if attr := e.Attr(a); attr != nil && !attr.Scalar() {
						continue // no key holds it (KP206 says so): no maxLength makes it fit
					}
					if !slices.Contains(unbounded, a) {
						unbounded = append(unbounded, a)
					}
				}
			}
		}
		if len(unbounded) > 0 {
			out = append(out, finding{entity(e), e.Pos,
				fmt.Sprintf("key attribute(s) %s have no maxLength, so keyplan cannot prove the keys fit in %d (partition) / %d (sort) bytes", strings.Join(unbounded, ", "), model.MaxPartitionKeyBytes, model.MaxSortKeyBytes),
				"declare {type: string, maxLength: N} for each"})
		}
	}
	return out
}

// KP304: items over 400 KB cannot be written.
func ruleItemSize(d *Design) []finding {
	var out []finding
	for _, e := range d.model.Entities {
		n, known := 0, true
		var largest *model.Attribute // the largest value the item holds
		largestBytes := 0
		for _, a := range e.Attributes {
			b, ok := model.MaxValueBytes(e, a)
			known = known && ok
			n += len(a.Name) + b
			// the largest value that could move to S3: a string or a
			// binary no key, where, sort or filter reads (ObjectUse)
			if s := model.Scalar(a.Type); s != nil && s.Takes(model.FacetS3) && len(a.Values) == 0 && !a.InS3() && d.model.ObjectUse(e, a.Name) == "" && b > largestBytes {
				largest, largestBytes = a, b
			}
		}
		for _, k := range d.Entity(e.Name).Keys {
			pk, sk := d.KeyNames(k.Index)
			pb, _ := keyBytes(e, k.PK)
			sb, _ := keyBytes(e, k.SK)
			if ix := d.Index(k.Index); ix != nil && ix.Local() {
				pk, pb = "", 0 // the table's partition key, counted once
			}
			n += len(pk) + len(sk) + pb + sb
		}
		if known && n > model.MaxItemBytes {
			out = append(out, finding{entity(e), e.Pos,
				fmt.Sprintf("an item can take %d bytes with its keys; DynamoDB allows %d (400 KB)", n, model.MaxItemBytes),
				objectFix(e, largest, largestBytes)})
		}
	}
	return out
}
