package workbench_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/view"
	"github.com/keyplan/keyplan/patterns/workbench"
)

// The public AWS models import into models that load, plan and hold
// their items: keyplan's runtime writes every example item the import
// keeps (so `keyplan validate` can run on them), and the keys are the
// ones a person reads in the files (docs/workbench.md).
func TestImportAWSModels(t *testing.T) {
	cases := []struct {
		file string
		keys map[string]string // entity/index -> pk / sk
		// errors are the rule ids of the errors check finds.
		errors []string
		notes  []string
	}{
		{"RecurringPaymentsSchema.json", map[string]string{
			"Subscription/table": "ACC#{AccountId} / SUB#{SubId}#SKU#{SKU}",
			"Subscription/GSI-1": "{NextReminderDate} / {LastReminderDate}",
			"Subscription/GSI-2": "{NextPaymentDate} / {LastPaymentDate}",
			"Receipts/table":     "ACC#{AccountId} / REC#{ProcessedDate2}#SKU#{SKU}",
		}, nil, []string{"PaymentDetails (M) is left out", "TTL is taken as the table's TTL attribute"}},
		{"ChatSystemSchema.json", map[string]string{
			"User/table":              "User:{userId} / {skValue}",
			"User/RoomID_Comment_IDX": "{RoomID} / {CreatedAt}",
			"RoomMeta/table":          "Room:{roomId} / meta",
		}, nil, []string{"the file has no facets"}},
		{"GamePlayerProfilesSchema.json", map[string]string{
			"Metadata/table":   "{playerID} / #METADATA#{playerID}",
			"Equipments/table": "{playerID} / EQUIPMENTS#{EquipID}",
		}, nil, []string{`"EQUIPMENTS#001EQUIPMENTS#002", which does not have the shape`}},
	}
	for _, c := range cases {
		t.Run(strings.TrimSuffix(c.file, ".json"), func(t *testing.T) {
			file := filepath.Join("testdata", "aws", c.file)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			im, err := workbench.Import(file, data, workbench.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := plan(t, file+".yaml", im.YAML)
			for ek, want := range c.keys {
				e, ix, _ := strings.Cut(ek, "/")
				k := d.Entity(e)
				if k == nil || k.Key(ix) == nil {
					t.Errorf("no key of %s on %s\n%s", e, ix, im.YAML)
					continue
				}
				if got := k.Key(ix).PK.String() + " / " + k.Key(ix).SK.String(); got != want {
					t.Errorf("%s on %s: %s, want %s", e, ix, got, want)
				}
			}
			var errs []string
			for _, x := range d.Errors() {
				errs = append(errs, x.ID)
			}
			if strings.Join(errs, ",") != strings.Join(c.errors, ",") {
				t.Errorf("errors %v, want %v: %v", errs, c.errors, d.Errors())
			}
			for _, n := range c.notes {
				if !strings.Contains(string(im.YAML), n) {
					t.Errorf("the import does not say %q", n)
				}
			}
			s, err := view.Sample(context.Background(), d, view.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range s.Items {
				if it.Err != "" {
					t.Errorf("example %s is not written: %s", it.Name, it.Err)
				}
			}
			for _, r := range s.Reads {
				if r.Err != "" {
					t.Errorf("%s: %s", r.Call(), r.Err)
				}
			}
		})
	}
}

// Bad files are refused with the file, the place and what was expected.
func TestImportBadInput(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"not JSON", "{\n  \"ModelName\": \"x\",\n  \"DataModel\": [\n", "bad.json: 4:1: the file ends inside the JSON"},
		{"a syntax error", "{\n  \"DataModel\": [}\n", "bad.json: 2:18: invalid character '}'"},
		{"a wrong type", `{"DataModel": [{"TableName": 7}]}`, "bad.json: 1:31: DataModel.TableName: expected string, found JSON number"},
		{"no table", `{"DataModel": []}`, "bad.json: DataModel: expected at least one table"},
		{"a null table", `{"DataModel": [null]}`, "bad.json: DataModel[0]: expected a table, found null"},
		{"no partition key", `{"DataModel": [{"TableName": "T", "KeyAttributes": {}}]}`, "bad.json: DataModel[T].KeyAttributes.PartitionKey.AttributeName: missing"},
		{"two tables", `{"DataModel": [{"TableName": "A"}, {"TableName": "B"}]}`, "bad.json: DataModel: holds 2 tables (A, B); name the one to import"},
		{"no items", `{"DataModel": [{"TableName": "T", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}}}]}`, "bad.json: DataModel[T]: has no facets and no items"},
		{"a facet without a name", `{"DataModel": [{"TableName": "T", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK"}}, "TableFacets": [{}]}]}`, "bad.json: DataModel[T].TableFacets[0].FacetName: missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := workbench.Import("bad.json", []byte(c.data), workbench.ImportOptions{})
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v, want %q…", err, c.want)
			}
			if !errors.Is(err, workbench.ErrInvalid) {
				t.Errorf("%v does not match ErrInvalid", err)
			}
		})
	}
}

