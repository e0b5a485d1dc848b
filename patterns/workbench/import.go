package workbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/adopt"
	"github.com/keyplan/keyplan/patterns/model"
)

// ErrInvalid is matched by every error about an unusable Workbench file
// (and of the import's other sources: adopt.ErrInvalid).
var ErrInvalid = adopt.ErrInvalid

// Error names the file and the field of an unusable Workbench model.
type Error = adopt.Error

// ImportOptions tune an import.
type ImportOptions struct {
	// Table names the table to import from a model of several (default:
	// the only one).
	Table string
}

// Note is something the import could not carry over as it was, or
// inferred: the output says it as a comment.
type Note = adopt.Note

// Imported is a Workbench model made a keyplan model.
type Imported = adopt.Imported

// Import reads a Workbench data model and makes a keyplan model of one of
// its tables: an entity per facet (or, with no facets, per shape of key
// the items have), hand-made keys whose templates are inferred from the
// items' key values (a facet's key aliases win where they are templates
// the items agree with), the items as examples.items, and patterns
// inferred from the keys (a get by each entity's id, a query per GSI key
// and per item collection), every guess said in a note. The file lists no
// access patterns (the public models have none), so the user replaces the
// inferred ones with the application's questions.
func Import(file string, data []byte, o ImportOptions) (*Imported, error) {
	if err := precheck(file, data); err != nil {
		return nil, err
	}
	var wb Model
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&wb); err != nil {
		return nil, &Error{File: file, Msg: jsonError(data, err)}
	}
	if len(wb.DataModel) == 0 {
		return nil, &Error{File: file, Field: "DataModel", Msg: "expected at least one table"}
	}
	var t *Table
	var names []string
	for i, x := range wb.DataModel {
		if x == nil {
			return nil, &Error{File: file, Field: fmt.Sprintf("DataModel[%d]", i), Msg: "expected a table, found null"}
		}
		names = append(names, x.TableName)
		if x.TableName == o.Table || (o.Table == "" && len(wb.DataModel) == 1) {
			t = x
		}
	}
	if t == nil {
		if o.Table == "" {
			return nil, &Error{File: file, Field: "DataModel", Msg: fmt.Sprintf("holds %d tables (%s); name the one to import", len(names), strings.Join(names, ", "))}
		}
		return nil, &Error{File: file, Field: "DataModel", Msg: fmt.Sprintf("no table %q; the model holds %s", o.Table, strings.Join(names, ", "))}
	}
	if err := check(file, t); err != nil {
		return nil, err
	}
	at := tableOf(file, t)
	decls, err := readDeclarations(wb.ModelMetadata.Description)
	if err != nil {
		at.Notes = append(at.Notes, adopt.Note{Subject: "the model's description", Text: fmt.Sprintf("%v: the declarations are inferred instead", err)})
	}
	at.Declarations = decls
	if decls == nil {
		at.Notes = append(at.Notes, adopt.Note{Subject: "attributes", Text: "the file declares no enum values, string lengths or number ranges (a Workbench model has no field for them; keyplan's own export carries them in its description): declare values, maxLength and min/max where the application has them, or keyplan cannot prove key sizes and cardinalities"})
	}
	return adopt.Infer(at)
}

// tableOf is a Workbench table as the inference reads it.
func tableOf(file string, t *Table) *adopt.Table {
	at := &adopt.Table{Name: t.TableName, PK: t.KeyAttributes.PartitionKey.AttributeName, Types: map[string]string{},
		Source: file, Field: "DataModel[" + t.TableName + "]", ItemsField: "TableData",
		Origin: fmt.Sprintf("%s (NoSQL Workbench table %s)", file, t.TableName), Noun: "the file"}
	if t.KeyAttributes.SortKey != nil {
		at.SK = t.KeyAttributes.SortKey.AttributeName
	}
	for _, a := range t.NonKeyAttributes {
		at.Types[a.AttributeName] = a.AttributeType
	}
	for _, g := range t.GlobalSecondaryIndexes {
		ix := adopt.Index{Name: g.IndexName, PK: g.KeyAttributes.PartitionKey.AttributeName,
			Projection: patterns.Projection(g.Projection.ProjectionType), NonKeyAttributes: g.Projection.NonKeyAttributes}
		if g.KeyAttributes.SortKey != nil {
			ix.SK = g.KeyAttributes.SortKey.AttributeName
		}
		at.Indexes = append(at.Indexes, ix)
	}
	for _, f := range t.TableFacets {
		af := adopt.Facet{Name: f.FacetName, Alias: adopt.Alias(f.KeyAttributeAlias), Attributes: f.NonKeyAttributes}
		for _, it := range f.TableData {
			af.Items = append(af.Items, liveItem(it))
		}
		at.Facets = append(at.Facets, af)
	}
	for _, it := range t.TableData {
		at.Items = append(at.Items, liveItem(it))
	}
	return at
}

