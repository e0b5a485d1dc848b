package patterns_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// plantLinks puts symbolic links to a file outside, at every name a
// temporary file beside path used to have (path.tmp, .base.tmp), and
// returns the file's path: whatever writes path must leave it alone.
func plantLinks(t *testing.T, path string) string {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path + ".tmp", filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")} {
		if err := os.Symlink(victim, name); err != nil {
			t.Fatal(err)
		}
	}
	return victim
}

// A lock is written to a new temporary file and renamed: no link planted
// at an old temporary name, nor at the lock's own name, is followed.
func TestLockWriteFollowsNoLink(t *testing.T) {
	l, err := patterns.LoadLock("../examples/leaderboard.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "leaderboard.lock.json")
	victim := plantLinks(t, path)
	if err := l.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("the file behind a planted link now holds %d bytes", len(b))
	}
	if back, err := patterns.LoadLock(path); err != nil || back == nil {
		t.Fatalf("the lock written: %v", err)
	}
	// A link at the lock's name is replaced by the file, not written
	// through.
	os.Remove(path)
	os.Symlink(victim, path)
	if err := l.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatal("the file behind a link at the lock's name was written")
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm() != 0o644 {
		t.Errorf("the lock's name after the write: %v, %v", fi, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp"))
	if len(left) != 1 { // the planted link only
		t.Errorf("temporary files left behind: %v", left)
	}
}
