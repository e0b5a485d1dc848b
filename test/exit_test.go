package test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The example app exits clean: after a synthesis no node process runs
// on, no jsii-runtime.* directory stays in the temporary directory, and
// nothing is printed about the runtime's exit. The race this guards
// against (two waits on one process) is a race: make test-scale runs
// it $KEYPLAN_EXIT_RUNS times (make test once: a run is a synthesis of the
// whole app, about 25 s).
func TestAppExitsClean(t *testing.T) {
	t.Parallel() // a process of its own: it runs beside the tests that synthesize in this one
	if testing.Short() {
		t.Skip("builds and runs the app")
	}
	bin := filepath.Join(t.TempDir(), "app")
	if out, err := exec.Command("go", "build", "-o", bin, "../stacks/app").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("KEYPLAN_EXIT_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for run := range runs {
		tmp, out := t.TempDir(), t.TempDir()
		cmd := exec.Command(bin)
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CDK_OUTDIR="+out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, stderr.String())
		}
		if s := stderr.String(); strings.Contains(s, "exited abnormally") || strings.Contains(s, "no child processes") {
			t.Errorf("run %d printed about the runtime's exit:\n%s", run, s)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "jsii-runtime.*")); len(left) > 0 {
			t.Errorf("run %d left %v", run, left)
		}
		if procs := running(tmp); len(procs) > 0 {
			t.Errorf("run %d left processes running: %v", run, procs)
		}
		if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
			t.Errorf("run %d synthesized nothing: %v", run, err)
		}
	}
}

// running lists the processes whose command line names dir.
func running(dir string) []string {
	var out []string
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		b, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(dir)) {
			out = append(out, p.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
