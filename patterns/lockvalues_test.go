package patterns_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// constantModel is a model whose filter constant is v: a sparse GSI key
// holds it (JSON, so that any string can be written).
func constantModel(v string) []byte {
	b, _ := json.Marshal(map[string]any{
		"table": "Items",
		"entities": map[string]any{"Item": map[string]any{"id": []string{"itemId"}, "attributes": map[string]any{
			"itemId": map[string]any{"type": "string", "maxLength": 40},
			"owner":  map[string]any{"type": "string", "maxLength": 40},
			"status": map[string]any{"type": "string", "maxLength": 200},
		}}},
		"patterns": map[string]any{
			"GetItem":    map[string]any{"get": "Item"},
			"ByStatus":   map[string]any{"query": "Item", "where": []string{"owner"}, "filter": map[string]any{"status": v}},
			"AllOfThem":  map[string]any{"query": "Item", "filter": map[string]any{"status": v}, "shards": 2},
			"OwnerItems": map[string]any{"query": "Item", "where": []string{"owner"}},
		},
	})
	// The loader (YAML) takes DEL and C1 only as escapes.
	var out strings.Builder
	for _, r := range string(b) {
		if !strconv.IsPrint(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

// lockRoundTrip locks m's design, reads the lock back and checks that it
// is the same design: every key template equal, every plan the same (the
// lock reads without a complaint, and accepts the design planned with it).
func lockRoundTrip(t *testing.T, m *model.Model) *patterns.Design {
	t.Helper()
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := patterns.NewLock(d).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	l, err := patterns.ReadLock("items.lock.json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the lock keyplan wrote does not read back: %v", err)
	}
	back := l.Latest()
	for _, ek := range d.Entities {
		bk := back.Entity(ek.Name)
		if bk == nil || len(bk.Keys) != len(ek.Keys) {
			t.Fatalf("entity %s: keys %v read back as %v", ek.Name, ek.Keys, bk)
		}
		for i, k := range ek.Keys {
			if !k.PK.Equal(bk.Keys[i].PK) || !k.SK.Equal(bk.Keys[i].SK) {
				t.Errorf("entity %s on %s: %q / %q read back as %q / %q", ek.Name, k.Index, k.PK, k.SK, bk.Keys[i].PK, bk.Keys[i].SK)
			}
		}
	}
	again, err := patterns.PlanLocked(m, l)
	if err != nil || !l.Accepts(again) {
		t.Errorf("the model planned with its own lock: %v, accepted %v", err, err == nil && l.Accepts(again))
	}
	if b2, _ := l.Bytes(); !bytes.Equal(b, b2) {
		t.Error("the lock's bytes change on a second write")
	}
	return d
}

// Every constant keyplan puts into a key template reads back as itself
// from the lock: braces (doubled in the template's text, the one escape),
// keyplan's own separators and escape, quotes, bidirectional controls,
// DEL. On main a brace made a lock keyplan could not read ({{.} is not an
// attribute placeholder) or read as a placeholder ("x{owner}").
func TestLockRoundTripsEveryConstant(t *testing.T) {
	for _, v := range []string{
		"x{owner}", "{{.}}", "{", "}", "}{", "{shard:2}", "a{}b", "{{", "}}}",
		"#", "%", "$", "a#b%c$d", `"quoted"`, "it's", "\u202eevil", "\u2066iso\u2069", "del\x7f", "c1\u0085", "line\nbreak", "tab\t",
		"plain", "UPPER_case-1.2",
	} {
		t.Run(v, func(t *testing.T) {
			m, err := model.Parse("items.json", constantModel(v))
			if err != nil {
				t.Fatal(err)
			}
			d := lockRoundTrip(t, m)
			enc, err := m.Entity("Item").Attr("status").EncodeKey(v)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, k := range d.Entity("Item").Keys {
				for _, tmpl := range []model.Template{k.PK, k.SK} {
					for _, s := range tmpl {
						found = found || strings.Contains(s.Lit, enc)
					}
				}
			}
			if !found {
				t.Errorf("no key template holds the constant %q (encoded %q): %v", v, enc, d.Entity("Item").Keys)
			}
		})
	}
}

// A literal brace in a hand-made key is written twice ({{, }}), as the
// lock writes it; a single one is refused with the way to write it.
func TestTemplateLiteralBraces(t *testing.T) {
	tm, err := model.ParseTemplate("T{{#{itemId}#}}X")
	if err != nil {
		t.Fatal(err)
	}
	if len(tm) != 3 || tm[0].Lit != "T{#" || tm[1].Attr != "itemId" || tm[2].Lit != "#}X" || tm.String() != "T{{#{itemId}#}}X" {
		t.Errorf("parsed %#v, text %q", tm, tm.String())
	}
	for text, want := range map[string]string{
		"T{#{itemId}": "{#{itemId} is not an attribute placeholder",
		"T}#{itemId}": "unmatched '}' in key template (a literal brace is written twice: }})",
		"T#{itemId":   "unclosed '{' in key template (a literal brace is written twice: {{)",
	} {
		if _, err := model.ParseTemplate(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTemplate(%q): %v, want %q", text, err, want)
		}
	}
	src := `table: Items
entities:
  Item:
    id: [itemId]
    attributes: {itemId: {type: string, maxLength: 40}}
    keys: {table: {pk: "ITEM{{#{itemId}", sk: "}}"}}
patterns:
  GetItem: {get: Item}
`
	m, err := model.Parse("items.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d := lockRoundTrip(t, m)
	if k := d.Entity("Item").Key(model.BaseIndex); k.PK[0].Lit != "ITEM{#" || k.SK[0].Lit != "}" {
		t.Errorf("the hand-made key reads as %#v / %#v", k.PK, k.SK)
	}
}

// Templates without a brace in a constant are written byte for byte as
// before the escape: every committed lock writes back as it is.
func TestCommittedLocksWriteBackUnchanged(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.lock.json")
	if len(files) == 0 {
		t.Fatal("no committed locks")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := patterns.ReadLock(f, bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := l.Bytes(); !bytes.Equal(b, raw) {
			t.Errorf("%s writes back other bytes", f)
		}
	}
}

// FuzzLockRoundTrip: whatever a filter constant holds, the lock keyplan
// writes for it reads back as the same design.
func FuzzLockRoundTrip(f *testing.F) {
	for _, v := range []string{"x{owner}", "{{.}}", "}", "a#b%c$d", "\u202e", "del\x7f", "plain"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		m, err := model.Parse("items.json", constantModel(v))
		if err != nil {
			return // a constant the model refuses (empty, too long, not UTF-8)
		}
		lockRoundTrip(t, m)
	})
}
