package model

import (
	"fmt"
	"slices"
)

// Attributes stored in S3 (store: s3): the model's side of large
// objects; what they cost is the planner's (patterns/objects.go).

// StoreS3 is the store: value that keeps an attribute in S3.
const StoreS3 = "s3"

// MaxObjectBytes is the largest value store: s3 takes: S3's limit on
// one PutObject (5 GiB).
const MaxObjectBytes = 5 << 30

// objectKeyRandom is the hex digits of the random part of an object key.
const objectKeyRandom = 32

// ObjectKeyBytes is the length of the key an item holds for attribute
// attr of entity: "<entity>/<attr>/<32 hex digits>".
func ObjectKeyBytes(entity, attr string) int { return len(entity) + len(attr) + 2 + objectKeyRandom }

// ObjectKeyRandomDigits is how many hex digits end an object key.
func ObjectKeyRandomDigits() int { return objectKeyRandom }

// InS3 reports whether the attribute's value is kept in S3.
func (a *Attribute) InS3() bool { return a != nil && a.Store == StoreS3 }

// ObjectAttrs lists the entity's attributes kept in S3, in model order.
func (e *Entity) ObjectAttrs() []*Attribute {
	var out []*Attribute
	for _, a := range e.Attributes {
		if a.InS3() {
			out = append(out, a)
		}
	}
	return out
}

// HasObjects reports whether any attribute of the model is kept in S3
// (the construct then makes the bucket).
func (m *Model) HasObjects() bool {
	for _, e := range m.Entities {
		if len(e.ObjectAttrs()) > 0 {
			return true
		}
	}
	return false
}

// validateObjects checks each store: s3 attribute: a string or a binary
// (type: blob), never part
// of a key, a where, a sort, a filter or a derived value (DynamoDB holds
// only its object's key); and that a value too large for an item says
// store: s3.
func (m *Model) validateObjects(l *errorList) {
	for _, e := range m.Entities {
		path := "entities." + e.Name + ".attributes."
		for _, a := range e.Attributes {
			switch {
			case a.Store != "" && a.Store != StoreS3:
				l.add(a.Pos, path+a.Name+".store", "unknown store %q; expected %s (the value kept in S3, the item holding its key)", a.Store, StoreS3)
			case a.InS3() && !a.takes(FacetS3):
				l.add(a.Pos, path+a.Name+".store", "store: s3 keeps %s's value in S3; type is %s", nounsTaking(FacetS3), a.Type)
			case a.InS3() && len(a.Values) > 0:
				l.add(a.Pos, path+a.Name+".store", "store: s3 is for large free text; an enum is small")
			case !a.InS3() && a.MaxLength > MaxItemBytes:
				l.add(a.Pos, path+a.Name+".maxLength", "maxLength %d is above DynamoDB's %d-byte item; declare store: s3 to keep the value in S3 (the item holds its key), or lower maxLength", a.MaxLength, MaxItemBytes)
			}
			if a.InS3() {
				if use := m.objectUse(e, a.Name); use != "" {
					l.add(a.Pos, path+a.Name+".store", "%s is kept in S3 (store: s3) and the item holds only its key, so it cannot be %s", a.Name, use)
				}
			}
		}
	}
}

// ObjectUse names a use of attr that needs its value in the item (an
// id, a key template, a derived source, a where, sort or filter), or "":
// what keeps it out of S3 (KP304 suggests store: s3 only without one).
func (m *Model) ObjectUse(e *Entity, attr string) string { return m.objectUse(e, attr) }

// objectUse names a use of attr that needs its value in the item, or "".
func (m *Model) objectUse(e *Entity, attr string) string {
	if e.IsID(attr) {
		return "an id attribute"
	}
	for _, k := range e.Keys {
		for _, s := range []string{k.PK, k.SK} {
			if t, err := ParseTemplate(s); err == nil && slices.Contains(t.Attrs(), attr) {
				return fmt.Sprintf("in the key template %q", s)
			}
		}
	}
	for _, b := range e.Attributes {
		if b.Derived != nil && slices.Contains(b.Derived.Sources(), attr) {
			return "a source of derived " + b.Name
		}
	}
	for _, p := range m.Patterns {
		if !slices.Contains(p.Entities, e.Name) {
			continue
		}
		uses := slices.Concat(p.Where, p.Sort)
		for _, c := range p.Filter {
			uses = append(uses, c.Attr)
		}
		if slices.Contains(uses, attr) {
			return "a where, sort or filter of pattern " + p.Name
		}
	}
	return ""
}
