package main

import (
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/keyplan/keyplan/patterns/report"
)

// Exit codes.
const (
	exitClean    = 0
	exitFindings = 1
	exitUsage    = 2
)

// usage is keyplan help: every command, its flags in short, and the exit
// codes; COMMAND --help prints the command's lines of it and its flags
// (doc.go lists the commands too; TestUsageListsEveryCommand holds both
// to the command table).
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

// A command is one of keyplan's commands, as data: the word that must
// follow its name (gen go, export workbench), the model files it takes,
// and define, which declares its flags and returns what it does with
// them. Adding a command is a line here, its function and its lines in
// usage.txt.
type command struct {
	word   string
	files  fileArgs
	define func(fs *flag.FlagSet) func(c *call) int
}

// fileArgs is how many model files a command takes.
type fileArgs int

const (
	noFile    fileArgs = iota
	oneFile            // FILE, or - for standard input
	lockFile           // FILE, which its lock lives beside: not standard input
	manyFiles          // FILE...
)

// commands are keyplan's commands by name.
var commands = map[string]command{
	"plan":     {files: manyFiles, define: plan},
	"check":    {files: manyFiles, define: check},
	"diff":     {files: lockFile, define: diff},
	"lock":     {files: lockFile, define: lock},
	"migrate":  {files: lockFile, define: migrate},
	"validate": {files: oneFile, define: validate},
	"gen":      {word: "go", files: oneFile, define: generate},
	"export":   {word: "workbench", files: oneFile, define: export},
	"import":   {word: "workbench", files: oneFile, define: importModel},
	"schema":   {define: schema},
	"version":  {define: printVersion},
	"help":     {define: help},
}

func run(args []string, stdout, stderr io.Writer) int {
	stdout, stderr = report.Terminal(stdout), report.Terminal(stderr)
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	name := args[0]
	if alias, ok := map[string]string{"-h": "help", "-help": "help", "--help": "help", "-version": "version", "--version": "version"}[name]; ok {
		name = alias
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "keyplan: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	c := &call{name: "keyplan " + name, stdout: stdout, stderr: stderr}
	return c.run(cmd, args[1:])
}

func help(*flag.FlagSet) func(*call) int {
	return func(c *call) int {
		fmt.Fprint(c.stdout, usage)
		return exitClean
	}
}

func printVersion(*flag.FlagSet) func(*call) int {
	return func(c *call) int {
		fmt.Fprintln(c.stdout, "keyplan", version())
		return exitClean
	}
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
