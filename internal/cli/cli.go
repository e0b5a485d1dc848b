package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Exit codes: Clean, Findings (what the command checked failed), Usage
// (unusable input or usage).
const (
	Clean    = 0
	Findings = 1
	Usage    = 2
)

// FindingsIf is Findings when found, else Clean.
func FindingsIf(found bool) int {
	if found {
		return Findings
	}
	return Clean
}

// A Command is one of a program's commands.
type Command struct {
	// Word must follow the command's name ("go" in gen go); "" for none.
	Word string
	// Kinds, when set, are the command's kinds, one of which must follow
	// its name (import workbench, import table): each a command of its
	// own, with its own flags and files.
	Kinds map[string]Command
	// Arg is what its one argument is, when not a file ("table NAME").
	Arg string
	// Files is how many files it takes.
	Files Files
	// NotStdin, when set, refuses - (standard input) as its file and
	// says why: what the command reads beside the file.
	NotStdin string
	// Required are the flags it cannot run without (a `WORD` in a flag's
	// usage names its value in the message: --table NAME is required).
	Required []string
	// Conflicts are its flags that cannot be given together (exit 2,
	// naming both and why).
	Conflicts []Conflict
	// Define declares the command's flags on fs and returns its body,
	// run once they are parsed (its exit code).
	Define func(fs *flag.FlagSet) func(c *Call) int
}

// A Conflict is a flag of a command that cannot be given with any of
// others, and why: "--existing and --seed cannot be given together: WHY".
type Conflict struct {
	Flag string
	Not  []string
	Why  string
}

// Files is how many files a command takes.
type Files int

const (
	NoFile    Files = iota
	OneFile         // FILE, or - for standard input
	ManyFiles       // FILE...
)

// A Program is a command-line program: its name, its usage text (each
// command's synopsis on a line that starts with "  NAME COMMAND", what
// it does on the lines below it, indented further), and its commands.
type Program struct {
	Name     string
	Usage    string
	Commands map[string]Command
	// Aliases are other names of commands (--help for help).
	Aliases map[string]string
	// File is what a file argument is, in messages ("model": expected
	// one model FILE).
	File string
}

// Run runs the command args name: with no arguments, the usage text on
// stderr (exit 2); an unknown command is named, then the usage text.
func (p *Program) Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, p.Usage)
		return Usage
	}
	name := args[0]
	if alias, ok := p.Aliases[name]; ok {
		name = alias
	}
	cmd, ok := p.Commands[name]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n%s", p.Name, args[0], p.Usage)
		return Usage
	}
	c := &Call{Name: p.Name + " " + name, Stdout: stdout, Stderr: stderr, program: p}
	return c.run(cmd, args[1:])
}

// A Call is one run of a command: its name for messages ("keyplan gen
// go"), its files, and where it writes.
type Call struct {
	Name           string
	Files          []string
	Stdout, Stderr io.Writer
	program        *Program
}

// File is the command's one file.
func (c *Call) File() string { return c.Files[0] }

// Note prints a line on stderr, after the command's name.
func (c *Call) Note(format string, args ...any) {
	fmt.Fprintf(c.Stderr, c.Name+": "+format+"\n", args...)
}

// Fail is Note, returning the exit code.
func (c *Call) Fail(code int, format string, args ...any) int {
	c.Note(format, args...)
	return code
}

