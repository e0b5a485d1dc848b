//go:build unix

package minidyn

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// checkOwner refuses a directory another user owns or others can write
// to (they could plant a state file in it).
func checkOwner(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}

	if int(st.Uid) != os.Getuid() {
		return errors.New("owned by another user")
	}

	if fi.Mode().Perm()&0o022 != 0 {
		return errors.New("writable by other users")
	}

	return nil
}

// readNoFollow reads a file, refusing a symlink put in its place since it
// was checked.
func readNoFollow(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}

	defer func() { _ = f.Close() }()

	return io.ReadAll(f)
}
