// Command keyplan plans and checks DynamoDB single-table designs from an
// access-pattern model.
//
//	keyplan plan FILE [--format text|json|markdown] [--strict]
//	keyplan check FILE [--format text|json|sarif] [--strict]
//	keyplan validate FILE [--endpoint URL]
//
// Exit codes: 0 clean, 1 findings (errors; warnings too with --strict),
// 2 unusable input or usage.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/keyplan/keyplan/patterns"
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
  keyplan validate FILE [--endpoint URL] [--keep]
      create the table on a DynamoDB engine (an embedded dynalite unless
      --endpoint or $KEYPLAN_DYNAMODB_ENDPOINT), load the model's examples,
      and prove each expected read returns exactly its items, in one request
  keyplan schema
      print the JSON Schema of model files, for editors
  keyplan help
      this text

exit codes: 0 clean, 1 findings (errors; warnings too with --strict), 2 unusable input or usage
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
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
	case "schema":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "keyplan schema: takes no arguments\n")
			return exitUsage
		}
		_, _ = stdout.Write(patterns.Schema)
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
	return files[0], true
}

func plan(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	format := fs.String("format", patterns.FormatText, "output format: "+strings.Join(patterns.Formats, ", "))
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	file, ok := parse(fs, args, stderr)
	if !ok {
		return exitUsage
	}
	if !contains(patterns.Formats, *format) {
		fmt.Fprintf(stderr, "keyplan plan: unknown --format %q; expected one of: %s\n", *format, strings.Join(patterns.Formats, ", "))
		return exitUsage
	}
	d, code := design(file, stderr)
	if d == nil {
		return code
	}
	if err := d.Write(stdout, *format); err != nil {
		fmt.Fprintf(stderr, "keyplan plan: %v\n", err)
		return exitUsage
	}
	return findings(d.Diagnostics, *strict)
}

var checkFormats = []string{"text", "json", "sarif"}

func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	format := fs.String("format", "text", "output format: "+strings.Join(checkFormats, ", "))
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	file, ok := parse(fs, args, stderr)
	if !ok {
		return exitUsage
	}
	if !contains(checkFormats, *format) {
		fmt.Fprintf(stderr, "keyplan check: unknown --format %q; expected one of: %s\n", *format, strings.Join(checkFormats, ", "))
		return exitUsage
	}
	d, code := design(file, stderr)
	if d == nil {
		return code
	}
	var err error
	switch *format {
	case "sarif":
		err = patterns.WriteSARIF(stdout, d.Diagnostics)
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			File        string                `json:"file"`
			Diagnostics []patterns.Diagnostic `json:"diagnostics"`
		}{file, d.Diagnostics})
	default:
		errs := len(d.Errors())
		for _, x := range d.Diagnostics {
			fmt.Fprintln(stdout, x)
		}
		fmt.Fprintf(stdout, "%s: %d error(s), %d warning(s)\n", file, errs, len(d.Diagnostics)-errs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "keyplan check: %v\n", err)
		return exitUsage
	}
	return findings(d.Diagnostics, *strict)
}

// design loads and plans a model, printing every input problem.
func design(file string, stderr io.Writer) (*patterns.Design, int) {
	m, err := patterns.Load(file)
	if err == nil {
		var d *patterns.Design
		if d, err = patterns.Plan(m); err == nil {
			return d, exitClean
		}
	}
	printErr(stderr, err)
	return nil, exitUsage
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

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
