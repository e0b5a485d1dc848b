package workbench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns"
)

// declarationsPrefix starts the line of a model's description that holds
// what a Workbench data model has no field for: each entity's id and its
// attributes' declarations (an enum's values, a string's maxLength, a
// number's range or digits, times, optional, cardinality, immutable).
// Export writes it; Import reads it back, so a design exported and
// imported again keeps them. The rest of the description is free text.
const declarationsPrefix = "keyplan declarations: "

// entityDecl is one entity's declarations.
type entityDecl struct {
	ID         []string             `json:"id"`
	Attributes map[string]*attrDecl `json:"attributes,omitempty"`
}

// attrDecl is one attribute's declaration, as the model says it.
type attrDecl struct {
	Type        patterns.AttrType `json:"type"`
	Values      []string          `json:"values,omitempty"`
	MaxLength   int               `json:"maxLength,omitempty"`
	Min         *int64            `json:"min,omitempty"`
	Max         *int64            `json:"max,omitempty"`
	Digits      int               `json:"digits,omitempty"`
	Cardinality int               `json:"cardinality,omitempty"`
	Optional    bool              `json:"optional,omitempty"`
	Immutable   bool              `json:"immutable,omitempty"`
}

// declarations writes the model's declarations (the scalar attributes':
// sets, lists and maps do not come over) as one line of JSON.
func declarations(m *patterns.Model) (string, error) {
	out := map[string]*entityDecl{}
	for _, e := range m.Entities {
		ed := &entityDecl{ID: e.ID, Attributes: map[string]*attrDecl{}}
		for _, a := range e.Attributes {
			if !a.Scalar() || a.Derived != nil {
				continue
			}
			ed.Attributes[a.Name] = &attrDecl{Type: a.Type, Values: a.Values, MaxLength: a.MaxLength, Min: a.Min, Max: a.Max,
				Digits: a.Digits, Cardinality: a.Cardinality, Optional: a.Optional, Immutable: a.Immutable}
		}
		out[e.Name] = ed
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// readDeclarations finds the declarations line of a description (nil
// when there is none: a model keyplan did not write).
func readDeclarations(desc string) (map[string]*entityDecl, error) {
	for _, line := range strings.Split(desc, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), declarationsPrefix)
		if !ok {
			continue
		}
		var out map[string]*entityDecl
		if err := json.Unmarshal([]byte(rest), &out); err != nil {
			return nil, fmt.Errorf("the description's %q line is not keyplan's: %v", strings.TrimSpace(declarationsPrefix), err)
		}
		return out, nil
	}
	return nil, nil
}

// declareAttrs applies the declarations keyplan's export carried to an
// imported entity's attributes (before its keys are inferred: a declared
// range or time is how keyplan wrote them).
func (im *importer) declareAttrs(e *entity) {
	ed := im.decls[e.name]
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

// declareID gives an imported entity the id keyplan's export carried,
// when its base key holds it (else the note says so).
func (im *importer) declareID(e *entity) {
	ed := im.decls[e.name]
	if ed == nil {
		return
	}
	keyed := map[string]bool{}
	for _, t := range e.keys[patterns.BaseIndex] {
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
		im.note("entity "+e.name, false, "its id was %s; the keys the file holds give %s", strings.Join(ed.ID, ", "), strings.Join(e.id, ", "))
	}
}

// scalarType: a type an imported attribute can have.
func scalarType(t patterns.AttrType) bool {
	switch t {
	case patterns.TypeString, patterns.TypeNumber, patterns.TypeTime, patterns.TypeBool, patterns.TypeTTL:
		return true
	}
	return false
}
