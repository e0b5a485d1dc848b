//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 36 /* PR_SET_CHILD_SUBREAPER */, 1, 0); e != 0 {
		err := e
		fmt.Fprintln(os.Stderr, "prctl:", err)
		os.Exit(2)
	}
	t0 := time.Now()
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := 0
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err != nil {
			break // ECHILD: every descendant reaped
		}
		if pid == cmd.Process.Pid {
			code = ws.ExitStatus()
			fmt.Fprintf(os.Stderr, "cputime: command exited %d after %.1fs; reaping the rest\n", code, time.Since(t0).Seconds())
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	u := time.Duration(ru.Utime.Nano())
	s := time.Duration(ru.Stime.Nano())
	fmt.Fprintf(os.Stderr, "cputime: wall %.1fs user %.1fs sys %.1fs cpu %.1fs maxrss %d MB\n", time.Since(t0).Seconds(), u.Seconds(), s.Seconds(), (u + s).Seconds(), ru.Maxrss/1024)
	os.Exit(code)
}
