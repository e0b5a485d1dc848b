package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
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
		"tracker":     {templates["tracker"], tracker.Design},
		"arena":       {templates["arena"], arena.Design},
	} {
		t.Run(name, func(t *testing.T) {
			// GIVEN the planned design WHEN the table is synthesized
			p := props(one(t, tbl.tmpl, "AWS::DynamoDB::GlobalTable"))
			d := tbl.design
			// THEN the base key is PK/SK strings
			if got := keyNames(p["KeySchema"]); !slices.Equal(got, []string{d.PK, d.SK}) {
				t.Errorf("key schema %v", got)
			}
			types := map[string]string{d.PK: "S", d.SK: "S"}
			for _, ix := range d.LocalIndexes {
				types[ix.SK] = "S"
			}
			for _, ix := range d.Indexes {
				if ix.Native() {
					maps.Copy(types, d.KeyTypes(ix))
				} else {
					types[ix.PK], types[ix.SK] = "S", "S"
				}
			}
			if defs := list(p["AttributeDefinitions"]); len(defs) != len(types) {
				t.Errorf("attribute definitions %v, want %v", defs, types)
			}
			for _, a := range list(p["AttributeDefinitions"]) {
				if want := types[obj(a)["AttributeName"].(string)]; obj(a)["AttributeType"] != want {
					t.Errorf("attribute %v, want type %q", a, want)
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
				if g["IndexName"] != ix.Name || !slices.Equal(keyNames(g["KeySchema"]), ix.KeyAttributes()) || proj["ProjectionType"] != string(ix.Projection) {
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
			// AND every LSI of the plan exists, keyed by the table's PK and its own sort key, with its projection
			lsis := list(p["LocalSecondaryIndexes"])
			if len(lsis) != len(d.LocalIndexes) {
				t.Fatalf("%d LSIs in the template, %d planned", len(lsis), len(d.LocalIndexes))
			}
			for i, ix := range d.LocalIndexes {
				l := obj(lsis[i])
				if l["IndexName"] != ix.Name || !slices.Equal(keyNames(l["KeySchema"]), []string{d.PK, ix.SK}) || obj(l["Projection"])["ProjectionType"] != string(ix.Projection) {
					t.Errorf("LSI %d = %v, planned %+v", i, l, ix)
				}
			}
			// AND the TTL attribute is the model's
			if ttl := obj(p["TimeToLiveSpecification"]); d.TTL != "" && (ttl["AttributeName"] != d.TTL || ttl["Enabled"] != true) {
				t.Errorf("TTL %v, want %s", ttl, d.TTL)
			}
		})
	}
}

// GrantPatterns gives each read action only on the indexes its patterns
// read, one statement per set of actions, and the write patterns' item
// actions on the table alone, in a statement of their own (issue 35: the
// union of actions went on every resource, so a GetItem on the table and
// a Query on a GSI granted Query on the table and GetItem on the GSI).
func TestGrantPatternsLeastPrivilege(t *testing.T) {
	type statement struct{ actions, resources []string }
	tests := []struct {
		stack, role string
		want        []statement
	}{
		// GetPlayer (GetItem, table) + SeasonLeaderboard (Query, GSI2)
		{"leaderboard", "LeaderboardReader", []statement{{[]string{"dynamodb:GetItem"}, []string{"table"}}, {[]string{"dynamodb:Query"}, []string{"table/index/GSI2"}}}},
		// GetProduct (GetItem, table) + ProductsByCategory and CustomerOrders (Query, both on GSI1)
		{"shop", "ShopReader", []statement{{[]string{"dynamodb:GetItem"}, []string{"table"}}, {[]string{"dynamodb:Query"}, []string{"table/index/GSI1"}}}},
		// GetTask (GetItem, table) alone
		{"tracker", "TrackerTask", []statement{{[]string{"dynamodb:GetItem"}, []string{"table"}}}},
		// GetTenant (GetItem) and TenantWithTasks (Query) on the table,
		// TasksByStatus (Query) on GSI2: Query on both, GetItem on the table
		{"tracker", "TrackerOwner", []statement{{[]string{"dynamodb:GetItem", "dynamodb:Query"}, []string{"table"}}, {[]string{"dynamodb:Query"}, []string{"table/index/GSI2"}}}},
		// TasksByStatus (GSI2) and TasksByAssignee (GSI1): one Query statement on both GSIs, not the table
		{"tracker", "TrackerBoards", []statement{{[]string{"dynamodb:Query"}, []string{"table/index/GSI1", "table/index/GSI2"}}}},
		// GetOrder (GetItem, table); PlaceOrder (a transaction: PutItem
		// twice, UpdateItem) and ShipOrder (UpdateItem), on the table only
		// (CDK merges the two statements: same resource)
		{"shop", "ShopOrders", []statement{{[]string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}, []string{"table"}}}},
		// GetMatch (GetItem, table), MatchesByScore (Query, LSI2: an LSI
		// has an index ARN of its own), MatchesByKills (Query, GSI1)
		{"arena", "ArenaReader", []statement{{[]string{"dynamodb:GetItem"}, []string{"table"}}, {[]string{"dynamodb:Query"}, []string{"table/index/GSI1", "table/index/LSI2"}}}},
		// GetAccounts (batch: true): BatchGetItem on the table alone, no
		// GetItem, no index; and GetObject on Account's objects (its
		// statement is kept in S3) only
		{"ledger", "LedgerBatchReader", []statement{{[]string{"dynamodb:BatchGetItem"}, []string{"table"}}, {[]string{"s3:GetObject"}, []string{"objects/Account/*"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.stack+"/"+tt.role, func(t *testing.T) {
			pol := props(policyOf(t, templates[tt.stack], tt.role))
			var got []statement
			for _, s := range list(obj(pol["PolicyDocument"])["Statement"]) {
				st := obj(s)
				var g statement
				for _, a := range many(st["Action"]) {
					g.actions = append(g.actions, a.(string))
				}
				for _, r := range many(st["Resource"]) {
					g.resources = append(g.resources, arnShape(r))
				}
				sort.Strings(g.resources)
				if st["Effect"] != "Allow" || st["Condition"] != nil {
					t.Errorf("statement %v", st)
				}
				got = append(got, g)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("statements\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// many reads a policy field that is one value or a list of them.
func many(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
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
		if strings.Contains(list(ga)[0].(string), "ObjectsBucket") {
			return "objects" // the bucket of store: s3 values
		}
		return "table"
	}
	if j, ok := m["Fn::Join"]; ok {
		parts := list(list(j)[1])
		if len(parts) == 2 && (arnShape(parts[0]) == "table" || arnShape(parts[0]) == "objects") {
			return arnShape(parts[0]) + parts[1].(string)
		}
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// cdk-nag's AwsSolutions pack and the GlobalTable rule pack find nothing:
// no error annotation anywhere, and no warning either.
func TestNoNagFindingsNorWarnings(t *testing.T) {
	for name, s := range map[string]interface{ StackName() *string }{"leaderboard": example.Leaderboard, "shop": example.Shop, "storefront": stackOf("storefront"), "needs": needsStack} {
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

// The tracker's GSIs are keyed natively: each one's KeySchema in the
// template holds its attributes, every partition attribute HASH then every
// sort attribute RANGE, in order, each defined with its DynamoDB type (a
// number as N); the items carry no GSIxPK/GSIxSK.
func TestNativeIndexesHaveMultiAttributeKeySchemas(t *testing.T) {
	d := tracker.Design
	if len(d.Indexes) == 0 {
		t.Fatal("the tracker plans no GSI")
	}
	native := 0
	for _, ix := range d.Indexes {
		if !ix.Native() {
			continue
		}
		native++
		var schema []any
		for _, a := range ix.PartitionKeys {
			schema = append(schema, map[string]any{"AttributeName": a, "KeyType": "HASH"})
		}
		for _, a := range ix.SortKeys {
			schema = append(schema, map[string]any{"AttributeName": a, "KeyType": "RANGE"})
		}
		if len(schema) < 3 {
			t.Errorf("%s keyed on %s: the example must show a multi-attribute key", ix.Name, ix.KeyText())
		}
		asserted["tracker"].HasResourceProperties(jsii.String("AWS::DynamoDB::GlobalTable"), map[string]any{
			"GlobalSecondaryIndexes": assertions.Match_ArrayWith(&[]any{
				assertions.Match_ObjectLike(&map[string]any{"IndexName": ix.Name, "KeySchema": schema}),
			}),
		})
		for a, typ := range d.KeyTypes(ix) {
			asserted["tracker"].HasResourceProperties(jsii.String("AWS::DynamoDB::GlobalTable"), map[string]any{
				"AttributeDefinitions": assertions.Match_ArrayWith(&[]any{map[string]any{"AttributeName": a, "AttributeType": typ}}),
			})
		}
	}
	if native != len(d.Indexes) {
		t.Errorf("%d of the tracker's %d GSIs are native", native, len(d.Indexes))
	}
	p := props(one(t, templates["tracker"], "AWS::DynamoDB::GlobalTable"))
	for _, a := range list(p["AttributeDefinitions"]) {
		if name := obj(a)["AttributeName"].(string); strings.HasPrefix(name, "GSI") {
			t.Errorf("the native table defines %s", name)
		}
	}
}
