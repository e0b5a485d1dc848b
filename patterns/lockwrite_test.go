package patterns_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// Lock.WriteFile never writes through a symlink planted at the name its
// temporary file once had (shop.lock.json.tmp): another local user's link
// to a file of this one's stays untouched (internal/atomicfile).
func TestLockWriteFileIgnoresAPlantedTemporary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	plain, _ := lockSeeds(t)
	l, err := patterns.ReadLock("shop.lock.json", bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shop.lock.json")
	if err := os.Symlink(victim, path+".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Errorf("the planted link's target now holds %.40q", got)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, plain) {
		t.Errorf("the lock holds other bytes than Bytes")
	}
}
