//go:build unix

package ddblocal

import (
	"os"
	"os/exec"
	"syscall"
)

// watchdog runs the JVM ($2…) in the directory $1 and stops it when its
// own stdin ends: keyplan holds the other end of that pipe, so the JVM
// goes when keyplan goes, a SIGKILL included (a JVM cannot be told to
// watch its stdin). It then removes the directory and exits with the
// JVM's status. A background job's stdin would be /dev/null: the
// watching subshell reads the pipe through fd 3.
const watchdog = `dir=$1; shift
exec 3<&0
"$@" </dev/null 3<&- &
jvm=$!
(while read -r _; do :; done; kill "$jvm" 2>/dev/null) <&3 >/dev/null 2>&1 &
watch=$!
exec 3<&-
wait "$jvm"
code=$?
kill "$watch" 2>/dev/null
rm -rf "$dir"
exit "$code"`

// command is the watchdog over the JVM.
func command(java string, args []string, dir string) *exec.Cmd {
	return exec.Command("/bin/sh", append([]string{"-c", watchdog, "keyplan-dynamodb-local", dir, java}, args...)...)
}

// procAttr starts the watchdog in its own process group (Stop ends the
// group: the watchdog, the JVM, the watching subshell).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// terminate asks the engine's process group to end; kill ends it.
func terminate(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }
func kill(p *os.Process)      { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
