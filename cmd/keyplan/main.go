package main

import (
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

const usage = `keyplan: DynamoDB single-table design from access patterns

usage:
  keyplan plan FILE [--format text|json|markdown] [--strict]
      design (or check a hand-made layout) and print the plan
  keyplan check FILE [--format text|json|sarif] [--strict]
      run the design checks (for CI; sarif for code-scanning UIs)
  keyplan diff FILE [--format text|json|markdown]
      compare the model with its lock (FILE.lock.json): every change
      classified, and the phases that deploy it; exit 0 when it deploys
      in one step with no backfill, 1 when it needs a migration or is refused
  keyplan lock FILE
      record the plan in the lock: accept a one-step change, or start a
      migration; refuse (exit 1, lock untouched) what would strand data
  keyplan migrate FILE --table NAME [--endpoint URL] [--segments N] [--max-wcu N]
                 [--checkpoint FILE] [--apply-indexes] [--verify]
      backfill the lock's current migration phase on the table (resumable,
      rate-limited, safe under concurrent writes), then advance the lock
  keyplan validate FILE [--endpoint URL] [--table NAME] [--keep] [--existing]
      create the table on a DynamoDB engine (an embedded dynalite unless
      --endpoint or $KEYPLAN_DYNAMODB_ENDPOINT), load the model's examples,
      and prove each expected read returns exactly its items, in one request;
      --existing runs the reads against a table that already holds them
  keyplan schema
      print the JSON Schema of model files, for editors
  keyplan help
      this text

exit codes: 0 clean, 1 findings (errors; warnings too with --strict), 2 unusable input or usage
`

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

func run(args []string, stdout, stderr io.Writer) int {
	stdout, stderr = terminal{stdout}, terminal{stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "plan":
		return plan(args[1:], stdout, stderr)
	case "check":
		return check(args[1:], stdout, stderr)
	case "validate":
		return validate(args[1:], stdout, stderr)
	case "diff":
		return diff(args[1:], stdout, stderr)
	case "lock":
		return lock(args[1:], stdout, stderr)
	case "migrate":
		return migrate(args[1:], stdout, stderr)
	case "schema":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "keyplan schema: takes no arguments\n")
			return exitUsage
		}
		_, _ = stdout.Write(patterns.Schema())
		return exitClean
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return exitClean
	}
	fmt.Fprintf(stderr, "keyplan: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// parse reads flags that may come before or after the one FILE argument.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) (string, bool) {
	fs.SetOutput(stderr)
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", false
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "keyplan %s: expected one model FILE, got %d\n", fs.Name(), len(files))
		return "", false
	}
	if files[0] == "-" && slices.Contains([]string{"diff", "lock", "migrate"}, fs.Name()) {
		fmt.Fprintf(stderr, "keyplan %s: reads the model from a file (- is standard input): its lock lives beside it\n", fs.Name())
		return "", false
	}
	return files[0], true
}

func plan(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	format := fs.String("format", string(report.Text), "output format: "+formatList(report.PlanFormats()))
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	file, ok := parse(fs, args, stderr)
	if !ok {
		return exitUsage
	}
	f, err := report.ParseFormat(*format, report.PlanFormats())
	if err != nil {
		fmt.Fprintf(stderr, "keyplan plan: %v\n", err)
		return exitUsage
	}
	d, code := design(file, stderr)
	if d == nil {
		return code
	}
	if err := report.Write(stdout, d, f); err != nil {
		fmt.Fprintf(stderr, "keyplan plan: %v\n", err)
		return exitUsage
	}
	return findings(d.Diagnostics, *strict)
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
	file, ok := parse(fs, args, stderr)
	if !ok {
		return exitUsage
	}
	f, err := report.ParseFormat(*format, report.FindingFormats())
	if err != nil {
		fmt.Fprintf(stderr, "keyplan check: %v\n", err)
		return exitUsage
	}
	d, code := design(file, stderr)
	if d == nil {
		return code
	}
	if err := report.WriteFindings(stdout, d.Source, d.Diagnostics, f); err != nil {
		fmt.Fprintf(stderr, "keyplan check: %v\n", err)
		return exitUsage
	}
	return findings(d.Diagnostics, *strict)
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
	m, err := patterns.Load(file)
	if err != nil {
		printErr(stderr, err)
		return nil, nil, exitUsage
	}
	var lock *patterns.Lock
	if file != "-" { // a model on stdin has no lock beside it
		if lock, err = patterns.LoadLock(patterns.LockPath(file)); err != nil {
			printErr(stderr, err)
			return nil, nil, exitUsage
		}
	}
	d, err := patterns.PlanLocked(m, lock)
	if err != nil {
		printErr(stderr, err)
		return nil, nil, exitUsage
	}
	return d, lock, exitClean
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
