package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// built is the keyplan binary the tests that run it as a process share,
// built once per test run (buildKeyplan).
var built struct {
	once sync.Once
	path string
	err  error
}

// buildKeyplan builds the keyplan binary once and returns its path.
func buildKeyplan(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "keyplan-bin")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "keyplan")
		if out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func keyplan(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The JSON output contract of DESIGN.md.
func TestPlanJSONContract(t *testing.T) {
	enginepass.Independent(t)
	code, out, errs := keyplan("plan", "../../examples/leaderboard.yaml", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		Table   *string `json:"table"`
		Indexes []struct {
			Name       string `json:"name"`
			Projection string `json:"projection"`
		} `json:"indexes"`
		Patterns []struct {
			Name      string `json:"name"`
			Operation string `json:"operation"`
			Index     string `json:"index"`
			Requests  int    `json:"requests"`
		} `json:"patterns"`
		LowerBound  *int              `json:"lowerBound"`
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Error("more than one JSON value printed")
	}
	if v.Table == nil || *v.Table != "Leaderboard" || v.LowerBound == nil || *v.LowerBound != 2 || v.Diagnostics == nil {
		t.Errorf("table/lowerBound/diagnostics missing: %s", out)
	}
	for _, ix := range v.Indexes {
		if ix.Name == "" || !strings.Contains("ALL INCLUDE KEYS_ONLY", ix.Projection) || ix.Projection == "" {
			t.Errorf("index %+v", ix)
		}
	}
	if len(v.Patterns) != 5 {
		t.Fatalf("%d patterns", len(v.Patterns))
	}
	for _, p := range v.Patterns {
		if p.Operation != "GetItem" && p.Operation != "Query" || p.Index == "" || p.Requests != 1 {
			t.Errorf("pattern %+v", p)
		}
	}
}

func TestExitCodes(t *testing.T) {
	enginepass.Independent(t)
	scan := write(t, "scan.yaml", `table: Things
entities:
  User:
    id: [userId]
    attributes: {userId: string, email: string}
    keys: {table: {pk: "USER#{userId}", sk: USER}}
patterns:
  ByEmail: {get: User, where: [email]}
`)
	bad := write(t, "bad.yaml", "table: T\nentities:\n  User: {id: [userId], attributes: {userId: strng}}\npatterns:\n  G: {get: User}\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"clean", []string{"plan", "../../examples/ecommerce.yaml"}, 0, "table Shop (designed)", ""},
		{"markdown", []string{"plan", "--format", "markdown", "../../examples/ecommerce.yaml"}, 0, "| # | Pattern | Operation | Index | Key condition | Requests |", ""},
		{"finding", []string{"plan", scan}, 1, "error [KP101] pattern ByEmail: needs a Scan", ""},
		{"unusable input", []string{"plan", bad}, 2, "", `bad.yaml:3:45: entities.User.attributes.userId: unknown type "strng"`},
		{"missing file", []string{"plan", "nope.yaml"}, 2, "", "nope.yaml: the model file does not exist\n"},
		{"no file", []string{"plan"}, 2, "", "expected one model FILE, got 0"},
		{"bad format", []string{"plan", "../../examples/ecommerce.yaml", "--format", "xml"}, 2, "", `--format xml: expected one of: text, json, markdown, html`},
		{"replicas", []string{"plan", "../../examples/ecommerce.yaml", "--replica", "eu-west-1:table=3", "--replica", "ap-south-1"}, 0, "with 2 replica(s) (eu-west-1 ", ""},
		{"replicas, markdown", []string{"plan", "--format", "markdown", "../../examples/ecommerce.yaml", "--replica", "eu-west-1"}, 0, "| Replica | Read capacity |", ""},
		{"replica, bad region", []string{"plan", "../../examples/ecommerce.yaml", "--replica", "Mars"}, 2, "", `"Mars": expected REGION[:table=RCU,GSI1=RCU...]`},
		{"replica twice", []string{"plan", "../../examples/ecommerce.yaml", "--replica", "eu-west-1", "--replica", "eu-west-1:table=2"}, 2, "", "eu-west-1 is given twice"},
		{"replica, unknown index", []string{"plan", "../../examples/ecommerce.yaml", "--replica", "eu-west-1:GSI9=2"}, 2, "", "the design has no index GSI9 (it has table, "},
		{"replica, bad capacity", []string{"plan", "../../examples/ecommerce.yaml", "--replica", "eu-west-1:table=0.5"}, 2, "", `"table=0.5": expected INDEX=RCU, RCU a whole number from 1 to 40000`},
		{"unknown command", []string{"deploy"}, 2, "", `unknown command "deploy"`},
		{"no command", nil, 2, "", "usage:"},
		{"schema", []string{"schema"}, 0, `"$schema": "https://json-schema.org/draft/2020-12/schema"`, ""},
		{"help", []string{"help"}, 0, "exit codes: 0 clean", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := keyplan(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errs)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout %q lacks %q", out, tt.stdout)
			}
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr %q lacks %q", errs, tt.stderr)
			}
		})
	}
}

