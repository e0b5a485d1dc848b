package tablerules

import (
	"encoding/json"
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
// rules read, as CloudFormation spells them. Any scalar may be a literal
// or an intrinsic function CloudFormation resolves at deploy time (an
// environment-agnostic stack's replica region is {"Ref": "AWS::Region"}):
// see Value.
type GlobalTable struct {
	BillingMode                        Value                  `json:"BillingMode"`
	StreamSpecification                *StreamSpecification   `json:"StreamSpecification"`
	Replicas                           []Replica              `json:"Replicas"`
	WriteProvisionedThroughputSettings *WriteSettings         `json:"WriteProvisionedThroughputSettings"`
	GlobalSecondaryIndexes             []GlobalSecondaryIndex `json:"GlobalSecondaryIndexes"`
}

// Value is one scalar property: a literal (string, number, boolean), or an
// intrinsic function whose value only the deploy knows. Absent, it is
// the zero Value.
type Value struct {
	raw json.RawMessage
}

// UnmarshalJSON keeps the property as CloudFormation will see it.
func (v *Value) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = Value{}
		return nil
	}
	if !json.Valid(b) {
		return fmt.Errorf("not JSON: %s", b)
	}
	v.raw = slices.Clone(b)
	return nil
}

// MarshalJSON writes the property back as it was read.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.raw == nil {
		return []byte("null"), nil
	}
	return v.raw, nil
}

// Literal returns v for a literal (a string, number or boolean), so that
// rules built by hand read like the template: Literal("PROVISIONED").
func Literal(x any) Value {
	b, err := json.Marshal(x)
	if err != nil {
		panic(err) // only for literals written in code
	}
	return Value{raw: b}
}

// Set reports whether the property is there.
func (v Value) Set() bool { return v.raw != nil }

// Resolved reports whether the property is a literal (not an intrinsic).
func (v Value) Resolved() bool { return v.Set() && v.raw[0] != '{' && v.raw[0] != '[' }

// True reports whether the property is the literal true: what a rule can
// prove at synth (an intrinsic may resolve to false).
func (v Value) True() bool { return string(v.raw) == "true" }

// String is the literal's text, an intrinsic as CloudFormation's
// ${Name} for a Ref ({"Ref": "AWS::Region"} → ${AWS::Region}) or as its
// JSON, and "" when absent.
func (v Value) String() string {
	if !v.Set() {
		return ""
	}
	var s string
	if json.Unmarshal(v.raw, &s) == nil {
		return s
	}
	var ref struct{ Ref string }
	if v.raw[0] == '{' && json.Unmarshal(v.raw, &ref) == nil && ref.Ref != "" {
		var keys map[string]json.RawMessage
		if json.Unmarshal(v.raw, &keys) == nil && len(keys) == 1 {
			return "${" + ref.Ref + "}"
		}
	}
	return string(v.raw)
}

// is reports whether the property is the literal s.
func (v Value) is(s string) bool { return v.Resolved() && v.String() == s }

// StreamSpecification is the table's stream.
type StreamSpecification struct {
	StreamViewType Value `json:"StreamViewType"`
}

// Replica is one region's settings.
type Replica struct {
	Region                            Value                   `json:"Region"`
	PointInTimeRecoverySpecification  *PointInTimeRecovery    `json:"PointInTimeRecoverySpecification"`
	DeletionProtectionEnabled         Value                   `json:"DeletionProtectionEnabled"`
	ReadProvisionedThroughputSettings *ReadSettings           `json:"ReadProvisionedThroughputSettings"`
	GlobalSecondaryIndexes            []ReplicaSecondaryIndex `json:"GlobalSecondaryIndexes"`
}

// PointInTimeRecovery is a replica's continuous backup setting.
type PointInTimeRecovery struct {
	PointInTimeRecoveryEnabled Value `json:"PointInTimeRecoveryEnabled"`
}

// WriteSettings is provisioned write capacity.
type WriteSettings struct {
	WriteCapacityAutoScalingSettings *AutoScaling `json:"WriteCapacityAutoScalingSettings"`
}

// ReadSettings is provisioned read capacity.
type ReadSettings struct {
	ReadCapacityUnits               Value        `json:"ReadCapacityUnits"`
	ReadCapacityAutoScalingSettings *AutoScaling `json:"ReadCapacityAutoScalingSettings"`
}

// AutoScaling is target-tracking auto-scaling.
type AutoScaling struct {
	MinCapacity Value `json:"MinCapacity"`
	MaxCapacity Value `json:"MaxCapacity"`
}

// GlobalSecondaryIndex is a GSI's table-wide settings.
type GlobalSecondaryIndex struct {
	IndexName                          Value          `json:"IndexName"`
	WriteProvisionedThroughputSettings *WriteSettings `json:"WriteProvisionedThroughputSettings"`
}

// ReplicaSecondaryIndex is a GSI's settings in one replica.
type ReplicaSecondaryIndex struct {
	IndexName                         Value         `json:"IndexName"`
	ReadProvisionedThroughputSettings *ReadSettings `json:"ReadProvisionedThroughputSettings"`
}

// unproven names a property a rule needs true that is an intrinsic: the
// deploy decides, and the rule cannot prove it at synth.
func unproven(v Value) string {
	if v.Set() && !v.Resolved() {
		return " (it is " + v.String() + ", which only the deploy resolves: give a literal true)"
	}
	return ""
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
		if p := r.PointInTimeRecoverySpecification; p == nil || !p.PointInTimeRecoveryEnabled.True() {
			why := ""
			if p != nil {
				why = unproven(p.PointInTimeRecoveryEnabled)
			}
			return NonCompliant, fmt.Sprintf("replica %s has no point-in-time recovery%s", r.Region, why)
		}
	}
	return Compliant, ""
}

// DeletionProtection: KPG2.
func DeletionProtection(g *GlobalTable) (Result, string) {
	for _, r := range g.Replicas {
		if !r.DeletionProtectionEnabled.True() {
			return NonCompliant, fmt.Sprintf("replica %s has no deletion protection%s", r.Region, unproven(r.DeletionProtectionEnabled))
		}
	}
	return Compliant, ""
}

// ReplicaStream: KPG3.
func ReplicaStream(g *GlobalTable) (Result, string) {
	if len(g.Replicas) < 2 {
		return NotApplicable, ""
	}
	if g.StreamSpecification == nil || !g.StreamSpecification.StreamViewType.is("NEW_AND_OLD_IMAGES") {
		return NonCompliant, "replicas need a NEW_AND_OLD_IMAGES stream"
	}
	return Compliant, ""
}

// Capacity: KPG4.
func Capacity(g *GlobalTable) (Result, string) {
	if g.BillingMode.is("PAY_PER_REQUEST") {
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
				if rix.IndexName.String() == ix.IndexName.String() {
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
