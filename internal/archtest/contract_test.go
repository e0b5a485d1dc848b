package archtest

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// The contract is defined once: no Go file in the repository other than
// patterns/contract.go spells one of its values as a string literal (a
// second copy would drift silently). Handler names are also the model's
// field names (copies, counters, archive), so those are looked for
// outside patterns/. The minidyn fork knows nothing of the contract.
func TestContractHasNoSecondCopy(t *testing.T) {
	exact := map[string]string{
		patterns.TableNameEnv: "TableNameEnv", patterns.LockEnv: "LockEnv", patterns.ArchiveBucketEnv: "ArchiveBucketEnv",
		patterns.DesignPath: "DesignPath", patterns.TTLPrincipal: "TTLPrincipal", patterns.Module: "Module",
		patterns.BackfillWorker: "BackfillWorker", patterns.BackfillMaxWCUEnv: "BackfillMaxWCUEnv",
		patterns.MetricUndecodable: "MetricUndecodable", patterns.MetricNoEntity: "MetricNoEntity",
	}
	prefixes := map[string]string{patterns.GuardTag: "GuardTag", patterns.MarkerTag: "MarkerTag", patterns.FanoutTag: "FanoutTag", patterns.MigrationTag: "MigrationTag", "/opt/" + patterns.LayerDir: "DesignPath"}
	handlers := map[string]string{}
	for _, h := range patterns.Handlers() {
		handlers[string(h)] = "Handler" + strings.ToUpper(string(h[:1])) + string(h[1:])
	}
	if patterns.Module != module {
		t.Errorf("patterns.Module is %q, archtest's module %q", patterns.Module, module)
	}
	for _, f := range repoFiles(t) {
		if under(f.dir, "internal/engine/minidyn") || f.rel == "patterns/contract.go" || f.dir == "internal/archtest" {
			continue
		}
		inCore := f.dir == "patterns" || f.dir == "patterns/model"
		ast.Inspect(f.ast, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			name := exact[s]
			for p, c := range prefixes {
				if strings.HasPrefix(s, p) {
					name = c
				}
			}
			if h, ok := handlers[s]; ok && !inCore {
				name = h
			}
			if name != "" {
				t.Errorf("%s:%d: %s spells patterns.%s again; use the constant", f.rel, f.fset.Position(lit.Pos()).Line, lit.Value, name)
			}
			return true
		})
	}
}