// Hostile values in a facet's items (ids that are prefixes of each
// other, '#' and '%' inside values, empty strings) come out as a model
// that loads, with the keys of those items said to change where keyplan
// escapes them.
func TestImportHostileValues(t *testing.T) {
	data := `{"ModelName": "h", "DataModel": [{"TableName": "Hostile",
	  "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}, "SortKey": {"AttributeName": "SK", "AttributeType": "S"}},
	  "NonKeyAttributes": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "note", "AttributeType": "S"}],
	  "TableFacets": [{"FacetName": "Thing", "KeyAttributeAlias": {"PartitionKeyAlias": "THING#id", "SortKeyAlias": "THING"},
	    "NonKeyAttributes": ["id", "note"],
	    "TableData": [
	      {"PK": {"S": "THING#a"}, "SK": {"S": "THING"}, "id": {"S": "a"}, "note": {"S": ""}},
	      {"PK": {"S": "THING#ab"}, "SK": {"S": "THING"}, "id": {"S": "ab"}, "note": {"S": "50%"}},
	      {"PK": {"S": "THING#a%b"}, "SK": {"S": "THING"}, "id": {"S": "a%b"}, "note": {"S": "x#y"}}
	    ]}]}]}`
	im, err := workbench.Import("hostile.json", []byte(data), workbench.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := plan(t, "hostile.yaml", im.YAML)
	if got := d.Entity("Thing").Key(model.BaseIndex); got.PK.String() != "THING#{id}" || got.SK.String() != "THING" {
		t.Errorf("keys %s / %s\n%s", got.PK, got.SK, im.YAML)
	}
	if !strings.Contains(string(im.YAML), `keyplan writes "THING#a%25b" for an item that holds "THING#a%b"`) {
		t.Errorf("the import does not say keyplan escapes %%\n%s", im.YAML)
	}
}

// FuzzImport: any bytes are refused with ErrInvalid or make a model
// (never a panic); a model made always parses as YAML.
func FuzzImport(f *testing.F) {
	files, _ := filepath.Glob("testdata/aws/*.json")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"DataModel": [{"TableName": "T", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK"}}, "TableData": [{"PK": {"S": "A#1#{x}"}}, {"PK": {"N": "2"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := workbench.Import("fuzz.json", data, workbench.ImportOptions{})
		if err != nil {
			if !errors.Is(err, workbench.ErrInvalid) {
				t.Fatalf("error does not match ErrInvalid: %v", err)
			}
			return
		}
		var v any
		if err := yaml.Unmarshal(im.YAML, &v); err != nil {
			t.Fatalf("the model made is not YAML: %v\n%s", err, im.YAML)
		}
		_, _ = model.Parse("fuzz.yaml", im.YAML) // may refuse (names that clash), never panic
	})
}
