//go:build windows

package ddblocal

import (
	"os"
	"os/exec"
	"syscall"
)

// command runs the JVM itself: Windows has no /bin/sh for the watchdog,
// so a keyplan that is killed (not stopped) leaves the engine running
// there (docs/engines.md).
func command(java string, args []string, dir string) *exec.Cmd {
	return exec.Command(java, args...)
}

func procAttr() *syscall.SysProcAttr { return nil }

// terminate and kill end the JVM (Windows has no SIGTERM).
func terminate(p *os.Process) { _ = p.Kill() }
func kill(p *os.Process)      { _ = p.Kill() }
