//go:build unix

package dynalite

import (
	"fmt"
	"os"
	"syscall"
)

// trusted refuses a file that another user owns or may write (root's
// files are trusted, as for any program on PATH).
func trusted(name string) error {
	fi, err := os.Lstat(name)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(st.Uid) != uid && st.Uid != 0 {
		return fmt.Errorf("%s belongs to user %d, not to this user (%d)", name, st.Uid, uid)
	}
	if fi.Mode().Perm()&0o002 != 0 && fi.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("%s may be written by any user (mode %v)", name, fi.Mode().Perm())
	}
	return nil
}
