package tablerules

import (
	"encoding/json"
	"strings"
	"testing"
)

func table(t *testing.T, js string) *GlobalTable {
	t.Helper()
	g := &GlobalTable{}
	if err := json.Unmarshal([]byte(js), g); err != nil {
		t.Fatal(err)
	}
	return g
}

const compliantProvisioned = `{
  "BillingMode": "PROVISIONED",
  "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
  "WriteProvisionedThroughputSettings": {"WriteCapacityAutoScalingSettings": {"MinCapacity": 5, "MaxCapacity": 50}},
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1", "WriteProvisionedThroughputSettings": {"WriteCapacityAutoScalingSettings": {"MinCapacity": 1, "MaxCapacity": 10}}}],
  "Replicas": [
    {"Region": "us-east-1", "DeletionProtectionEnabled": true, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true},
     "ReadProvisionedThroughputSettings": {"ReadCapacityAutoScalingSettings": {"MinCapacity": 5, "MaxCapacity": 50}},
     "GlobalSecondaryIndexes": [{"IndexName": "GSI1", "ReadProvisionedThroughputSettings": {"ReadCapacityAutoScalingSettings": {"MinCapacity": 1, "MaxCapacity": 10}}}]},
    {"Region": "eu-west-1", "DeletionProtectionEnabled": true, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true},
     "ReadProvisionedThroughputSettings": {"ReadCapacityAutoScalingSettings": {"MinCapacity": 5, "MaxCapacity": 50}},
     "GlobalSecondaryIndexes": [{"IndexName": "GSI1", "ReadProvisionedThroughputSettings": {"ReadCapacityAutoScalingSettings": {"MinCapacity": 1, "MaxCapacity": 10}}}]}
  ]
}`

func TestRules(t *testing.T) {
	tests := []struct {
		name    string
		rule    func(*GlobalTable) (Result, string)
		from    string
		to      string
		want    Result
		because string
	}{
		{"KPG1 compliant", PITREveryReplica, "", "", Compliant, ""},
		{"KPG1 replica without PITR", PITREveryReplica, `"Region": "eu-west-1", "DeletionProtectionEnabled": true, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}`, `"Region": "eu-west-1", "DeletionProtectionEnabled": true`, NonCompliant, "replica eu-west-1 has no point-in-time recovery"},
		{"KPG2 compliant", DeletionProtection, "", "", Compliant, ""},
		{"KPG2 unprotected replica", DeletionProtection, `{"Region": "us-east-1", "DeletionProtectionEnabled": true`, `{"Region": "us-east-1", "DeletionProtectionEnabled": false`, NonCompliant, "replica us-east-1 has no deletion protection"},
		{"KPG3 compliant", ReplicaStream, "", "", Compliant, ""},
		{"KPG3 keys-only stream", ReplicaStream, "NEW_AND_OLD_IMAGES", "KEYS_ONLY", NonCompliant, "NEW_AND_OLD_IMAGES"},
		{"KPG4 compliant", Capacity, "", "", Compliant, ""},
		{"KPG4 on-demand", Capacity, `"BillingMode": "PROVISIONED"`, `"BillingMode": "PAY_PER_REQUEST"`, Compliant, ""},
		{"KPG4 fixed GSI writes", Capacity, `"GlobalSecondaryIndexes": [{"IndexName": "GSI1", "WriteProvisionedThroughputSettings": {"WriteCapacityAutoScalingSettings": {"MinCapacity": 1, "MaxCapacity": 10}}}]`, `"GlobalSecondaryIndexes": [{"IndexName": "GSI1"}]`, NonCompliant, "GSI GSI1's provisioned writes"},
		{"KPG4 fixed replica reads", Capacity, `"ReadProvisionedThroughputSettings": {"ReadCapacityAutoScalingSettings": {"MinCapacity": 5, "MaxCapacity": 50}},`, `"ReadProvisionedThroughputSettings": {"ReadCapacityUnits": 5},`, NonCompliant, "replica us-east-1's provisioned reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			js := compliantProvisioned
			if tt.from != "" {
				if !strings.Contains(js, tt.from) {
					t.Fatalf("fixture lacks %q", tt.from)
				}
				js = strings.Replace(js, tt.from, tt.to, 1)
			}
			got, why := tt.rule(table(t, js))
			if got != tt.want || !strings.Contains(why, tt.because) {
				t.Errorf("got %s %q, want %s %q", got, why, tt.want, tt.because)
			}
		})
	}
	if res, _ := ReplicaStream(&GlobalTable{Replicas: []Replica{{Region: Literal("us-east-1")}}}); res != NotApplicable {
		t.Errorf("KPG3 on a single-region table: %s", res)
	}
	if msgs := Evaluate(table(t, compliantProvisioned)); len(msgs) != 0 {
		t.Errorf("compliant table: %v", msgs)
	}
}

// An environment-agnostic stack's table (its replica's region is
// {"Ref": "AWS::Region"}), and properties that are intrinsics: read, never
// an error; a rule that needs an intrinsic true says it cannot prove it.
func TestIntrinsics(t *testing.T) {
	g := table(t, `{
  "BillingMode": "PAY_PER_REQUEST",
  "Replicas": [{"Region": {"Ref": "AWS::Region"}, "DeletionProtectionEnabled": true, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}]
}`)
	if msgs := Evaluate(g); len(msgs) != 0 {
		t.Errorf("a compliant table of an environment-agnostic stack: %v", msgs)
	}
	if got := g.Replicas[0].Region.String(); got != "${AWS::Region}" {
		t.Errorf("region %q", got)
	}
	g = table(t, `{
  "BillingMode": {"Fn::If": ["Prod", "PROVISIONED", "PAY_PER_REQUEST"]},
  "StreamSpecification": {"StreamViewType": {"Ref": "View"}},
  "Replicas": [
    {"Region": {"Ref": "AWS::Region"}, "DeletionProtectionEnabled": {"Ref": "Protect"}, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": {"Fn::If": ["Prod", true, false]}}},
    {"Region": "eu-west-1", "DeletionProtectionEnabled": true, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true},
     "ReadProvisionedThroughputSettings": {"ReadCapacityUnits": {"Ref": "Reads"}}}]
}`)
	msgs := strings.Join(Evaluate(g), "\n")
	for _, want := range []string{
		`[KPG1] replica ${AWS::Region} has no point-in-time recovery (it is {"Fn::If": ["Prod", true, false]}, which only the deploy resolves: give a literal true)`,
		"[KPG2] replica ${AWS::Region} has no deletion protection (it is ${Protect}, which only the deploy resolves",
		"[KPG3] replicas need a NEW_AND_OLD_IMAGES stream",
		"[KPG4] provisioned writes are not auto-scaled",
	} {
		if !strings.Contains(msgs, want) {
			t.Errorf("findings:\n%s\nwant:\n%s", msgs, want)
		}
	}
	// A Value writes back what it read.
	b, err := json.Marshal(g.Replicas[1].ReadProvisionedThroughputSettings)
	if err != nil || string(b) != `{"ReadCapacityUnits":{"Ref":"Reads"},"ReadCapacityAutoScalingSettings":null}` {
		t.Errorf("%s %v", b, err)
	}
}
