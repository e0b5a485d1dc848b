package cli

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

const usage = `tool: a test program

usage:
  tool greet FILE... [--loud] [--times N]
      greet each file's name
  tool gen go FILE [--name S]
      generate
  tool near FILE
      a file beside which something lives
  tool plain
      takes nothing
  tool get table NAME
      a table
  tool get file FILE
      a file
`

// program is a test program: greet prints its files and its flags.
func program() *Program {
	greet := func(fs *flag.FlagSet) func(*Call) int {
		loud := fs.Bool("loud", false, "shout")
		times := Int(fs, "times", 1, 1, 3, "how often")
		var wait time.Duration
		Duration(fs, &wait, "wait", time.Second, "how long")
		return func(c *Call) int {
			fmt.Fprintf(c.Stdout, "%s %v %v %d %v\n", c.Name, c.Files, *loud, *times, wait)
			return Clean
		}
	}
	gen := func(fs *flag.FlagSet) func(*Call) int {
		var name string
		fs.String("out", "", "a `DIR`")
		String(fs, &name, "name", "a `NAME`", func(s string) bool { return s != "" && !strings.Contains(s, " ") }, "a name without spaces")
		return func(c *Call) int {
			fmt.Fprintf(c.Stdout, "%s %s %s\n", c.Name, c.File(), name)
			return Findings
		}
	}
	body := func(*flag.FlagSet) func(*Call) int {
		return func(c *Call) int { fmt.Fprintln(c.Stdout, c.Name, c.Files); return Clean }
	}
	return &Program{Name: "tool", Usage: usage, File: "input",
		Aliases: map[string]string{"--help": "help"},
		Commands: map[string]Command{
			"greet": {Files: ManyFiles, Define: greet},
			"gen":   {Word: "go", Files: OneFile, Required: []string{"name"}, Define: gen},
			"near":  {Files: OneFile, NotStdin: "its notes live beside it", Define: body},
			"plain": {Define: body},
			"get": {Kinds: map[string]Command{"table": {Files: OneFile, Arg: "table NAME", Define: body},
				"file": {Files: OneFile, NotStdin: "it reads beside it", Define: body}}},
			"help":    {Define: Help},
			"version": {Define: ShowVersion},
		}}
}

