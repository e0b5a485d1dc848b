package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

// Exit codes.
const (
	exitClean    = 0
	exitFindings = 1
	exitUsage    = 2
)

// usage is keyplan help: every command, its flags in short, and the exit
// codes (doc.go lists the commands too; TestUsageListsEveryCommand holds
// them to the command table).
//
//go:embed usage.txt
var usage string

// memoryLimit is the soft memory limit the CLI runs under (unless
// GOMEMLIMIT says otherwise): the garbage collector works harder near it,
// so even the largest model the loader accepts stays under 200 MB.
const memoryLimit = 150 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commands are keyplan's commands by name, each given the arguments after
// it.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"plan": plan, "check": check, "validate": validate, "diff": diff, "lock": lock, "migrate": migrate, "gen": generate,
	"schema": schema, "local": local, "help": help, "version": printVersion,
}

func run(args []string, stdout, stderr io.Writer) int {
	stdout, stderr = report.Terminal(stdout), report.Terminal(stderr)
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "--help", "-help":
		name = "help"
	case "--version", "-version":
		name = "version"
	}
	if cmd, ok := commands[name]; ok {
		return cmd(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "keyplan: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

func schema(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && slices.Contains([]string{"-h", "-help", "--help"}, args[0]):
		fmt.Fprintln(stdout, "usage: keyplan schema\n  print the JSON Schema of model files, for editors")
		return exitClean
	case len(args) > 0:
		return fail(stderr, exitUsage, "keyplan schema: takes no arguments")
	}
	_, _ = stdout.Write(patterns.Schema())
	return exitClean
}

func help(_ []string, stdout, _ io.Writer) int {
	fmt.Fprint(stdout, usage)
	return exitClean
}

func printVersion(_ []string, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, "keyplan", version())
	return exitClean
}

// parse reads flags that may come before or after the one FILE
// argument. A code of 0 or more ends the command with it: --help (its
// flags on stdout, 0) or a usage error (2).
func parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (string, int) {
	files, code := parseFiles(fs, args, stdout, stderr, false)
	if code >= 0 {
		return "", code
	}
	return files[0], -1
}

// parseFiles is parse for commands that take several files (many).
func parseFiles(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, many bool) ([]string, int) {
	fs.SetOutput(stderr)
	fs.Usage = func() {} // --help prints to stdout below; a bad flag names itself
	var files []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintf(stdout, "usage: keyplan %s FILE%s [flags]\n", fs.Name(), map[bool]string{true: "...", false: ""}[many])
			fs.PrintDefaults()
			return nil, exitClean
		}
		if err != nil {
			fmt.Fprintf(stderr, "keyplan %s --help lists its flags\n", fs.Name())
			return nil, exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(files) == 0 || len(files) > 1 && !many:
		fmt.Fprintf(stderr, "keyplan %s: expected one model FILE, got %d\n", fs.Name(), len(files))
		return nil, exitUsage
	case slices.Contains(files, "-") && slices.Contains([]string{"diff", "lock", "migrate"}, fs.Name()):
		fmt.Fprintf(stderr, "keyplan %s: reads the model from a file (- is standard input): its lock lives beside it\n", fs.Name())
		return nil, exitUsage
	}
	return files, -1
}

// eachDesign plans each file and hands the design to write; the exit code
// is the worst over the files: 2 for unusable input, 1 for findings
// (errors; warnings too when strict).
func eachDesign(cmd string, files []string, strict bool, stderr io.Writer, write func(file string, d *patterns.Design) error) int {
	worst := exitClean
	for _, file := range files {
		d, code := design(file, stderr)
		if d != nil {
			code = findings(d.Diagnostics, strict)
			if err := write(file, d); err != nil {
				code = fail(stderr, exitUsage, "keyplan %s: %v", cmd, err)
			}
		}
		worst = max(worst, code)
	}
	return worst
}

func plan(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	format := fs.String("format", string(report.Text), "output format: "+formatList(report.PlanFormats()))
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	var replicas replicaFlags
	fs.Var(&replicas, "replica", "a replica region of a global table, repeatable: `REGION[:table=RCU,GSI=RCU...]` "+
		"(the read capacity it provisions, by default the primary's); the estimate then covers every region")
	files, code := parseFiles(fs, args, stdout, stderr, true)
	if code >= 0 {
		return code
	}
	f, err := report.ParseFormat(*format, report.PlanFormats())
	if err != nil {
		return fail(stderr, exitUsage, "keyplan plan: %v", err)
	}
	return eachDesign("plan", files, *strict, stderr, func(file string, d *patterns.Design) error {
		if len(replicas) > 0 && d.Cost != nil {
			reads, err := replicas.reads(d.Cost)
			if err != nil {
				return fmt.Errorf("%s: --replica %v", file, err)
			}
			d.Cost.AllRegions = d.Cost.Global(reads)
		}
		return report.Write(stdout, d, f)
	})
}

func formatList(fs []report.Format) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	format := fs.String("format", string(report.Text), "output format: "+formatList(report.FindingFormats()))
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	files, code := parseFiles(fs, args, stdout, stderr, true)
	if code >= 0 {
		return code
	}
	f, err := report.ParseFormat(*format, report.FindingFormats())
	if err != nil {
		return fail(stderr, exitUsage, "keyplan check: %v", err)
	}
	return eachDesign("check", files, *strict, stderr, func(_ string, d *patterns.Design) error {
		return report.WriteFindings(stdout, d.Source, d.Diagnostics, f)
	})
}

// design loads and plans a model, printing every input problem.
// With a lock beside the model (keyplan lock), the plan keeps what the
// lock records (stable planning).
func design(file string, stderr io.Writer) (*patterns.Design, int) {
	d, _, code := designAndLock(file, stderr)
	return d, code
}

// designAndLock loads a model and its lock (nil when there is none) and
// plans the model with the lock.
func designAndLock(file string, stderr io.Writer) (*patterns.Design, *patterns.Lock, int) {
	d, lock, err := patterns.Open(file)
	if err != nil {
		printErr(stderr, err)
		return nil, nil, exitUsage
	}
	return d, lock, exitClean
}

// version is the module's version from the build info (a tagged
// version, or "(devel)" with the commit for a build from a checkout).
func version() string {
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

func printErr(w io.Writer, err error) {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		for _, e := range joined.Unwrap() {
			fmt.Fprintf(w, "%v\n", e)
		}
		return
	}
	fmt.Fprintf(w, "%v\n", err)
}

func findings(ds []patterns.Diagnostic, strict bool) int {
	for _, d := range ds {
		if d.Severity == patterns.SeverityError || strict {
			return exitFindings
		}
	}
	return exitClean
}

// fail prints a message (a line) and returns the exit code.
func fail(w io.Writer, code int, format string, args ...any) int {
	fmt.Fprintf(w, format+"\n", args...)
	return code
}
