package main

import (
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// keyplan help (usage.txt) and the package documentation (doc.go) name
// every command the command table runs, and no other.
func TestUsageListsEveryCommand(t *testing.T) {
	enginepass.Independent(t)
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, cmd := range program.Commands {
		names = append(names, name)
		for kind := range cmd.Kinds {
			names = append(names, name+" "+kind)
		}
	}
	for _, name := range names {
		for what, text := range map[string]string{"usage.txt": usage, "doc.go": string(doc)} {
			if !strings.Contains(text, "keyplan "+name+" ") && !strings.Contains(text, "keyplan "+name+"\n") {
				t.Errorf("%s does not list keyplan %s", what, name)
			}
		}
	}
	for _, line := range strings.Split(usage, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "keyplan" && program.Commands[f[1]].Define == nil && program.Commands[f[1]].Kinds == nil {
			t.Errorf("usage.txt lists keyplan %s, which the command table does not run", f[1])
		}
	}
}
