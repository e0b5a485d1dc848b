package archtest

import (
	"strings"
	"testing"
)

// The runtime is what application code and the generated code import: it
// reaches no migration code and no proof (patterns/prove, keyplan
// validate's, nor the reference evaluator that judges it), so an
// application's binary carries none and a change to the backfill or the
// proof cannot change a read (issue 37). The migration and the proof read
// the runtime through its exported API (the proof through dynamo.Probe
// too).
func TestRuntimeReachesNoMigration(t *testing.T) {
	p := packages(t)
	runtime := "patterns/dynamo"
	if _, ok := p.code[runtime]; !ok {
		t.Fatalf("no package %s", runtime)
	}
	never := []string{"patterns/dynamo/migrate", "patterns/prove", "patterns/oracle"}
	for imp, chain := range p.reach(runtime, p.code[runtime]) {
		for _, n := range never {
			if imp == importPath(n) || strings.HasPrefix(imp, importPath(n)+"/") {
				t.Errorf("the runtime reaches %s: %s", n, strings.Join(chain, " → "))
			}
		}
	}
}
