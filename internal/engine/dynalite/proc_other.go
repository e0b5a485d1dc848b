//go:build unix && !linux

package dynalite

import (
	"os"
	"syscall"
)

// procAttr starts the engine in its own process group (Stop ends the
// group).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// terminate asks the engine's process group to end; kill ends it.
func terminate(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }
func kill(p *os.Process)      { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