func TestRun(t *testing.T) {
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string // what each holds (stdout all of it when it ends in a newline)
	}{
		{nil, Usage, "", "tool: a test program"},
		{[]string{"nope"}, Usage, "", `tool: unknown command "nope"`},
		{[]string{"--help"}, Clean, usage, ""},
		{[]string{"version"}, Clean, "tool ", ""},
		// Flags before, between and after the files.
		{[]string{"greet", "--loud", "a", "--times", "3", "b", "--wait", "2m"}, Clean, "tool greet [a b] true 3 2m0s\n", ""},
		{[]string{"greet", "a"}, Clean, "tool greet [a] false 1 1s\n", ""},
		{[]string{"greet", "--loud", "--", "-a", "--times"}, Clean, "tool greet [-a --times] true 1 1s\n", ""},
		{[]string{"greet", "x", "--", "-a"}, Clean, "tool greet [x -a] false 1 1s\n", ""},
		{[]string{"greet"}, Usage, "", "tool greet: expected one input FILE, got 0"},
		// A value its flag refuses names the flag, the value and what was expected.
		{[]string{"greet", "a", "--times", "4"}, Usage, "", "tool greet: --times 4: expected a whole number from 1 to 3; --help lists its flags"},
		{[]string{"greet", "a", "--times", "-1"}, Usage, "", "tool greet: --times -1: expected a whole number from 1 to 3"},
		{[]string{"greet", "a", "--wait", "0s"}, Usage, "", "tool greet: --wait 0s: expected a positive duration, e.g. 1s"},
		{[]string{"greet", "a", "--loud=maybe"}, Usage, "", "tool greet: --loud maybe: not a value of its type"},
		{[]string{"greet", "a", "--nope"}, Usage, "", "tool greet: flag provided but not defined: -nope; --help lists its flags"},
		{[]string{"gen", "go", "f", "--name", "a b"}, Usage, "", `tool gen go: --name "a b": expected a name without spaces`},
		{[]string{"gen", "go", "f", "--name", ""}, Usage, "", `tool gen go: --name "": expected a name without spaces`},
		{[]string{"gen", "go", "f", "--name", "ab"}, Findings, "tool gen go f ab\n", ""},
		{[]string{"gen", "go", "f", "g", "--name", "n"}, Usage, "", "tool gen go: expected one input FILE, got 2"},
		{[]string{"gen", "go", "f"}, Usage, "", "tool gen go: --name NAME is required"},
		{[]string{"gen"}, Usage, "", "tool gen: expected go after tool gen (usage: tool gen go FILE [--name S])"},
		{[]string{"gen", "rust", "f"}, Usage, "", `tool gen: unknown kind "rust"; expected go (usage: tool gen go FILE [--name S])`},
		// COMMAND --help is COMMAND WORD --help: its lines of the usage, then its flags.
		{[]string{"gen", "--help"}, Clean, "usage: tool gen go FILE [--name S]\n      generate\n  -name NAME", ""},
		{[]string{"greet", "--help"}, Clean, "usage: tool greet FILE... [--loud] [--times N]\n      greet each file's name\n  -loud", ""},
		{[]string{"near", "-"}, Usage, "", "tool near: reads the input from a file (- is standard input): its notes live beside it"},
		{[]string{"near", "n"}, Clean, "tool near [n]\n", ""},
		{[]string{"plain"}, Clean, "tool plain []\n", ""},
		{[]string{"plain", "x"}, Usage, "", "tool plain: takes no arguments"},
		// A command of kinds: each its own command.
		{[]string{"get", "table", "t"}, Clean, "tool get table [t]\n", ""},
		{[]string{"get", "table"}, Usage, "", "tool get table: expected one table NAME, got 0"},
		{[]string{"get", "file", "-"}, Usage, "", "tool get file: reads the input from a file (- is standard input): it reads beside it"},
		{[]string{"get"}, Usage, "", "tool get: expected file or table after tool get"},
		{[]string{"get", "row"}, Usage, "", `tool get: unknown kind "row"; expected file or table`},
		{[]string{"get", "--help"}, Clean, "usage: tool get file FILE\n      a file\nusage: tool get table NAME\n      a table\n", ""},
		{[]string{"get", "table", "--help"}, Clean, "usage: tool get table NAME\n      a table\n", ""},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := program().Run(tt.args, &stdout, &stderr)
		if code != tt.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", tt.args, code, tt.code, stdout.String(), stderr.String())
		}
		if strings.HasSuffix(tt.stdout, "\n") {
			if stdout.String() != tt.stdout {
				t.Errorf("%q: stdout\n%q\nwant\n%q", tt.args, stdout.String(), tt.stdout)
			}
		} else if !strings.Contains(stdout.String(), tt.stdout) {
			t.Errorf("%q: stdout\n%s\nwant it to hold %q", tt.args, stdout.String(), tt.stdout)
		}
		if !strings.Contains(stderr.String(), tt.stderr) || tt.stderr == "" && stderr.Len() > 0 {
			t.Errorf("%q: stderr\n%s\nwant it to hold %q", tt.args, stderr.String(), tt.stderr)
		}
	}
}

// The flag package's words for a refused value are what flagError reads:
// a change in them shows here, not as a message read half.
func TestFlagErrorReadsTheFlagPackage(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	fs.Int("n", 0, "")
	fs.Func("f", "", func(string) error { return fmt.Errorf("expected more") })
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "x"}, "--n x: not a value of its type"},
		{[]string{"-f", "1"}, "--f 1: expected more"},
		{[]string{"-f= "}, `--f " ": expected more`},
		{[]string{"-zzz"}, "flag provided but not defined: -zzz"},
		{[]string{"--n=1a"}, "--n 1a: not a value of its type"},
	} {
		args, want := tt.args, tt.want
		err := fs.Parse(args)
		if err == nil {
			t.Fatalf("%s: no error", args)
		}
		if got := flagError(err); got != want {
			t.Errorf("%s: %q, want %q (the flag package said %q)", args, got, want, err)
		}
	}
}

// A command's required flags are named with their values' names.
func TestMissing(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--package NAME, --out DIR and --v are required"},
		{[]string{"-v", "--out", "o"}, "--package NAME is required"},
		{[]string{"-v", "--out", "o", "--package", ""}, ""}, // given, if empty: the command judges it
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.String("package", "", "the `NAME`")
		fs.String("out", "", "the `DIR`")
		fs.Bool("v", false, "verbose")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if got := missing(fs, []string{"package", "out", "v"}); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
	}
}

// Two conflicting flags given together are named, with why; either alone,
// or a conflict of flags not given, passes.
func TestConflicting(t *testing.T) {
	conflicts := []Conflict{{Flag: "a", Not: []string{"b"}, Why: "a reads, b writes"}, {Flag: "c", Not: []string{"a"}, Why: "c"}}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"-a"}, ""},
		{[]string{"-b", "-c"}, ""},
		{[]string{"-a", "-b=false"}, "--a and --b cannot be given together: a reads, b writes"},
		{[]string{"-a", "-c"}, "--c and --a cannot be given together: c"},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.Bool("a", false, "")
		fs.Bool("b", false, "")
		fs.Bool("c", false, "")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if got := conflicting(fs, conflicts); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
	}
}
