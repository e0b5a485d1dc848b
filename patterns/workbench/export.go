package workbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/report"
)

// DateLayout is how Workbench writes a model's dates ("Oct 05, 2022, 06:02 PM").
const DateLayout = "Jan 02, 2006, 03:04 PM"

// ExportOptions tune an export.
type ExportOptions struct {
	// Now dates the model. Default: the zero time is written as is (use
	// time.Now() for a file to open).
	Now time.Time
}

// Export writes a design as a Workbench data model: the table with its
// key attributes, every attribute with its DynamoDB type, the GSIs with
// their projections, and one facet per entity whose key aliases are the
// entity's base key templates (PLAYER#{playerId}) and whose items are the
// sample's (as keyplan's runtime writes them: package view). Workbench
// shows a facet's items under its aliases; keyplan's import reads the
// aliases back where the items agree with them.
//
// A natively keyed GSI on one partition attribute and at most one sort
// attribute is written as it is: keyed on those attributes. One keyed on
// several attributes (a multi-attribute key, or its discriminator and an
// attribute), which a Workbench data model cannot key a GSI on, is shown
// by a synthetic rendering: key attributes named as keyplan names a
// synthetic GSI's (GSI2PK, GSI2SK), on each item that is on the index, the
// key's attributes joined by '#' (its canonical template: the entity's tag
// first when the index has a discriminator), as a synthetic key would hold
// them. The table holds no such attributes; the model's description says
// which GSIs are rendered so. The declarations Workbench has no field for
// (ids, enums, lengths, ranges, times, optional) ride in the description
// too (Declarations), and the import reads them back.
func Export(w io.Writer, d *patterns.Design, s *report.Sample, o ExportOptions) error {
	m := d.Model()
	if m == nil {
		return fmt.Errorf("workbench: the design has no model")
	}
	date := o.Now.UTC().Format(DateLayout)
	t := &Table{
		TableName:     d.Table,
		KeyAttributes: KeyAttributes{PartitionKey: Attribute{d.PK, "S"}, SortKey: &Attribute{d.SK, "S"}},
		DataAccess:    DataAccess{MySQL: json.RawMessage("{}")},
		BillingMode:   "PAY_PER_REQUEST",
	}
	typeOf := map[string]string{}
	add := func(name, typ string) {
		if _, ok := typeOf[name]; ok || name == d.PK || name == d.SK {
			return
		}
		typeOf[name] = typ
		t.NonKeyAttributes = append(t.NonKeyAttributes, Attribute{name, typ})
	}
	if len(d.LocalIndexes) > 0 {
		var names []string
		for _, ix := range d.LocalIndexes {
			names = append(names, ix.Name)
		}
		return fmt.Errorf("workbench: the design has local secondary indexes (%s); keyplan writes Workbench data models with GSIs only, and an LSI exported as a GSI would read eventually consistent what the model reads strongly", strings.Join(names, ", "))
	}
	var rendered []string // the natively keyed GSIs shown by synthetic keys
	synthetic := map[string]bool{}
	for _, ix := range d.Indexes {
		g := &GSI{IndexName: ix.Name, Projection: Projection{ProjectionType: string(ix.Projection)}}
		switch {
		case !ix.Native():
			add(ix.PK, "S")
			add(ix.SK, "S")
			g.KeyAttributes = KeyAttributes{PartitionKey: Attribute{ix.PK, "S"}, SortKey: &Attribute{ix.SK, "S"}}
		case len(ix.PartitionKeys) == 1 && len(ix.SortKeys) <= 1:
			// Workbench holds it as it is: keyed on the items' own attribute.
			pk := Attribute{ix.PartitionKeys[0], nativeType(m, ix.PartitionKeys[0])}
			add(pk.AttributeName, pk.AttributeType)
			g.KeyAttributes = KeyAttributes{PartitionKey: pk}
			if len(ix.SortKeys) == 1 {
				sk := Attribute{ix.SortKeys[0], nativeType(m, ix.SortKeys[0])}
				add(sk.AttributeName, sk.AttributeType)
				g.KeyAttributes.SortKey = &sk
			}
		default:
			pk, sk := model.IndexKeyNames(ix.Name)
			add(pk, "S")
			g.KeyAttributes = KeyAttributes{PartitionKey: Attribute{pk, "S"}}
			if len(ix.SortKeys) > 0 {
				add(sk, "S")
				g.KeyAttributes.SortKey = &Attribute{sk, "S"}
			}
			synthetic[ix.Name] = true
			rendered = append(rendered, fmt.Sprintf("%s (keyed natively on %s) is shown by %s", ix.Name, ix.KeyText(), strings.Join(g.keyNames(), "/")))
		}
		if ix.Projection == patterns.ProjectInclude {
			g.Projection.NonKeyAttributes = slices.Clone(ix.NonKeyAttributes)
		}
		t.GlobalSecondaryIndexes = append(t.GlobalSecondaryIndexes, g)
	}
	for _, e := range m.Entities {
		for _, a := range e.Attributes {
			add(a.Name, dynamoType(a.Type))
		}
	}
	for _, e := range m.Entities {
		ek := d.Entity(e.Name)
		if ek == nil {
			continue
		}
		base := ek.Key(model.BaseIndex)
		f := &Facet{FacetName: e.Name, KeyAttributeAlias: KeyAlias{PartitionKeyAlias: base.PK.String(), SortKeyAlias: base.SK.String()},
			DataAccess: DataAccess{MySQL: json.RawMessage("{}")}, NonKeyAttributes: []string{}}
		for _, k := range ek.Keys[1:] {
			ix := d.Index(k.Index)
			switch {
			case ix == nil:
			case !ix.Native():
				f.NonKeyAttributes = append(f.NonKeyAttributes, ix.PK, ix.SK)
			case synthetic[ix.Name]:
				pk, sk := model.IndexKeyNames(ix.Name)
				f.NonKeyAttributes = append(f.NonKeyAttributes, pk)
				if len(ix.SortKeys) > 0 {
					f.NonKeyAttributes = append(f.NonKeyAttributes, sk)
				}
			case ix.Discriminated():
				f.NonKeyAttributes = append(f.NonKeyAttributes, ix.PartitionKeys[0])
			}
		}
		for _, a := range e.Attributes {
			f.NonKeyAttributes = append(f.NonKeyAttributes, a.Name)
		}
		if s != nil {
			for _, it := range s.Items {
				if it.Entity != e.Name || it.Err != "" {
					continue
				}
				item := Item{}
				for name, v := range it.Attrs {
					typ := typeOf[name]
					if typ == "" {
						typ = "S"
					}
					item[name] = value(typ, v)
				}
				for _, k := range ek.Keys[1:] {
					if !synthetic[k.Index] {
						continue
					}
					pk, sk := model.IndexKeyNames(k.Index)
					pv, pok := renderKey(e, k.PK, it.Attrs)
					sv, sok := renderKey(e, k.SK, it.Attrs)
					ix := d.Index(k.Index)
					if !pok || !sok || ix.Discriminated() && it.Attrs[ix.PartitionKeys[0]] == "" {
						continue // not on the index (sparse)
					}
					item[pk] = value("S", pv)
					if len(ix.SortKeys) > 0 {
						item[sk] = value("S", sv)
					}
				}
				f.TableData = append(f.TableData, item)
			}
		}
		t.TableFacets = append(t.TableFacets, f)
	}
	desc := "Exported by keyplan"
	if d.Source != "" {
		desc += " from " + d.Source
	}
	desc += "."
	if len(rendered) > 0 {
		desc += " A Workbench model keys a GSI on one attribute: " + strings.Join(rendered, "; ") +
			", the key's attributes joined by '#' as a synthetic key would hold them (the table holds no such attributes)."
	}
	decl, err := declarations(m)
	if err != nil {
		return err
	}
	desc += "\n\n" + declarationsPrefix + decl
	wb := &Model{ModelName: d.Table, DataModel: []*Table{t}, ModelMetadata: Metadata{
		Author: "keyplan", DateCreated: date, DateLastModified: date, Description: desc, AWSService: "Amazon DynamoDB", Version: Version}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wb); err != nil {
		return err
	}
	// Every character a terminal would not show as it is (DEL, C1, the
	// bidirectional controls) as a JSON escape: the same value, and the
	// file stays JSON however it is printed (report.Terminal).
	_, err = w.Write(model.PrintableJSON(b.Bytes()))
	return err
}

