package patterns

import (
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces a file with data: written to a new temporary
// file in its directory (os.CreateTemp: a name no one can have planted a
// symbolic link at), synced, then renamed over it. A reader sees the old
// content or the new, never a part; a link at path itself is replaced,
// not followed.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
