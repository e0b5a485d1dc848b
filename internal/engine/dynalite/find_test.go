package dynalite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine/usercache"
)

// fakeDynalite writes a module that serves ListTables naming the copy
// (and, if marker is set, writes it when loaded: it ran).
func fakeDynalite(t *testing.T, root, name, marker string) string {
	t.Helper()
	dir := filepath.Join(root, "node_modules", "dynalite")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	js := `module.exports = () => require("http").createServer((q, r) => {
  r.setHeader("Content-Type", "application/x-amz-json-1.0");
  r.end(JSON.stringify({TableNames: [` + "`" + name + "`" + `]}));
});
`
	if marker != "" {
		js = `require("fs").writeFileSync(` + "`" + marker + "`" + `, "ran");
` + js
	}
	os.WriteFile(filepath.Join(dir, "index.js"), []byte(js), 0o644)
	os.WriteFile(filepath.Join(dir, "cli.js"), []byte("// keyplan loads index.js\n"), 0o644)
	return filepath.Join(dir, "cli.js")
}

// which starts dynalite from dir and says which copy answered.
func which(t *testing.T, dir string) string {
	t.Helper()
	s, err := Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
	out, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 1 {
		t.Fatalf("ListTables: %v, %v", out, err)
	}
	return out.TableNames[0]
}

// A node_modules/dynalite planted by another user in a directory above
// the working directory (a shared temporary directory), beside the
// executable, or in the system's temporary directory with a go.mod is
// never run: the project's own (at its Go module's root) or keyplan's
// pinned install in the cache is.
func TestPlantedDynaliteIsNotRun(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir
	t.Setenv(EnvPath, "")
	t.Setenv("KEYPLAN_CACHE", filepath.Join(tmp, "cache"))
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	fakeDynalite(t, cache, "cached", "")              // stands for the pinned install
	if _, err := usercache.Stamp(cache); err != nil { // as Install stamps it
		t.Fatal(err)
	}
	marker := filepath.Join(tmp, "planted-ran")

	// Planted in the shared temporary directory, above the work.
	fakeDynalite(t, tmp, "planted", marker)
	os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module planted\n"), 0o644)
	work := filepath.Join(tmp, "work")
	os.MkdirAll(work, 0o755)
	if got := which(t, work); got != "cached" {
		t.Errorf("from %s: %s ran, want the cached install", work, got)
	}

	// Planted beside the executable (go run builds into the temporary
	// directory).
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fakeDynalite(t, filepath.Dir(exe), "planted", marker)
	defer os.RemoveAll(filepath.Join(filepath.Dir(exe), "node_modules"))
	if got := which(t, work); got != "cached" {
		t.Errorf("with one beside %s: %s ran, want the cached install", exe, got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the planted dynalite was loaded")
	}

	// The project's own: at its module's root, from any directory in it.
	proj := filepath.Join(tmp, "work", "proj")
	os.MkdirAll(filepath.Join(proj, "internal", "x"), 0o755)
	os.WriteFile(filepath.Join(proj, "go.mod"), []byte("module proj\n"), 0o644)
	fakeDynalite(t, proj, "project", "")
	if got := which(t, filepath.Join(proj, "internal", "x")); got != "project" {
		t.Errorf("in the project: %s ran, want the project's", got)
	}
	// Not when another user could have put it there.
	if os.Getuid() == 0 {
		nm := filepath.Join(proj, "node_modules")
		filepath.Walk(nm, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 65534, 65534) })
		if got := which(t, proj); got != "cached" {
			t.Errorf("a node_modules owned by another user: %s ran, want the cached install", got)
		}
		filepath.Walk(nm, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 0, 0) })
	}
	os.Chmod(filepath.Join(proj, "node_modules"), 0o777)
	if got := which(t, proj); got != "cached" {
		t.Errorf("a node_modules any user may write: %s ran, want the cached install", got)
	}
}

// keyplan's own tests find the repository's dynalite, pinned by its
// package-lock.json, from any package directory.
func TestFindsTheRepositorysDynalite(t *testing.T) {
	t.Setenv(EnvPath, "")
	wd, _ := os.Getwd()
	cli, err := find(wd)
	root, _ := filepath.Abs("../../..")
	if err != nil || cli != cliIn(root) {
		t.Errorf("find(%s) = %s, %v; want %s", wd, cli, err, cliIn(root))
	}
}
