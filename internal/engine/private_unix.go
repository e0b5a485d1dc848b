//go:build unix

package engine

import (
	"fmt"
	"os"
	"syscall"
)

// private refuses a file or directory that is a symlink, another user's,
// or open to others (a key file another user could read, or plant).
func private(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to user %d, not to this user (%d)", path, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is open to other users (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}
