//go:build linux

package dynalite

import (
	"os"
	"syscall"
)

// procAttr starts the engine in its own process group (Stop ends the
// group), and has the kernel kill it when keyplan dies, however it dies
// (SIGKILL included), so no engine outlives the run that started it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// terminate asks the engine's process group to end; kill ends it.
func terminate(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }
func kill(p *os.Process)      { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
