package engine

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/engine/ddblocal"
	"github.com/keyplan/keyplan/internal/engine/usercache"
)

// What a caller prints: the engines by name, what an install does, and
// what to do when Java is missing.
func TestNamesHintsAndInstalls(t *testing.T) {
	if err := CheckName("dynamodb"); err == nil || !strings.Contains(err.Error(), "memory, dynalite, dynamodb-local") {
		t.Errorf("Check(dynamodb): %v", err)
	}
	cache := t.TempDir()
	t.Setenv(usercache.Env, cache)
	t.Setenv(ddblocal.EnvPath, "")
	if !NeedsInstall(DynamoDBLocal, ".") || NeedsInstall(Memory, ".") {
		t.Error("NeedsInstall with an empty cache")
	}
	if got := Installing(DynamoDBLocal); !strings.Contains(got, ddblocal.Pin) || !strings.Contains(got, cache) {
		t.Errorf("Installing: %s", got)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("JAVA_HOME", "")
	_, err := Start(DynamoDBLocal, ".")
	if !errors.Is(err, ddblocal.ErrNoJava) || !strings.Contains(Hint(err), "apt-get install openjdk-17-jre-headless") {
		t.Errorf("without Java: %v\n%s", err, Hint(err))
	}
	if entries, _ := os.ReadDir(cache); len(entries) > 0 {
		t.Errorf("without Java the engine was installed all the same: %v", entries)
	}
}
