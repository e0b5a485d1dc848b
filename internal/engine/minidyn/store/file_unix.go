//go:build unix

package store

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// checkOwner refuses a file or directory another user owns or others
// can write to (they could plant or change the tables).
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

// openNoFollow opens the data file, refusing a symlink put in its place
// since it was checked.
func openNoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag|syscall.O_NOFOLLOW, perm)
}
