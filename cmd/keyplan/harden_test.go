package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
)

// erringModel has a pattern no index serves (KP101) and one a GSI serves
// with a strongly consistent read DynamoDB refuses (KP102), beside one
// that is fine.
const erringModel = testmodel.ErringUsers

// validate proves what a design's errors do not concern, reports the
// rest as not run, and exits 1.
func TestValidateWithErrors(t *testing.T) {
	t.Parallel()
	code, out, errs := keyplan("validate", write(t, "users.yaml", erringModel), "--endpoint", engine(t))
	if code != cli.Findings {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
	}
	for _, want := range []string{"ok   GetUser(userId=u1): [ada]", "SKIP ByEmail(email=ada@example.com): not run: pattern ByEmail has error(s) KP101",
		"SKIP ByTeam(team=t1): not run: pattern ByTeam has error(s) KP102", "3 expectation(s), 0 failed, 2 not run (their patterns have errors)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "keyplan validate: the design has 2 error(s); what they concern is not run, the rest is proved") {
		t.Errorf("stderr:\n%s", errs)
	}
}

// A refused lock lists each error once, in the diff; the last line counts
// them (it repeated every one of them on one line).
func TestLockRefusalSaysEachErrorOnce(t *testing.T) {
	enginepass.Independent(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "users.yaml")
	fine := strings.Replace(erringModel, "  ByEmail: {get: User, where: [email], unique: true}\n  ByTeam: {query: User, where: [team], consistent: true}\n", "", 1)
	fine = fine[:strings.Index(fine, "examples:")]
	if err := os.WriteFile(model, []byte(fine), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := keyplan("lock", model); code != cli.Clean {
		t.Fatalf("lock: exit %d\n%s%s", code, out, errs)
	}
	broken := strings.Replace(fine, "  GetUser: {get: User}\n", "  GetUser: {get: User}\n  ByEmail: {get: User, where: [email]}\n  ByEmail2: {get: User, where: [email]}\n", 1)
	os.WriteFile(model, []byte(broken), 0o644)
	code, _, errs := keyplan("lock", model)
	if code != cli.Findings {
		t.Fatalf("exit %d, want 1\n%s", code, errs)
	}
	for _, p := range []string{"ByEmail:", "ByEmail2:"} {
		if n := strings.Count(errs, "pattern "+p); n != 1 {
			t.Errorf("pattern %s said %d times:\n%s", p, n, errs)
		}
	}
	if last := strings.TrimSpace(errs[strings.LastIndex(strings.TrimSpace(errs), "\n")+1:]); last != "keyplan lock: "+filepath.Join(dir, "users.lock.json")+" untouched: refused, 2 error(s)" {
		t.Errorf("last line %q", last)
	}
}

// gen go refuses a package name before it reads the model, saying
// which name and why, once.
func TestGenChecksThePackageFirst(t *testing.T) {
	enginepass.Independent(t)
	for pkg, want := range map[string]string{
		"main":    "keyplan gen go: --package main: expected a Go package name other than main: the generated code is a library, and no code can import a main package; name it (shopdb, say) and import it from your main package\n",
		"shop-db": "keyplan gen go: --package shop-db: expected a Go package name (an identifier such as shopdb)\n",
		"":        "keyplan gen go: --package NAME: expected a Go package name (an identifier such as shopdb)\n",
	} {
		code, _, errs := keyplan("gen", "go", filepath.Join(t.TempDir(), "none.yaml"), "--package", pkg, "--out", t.TempDir())
		if code != cli.Usage || !strings.HasSuffix(errs, want) || strings.Contains(errs, "none.yaml") {
			t.Errorf("--package %q: exit %d: %q, want %q", pkg, code, errs, want)
		}
	}
}
