package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

// call is one run of a command: its name for messages ("keyplan gen
// go"), its model files, and where it writes.
type call struct {
	name           string
	files          []string
	stdout, stderr io.Writer
}

// run checks the command's word, parses its flags and files (flags may
// come before or after them), and runs it: --help prints the command's
// lines of usage.txt and its flags (exit 0); a usage error exits 2.
func (c *call) run(cmd command, args []string) int {
	args, ok := c.word(cmd, args)
	if !ok {
		return exitUsage
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {} // --help prints to stdout below; a bad flag names itself
	body := cmd.define(fs)
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(c.stdout, "usage: %s\n", usageOf(c.name))
			fs.SetOutput(c.stdout)
			fs.PrintDefaults()
			return exitClean
		}
		if err != nil {
			return c.fail(exitUsage, "--help lists its flags")
		}
		if fs.NArg() == 0 {
			break
		}
		c.files, args = append(c.files, fs.Arg(0)), fs.Args()[1:]
	}
	if msg := cmd.files.problem(c.files); msg != "" {
		return c.fail(exitUsage, "%s", msg)
	}
	return body(c)
}

// word takes the word that must follow the command's name (gen go),
// adding it to the name; COMMAND --help stands for COMMAND WORD --help.
// It says what is wrong when the word is not there (false: exit 2).
func (c *call) word(cmd command, args []string) ([]string, bool) {
	if cmd.word == "" {
		return args, true
	}
	name := c.name + " " + cmd.word
	switch {
	case len(args) > 0 && slices.Contains([]string{"-h", "-help", "--help"}, args[0]):
		c.name = name
		return args, true
	case len(args) > 0 && args[0] == cmd.word:
		c.name = name
		return args[1:], true
	}
	synopsis, _, _ := strings.Cut(usageOf(name), "\n")
	if len(args) == 0 {
		c.note("expected %s after %s (usage: %s)", cmd.word, c.name, synopsis)
	} else {
		c.note("unknown kind %q; expected %s (usage: %s)", args[0], cmd.word, synopsis)
	}
	return nil, false
}

// usageOf is a command's lines of usage.txt (its synopsis and what it
// does), from the line that starts with name.
func usageOf(name string) string {
	_, rest, ok := strings.Cut(usage, "\n  "+name)
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

// problem says what is wrong with the files a command was given ("" when
// nothing).
func (n fileArgs) problem(files []string) string {
	switch {
	case n == noFile && len(files) > 0:
		return "takes no arguments"
	case n != noFile && (len(files) == 0 || len(files) > 1 && n != manyFiles):
		return fmt.Sprintf("expected one model FILE, got %d", len(files))
	case n == lockFile && files[0] == "-":
		return "reads the model from a file (- is standard input): its lock lives beside it"
	}
	return ""
}

// file is the command's one model file.
func (c *call) file() string { return c.files[0] }

// note prints a line on stderr, after the command's name.
func (c *call) note(format string, args ...any) {
	fmt.Fprintf(c.stderr, c.name+": "+format+"\n", args...)
}

// fail is note, returning the exit code.
func (c *call) fail(code int, format string, args ...any) int {
	c.note(format, args...)
	return code
}

// open plans a model file with the lock beside it (patterns.Open),
// printing every problem of an unusable model or lock (the design is nil:
// exit 2).
func (c *call) open(file string) (*patterns.Design, *patterns.Lock) {
	return c.openWith(file, patterns.Options{})
}

// openWith is open with planning options (patterns.OpenWith).
func (c *call) openWith(file string, o patterns.Options) (*patterns.Design, *patterns.Lock) {
	d, lock, err := patterns.OpenWith(file, o)
	if err != nil { // a line per problem: the errors are joined
		fmt.Fprintln(c.stderr, err)
	}
	return d, lock
}

// eachDesign plans each file and hands the design to write; the exit code
// is the worst over the files: 2 for unusable input, 1 for findings
// (errors; warnings too when strict).
func (c *call) eachDesign(strict bool, write func(file string, d *patterns.Design) error) int {
	worst := exitClean
	for _, file := range c.files {
		code := exitUsage
		if d, _ := c.open(file); d != nil {
			if code = exitClean; d.Fails(strict) {
				code = exitFindings
			}
			if err := write(file, d); err != nil {
				code = c.fail(exitUsage, "%v", err)
			}
		}
		worst = max(worst, code)
	}
	return worst
}

// errors prints a design's errors, then "the design has N error(s); "
// and what the command does about them; it returns N.
func (c *call) errors(d *patterns.Design, then string, args ...any) int {
	errs := d.Errors()
	for _, x := range errs {
		fmt.Fprintln(c.stderr, x)
	}
	if len(errs) > 0 {
		c.note("the design has %d error(s); %s", len(errs), fmt.Sprintf(then, args...))
	}
	return len(errs)
}

// formatFlag declares --format, one of formats (the first the default),
// checked as it is parsed.
func formatFlag(fs *flag.FlagSet, formats []report.Format) *report.Format {
	f := new(report.Format)
	*f = formats[0]
	fs.Func("format", fmt.Sprintf("output format, one of %v (default %s)", formats, *f), func(s string) (err error) {
		*f, err = report.ParseFormat(s, formats)
		return err
	})
	return f
}