// keyNames are a GSI's key attribute names.
func (g *GSI) keyNames() []string {
	out := []string{g.KeyAttributes.PartitionKey.AttributeName}
	if g.KeyAttributes.SortKey != nil {
		out = append(out, g.KeyAttributes.SortKey.AttributeName)
	}
	return out
}

// nativeType is the DynamoDB type of a native key attribute: the
// entities' (the checks hold them to one), S for a discriminator.
func nativeType(m *model.Model, name string) string {
	for _, e := range m.Entities {
		if a := e.Attr(name); a != nil {
			return dynamoType(a.Type)
		}
	}
	return "S"
}

// renderKey fills a key template from an item's stored values as keyplan
// writes a key (EncodeKey); false when the item lacks one of them.
func renderKey(e *model.Entity, t model.Template, attrs map[string]string) (string, bool) {
	var b strings.Builder
	for _, seg := range t {
		switch {
		case seg.Attr != "":
			v, ok := attrs[seg.Attr]
			a := e.Attr(seg.Attr)
			if !ok || a == nil {
				return "", false
			}
			enc, err := a.EncodeKey(v)
			if err != nil {
				return "", false
			}
			b.WriteString(enc)
		case seg.Shards > 0:
			return "", false
		default:
			b.WriteString(seg.Lit)
		}
	}
	return b.String(), true
}

// dynamoType is how DynamoDB stores an attribute of a keyplan type
// (times are fixed-width strings).
func dynamoType(t model.AttrType) string {
	if s := model.Scalar(t); s != nil {
		return s.Dynamo
	}
	return "S"
}

// value is one attribute value in DynamoDB's JSON form.
func value(typ, v string) map[string]json.RawMessage {
	var raw []byte
	switch typ {
	case "BOOL":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return map[string]json.RawMessage{"S": mustJSON(v)}
		}
		raw = mustJSON(b)
	default:
		raw = mustJSON(v)
	}
	return map[string]json.RawMessage{typ: raw}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v) // strings and bools always marshal
	return b
}
