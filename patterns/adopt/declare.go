package adopt

import (
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// EntityDecl is what a source declares of one entity beyond its items
// (keyplan's Workbench export carries it in the model's description): its
// id and its attributes' declarations.
type EntityDecl struct {
	ID         []string             `json:"id"`
	Attributes map[string]*AttrDecl `json:"attributes,omitempty"`
}

// AttrDecl is one attribute's declaration, as the model says it.
type AttrDecl struct {
	Type        model.AttrType `json:"type"`
	Values      []string       `json:"values,omitempty"`
	MaxLength   int            `json:"maxLength,omitempty"`
	Min         *int64         `json:"min,omitempty"`
	Max         *int64         `json:"max,omitempty"`
	Digits      int            `json:"digits,omitempty"`
	Cardinality int            `json:"cardinality,omitempty"`
	Optional    bool           `json:"optional,omitempty"`
	Immutable   bool           `json:"immutable,omitempty"`
}

// Declarations are a model's declarations (the scalar attributes': sets,
// lists and maps do not come over), by entity.
func Declarations(m *model.Model) map[string]*EntityDecl {
	out := map[string]*EntityDecl{}
	for _, e := range m.Entities {
		ed := &EntityDecl{ID: e.ID, Attributes: map[string]*AttrDecl{}}
		for _, a := range e.Attributes {
			if !a.Scalar() || a.Derived != nil {
				continue
			}
			ed.Attributes[a.Name] = &AttrDecl{Type: a.Type, Values: a.Values, MaxLength: a.MaxLength, Min: a.Min, Max: a.Max,
				Digits: a.Digits, Cardinality: a.Cardinality, Optional: a.Optional, Immutable: a.Immutable}
		}
		out[e.Name] = ed
	}
	return out
}

// declareAttrs applies the declarations the source carried to an
// imported entity's attributes (before its keys are inferred: a declared
// range or time is how keyplan wrote them).
func (im *importer) declareAttrs(e *entity) {
	ed := im.t.Declarations[e.name]
	if ed == nil {
		return
	}
	for _, a := range e.attrs {
		d := ed.Attributes[a.from]
		if d == nil || !scalarType(d.Type) || dynamoType(d.Type) != dynamoType(a.typ) {
			continue
		}
		a.typ, a.decl = d.Type, d
		if d.Min != nil || d.Max != nil {
			a.min, a.max = d.Min, d.Max
		}
	}
}

// declareID gives an imported entity the id the source declared, when
// its base key holds it (else the note says so).
func (im *importer) declareID(e *entity) {
	ed := im.t.Declarations[e.name]
	if ed == nil {
		return
	}
	keyed := map[string]bool{}
	for _, t := range e.keys[model.BaseIndex] {
		for _, x := range keyAttrs(t) {
			keyed[x] = true
		}
	}
	ok := len(ed.ID) > 0
	for _, x := range ed.ID {
		ok = ok && keyed[x] && e.attr(x) != nil
	}
	if ok {
		e.id = append([]string(nil), ed.ID...)
	} else if len(ed.ID) > 0 {
		im.note("entity "+e.name, false, "its id was %s; the keys %s holds give %s", strings.Join(ed.ID, ", "), im.t.Noun, strings.Join(e.id, ", "))
	}
}

// scalarType: a type an imported attribute can have.
func scalarType(t model.AttrType) bool { return model.Scalar(t) != nil }

// dynamoType is how DynamoDB stores an attribute of a scalar type.
func dynamoType(t model.AttrType) string { return (&model.Attribute{Type: t}).DynamoType() }
