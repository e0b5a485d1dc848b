package usercache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tree makes an install of two files under a cache directory of the
// test's.
func tree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "engine-1.0")
	os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
	os.WriteFile(filepath.Join(dir, "engine.jar"), []byte("the engine"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "native.so"), []byte("native code"), 0o644)
	os.Symlink("../engine.jar", filepath.Join(dir, "lib", "engine")) // as npm's .bin links
	return dir
}

// An install is used while it is the user's own and holds the files it
// was installed with: a file changed, added or replaced, one another
// user owns or may write, a symlink, or a cache directory others may
// write is found at the next start; an unchanged one is not read again.
func TestVerifyTrustsOnlyTheUsersOwnUnchangedInstall(t *testing.T) {
	dir := tree(t)
	pinned, err := Digest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, ""); !errors.Is(err, ErrModified) || !strings.Contains(err.Error(), "no stamp") {
		t.Fatalf("an install keyplan did not stamp: %v", err)
	}
	if err := Verify(dir, pinned); err != nil {
		t.Fatalf("the pinned install: %v", err)
	}
	if _, err := os.Stat(StampFile(dir)); err != nil {
		t.Fatalf("no stamp written: %v", err)
	}
	// Unchanged: the stamp's identities match, nothing is read (an
	// unreadable file would fail a digest).
	os.Chmod(filepath.Join(dir, "lib", "native.so"), 0o200)
	if os.Geteuid() != 0 { // root reads it anyway
		os.Chmod(filepath.Join(dir, "lib", "native.so"), 0o644)
	}
	if err := Verify(dir, pinned); err != nil && !strings.Contains(err.Error(), "permission") {
		t.Fatalf("unchanged: %v", err)
	}
	os.Chmod(filepath.Join(dir, "lib", "native.so"), 0o644)
	if err := Verify(dir, ""); err != nil {
		t.Fatalf("as stamped: %v", err)
	}

	for _, tc := range []struct {
		name  string
		do    func(dir string)
		want  error
		match string
	}{
		{"a file rewritten", func(d string) {
			os.WriteFile(filepath.Join(d, "engine.jar"), []byte("planted!!!"), 0o644)
		}, ErrModified, "digest"},
		{"a file rewritten, its time put back", func(d string) {
			p := filepath.Join(d, "engine.jar")
			fi, _ := os.Stat(p)
			os.Remove(p)
			os.WriteFile(p, []byte("planted!!!"), 0o644)
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}, ErrModified, "digest"},
		{"a file added", func(d string) { os.WriteFile(filepath.Join(d, "lib", "extra.jar"), []byte("x"), 0o644) }, ErrModified, "digest"},
		{"a file others may write", func(d string) { os.Chmod(filepath.Join(d, "engine.jar"), 0o646) }, ErrNotOwn, "may be written by any user"},
		{"a symlink out", func(d string) { os.Symlink("/etc/passwd", filepath.Join(d, "lib", "link")) }, ErrNotOwn, "outside the install"},
		{"a symlink up", func(d string) { os.Symlink("../../x", filepath.Join(d, "lib", "link")) }, ErrNotOwn, "outside the install"},
		{"a symlink in, added", func(d string) { os.Symlink("../engine.jar", filepath.Join(d, "lib", "link")) }, ErrModified, "digest"},
		{"the cache open to others", func(d string) { os.Chmod(filepath.Dir(d), 0o777) }, ErrNotOwn, "may be written by any user"},
		{"another user's file", func(d string) {
			if err := os.Lchown(filepath.Join(d, "engine.jar"), 4242, 4242); err != nil {
				t.Skip("cannot give a file to another user here:", err)
			}
		}, ErrNotOwn, "belongs to user 4242"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t)
			if _, err := Stamp(dir); err != nil {
				t.Fatal(err)
			}
			want, _ := Digest(dir)
			time.Sleep(10 * time.Millisecond)
			tc.do(dir)
			err := Verify(dir, want)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.match) {
				t.Fatalf("%v; want %v saying %q", err, tc.want, tc.match)
			}
			ok, rerr := Reuse(dir, filepath.Join(dir, "engine.jar"), want)
			switch {
			case errors.Is(tc.want, ErrModified) && (ok || rerr != nil):
				t.Errorf("Reuse of the user's changed install: %v %v; want it removed, to install again", ok, rerr)
			case errors.Is(tc.want, ErrModified):
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("the changed install is still there: %v", err)
				}
			case ok || rerr == nil || !strings.Contains(rerr.Error(), "is not used") || !strings.Contains(rerr.Error(), Env):
				t.Errorf("Reuse of an install not the user's own: %v %v", ok, rerr)
			default:
				if _, err := os.Stat(dir); err != nil {
					t.Errorf("another user's install was removed: %v", err)
				}
			}
		})
	}
}
