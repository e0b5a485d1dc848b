package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// The files keyplan writes (the lock, generated code) are written to a
// new temporary file in their directory and renamed: a symbolic link
// planted at the name a temporary file used to have is never followed.
func TestWritesFollowNoLink(t *testing.T) {
	enginepass.Independent(t)
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	src, err := os.ReadFile("../../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "game.yaml")
	os.WriteFile(model, src, 0o644)
	out := filepath.Join(dir, "gamedb")
	os.MkdirAll(out, 0o755)
	for _, name := range []string{filepath.Join(dir, "game.lock.json.tmp"), filepath.Join(dir, ".game.lock.json.tmp"),
		filepath.Join(out, "keyplan.gen.go.tmp"), filepath.Join(out, ".keyplan.gen.go.tmp")} {
		if err := os.Symlink(victim, name); err != nil {
			t.Fatal(err)
		}
	}
	if code, stdout, stderr := keyplan("lock", model); code != 0 {
		t.Fatalf("lock: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := keyplan("gen", "go", model, "--package", "gamedb", "--out", out); code != 0 {
		t.Fatalf("gen go: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("the file behind a planted link now holds %q…", strings.SplitN(string(b), "\n", 2)[0])
	}
	for _, f := range []string{filepath.Join(dir, "game.lock.json"), filepath.Join(out, "keyplan.gen.go")} {
		if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v, %v", f, fi, err)
		}
	}
}
