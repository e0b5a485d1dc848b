//go:build linux

package dynalite

import "syscall"

// procAttr starts the engine in its own process group (Stop ends the
// group), and has the kernel kill it when keyplan dies, however it dies
// (SIGKILL included), so no engine outlives the run that started it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
