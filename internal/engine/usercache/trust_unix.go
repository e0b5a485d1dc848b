//go:build unix

package usercache

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// owned refuses a file or directory another user owns, or that others
// may write (or its group, unless the group is the user's own).
func owned(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s belongs to user %d, not to this user (%d)", ErrNotOwn, path, st.Uid, os.Getuid())
	}
	perm := fi.Mode().Perm()
	if perm&0o002 != 0 && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%w: %s may be written by any user (mode %v)", ErrNotOwn, path, perm)
	}
	if perm&0o020 != 0 && int(st.Gid) != os.Getgid() && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%w: %s may be written by group %d's users (mode %v)", ErrNotOwn, path, st.Gid, perm)
	}
	return nil
}

// identity is what changes when a file is rewritten, replaced or has its
// mode changed: size, modification and change times, inode, device and
// mode.
func identity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("%d %d %o", fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
	}
	return fmt.Sprintf("%d %d %s %d %d %o", fi.Size(), fi.ModTime().UnixNano(), ctime(st), st.Ino, st.Dev, fi.Mode())
}
