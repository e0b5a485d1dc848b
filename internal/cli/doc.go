// Package cli runs a command-line program whose commands are data: a
// table of names, each with the word that must follow it (gen go), the
// files it takes, and a Define that declares its flags and returns what
// it does with them. It parses flags and files (flags may come before or
// after the files), answers --help with the command's lines of the
// program's usage text and its flags, and reports usage errors with the
// command's name, so a command's own code holds only its flags, its
// checks and what it prints.
//
// cmd/keyplan is its one user; it knows nothing of keyplan.
package cli
