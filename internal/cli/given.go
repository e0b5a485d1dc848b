package cli

import "flag"

// Given reports whether a flag was given on the command line (not left
// to its default, which may come from the environment).
func Given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
