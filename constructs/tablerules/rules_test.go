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
	if res, _ := ReplicaStream(&GlobalTable{Replicas: []Replica{{Region: "us-east-1"}}}); res != NotApplicable {
		t.Errorf("KPG3 on a single-region table: %s", res)
	}
	if msgs := Evaluate(table(t, compliantProvisioned)); len(msgs) != 0 {
		t.Errorf("compliant table: %v", msgs)
	}
}
