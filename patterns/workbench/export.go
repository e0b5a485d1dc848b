package workbench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keyplan/keyplan/patterns"
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
func Export(w io.Writer, d *patterns.Design, s *report.Sample, o ExportOptions) error {
	m := d.Model()
	if m == nil {
		return fmt.Errorf("workbench: the design has no model")
	}
	date := o.Now.UTC().Format(DateLayout)
	desc := "Exported by keyplan"
	if d.Source != "" {
		desc += " from " + d.Source
	}
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
	for _, ix := range d.Indexes {
		if ix.Native() {
			return fmt.Errorf("workbench: index %s is keyed natively (%s); a Workbench data model keys a GSI on one partition and one sort attribute, as strings here: plan the model with indexKeys: synthetic to export it", ix.Name, ix.KeyText())
		}
		add(ix.PK, "S")
		add(ix.SK, "S")
		g := &GSI{IndexName: ix.Name, KeyAttributes: KeyAttributes{PartitionKey: Attribute{ix.PK, "S"}, SortKey: &Attribute{ix.SK, "S"}},
			Projection: Projection{ProjectionType: string(ix.Projection)}}
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
		base := ek.Key(patterns.BaseIndex)
		f := &Facet{FacetName: e.Name, KeyAttributeAlias: KeyAlias{PartitionKeyAlias: base.PK.String(), SortKeyAlias: base.SK.String()},
			DataAccess: DataAccess{MySQL: json.RawMessage("{}")}, NonKeyAttributes: []string{}}
		for _, k := range ek.Keys[1:] {
			pk, sk := d.KeyNames(k.Index)
			f.NonKeyAttributes = append(f.NonKeyAttributes, pk, sk)
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
				f.TableData = append(f.TableData, item)
			}
		}
		t.TableFacets = append(t.TableFacets, f)
	}
	wb := &Model{ModelName: d.Table, DataModel: []*Table{t}, ModelMetadata: Metadata{
		Author: "keyplan", DateCreated: date, DateLastModified: date, Description: desc, AWSService: "Amazon DynamoDB", Version: Version}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(wb)
}

// dynamoType is how DynamoDB stores an attribute of a keyplan type
// (times are fixed-width strings).
func dynamoType(t patterns.AttrType) string {
	switch t {
	case patterns.TypeNumber, patterns.TypeTTL:
		return "N"
	case patterns.TypeBool:
		return "BOOL"
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