// run checks the command's word, parses its flags and files, and runs
// it: --help prints the command's lines of the usage text and its flags
// (exit 0); a usage error exits 2.
func (c *Call) run(cmd Command, args []string) int {
	if cmd.Kinds != nil {
		return c.kind(cmd, args)
	}
	args, ok := c.word(cmd, args)
	if !ok {
		return Usage
	}
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a bad flag is named below, --help prints to stdout
	body := cmd.Define(fs)
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(c.Stdout, "usage: %s\n", c.usageOf(c.Name))
			fs.SetOutput(c.Stdout)
			fs.PrintDefaults()
			return Clean
		}
		if err != nil {
			return c.Fail(Usage, "%s; --help lists its flags", flagError(err))
		}
		if fs.NArg() == 0 {
			break
		}
		if rest := fs.Args(); len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			c.Files = append(c.Files, rest...) // after --, every argument is a file
			break
		}
		c.Files, args = append(c.Files, fs.Arg(0)), fs.Args()[1:]
	}
	if msg := cmd.problem(c.Files, c.program.File+" FILE"); msg != "" {
		return c.Fail(Usage, "%s", msg)
	}
	if msg := missing(fs, cmd.Required); msg != "" {
		return c.Fail(Usage, "%s", msg)
	}
	if msg := conflicting(fs, cmd.Conflicts); msg != "" {
		return c.Fail(Usage, "%s", msg)
	}
	return body(c)
}

// badValue is the flag package's words for a value its flag refused.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): (?:parse error|(.*))$`)

// flagError says what is wrong with a flag as keyplan's messages do:
// the flag, its value, and what was expected (--segments -1: expected 0
// to 1000000).
func flagError(err error) string {
	m := badValue.FindStringSubmatch(err.Error())
	switch {
	case m == nil:
		return err.Error() // flag provided but not defined: -x
	}
	value := m[1]
	if value == "" || strings.ContainsAny(value, " \t") {
		value = strconv.Quote(value)
	}
	if m[3] == "" {
		return fmt.Sprintf("--%s %s: not a value of its type", m[2], value)
	}
	return fmt.Sprintf("--%s %s: %s", m[2], value, m[3])
}

// Int declares a flag whose value must be from lo to hi, refused as it
// is parsed (--help: -NAME N, and the bounds).
func Int(fs *flag.FlagSet, name string, value, lo, hi int, usage string) *int {
	p := &value
	fs.Func(name, fmt.Sprintf("%s (`N` from %d to %d, default %d)", usage, lo, hi, value), func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("expected a whole number from %d to %d", lo, hi)
		}
		*p = n
		return nil
	})
	return p
}

// Uint64 declares a flag of a whole number from 0 (a seed, say), value
// its default, refused as it is parsed.
func Uint64(fs *flag.FlagSet, p *uint64, name string, value uint64, usage string) {
	*p = value
	fs.Func(name, usage, func(s string) (err error) {
		if *p, err = strconv.ParseUint(s, 10, 64); err != nil {
			return fmt.Errorf("expected a whole number from 0 to %d", uint64(math.MaxUint64))
		}
		return nil
	})
}

// String declares a string flag whose value ok accepts, refused as it is
// parsed with what was expected (a `WORD` in usage names the value in
// --help).
func String(fs *flag.FlagSet, p *string, name, usage string, ok func(string) bool, expected string) {
	fs.Func(name, usage, func(s string) error {
		if !ok(s) {
			return errors.New("expected " + expected)
		}
		*p = s
		return nil
	})
}

// Duration declares a duration flag that must be positive.
func Duration(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Func(name, fmt.Sprintf("%s (a `duration`, default %v)", usage, value), func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("expected a positive duration, e.g. %v", value)
		}
		*p = d
		return nil
	})
}

// word takes the word that must follow the command's name, adding it to
// the name; COMMAND --help stands for COMMAND WORD --help. It says what
// is wrong when the word is not there (false: exit 2).
func (c *Call) word(cmd Command, args []string) ([]string, bool) {
	if cmd.Word == "" {
		return args, true
	}
	name := c.Name + " " + cmd.Word
	switch {
	case len(args) > 0 && slices.Contains([]string{"-h", "-help", "--help"}, args[0]):
		c.Name = name
		return args, true
	case len(args) > 0 && args[0] == cmd.Word:
		c.Name = name
		return args[1:], true
	}
	synopsis, _, _ := strings.Cut(c.usageOf(name), "\n")
	if len(args) == 0 {
		c.Note("expected %s after %s (usage: %s)", cmd.Word, c.Name, synopsis)
	} else {
		c.Note("unknown kind %q; expected %s (usage: %s)", args[0], cmd.Word, synopsis)
	}
	return nil, false
}

