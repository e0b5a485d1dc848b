package main

import (
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/enginepass"
)

const plainModel = `table: Games
entities:
  Player:
    id: [playerId]
    attributes: {playerId: {type: string, maxLength: 40}, rating: {type: number, min: 0, max: 9999}}
patterns:
  GetPlayer: {get: Player, rate: 10}
`

// Hostile input: every case is refused (exit 2) with file:line:col and
// what was expected, quickly and in bounded memory, and nothing the file
// holds reaches the terminal raw.
func TestHostileInputBounded(t *testing.T) {
	enginepass.Independent(t)
	big := strings.Repeat("x", 5<<20)
	alias := "table: Games\nx: &a [" + strings.Repeat("1,", 1000) + "1]\n" +
		"y: &b [" + strings.Repeat("*a,", 1000) + "*a]\nentities: {}\npatterns: {}\n"
	tests := []struct {
		name, file, content string
		want                []string
	}{
		{"larger than the cap", "big.yaml", big, []string{"big.yaml:1:1", "larger than 4194304 bytes"}},
		{"a 5 MB unknown name", "name.yaml", strings.Replace(plainModel, "GetPlayer: {get: Player", "GetPlayer: {get: P"+strings.Repeat("q", 3<<20), 1),
			[]string{"name.yaml:7:", "unknown entity", "… (3145729 bytes)"}},
		{"alias expansion", "alias.yaml", alias, []string{"alias.yaml:1:1", "expands to more than 200000 YAML nodes"}},
		{"NaN rate", "nan.yaml", strings.Replace(plainModel, "rate: 10", "rate: !!float .nan", 1), []string{"nan.yaml:7:", "rate: expected a finite number"}},
		{"infinite writes", "inf.yaml", strings.Replace(plainModel, "    id: [playerId]\n", "    id: [playerId]\n    writes: !!float +.inf\n", 1), []string{"inf.yaml:5:13", "writes: expected a finite number"}},
		{"a rate of 1e308", "huge.yaml", strings.Replace(plainModel, "rate: 10", "rate: 1e308", 1), []string{"huge.yaml:7:", "expected at most 1e+09 per second"}},
		{"ANSI in a name", "ansi.yaml", strings.Replace(plainModel, "  Player:\n", "  \"Pl\\e[2Jayer\":\n", 1), []string{`Pl\x1b[2Jayer`}},
		{"trailing JSON", "t.json", `{"table": "Games"} {"x": 1}`, []string{"t.json:1:20", "invalid JSON"}},
		{"a JSON comment", "c.json", "{\"table\": \"Games\", // no\n\"entities\": {}}", []string{"c.json:1:", "invalid JSON"}},
		{"a raw tab in a JSON string", "tab.json", "{\"table\": \"Ga\tmes\"}", []string{"tab.json:1:", "invalid JSON"}},
		{"two YAML documents", "two.yaml", plainModel + "---\ntable: Other\n", []string{"two.yaml:8:1", "a second YAML document"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := keyplan("plan", write(t, tt.file, tt.content))
			if code != cli.Usage {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%.2000s", w, errs)
				}
			}
			if len(errs) > 20000 {
				t.Errorf("%d bytes of errors: the file's text is echoed", len(errs))
			}
			if strings.ContainsAny(errs+out, "\x1b\r\x00") {
				t.Errorf("a control character reached the output: %q", errs)
			}
		})
	}
}

// "-" reads the model from standard input.
func TestModelFromStdin(t *testing.T) {
	enginepass.Independent(t)
	f := write(t, "m.yaml", plainModel)
	in, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	saved := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = saved }()
	code, out, errs := keyplan("check", "-")
	if code != cli.Clean || !strings.Contains(out, "<stdin>: 0 error(s)") {
		t.Errorf("check -: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := keyplan("lock", "-"); code != cli.Usage || !strings.Contains(errs, "its lock lives beside it") {
		t.Errorf("lock -: exit %d %s", code, errs)
	}
}

// Every subcommand's --help prints its flags and exits 0; version says
// the build; check and plan take several files and exit with the worst.
func TestHelpVersionAndSeveralFiles(t *testing.T) {
	enginepass.Independent(t)
	for _, cmd := range []string{"plan", "check", "diff", "lock", "migrate", "validate", "schema"} {
		code, out, errs := keyplan(cmd, "--help")
		if code != cli.Clean || !strings.Contains(out, "usage: keyplan "+cmd) || errs != "" {
			t.Errorf("%s --help: exit %d\n%s%s", cmd, code, out, errs)
		}
	}
	if code, out, _ := keyplan("--version"); code != cli.Clean || !strings.HasPrefix(out, "keyplan ") {
		t.Errorf("--version: exit %d %q", code, out)
	}
	bad := write(t, "bad.yaml", strings.Replace(plainModel, "rate: 10", "rate: lots", 1))
	scan := write(t, "scan.yaml", strings.Replace(plainModel, "GetPlayer: {get: Player, rate: 10}", "GetPlayer: {get: Player, rate: 10}\n  ByRating: {query: Player, where: [rating], consistent: true}", 1))
	tests := []struct {
		files []string
		code  int
	}{
		{[]string{"../../examples/leaderboard.yaml", "../../examples/merchant-orders.yaml"}, cli.Clean},
		{[]string{"../../examples/merchant-orders.yaml", scan}, cli.Findings},
		{[]string{scan, bad, "../../examples/merchant-orders.yaml"}, cli.Usage},
	}
	for _, tt := range tests {
		code, out, errs := keyplan(append([]string{"check"}, tt.files...)...)
		if code != tt.code {
			t.Errorf("check %v: exit %d, want %d\n%s%s", tt.files, code, tt.code, out, errs)
		}
		if n := strings.Count(out, " error(s), "); n != len(tt.files)-strings.Count(strings.Join(tt.files, " "), "bad.yaml") {
			t.Errorf("check %v: %d summaries\n%s", tt.files, n, out)
		}
	}
}
