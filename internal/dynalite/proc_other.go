//go:build !linux

package dynalite

import "syscall"

// procAttr starts the engine in its own process group (Stop ends the
// group).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
