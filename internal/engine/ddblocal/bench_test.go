package ddblocal

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkStart is one engine's start to its first answer, and its stop
// (ns/op); on Linux also the CPU the JVM spent getting there (cpu-ms/op),
// what the JVM flags (JVMFlags) are chosen by.
func BenchmarkStart(b *testing.B) {
	var cpu float64
	for b.Loop() {
		s, err := Start()
		if err != nil {
			b.Fatal(err)
		}
		cpu += jvmCPU(s.cmd.Process.Pid)
		s.Stop()
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-ms/op")
}

// jvmCPU is the CPU time (ms) of the watchdog's children so far (Linux;
// 0 elsewhere).
func jvmCPU(pid int) float64 {
	kids, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0
	}
	var ms float64
	for _, k := range strings.Fields(string(kids)) {
		stat, err := os.ReadFile("/proc/" + k + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 12 {
			u, _ := strconv.Atoi(f[11])
			sys, _ := strconv.Atoi(f[12])
			ms += float64(u+sys) * 10 // USER_HZ is 100 on Linux
		}
	}
	return ms
}
