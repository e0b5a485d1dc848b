package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers are the files of dir other than want.
func leftovers(t *testing.T, dir string, want ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.Contains(strings.Join(want, "\x00"), e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.lock.json")
	for _, content := range []string{"first\n", "second, longer than the first\n", ""} {
		if err := WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := read(t, path); got != content {
			t.Errorf("content %q, want %q", got, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if rest := leftovers(t, dir, "model.lock.json"); len(rest) > 0 {
		t.Errorf("left behind: %v", rest)
	}
}

// A symlink planted where the old writers put their temporary file
// (FILE.tmp, .FILE.tmp), or at the target itself, is never written
// through: the file it points to stays as it was.
func TestWriteFileNeverFollowsASymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	for _, planted := range []string{"model.lock.json.tmp", ".model.lock.json.tmp", "model.lock.json"} {
		t.Run(planted, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(dir, planted)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "model.lock.json")
			if err := WriteFile(path, []byte("lock\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := read(t, victim); got != "precious\n" {
				t.Errorf("the symlink's target now holds %q", got)
			}
			if got := read(t, path); got != "lock\n" {
				t.Errorf("the file holds %q", got)
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink != 0 {
				t.Errorf("the target is still a symlink (%v)", err)
			}
		})
	}
}

// A write that fails leaves the old file whole and no temporary file.
func TestWriteFileFailureKeepsTheOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := os.Mkdir(path, 0o755); err != nil { // a directory: the rename fails
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "inside"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte("new"), 0o644)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want one naming %s", err, path)
	}
	if rest := leftovers(t, dir, "out"); len(rest) > 0 {
		t.Errorf("left behind: %v", rest)
	}
	if got := read(t, filepath.Join(path, "inside")); got != "x" {
		t.Errorf("the old content is %q", got)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing directory: %v", err)
	}
}

// A relative path writes in the working directory.
func TestWriteFileRelative(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := WriteFile("f.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(t, "f.json"); got != "{}" {
		t.Errorf("got %q", got)
	}
}
