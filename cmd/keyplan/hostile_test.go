package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

// hostile are values a model may hold that a terminal, a page or a reader
// would take for something else: the right-to-left override and the other
// bidirectional controls, zero-width characters, DEL, a C1 control, an
// ANSI escape, braces, quotes and keyplan's own separators.
var hostile = []string{
	"evil\u202egnp.exe", "\u2066isolate\u2069", "zero\u200bwidth", "del\x7f", "c1\u009bx", "esc\x1b[2J",
	"br{ace}", "{{.}}", `q"uote'`, "a#b%c$d", "bom\ufeff", "lrm\u200e",
}

// unprintable returns the first rune of s that %q would escape (the
// standard library's rule, not keyplan's), newlines and tabs aside.
func unprintable(s string) (rune, bool) {
	for _, r := range s {
		if r != '\n' && r != '\t' && (r == utf8.RuneError || !strconv.IsPrint(r)) {
			return r, true
		}
	}
	return 0, false
}

// jsonEscaped writes every rune %q would escape in JSON text as a JSON
// escape (the loader, a YAML parser, takes DEL and C1 only so).
func jsonEscaped(b []byte) []byte {
	var out strings.Builder
	for _, r := range string(b) {
		if !strconv.IsPrint(r) && r != '\n' && r != '\t' {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

// Every surface keyplan prints a model's text on escapes the same
// characters the same way (patterns.Unprintable: %q's rule): the
// terminal, the HTML page, JSON (as JSON escapes: the values read back
// whole), the Workbench export and the loader's errors. No output holds
// one of them raw, and the JSON outputs decode to the model's values.
func TestHostileTextEscapedEverywhere(t *testing.T) {
	enginepass.Independent(t)
	items := map[string]any{}
	for i, v := range hostile {
		items["n"+string(rune('a'+i))] = map[string]any{"Note": map[string]any{"noteId": "n" + string(rune('a'+i)), "body": v, "kind": "plain"}}
	}
	model := map[string]any{
		"table": "Notes",
		"entities": map[string]any{"Note": map[string]any{"id": []string{"noteId"}, "attributes": map[string]any{
			"noteId": map[string]any{"type": "string", "maxLength": 40},
			"body":   map[string]any{"type": "string", "maxLength": 100},
			"kind":   map[string]any{"type": "string", "values": []string{"plain", "evil\u202egnp"}},
		}}},
		"patterns": map[string]any{
			"GetNote":   map[string]any{"get": "Note"},
			"EvilNotes": map[string]any{"query": "Note", "filter": map[string]any{"kind": "evil\u202egnp"}, "shards": 4},
		},
		"examples": map[string]any{"items": items},
	}
	raw, err := json.Marshal(model)
	if err != nil {
		t.Fatal(err)
	}
	raw = jsonEscaped(raw)
	file := write(t, "notes.json", string(raw))
	outputs := map[string]string{}
	for _, args := range [][]string{
		{"plan", file}, {"plan", file, "--format", "json"}, {"plan", file, "--format", "markdown"}, {"plan", file, "--format", "html"},
		{"check", file, "--format", "json"}, {"check", file, "--format", "sarif"}, {"export", "workbench", file},
	} {
		code, out, errs := keyplan(args...)
		if code == cli.Usage {
			t.Fatalf("keyplan %v: exit 2: %s", args, errs)
		}
		name := strings.Join(args, " ")
		if args[0] == "export" {
			name = "export"
		}
		outputs[name] = out
		outputs[name+" (stderr)"] = errs
	}
	// The loader's errors: a value that is not of the enum, quoted.
	bad := strings.Replace(string(raw), `"kind":"plain"`, `"kind":"pl\u202eain"`, 1)
	code, out, errs := keyplan("check", write(t, "bad.json", bad))
	if code != cli.Usage || !strings.Contains(errs, `pl\u202eain`) {
		t.Errorf("a value of no enum: exit %d, %q; want exit 2 naming the value escaped", code, errs)
	}
	outputs["check bad.json"], outputs["check bad.json (stderr)"] = out, errs
	for name, out := range outputs {
		if r, ok := unprintable(out); ok {
			i := strings.IndexRune(out, r)
			t.Errorf("%s prints %U raw: …%q…", name, r, out[max(0, i-40):min(len(out), i+40)])
		}
	}
	// JSON stays JSON, holding the values themselves.
	for _, name := range []string{"plan " + file + " --format json", "check " + file + " --format json", "check " + file + " --format sarif", "export"} {
		if !json.Valid([]byte(outputs[name])) {
			t.Errorf("%s: not JSON:\n%s", name, outputs[name])
		}
	}
	var wb struct {
		DataModel []struct {
			TableFacets []struct {
				TableData []map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(outputs["export"]), &wb); err != nil || len(wb.DataModel) != 1 || len(wb.DataModel[0].TableFacets) != 1 {
		t.Fatalf("the export: %v", err)
	}
	got := map[string]bool{}
	for _, it := range wb.DataModel[0].TableFacets[0].TableData {
		got[it["body"]["S"].(string)] = true
	}
	for _, v := range hostile {
		if !got[v] {
			t.Errorf("the export lost %q (holds %v)", v, got)
		}
	}
	if !strings.Contains(outputs["plan "+file+" --format json"], `evil\u202egnp`) {
		t.Error("the plan's JSON does not write the filter constant as a JSON escape")
	}
	// The import of the export carries the values back, escaped in the
	// YAML it prints.
	exported := filepath.Join(t.TempDir(), "notes-wb.json")
	if err := os.WriteFile(exported, []byte(outputs["export"]), 0o644); err != nil {
		t.Fatal(err)
	}
	code, yml, errs := keyplan("import", "workbench", exported)
	if code == cli.Usage {
		t.Fatalf("import workbench: exit 2: %s", errs)
	}
	if r, ok := unprintable(yml + errs); ok {
		t.Errorf("import workbench prints %U raw", r)
	}
	m, err := kpmodel.Parse("imported.yaml", []byte(yml))
	if err != nil {
		t.Fatalf("the import does not load: %v\n%s", err, yml)
	}
	back := map[string]bool{}
	for _, it := range m.Examples.Items {
		if s, ok := it.Values["body"].(string); ok {
			back[s] = true
		}
	}
	for _, v := range hostile {
		if !back[v] {
			t.Errorf("the import lost %q", v)
		}
	}
}
