package patterns_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

// Open plans a model with the lock beside it, and without one when there
// is none; a broken lock is an error, not a plan from scratch.
func TestOpen(t *testing.T) {
	d, lock, err := patterns.Open("../examples/ecommerce.yaml")
	if err != nil || lock == nil {
		t.Fatalf("Open(ecommerce.yaml) = lock %v, %v; want the lock beside it", lock, err)
	}
	if lock.Source() != "../examples/ecommerce.lock.json" || !lock.Accepts(d) {
		t.Errorf("the lock is %q and accepts the plan: %v", lock.Source(), lock.Accepts(d))
	}
	if _, lock, err := patterns.Open("testdata/models/chat.yaml"); err != nil || lock != nil {
		t.Errorf("Open(chat.yaml) = lock %v, %v; want no lock", lock, err)
	}
	if lock, err := patterns.LockBeside("-"); lock != nil || err != nil {
		t.Errorf("LockBeside(-) = %v, %v; standard input has no lock beside it", lock, err)
	}

	dir := t.TempDir()
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "shop.yaml")
	os.WriteFile(model, src, 0o644)
	os.WriteFile(filepath.Join(dir, "shop.lock.json"), []byte(`{"format": 1`), 0o644)
	if _, _, err := patterns.Open(model); !errors.Is(err, patterns.ErrDesign) {
		t.Errorf("Open with a truncated lock: %v; want an ErrDesign", err)
	}
	if _, _, err := patterns.Open(filepath.Join(dir, "missing.yaml")); !errors.Is(err, kpmodel.ErrInvalidModel) {
		t.Errorf("Open of a missing model: %v; want an ErrInvalidModel", err)
	}
}