// kind runs the kind of cmd args name (import table): with none, or one
// it lacks, the kinds are named (exit 2); --help prints each kind's
// lines of the usage text.
func (c *Call) kind(cmd Command, args []string) int {
	names := slices.Sorted(maps.Keys(cmd.Kinds))
	switch {
	case len(args) > 0 && slices.Contains([]string{"-h", "-help", "--help"}, args[0]):
		for _, k := range names {
			fmt.Fprintf(c.Stdout, "usage: %s\n", c.usageOf(c.Name+" "+k))
		}
		return Clean
	case len(args) == 0:
		return c.Fail(Usage, "expected %s after %s", strings.Join(names, " or "), c.Name)
	}
	k, ok := cmd.Kinds[args[0]]
	if !ok {
		return c.Fail(Usage, "unknown kind %q; expected %s", args[0], strings.Join(names, " or "))
	}
	c.Name += " " + args[0]
	return c.run(k, args[1:])
}

// problem says what is wrong with the files a command was given ("" when
// nothing).
func (cmd Command) problem(files []string, what string) string {
	arg := cmp.Or(cmd.Arg, what)
	switch n := cmd.Files; {
	case n == NoFile && len(files) > 0:
		return "takes no arguments"
	case n != NoFile && (len(files) == 0 || len(files) > 1 && n != ManyFiles):
		return fmt.Sprintf("expected one %s, got %d", arg, len(files))
	case cmd.NotStdin != "" && files[0] == "-":
		return fmt.Sprintf("reads the %s from a file (- is standard input): %s", strings.TrimSuffix(what, " FILE"), cmd.NotStdin)
	}
	return ""
}

// missing says which of the required flags were not given ("" when all
// were): --table NAME is required.
func missing(fs *flag.FlagSet, required []string) string {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var out []string
	for _, name := range required {
		if !given[name] {
			value, _ := flag.UnquoteUsage(fs.Lookup(name))
			out = append(out, strings.TrimSpace("--"+name+" "+value))
		}
	}
	switch len(out) {
	case 0:
		return ""
	case 1:
		return out[0] + " is required"
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1] + " are required"
}

// conflicting says which conflicting flags were given together, the
// first such pair ("" when none were).
func conflicting(fs *flag.FlagSet, conflicts []Conflict) string {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, cf := range conflicts {
		for _, other := range cf.Not {
			if given[cf.Flag] && given[other] {
				return fmt.Sprintf("--%s and --%s cannot be given together: %s", cf.Flag, other, cf.Why)
			}
		}
	}
	return ""
}

// usageOf is a command's lines of the usage text (its synopsis and what
// it does), from the line that starts with name.
func (c *Call) usageOf(name string) string {
	_, rest, ok := strings.Cut(c.program.Usage, "\n  "+name)
	if !ok {
		return name
	}
	lines := strings.Split(name+rest, "\n")
	n := 1
	for n < len(lines) && strings.HasPrefix(lines[n], "   ") {
		n++
	}
	return strings.Join(lines[:n], "\n")
}

// Interruptible is a context SIGINT or SIGTERM cancels; after the first,
// a second ends the process at once (the default handling is back). stop
// releases the signals.
func Interruptible() (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }()
	return ctx, stop
}

// Help is a help command: the program's usage text on stdout.
func Help(*flag.FlagSet) func(*Call) int {
	return func(c *Call) int {
		fmt.Fprint(c.Stdout, c.program.Usage)
		return Clean
	}
}

// ShowVersion is a version command: the program's name and Version.
func ShowVersion(*flag.FlagSet) func(*Call) int {
	return func(c *Call) int {
		fmt.Fprintln(c.Stdout, c.program.Name, Version())
		return Clean
	}
}

// Version is the main module's version from the build info: a tagged
// version, or "(devel)" with the commit (and +dirty) for a build from a
// checkout.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "+dirty"
		}
	}
	return v
}
