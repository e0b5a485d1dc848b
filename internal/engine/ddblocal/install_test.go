package ddblocal

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/engine/usercache"
)

// A tarball that is not the pinned one is refused before anything of it
// is written.
func TestUnpackRefusesAnotherTarball(t *testing.T) {
	dir := t.TempDir()
	tgz := filepath.Join(dir, "fake.tgz")
	f, _ := os.Create(tgz)
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	body := "not the engine"
	tw.WriteHeader(&tar.Header{Name: packageDir + Jar, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
	tw.Write([]byte(body))
	tw.Close()
	zw.Close()
	f.Close()
	dst := filepath.Join(dir, "out")
	if err := Unpack(tgz, dst); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), Pin) {
		t.Errorf("Unpack of another tarball: %v", err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("%s was written: %v", dst, err)
	}
}

// The install fetches the pinned package with npm into a directory named
// by the pin, checked, and reuses it after.
func TestInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches 57 MB with npm (or its cache)")
	}
	t.Setenv(usercache.Env, t.TempDir())
	t.Setenv(EnvPath, "")
	if !NeedsInstall() {
		t.Fatal("an empty cache needs no install")
	}
	dir, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != Package+"-"+Version {
		t.Errorf("installed into %s, not a directory named by the pin", dir)
	}
	if sum, err := fileSHA256(filepath.Join(dir, Jar)); err != nil || sum != JarSHA256 {
		t.Errorf("the jar: %s, %v", sum, err)
	}
	if _, err := os.Stat(filepath.Join(dir, Lib, "libsqlite4java-linux-amd64.so")); err != nil {
		t.Errorf("the native libraries: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".install-*"))
	if NeedsInstall() || len(left) > 0 {
		t.Errorf("after the install: NeedsInstall %v, temporary directories %v", NeedsInstall(), left)
	}
	again, err := Install()
	if err != nil || again != dir {
		t.Errorf("a second Install: %s, %v", again, err)
	}
}

// A DynamoDB Local already in the cache is run only when it is the
// pinned one and the user's own (issue 34): a jar planted there is
// removed to install again when it is the user's, refused (and left)
// when another user's, and never started.
func TestAPlantedJarIsNeverRun(t *testing.T) {
	t.Setenv(usercache.Env, t.TempDir())
	dir, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	plant := func() {
		os.MkdirAll(filepath.Join(dir, Lib), 0o755)
		os.WriteFile(filepath.Join(dir, Jar), []byte("PK planted"), 0o644)
	}
	plant()
	if ok, err := reuse(dir); ok || err != nil {
		t.Fatalf("the user's own planted jar: reused %v, %v", ok, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the planted install is still there: %v", err)
	}
	plant()
	if err := os.Lchown(filepath.Join(dir, Jar), 4242, 4242); err != nil {
		t.Skip("cannot give a file to another user here:", err)
	}
	ok, err := reuse(dir)
	if ok || !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "belongs to user 4242") {
		t.Fatalf("another user's jar: reused %v, %v", ok, err)
	}
	if _, err := Install(); err == nil || !strings.Contains(err.Error(), "is not used") {
		t.Fatalf("Install with another user's jar in the cache: %v", err)
	}
}
