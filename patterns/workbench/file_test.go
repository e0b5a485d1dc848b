package workbench_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/workbench"
)

// ReadFile imports a file, and names it when it cannot: missing, not a
// Workbench model.
func TestReadFile(t *testing.T) {
	files, _ := filepath.Glob("testdata/aws/*.json")
	if len(files) == 0 {
		t.Fatal("no AWS sample models")
	}
	im, err := workbench.ReadFile(files[0], workbench.ImportOptions{})
	if err != nil || len(im.YAML) == 0 || im.Guesses() > len(im.Notes) {
		t.Fatalf("%s: %v", files[0], err)
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	if _, err := workbench.ReadFile(missing, workbench.ImportOptions{}); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("a missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"DataModel": [{"TableName": 7}]}`), 0o644)
	if _, err := workbench.ReadFile(bad, workbench.ImportOptions{}); !errors.Is(err, workbench.ErrInvalid) || !strings.Contains(err.Error(), "bad.json: 1:31: DataModel.TableName: expected string") {
		t.Errorf("a bad file: %v", err)
	}
}
