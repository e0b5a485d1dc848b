package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

func diff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	format := fs.String("format", string(report.Text), "output format: "+formatList(report.DiffFormats()))
	file, code := parse(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	f, err := report.ParseFormat(*format, report.DiffFormats())
	if err != nil {
		fmt.Fprintf(stderr, "keyplan diff: %v\n", err)
		return exitUsage
	}
	d, lock, code := designAndLock(file, stderr)
	if d == nil {
		return code
	}
	if lock == nil {
		fmt.Fprintf(stderr, "keyplan diff: %s has no lock (%s): nothing is deployed, so every change is safe; keyplan lock writes it\n", file, patterns.LockPath(file))
		lock = patterns.NewLock(d)
	}
	df := patterns.Compare(lock, d)
	if err := report.WriteDiff(stdout, file, df, f); err != nil {
		fmt.Fprintf(stderr, "keyplan diff: %v\n", err)
		return exitUsage
	}
	if !df.Safe {
		return exitFindings
	}
	return exitClean
}

func lock(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lock", flag.ContinueOnError)
	file, code := parse(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	d, lk, code := designAndLock(file, stderr)
	if d == nil {
		return code
	}
	path := patterns.LockPath(file)
	if lk == nil {
		if errs := d.Errors(); len(errs) > 0 {
			for _, x := range errs {
				fmt.Fprintln(stderr, x)
			}
			fmt.Fprintf(stderr, "keyplan lock: the design has %d error(s); %s not written\n", len(errs), path)
			return exitFindings
		}
		lk = patterns.NewLock(d)
		if err := lk.WriteFile(path); err != nil {
			fmt.Fprintf(stderr, "keyplan lock: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s: written (the design as first deployed)\n", path)
		return exitClean
	}
	df := patterns.Compare(lk, d)
	if err := lk.Apply(d, df); err != nil {
		_ = report.WriteDiff(stderr, file, df, report.Text)
		fmt.Fprintf(stderr, "keyplan lock: %s untouched: %v\n", path, err)
		return exitFindings
	}
	if err := lk.WriteFile(path); err != nil {
		fmt.Fprintf(stderr, "keyplan lock: %v\n", err)
		return exitUsage
	}
	switch {
	case lk.Migration != nil:
		fmt.Fprintf(stdout, "%s: migration at phase %d of %d\n", path, lk.Migration.Current+1, len(lk.Migration.Phases))
		_ = report.WriteDiff(stdout, file, df, report.Text)
	default:
		fmt.Fprintf(stdout, "%s: up to date\n", path)
	}
	return exitClean
}

// writeAtomic replaces a file atomically (a crash leaves the old one).
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