// liveItem reads a Workbench item's values: strings and numbers as text
// (a number written bare or quoted), bools, and other types' JSON as it is.
func liveItem(it Item) patterns.LiveItem {
	out := patterns.LiveItem{}
	for name, v := range it {
		for typ, raw := range v {
			lv := patterns.LiveValue{Type: typ}
			switch typ {
			case "S", "N":
				var str string
				if json.Unmarshal(raw, &str) != nil {
					str = strings.TrimSpace(string(raw)) // a bare number
				}
				lv.Text = str
			case "BOOL":
				var b bool
				_ = json.Unmarshal(raw, &b)
				lv.Text = strconv.FormatBool(b)
			default:
				lv.Text = string(raw)
			}
			out[name] = lv
		}
	}
	return out
}

// precheck refuses, before the file is parsed, what the model made of it
// could not hold: more than MaxFileBytes, or more than MaxItems items. The
// items are counted by reading the JSON's tokens, keeping none of them:
// time and memory bounded by the file's size, not by what it holds. A file
// that is not JSON is left to the parse, which says where.
func precheck(file string, data []byte) error {
	if len(data) > MaxFileBytes {
		return &Error{File: file, Msg: fmt.Sprintf("larger than %d MB, which is the most keyplan imports (the model it makes must stay under the %d MB keyplan loads)",
			MaxFileBytes>>20, model.MaxModelBytes>>20)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	// stack holds, per open container, whether it is an object (and then
	// whether its next token is a key) and whether it is a TableData array.
	type level struct{ object, key, items bool }
	var stack []level
	done := func() { // a value ended: its object's next token is a key
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
	}
	lastKey, items := "", 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or a syntax error the parse reports
		}
		n := len(stack)
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:n-1]
			done()
			continue
		}
		if n > 0 && stack[n-1].object && stack[n-1].key {
			lastKey, _ = tok.(string)
			stack[n-1].key = false
			continue
		}
		if n > 0 && stack[n-1].items {
			if items++; items > MaxItems {
				return &Error{File: file, Field: "TableData", Msg: fmt.Sprintf("more than %d items; keyplan imports at most %d (each becomes an example of the model, which must stay under the %d MB keyplan loads): import a smaller sample",
					MaxItems, MaxItems, model.MaxModelBytes>>20)}
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{object: true, key: true})
		case json.Delim('['):
			stack = append(stack, level{items: n > 0 && stack[n-1].object && lastKey == "TableData"})
		default:
			done()
		}
	}
}

// jsonError says where a JSON syntax or type error is.
func jsonError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			return fmt.Sprintf("%s: %s: expected %s, found JSON %s", position(data, off), te.Field, te.Type, te.Value)
		}
	}
	if off >= 0 {
		return position(data, off) + ": " + err.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return position(data, int64(len(data))) + ": the file ends inside the JSON (unexpected end of the file)"
	}
	return "not a NoSQL Workbench model (JSON): " + err.Error()
}

func position(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("%d:%d", line, col)
}

// check refuses what cannot be a table.
func check(file string, t *Table) error {
	field := "DataModel[" + t.TableName + "]"
	if t.TableName == "" {
		return &Error{File: file, Field: "DataModel.TableName", Msg: "missing; expected the table's name"}
	}
	if t.KeyAttributes.PartitionKey.AttributeName == "" {
		return &Error{File: file, Field: field + ".KeyAttributes.PartitionKey.AttributeName", Msg: "missing; expected the partition key's attribute name"}
	}
	for i, g := range t.GlobalSecondaryIndexes {
		if g == nil || g.IndexName == "" || g.KeyAttributes.PartitionKey.AttributeName == "" {
			return &Error{File: file, Field: fmt.Sprintf("%s.GlobalSecondaryIndexes[%d]", field, i), Msg: "expected an IndexName and KeyAttributes.PartitionKey"}
		}
	}
	for i, f := range t.TableFacets {
		if f == nil || f.FacetName == "" {
			return &Error{File: file, Field: fmt.Sprintf("%s.TableFacets[%d].FacetName", field, i), Msg: "missing; expected the facet's name"}
		}
	}
	return nil
}
