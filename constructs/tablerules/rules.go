package tablerules

import (
	"fmt"
	"slices"
)

// Result is a rule's verdict on one resource.
type Result string

// Verdicts, as cdk-nag names them.
const (
	Compliant     Result = "COMPLIANT"
	NonCompliant  Result = "NON_COMPLIANT"
	NotApplicable Result = "NOT_APPLICABLE"
)

// GlobalTable is the part of an AWS::DynamoDB::GlobalTable's properties the
// rules read, as CloudFormation spells them.
type GlobalTable struct {
	BillingMode                        string                 `json:"BillingMode"`
	StreamSpecification                *StreamSpecification   `json:"StreamSpecification"`
	Replicas                           []Replica              `json:"Replicas"`
	WriteProvisionedThroughputSettings *WriteSettings         `json:"WriteProvisionedThroughputSettings"`
	GlobalSecondaryIndexes             []GlobalSecondaryIndex `json:"GlobalSecondaryIndexes"`
}

// StreamSpecification is the table's stream.
type StreamSpecification struct {
	StreamViewType string `json:"StreamViewType"`
}

// Replica is one region's settings.
type Replica struct {
	Region                            string                  `json:"Region"`
	PointInTimeRecoverySpecification  *PointInTimeRecovery    `json:"PointInTimeRecoverySpecification"`
	DeletionProtectionEnabled         *bool                   `json:"DeletionProtectionEnabled"`
	ReadProvisionedThroughputSettings *ReadSettings           `json:"ReadProvisionedThroughputSettings"`
	GlobalSecondaryIndexes            []ReplicaSecondaryIndex `json:"GlobalSecondaryIndexes"`
}

// PointInTimeRecovery is a replica's continuous backup setting.
type PointInTimeRecovery struct {
	PointInTimeRecoveryEnabled bool `json:"PointInTimeRecoveryEnabled"`
}

// WriteSettings is provisioned write capacity.
type WriteSettings struct {
	WriteCapacityAutoScalingSettings *AutoScaling `json:"WriteCapacityAutoScalingSettings"`
}

// ReadSettings is provisioned read capacity.
type ReadSettings struct {
	ReadCapacityUnits               *float64     `json:"ReadCapacityUnits"`
	ReadCapacityAutoScalingSettings *AutoScaling `json:"ReadCapacityAutoScalingSettings"`
}

// AutoScaling is target-tracking auto-scaling.
type AutoScaling struct {
	MinCapacity float64 `json:"MinCapacity"`
	MaxCapacity float64 `json:"MaxCapacity"`
}

// GlobalSecondaryIndex is a GSI's table-wide settings.
type GlobalSecondaryIndex struct {
	IndexName                          string         `json:"IndexName"`
	WriteProvisionedThroughputSettings *WriteSettings `json:"WriteProvisionedThroughputSettings"`
}

// ReplicaSecondaryIndex is a GSI's settings in one replica.
type ReplicaSecondaryIndex struct {
	IndexName                         string        `json:"IndexName"`
	ReadProvisionedThroughputSettings *ReadSettings `json:"ReadProvisionedThroughputSettings"`
}

// Rule is one check of the pack.
type Rule struct {
	ID          string
	Explanation string
	Check       func(*GlobalTable) (Result, string)
}

// Rules returns the pack (a copy: the pack itself cannot be changed).
func Rules() []Rule { return slices.Clone(rules) }

// rules is the pack.
var rules = []Rule{
	{"KPG1", "Point-in-time recovery is enabled in every replica (a global table's backups are per region).", PITREveryReplica},
	{"KPG2", "Deletion protection is enabled in every replica.", DeletionProtection},
	{"KPG3", "A table with more than one replica streams NEW_AND_OLD_IMAGES, which replication needs.", ReplicaStream},
	{"KPG4", "Capacity is on-demand, or provisioned with auto-scaling of reads and writes for the table and every GSI in every replica.", Capacity},
}

// PITREveryReplica: KPG1.
func PITREveryReplica(g *GlobalTable) (Result, string) {
	for _, r := range g.Replicas {
		if r.PointInTimeRecoverySpecification == nil || !r.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled {
			return NonCompliant, fmt.Sprintf("replica %s has no point-in-time recovery", r.Region)
		}
	}
	return Compliant, ""
}

// DeletionProtection: KPG2.
func DeletionProtection(g *GlobalTable) (Result, string) {
	for _, r := range g.Replicas {
		if r.DeletionProtectionEnabled == nil || !*r.DeletionProtectionEnabled {
			return NonCompliant, fmt.Sprintf("replica %s has no deletion protection", r.Region)
		}
	}
	return Compliant, ""
}

// ReplicaStream: KPG3.
func ReplicaStream(g *GlobalTable) (Result, string) {
	if len(g.Replicas) < 2 {
		return NotApplicable, ""
	}
	if g.StreamSpecification == nil || g.StreamSpecification.StreamViewType != "NEW_AND_OLD_IMAGES" {
		return NonCompliant, "replicas need a NEW_AND_OLD_IMAGES stream"
	}
	return Compliant, ""
}

// Capacity: KPG4.
func Capacity(g *GlobalTable) (Result, string) {
	if g.BillingMode == "PAY_PER_REQUEST" {
		return Compliant, ""
	}
	if w := g.WriteProvisionedThroughputSettings; w == nil || w.WriteCapacityAutoScalingSettings == nil {
		return NonCompliant, "provisioned writes are not auto-scaled"
	}
	for _, ix := range g.GlobalSecondaryIndexes {
		if w := ix.WriteProvisionedThroughputSettings; w == nil || w.WriteCapacityAutoScalingSettings == nil {
			return NonCompliant, fmt.Sprintf("GSI %s's provisioned writes are not auto-scaled", ix.IndexName)
		}
	}
	for _, r := range g.Replicas {
		if rs := r.ReadProvisionedThroughputSettings; rs == nil || rs.ReadCapacityAutoScalingSettings == nil {
			return NonCompliant, fmt.Sprintf("replica %s's provisioned reads are not auto-scaled", r.Region)
		}
		for _, ix := range g.GlobalSecondaryIndexes {
			found := false
			for _, rix := range r.GlobalSecondaryIndexes {
				if rix.IndexName == ix.IndexName {
					found = rix.ReadProvisionedThroughputSettings != nil && rix.ReadProvisionedThroughputSettings.ReadCapacityAutoScalingSettings != nil
				}
			}
			if !found {
				return NonCompliant, fmt.Sprintf("GSI %s's provisioned reads in replica %s are not auto-scaled", ix.IndexName, r.Region)
			}
		}
	}
	return Compliant, ""
}

// Evaluate runs every rule and returns the NonCompliant ones as messages.
func Evaluate(g *GlobalTable) []string {
	var out []string
	for _, r := range rules {
		if res, why := r.Check(g); res == NonCompliant {
			out = append(out, fmt.Sprintf("[%s] %s %s", r.ID, why+":", r.Explanation))
		}
	}
	return out
}
