package main

import (
	"flag"
	"fmt"
	"io"

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
		return fail(stderr, exitUsage, "keyplan diff: %v", err)
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
		return fail(stderr, exitUsage, "keyplan diff: %v", err)
	}
	if !df.Safe {
		return exitFindings
	}
	return exitClean
}

func lock(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lock", flag.ContinueOnError)
	envs := fs.String("environments", "", "the environments one lock deploys to, in order (staging,prod): each phase of a migration advances once all have verified it")
	file, code := parse(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if err := rederive(file, stdout); err != nil {
		return fail(stderr, exitUsage, "keyplan lock: %v", err)
	}
	d, lk, code := designAndLock(file, stderr)
	if d == nil {
		return code
	}
	path := patterns.LockPath(file)
	first := lk == nil
	if first {
		if errs := d.Errors(); len(errs) > 0 {
			for _, x := range errs {
				fmt.Fprintln(stderr, x)
			}
			return fail(stderr, exitFindings, "keyplan lock: the design has %d error(s); %s not written", len(errs), path)
		}
		lk = patterns.NewLock(d)
	}
	if err := lk.SetEnvironments(patterns.ListFlag(*envs, lk.Environments)); err != nil {
		return fail(stderr, exitUsage, "keyplan lock: --environments: %v", err)
	}
	if first {
		if err := lk.WriteFile(path); err != nil {
			return fail(stderr, exitUsage, "keyplan lock: %v", err)
		}
		fmt.Fprintf(stdout, "%s: written (the design as first deployed)\n", path)
		return exitClean
	}
	df := patterns.Compare(lk, d)
	if err := lk.Apply(d, df); err != nil {
		_ = report.WriteDiff(stderr, file, df, report.Text)
		return fail(stderr, exitFindings, "keyplan lock: %s untouched: %v", path, err)
	}
	if err := lk.WriteFile(path); err != nil {
		return fail(stderr, exitUsage, "keyplan lock: %v", err)
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

// rederive updates a lock whose phases an older keyplan derived
// (patterns.Lock.Rederive), keeping the phase its migration is at.
func rederive(file string, stdout io.Writer) error {
	path := patterns.LockPath(file)
	lk, err := patterns.LoadLock(path)
	if err != nil || lk == nil || !lk.Rederive() {
		return nil
	}
	fmt.Fprintf(stdout, "%s: the migration's phases re-derived (an older keyplan backfilled less): %s\n", path, lk.Migration)
	return lk.WriteFile(path)
}
