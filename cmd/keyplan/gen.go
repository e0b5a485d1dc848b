package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/gen"
)

// genFile is the file keyplan gen go writes in --out.
const genFile = "keyplan.gen.go"

// generate is keyplan gen LANG MODEL: typed code from the design.
func generate(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "go" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintln(stdout, "usage: keyplan gen go FILE --package NAME --out DIR\n  typed Go code for the model's design (keyplan gen go --help: its flags)")
			return exitClean
		}
		return fail(stderr, exitUsage, "keyplan gen: expected a language: keyplan gen go FILE --package NAME --out DIR")
	}
	fs := flag.NewFlagSet("gen go", flag.ContinueOnError)
	pkg := fs.String("package", "", "the generated package's name (required), e.g. shopdb")
	out := fs.String("out", "", "the directory to write "+genFile+" into (required; created if missing)")
	file, code := parse(fs, args[1:], stdout, stderr)
	if code >= 0 {
		return code
	}
	if *pkg == "" || *out == "" {
		return fail(stderr, exitUsage, "keyplan gen go: --package and --out are required")
	}
	d, lock, code := designAndLock(file, stderr)
	if d == nil {
		return code
	}
	if findings(d.Diagnostics, false) != exitClean {
		return fail(stderr, exitFindings, "keyplan gen go: %s has errors (keyplan check %s): no code is generated from a design that fails its checks", file, file)
	}
	src, err := gen.Go(d, gen.Options{Package: *pkg, Source: filepath.ToSlash(file), Lock: lock})
	if err != nil {
		return fail(stderr, exitUsage, "keyplan gen go: %s: %v", file, err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fail(stderr, exitUsage, "keyplan gen go: %v", err)
	}
	path := filepath.Join(*out, genFile)
	if err := patterns.WriteFileAtomic(path, src, 0o644); err != nil {
		return fail(stderr, exitUsage, "keyplan gen go: %v", err)
	}
	fmt.Fprintf(stdout, "wrote %s (package %s, %d bytes)\n", path, *pkg, len(src))
	return exitClean
}