// plan --replica: every write is replicated to each replica; a replica
// provisions the read capacity given, the primary's elsewhere.
func TestPlanReplicas(t *testing.T) {
	enginepass.Independent(t)
	code, out, errs := keyplan("plan", "../../examples/ecommerce.yaml", "--format", "json", "--replica", "eu-west-1:table=3", "--replica", "ap-south-1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var d struct {
		Cost struct {
			WriteUnits  float64 `json:"writeUnitsPerSecond"`
			Provisioned float64 `json:"provisionedMonthlyUSD"`
			Indexes     []struct {
				Name      string  `json:"name"`
				ReadUnits float64 `json:"readUnitsPerSecond"`
			} `json:"indexes"`
			AllRegions *patterns.Global `json:"allRegions"`
		} `json:"cost"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	g := d.Cost.AllRegions
	if g == nil || len(g.Replicas) != 2 || g.Replicas[0].Region != "eu-west-1" || g.Replicas[1].Region != "ap-south-1" {
		t.Fatalf("allRegions: %+v", g)
	}
	if g.ReplicatedWriteUnits != 2*d.Cost.WriteUnits {
		t.Errorf("replicated write units %g, want 2 × %g", g.ReplicatedWriteUnits, d.Cost.WriteUnits)
	}
	var primary, others float64
	for _, l := range d.Cost.Indexes {
		primary += patterns.ProvisionedUnits(l.ReadUnits)
		if l.Name != model.BaseIndex {
			others += patterns.ProvisionedUnits(l.ReadUnits)
		}
	}
	if g.Replicas[0].ReadCapacity != 3+others || g.Replicas[1].ReadCapacity != primary {
		t.Errorf("replica read capacity %g and %g, want %g (3 on the table) and %g (the primary's)", g.Replicas[0].ReadCapacity, g.Replicas[1].ReadCapacity, 3+others, primary)
	}
	if g.Provisioned <= d.Cost.Provisioned {
		t.Errorf("all regions $%.2f, not more than the primary's $%.2f", g.Provisioned, d.Cost.Provisioned)
	}
}

func TestCheck(t *testing.T) {
	enginepass.Independent(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"clean", []string{"check", "../../examples/merchant-orders.yaml"}, 0, "0 error(s), 0 warning(s)"},
		{"warnings pass", []string{"check", "../../examples/ecommerce.yaml"}, 0, "warning [KP401] pattern OrdersByStatus"},
		{"warnings fail when strict", []string{"check", "--strict", "../../examples/ecommerce.yaml"}, 1, "0 error(s), 1 warning(s)"},
		{"json", []string{"check", "../../examples/ecommerce.yaml", "--format", "json"}, 0, `"id": "KP401"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := keyplan(tt.args...)
			if code != tt.code || !strings.Contains(out, tt.stdout) {
				t.Errorf("exit %d (want %d), stdout %q lacks %q; stderr %s", code, tt.code, out, tt.stdout, errs)
			}
		})
	}
}

// SARIF puts each finding on the model file's line, with its rule.
func TestCheckSARIF(t *testing.T) {
	enginepass.Independent(t)
	model := write(t, "scan.yaml", `table: Users
entities:
  User:
    id: [userId]
    attributes: {userId: {type: string, maxLength: 9}, email: {type: string, maxLength: 9}}
    keys: {table: {pk: "USER#{userId}", sk: USER}}
patterns:
  ByEmail: {get: User, where: [email], unique: true}
`)
	code, out, errs := keyplan("check", model, "--format", "sarif")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "keyplan" {
		t.Fatalf("log %+v", log)
	}
	run := log.Runs[0]
	if len(run.Results) != 1 {
		t.Fatalf("results %+v", run.Results)
	}
	r := run.Results[0]
	loc := r.Locations[0].PhysicalLocation
	if r.RuleID != "KP101" || r.Level != "error" || run.Tool.Driver.Rules[r.RuleIndex].ID != "KP101" ||
		!strings.HasSuffix(loc.ArtifactLocation.URI, "/scan.yaml") || loc.Region.StartLine != 8 || loc.Region.StartColumn != 3 ||
		!strings.Contains(r.Message.Text, "pattern ByEmail: needs a Scan") {
		t.Errorf("result %+v", r)
	}
}
