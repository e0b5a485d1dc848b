package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
)

// keyNames lists a KeySchema's attribute names, HASH first.
func keyNames(schema any) []string {
	var out []string
	for _, k := range list(schema) {
		out = append(out, obj(k)["AttributeName"].(string))
	}
	return out
}

func TestKeysAndIndexesMatchThePlan(t *testing.T) {
	for name, tbl := range map[string]struct {
		tmpl   map[string]any
		design *patterns.Design
	}{
		"leaderboard": {templates["leaderboard"], example.LeaderboardTable.Design},
		"shop":        {templates["shop"], example.ShopTable.Design},
	} {
		t.Run(name, func(t *testing.T) {
			// GIVEN the planned design WHEN the table is synthesized
			p := props(one(t, tbl.tmpl, "AWS::DynamoDB::GlobalTable"))
			d := tbl.design
			// THEN the base key is PK/SK strings
			if got := keyNames(p["KeySchema"]); !slices.Equal(got, []string{d.PK, d.SK}) {
				t.Errorf("key schema %v", got)
			}
			for _, a := range list(p["AttributeDefinitions"]) {
				if obj(a)["AttributeType"] != "S" {
					t.Errorf("attribute %v is not a string", a)
				}
			}
			// AND every GSI of the plan exists with its keys and projection, and no other
			gsis := list(p["GlobalSecondaryIndexes"])
			if len(gsis) != len(d.Indexes) {
				t.Fatalf("%d GSIs in the template, %d planned", len(gsis), len(d.Indexes))
			}
			for i, ix := range d.Indexes {
				g := obj(gsis[i])
				proj := obj(g["Projection"])
				if g["IndexName"] != ix.Name || !slices.Equal(keyNames(g["KeySchema"]), []string{ix.PK, ix.SK}) || proj["ProjectionType"] != string(ix.Projection) {
					t.Errorf("GSI %d = %v, planned %+v", i, g, ix)
				}
				var nonKey []string
				for _, a := range list(proj["NonKeyAttributes"]) {
					nonKey = append(nonKey, a.(string))
				}
				if !slices.Equal(nonKey, ix.NonKeyAttributes) {
					t.Errorf("GSI %s includes %v, planned %v", ix.Name, nonKey, ix.NonKeyAttributes)
				}
			}
			// AND the TTL attribute is the model's
			if ttl := obj(p["TimeToLiveSpecification"]); d.TTL != "" && (ttl["AttributeName"] != d.TTL || ttl["Enabled"] != true) {
				t.Errorf("TTL %v, want %s", ttl, d.TTL)
			}
		})
	}
}

// GrantPatterns gives exactly the patterns' actions on exactly the indexes
// they read.
func TestGrantPatternsLeastPrivilege(t *testing.T) {
	tests := []struct {
		stack, role string
		actions     []string
		resources   []string
	}{
		// GetPlayer (GetItem, table) + SeasonLeaderboard (Query, GSI2)
		{"leaderboard", "LeaderboardReader", []string{"dynamodb:GetItem", "dynamodb:Query"}, []string{"table", "table/index/GSI2"}},
		// GetProduct (GetItem, table) + ProductsByCategory and CustomerOrders (Query, both on GSI1)
		{"shop", "ShopReader", []string{"dynamodb:GetItem", "dynamodb:Query"}, []string{"table", "table/index/GSI1"}},
	}
	for _, tt := range tests {
		t.Run(tt.stack, func(t *testing.T) {
			pol := props(policyOf(t, templates[tt.stack], tt.role))
			stmts := list(obj(pol["PolicyDocument"])["Statement"])
			if len(stmts) != 1 {
				t.Fatalf("statements %v", stmts)
			}
			st := obj(stmts[0])
			var actions []string
			for _, a := range list(st["Action"]) {
				actions = append(actions, a.(string))
			}
			if !slices.Equal(actions, tt.actions) {
				t.Errorf("actions %v, want %v", actions, tt.actions)
			}
			var res []string
			for _, r := range list(st["Resource"]) {
				res = append(res, arnShape(r))
			}
			sort.Strings(res)
			if !slices.Equal(res, tt.resources) {
				t.Errorf("resources %v, want %v", res, tt.resources)
			}
		})
	}
}

// policyOf is the policy attached to the role whose logical id starts
// with prefix.
func policyOf(t *testing.T, tmpl map[string]any, prefix string) map[string]any {
	t.Helper()
	for id, r := range resources(tmpl, "AWS::IAM::Policy") {
		for _, role := range list(props(r)["Roles"]) {
			if strings.HasPrefix(obj(role)["Ref"].(string), prefix) {
				return r
			}
		}
		_ = id
	}
	t.Fatalf("no policy for role %s*", prefix)
	return nil
}

// arnShape renders {"Fn::GetAtt": [table, Arn]} as "table" and its
// Fn::Join with "/index/GSI1" as "table/index/GSI1"; anything else (a
// wildcard, another resource) renders as itself.
func arnShape(r any) string {
	m := obj(r)
	if ga, ok := m["Fn::GetAtt"]; ok && list(ga)[1] == "Arn" {
		return "table"
	}
	if j, ok := m["Fn::Join"]; ok {
		parts := list(list(j)[1])
		if len(parts) == 2 && arnShape(parts[0]) == "table" {
			return "table" + parts[1].(string)
		}
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// cdk-nag's AwsSolutions pack and the GlobalTable rule pack find nothing:
// no error annotation anywhere, and no warning either.
func TestNoNagFindingsNorWarnings(t *testing.T) {
	for name, s := range map[string]interface{ StackName() *string }{"leaderboard": example.Leaderboard, "shop": example.Shop} {
		ann := assertions.Annotations_FromStack(stackOf(name))
		for _, m := range *ann.FindError(jsii.String("*"), assertions.Match_AnyValue()) {
			t.Errorf("%s: error %s", *s.StackName(), toString(m))
		}
		for _, m := range *ann.FindWarning(jsii.String("*"), assertions.Match_AnyValue()) {
			t.Errorf("%s: warning %s", *s.StackName(), toString(m))
		}
	}
}

var assetHash = regexp.MustCompile(`[0-9a-f]{64}`)

// The synthesized templates are golden; go test ./test -update rewrites
// them (asset hashes normalised).
func TestGoldenTemplates(t *testing.T) {
	for name, tmpl := range templates {
		t.Run(name, func(t *testing.T) {
			b, err := json.MarshalIndent(tmpl, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b = assetHash.ReplaceAll(append(b, '\n'), []byte("ASSET-HASH"))
			golden := filepath.Join("testdata", name+".template.json")
			if *update {
				if err := os.WriteFile(golden, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./test -update writes it)", err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("%s differs from the synthesized template; if intended, rewrite with go test ./test -update\n%s", golden, firstDiff(string(want), string(b)))
			}
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d lines", len(al), len(bl))
}
