package main

import (
	_ "embed"
	"io"
	"os"
	"runtime/debug"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/patterns/report"
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

// program is keyplan: its commands as data (internal/cli). Adding
// a command is a line here, its function and its lines in usage.txt.
var program = &cli.Program{
	Name: "keyplan", Usage: usage, File: "model",
	Aliases: map[string]string{"-h": "help", "-help": "help", "--help": "help", "-version": "version", "--version": "version"},
	Commands: map[string]cli.Command{
		"plan":    {Files: cli.ManyFiles, Define: plan},
		"check":   {Files: cli.ManyFiles, Define: check},
		"diff":    {Files: cli.OneFile, NotStdin: beside, Define: diff},
		"lock":    {Files: cli.OneFile, NotStdin: beside, Define: lock},
		"migrate": {Files: cli.OneFile, NotStdin: beside, Required: []string{"table"}, Define: migrate},
		"validate": {Files: cli.OneFile, Define: validate, Conflicts: []cli.Conflict{{Flag: "existing", Not: []string{"keep", "generate", "seed"},
			Why: "--existing only reads a table that holds the examples; --keep, --generate and --seed are for a table validate creates"},
			{Flag: "engine", Not: []string{"endpoint"}, Why: "--engine names the local engine validate starts when there is no endpoint"}}},
		"local":  {Define: local},
		"gen":    {Word: "go", Files: cli.OneFile, Required: []string{"package", "out"}, Define: generate},
		"export": {Word: "workbench", Files: cli.OneFile, Define: export},
		"import": {Kinds: map[string]cli.Command{"workbench": {Files: cli.OneFile, Define: importModel},
			"table": {Files: cli.OneFile, Arg: "table NAME", Required: []string{"out"}, Define: importTable}}},
		"schema":  {Define: schema},
		"version": {Define: cli.ShowVersion},
		"help":    {Define: cli.Help},
	},
}

// beside is why the commands that read a model's lock need its file.
const beside = "its lock lives beside it"

func run(args []string, stdout, stderr io.Writer) int {
	return program.Run(args, report.Terminal(stdout), report.Terminal(stderr))
}
