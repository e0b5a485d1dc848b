package patterns_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// Printable escapes what %q escapes, the same way (so a message that
// quotes a value with %q and one that prints it with Printable agree), and
// leaves everything else as it is.
func TestPrintableAgreesWithQuote(t *testing.T) {
	for _, s := range []string{
		"rtl \u202e override", "isolates \u2066\u2067\u2068\u2069", "embeddings \u202a\u202b\u202c\u202d", "marks \u200e\u200f\u061c",
		"zero width \u200b\u200c\u200d\u2060\ufeff", "soft\u00adhyphen", "del \x7f", "c1 \u0085\u009b", "esc \x1b[31m", "nul \x00",
		"nbsp\u00a0x", "line\u2028para\u2029", "tag \U000e0041", "private \ue000",
	} {
		want := fmt.Sprintf("%q", s)
		want = want[1 : len(want)-1]
		if got := model.Printable(s); got != want {
			t.Errorf("Printable(%q) = %s, want %s (as %%q)", s, got, want)
		}
	}
	for _, s := range []string{"plain", "é ünïcode ✓ — ≥ …", `quotes " and \ backslash`, "emoji 🙂", "hangul 한글", "arabic عربي"} {
		if got := model.Printable(s); got != s {
			t.Errorf("Printable(%q) = %q: changed text that prints as it is", s, got)
		}
	}
	if got := model.Printable("filler\u3164x"); got != `filler\u3164x` {
		t.Errorf("a Hangul filler (a letter that shows as nothing): %q", got)
	}
	if got := model.Printable("bad \xff byte"); got != `bad \xff byte` {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

// PrintableJSON keeps the JSON value and leaves no Unprintable character
// raw.
func TestPrintableJSON(t *testing.T) {
	in := map[string]any{"a": "del\x7f c1\u009b rtl\u202e tag\U000e0041 filler\u3164 nl\n tab\t", "k\u202ey": []any{"x\u2066", 1.5}}
	b, err := json.MarshalIndent(in, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	out := model.PrintableJSON(b)
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if fmt.Sprint(back) != fmt.Sprint(in) {
		t.Errorf("the value changed:\n%v\nwant\n%v", back, in)
	}
	for _, r := range string(out) {
		if r != '\n' && r != '\t' && model.Unprintable(r) {
			t.Errorf("%U left raw in %s", r, out)
		}
	}
	if !strings.Contains(string(out), `\udb40\udc41`) {
		t.Errorf("U+E0041 is not a surrogate pair: %s", out)
	}
	if plain := []byte(`{"a": "é ✓"}`); &model.PrintableJSON(plain)[0] != &plain[0] {
		t.Error("JSON with nothing to escape was copied")
	}
}
