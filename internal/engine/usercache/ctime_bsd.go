//go:build darwin || freebsd || netbsd || dragonfly

package usercache

import (
	"fmt"
	"syscall"
)

// ctime is a file's change time: it moves on any write or chmod, and no
// one can set it back.
func ctime(st *syscall.Stat_t) string {
	return fmt.Sprintf("%d.%d", st.Ctimespec.Sec, st.Ctimespec.Nsec)
}
