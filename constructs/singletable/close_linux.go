//go:build linux

package singletable

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// endRuntime asks the jsii runtime to exit through its stdin and waits
// until jsii-runtime-go's own goroutine has reaped it.
func endRuntime() {
	pid, fd, ok := jsiiRuntime()
	if !ok {
		return
	}
	if _, err := syscall.Write(fd, []byte("{\"exit\":0}\n")); err != nil {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && alive(pid) {
		time.Sleep(5 * time.Millisecond)
	}
}

// jsiiRuntime finds the node child process whose stdin is a pipe this
// process writes, and that pipe's descriptor here.
func jsiiRuntime() (pid, fd int, ok bool) {
	self := os.Getpid()
	ours := map[string]int{} // pipe -> our descriptor
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, f := range fds {
		n, err := strconv.Atoi(f.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", f.Name())); err == nil && strings.HasPrefix(link, "pipe:") {
			ours[link] = n
		}
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		child, err := strconv.Atoi(p.Name())
		if err != nil || parent(child) != self {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "comm"))
		if strings.TrimSpace(string(comm)) != "node" {
			continue
		}
		in, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", "0"))
		if n, mine := ours[in]; err == nil && mine {
			return child, n, true
		}
	}
	return 0, 0, false
}

// parent is a process's parent id (0 when unknown).
func parent(pid int) int {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// alive reports whether a process has not been reaped yet.
func alive(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return err == nil
}
