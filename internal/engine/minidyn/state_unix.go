//go:build unix

package minidyn

import (
	"fmt"
	"os"
	"syscall"
)

// openNoFollow opens a file to read, refusing a symlink put in its place
// since it was checked.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// checkPrivateMode refuses a file another user owns, or that the group or
// others may read or write (mode 0600 or stricter).
func checkPrivateMode(fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: owned by another user", ErrNotPrivate)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%w: mode %v, others may read it (chmod 600 it)", ErrNotPrivate, fi.Mode().Perm())
	}
	return nil
}
