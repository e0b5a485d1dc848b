package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// plan and diff --format html, export workbench and import workbench, end
// to end: a page with every pattern, a Workbench model of the design that
// imports back into a model check accepts, and bad input refused with
// the file and the field (exit 2).
func TestViewsAndWorkbench(t *testing.T) {
	enginepass.Independent(t)
	code, out, errs := keyplan("plan", "../../examples/leaderboard.yaml", "--format", "html")
	if code == cli.Usage || !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Fatalf("plan --format html: %d %s", code, errs)
	}
	for _, p := range []string{"GetPlayer", "RecentMatches", "PlayerWithMatches", "SeasonLeaderboard", "PlayerByHandle"} {
		if !strings.Contains(out, `id="pattern-`+p+`"`) {
			t.Errorf("the page does not list %s", p)
		}
	}
	if code, out, errs := keyplan("diff", "../../examples/leaderboard.yaml", "--format", "html"); code != cli.Clean || !strings.Contains(out, "Deployed now") {
		t.Errorf("diff --format html: %d %s", code, errs)
	}
	code, out, errs = keyplan("export", "workbench", "../../examples/ecommerce.yaml")
	if code != cli.Clean {
		t.Fatalf("export workbench: %d %s", code, errs)
	}
	var wb struct {
		DataModel []struct {
			TableName   string
			TableFacets []struct{ FacetName string }
		}
	}
	if err := json.Unmarshal([]byte(out), &wb); err != nil || len(wb.DataModel) != 1 || len(wb.DataModel[0].TableFacets) != 4 {
		t.Fatalf("export workbench: %v %+v", err, wb)
	}
	file := filepath.Join(t.TempDir(), "shop.json")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, model, errs := keyplan("import", "workbench", file)
	if code != cli.Clean || !strings.Contains(errs, "guess(es)") {
		t.Fatalf("import workbench: %d %s", code, errs)
	}
	imported := write(t, "shop.yaml", model)
	if code, out, errs := keyplan("check", imported); code != cli.Clean {
		t.Errorf("check of the import: %d %s %s\n%s", code, out, errs, model)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "workbench", write(t, "bad.json", `{"DataModel": [{"TableName": 7}]}`)}, "bad.json: 1:31: DataModel.TableName: expected string"},
		{[]string{"import", "workbench", filepath.Join(t.TempDir(), "none.json")}, "none.json: no such file"},
		{[]string{"import", "excel", "x"}, `unknown kind "excel"; expected table or workbench`},
		{[]string{"export"}, "expected workbench after keyplan export (usage: keyplan export workbench FILE)"},
		{[]string{"gen", "rust", "x"}, `unknown kind "rust"; expected go (usage: keyplan gen go FILE --package NAME --out DIR [--table NAME])`},
		{[]string{"export", "workbench", write(t, "m.yaml", "table: T\n")}, "m.yaml"},
		{[]string{"plan", "../../examples/leaderboard.yaml", "--format", "htm"}, `expected one of: text, json, markdown, html`},
	} {
		code, _, errs := keyplan(c.args...)
		if code != cli.Usage || !strings.Contains(errs, c.want) {
			t.Errorf("keyplan %v: %d %q, want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}
