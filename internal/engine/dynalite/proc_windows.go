//go:build windows

package dynalite

import (
	"os"
	"syscall"
)

// procAttr: Windows has no process groups to signal; the engine is one
// node process.
func procAttr() *syscall.SysProcAttr { return nil }

// terminate and kill end the engine's process (Windows has no SIGTERM).
func terminate(p *os.Process) { _ = p.Kill() }
func kill(p *os.Process)      { _ = p.Kill() }
