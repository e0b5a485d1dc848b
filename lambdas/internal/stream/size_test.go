package stream_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// MaxBinary bounds each handler binary (linux/arm64, stripped), as
// GoFunction bundles it.
const MaxBinary = 20_000_000

func TestHandlerBinariesAreSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every function's binary")
	}
	pkgs := []string{patterns.BackfillWorker}
	for _, h := range patterns.Handlers() {
		pkgs = append(pkgs, h.Package())
	}
	for _, pkg := range pkgs {
		h := filepath.Base(pkg)
		t.Run(h, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bootstrap")
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "../../../"+pkg)
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			fi, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() >= MaxBinary {
				t.Errorf("%s is %d bytes; the limit is %d", h, fi.Size(), MaxBinary)
			}
			t.Logf("%s: %.1f MB", h, float64(fi.Size())/1e6)
		})
	}
}
