package patterns

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns/model"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("keyplan.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("keyplan.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlToJSON reads YAML into the values a JSON decoder would make.
func yamlToJSON(t *testing.T, src []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The schema accepts every model the loader accepts in the repository, and
// rejects what the loader rejects for the same reason.
func TestSchemaAgreesWithLoader(t *testing.T) {
	s := compileSchema(t)
	for _, f := range testmodel.Files(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(yamlToJSON(t, src)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := s.Validate(yamlToJSON(t, []byte(handmade))); err != nil {
		t.Errorf("hand-made layout: %v", err)
	}
	bad := map[string]string{
		"unknown field":    strings.Replace(validModel, "{get: Player}", "{get: Player, limt: 3}", 1),
		"unknown type":     strings.Replace(validModel, "handle: string", "handle: strnig", 1),
		"get and query":    strings.Replace(validModel, "{get: Player}", "{get: Player, query: Player}", 1),
		"bad sort":         strings.Replace(validModel, "sort: rating desc", "sort: rating down", 1),
		"missing id":       strings.Replace(validModel, "    id: [playerId]\n", "", 1),
		"missing table":    strings.Replace(validModel, "table: Leaderboard\n", "", 1),
		"digits too big":   strings.Replace(validModel, "min: 0, max: 99999", "digits: 19", 1),
		"write two ops":    validModel + "writes:\n  W: {put: Player, delete: Player}\n",
		"write bad if":     validModel + "writes:\n  W: {put: Player, if: maybe}\n",
		"write bad add":    validModel + "writes:\n  W: {update: Player, add: {rating: lots}}\n",
		"write two cmps":   validModel + "writes:\n  W: {update: Player, set: [handle], condition: {rating: {ge: 1, le: 3}}}\n",
		"bad needs":        strings.Replace(validModel, "    id: [playerId]\n", "    id: [playerId]\n    needs: {billing: free}\n", 1),
		"check alone":      validModel + "writes:\n  W: {check: Player, condition: {rating: 1}}\n",
		"step no write":    validModel + "examples:\n  steps:\n    - {params: {playerId: p1}}\n",
		"bad expired":      strings.Replace(validModel, "{get: Player}", "{get: Player, expired: maybe}", 1),
		"set of times":     strings.Replace(validModel, "handle: string", "handle: {type: set, of: time}", 1),
		"derived nothing":  strings.Replace(validModel, "handle: string", "handle: {type: string, derived: {}}", 1),
		"discard a number": validModel + "writes:\n  W: {update: Player, discard: {rating: 3}}\n",
	}
	for name, src := range bad {
		if _, err := model.Parse("model.yaml", []byte(src)); err == nil {
			t.Errorf("%s: the loader accepts it", name)
		}
		if err := s.Validate(yamlToJSON(t, []byte(src))); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}
}

// The schema's bound on names is the loader's (MaxName).
func TestSchemaNameLength(t *testing.T) {
	var doc struct {
		Defs struct {
			Name struct {
				MaxLength int `json:"maxLength"`
			} `json:"name"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Defs.Name.MaxLength != model.MaxName {
		t.Errorf("the schema's names are at most %d characters; the loader's, %d", doc.Defs.Name.MaxLength, model.MaxName)
	}
	s := compileSchema(t)
	long := strings.Replace(validModel, "GetPlayer:", "G"+strings.Repeat("x", model.MaxName)+":", 1)
	if err := s.Validate(yamlToJSON(t, []byte(long))); err == nil {
		t.Error("the schema accepts a pattern name longer than MaxName")
	}
}

// The JSON Schema a model file is checked against names every type the
// loader reads, spellings included.
func TestSchemaNamesEveryType(t *testing.T) {
	var doc struct {
		Defs struct {
			Type struct {
				Enum []string `json:"enum"`
			} `json:"type"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	want := append(model.ScalarNames(true), string(model.TypeSet), string(model.TypeList), string(model.TypeMap), string(model.TypeCounter))
	if got := doc.Defs.Type.Enum; !slices.Equal(got, want) {
		t.Errorf("the schema's types are %v; the loader reads %v", got, want)
	}
}
