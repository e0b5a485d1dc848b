//go:build unix && !linux && !darwin && !freebsd && !netbsd && !dragonfly

package usercache

import "syscall"

// ctime: not read on this system (the other parts of a file's identity
// still are).
func ctime(*syscall.Stat_t) string { return "" }
