//go:build linux

package dynalite

import (
	"os"
	"syscall"
)

// procAttr starts the engine in its own process group (Stop ends the
// group). (Not Pdeathsig: the kernel sends it when the *thread* that
// started the engine ends, which Go does not promise; the engine's stdin
// ending is what ties it to keyplan.)
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// terminate asks the engine's process group to end; kill ends it.
func terminate(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }
func kill(p *os.Process)      { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
