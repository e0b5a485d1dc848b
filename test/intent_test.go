package test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Intent-level assertions with CDK's own matchers, beside the golden
// templates: each states one property a reader cares about.

type m = map[string]any

func like(v m) assertions.Matcher { return assertions.Match_ObjectLike(&v) }

func with(v ...any) assertions.Matcher { return assertions.Match_ArrayWith(&v) }

// has asserts that a stack has a resource of typ whose properties match.
func has(t *testing.T, stack, typ string, props assertions.Matcher) {
	t.Helper()
	if msg := jsiiPanic(func() { asserted[stack].HasResourceProperties(jsii.String(typ), props) }); msg != "" {
		t.Error(msg)
	}
}

// hasResource asserts on the whole resource (policies beside properties).
func hasResource(t *testing.T, stack, typ string, resource assertions.Matcher) {
	t.Helper()
	if msg := jsiiPanic(func() { asserted[stack].HasResource(jsii.String(typ), resource) }); msg != "" {
		t.Error(msg)
	}
}

func TestProtectedByDefault(t *testing.T) {
	for stack, regions := range map[string][]string{"leaderboard": {"us-east-1", "eu-west-1"}, "shop": {"us-east-1"}} {
		t.Run(stack, func(t *testing.T) {
			// GIVEN an example table WHEN synthesized THEN it is retained
			// when it leaves the stack or is replaced
			hasResource(t, stack, "AWS::DynamoDB::GlobalTable", like(m{"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain"}))
			// AND every replica (the primary region is one) keeps
			// point-in-time recovery and refuses deletion
			for _, region := range regions {
				has(t, stack, "AWS::DynamoDB::GlobalTable", like(m{"Replicas": with(like(m{
					"Region":                           region,
					"PointInTimeRecoverySpecification": m{"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 35},
					"DeletionProtectionEnabled":        true,
				}))}))
			}
			// AND CloudFormation names the table (a fixed name blocks replacement)
			has(t, stack, "AWS::DynamoDB::GlobalTable", like(m{"TableName": assertions.Match_Absent()}))
		})
	}
}

func TestLeaderboardReplicaStreamAndAutoscaling(t *testing.T) {
	// GIVEN the leaderboard with a replica in eu-west-1 and provisioned
	// billing THEN the stream carries both images (replication needs them)
	// AND table writes auto-scale between the given bounds at 70%
	has(t, "leaderboard", "AWS::DynamoDB::GlobalTable", like(m{
		"BillingMode":         "PROVISIONED",
		"StreamSpecification": m{"StreamViewType": "NEW_AND_OLD_IMAGES"},
		"WriteProvisionedThroughputSettings": m{"WriteCapacityAutoScalingSettings": like(m{
			"MinCapacity": 5, "MaxCapacity": 200,
			"TargetTrackingScalingPolicyConfiguration": like(m{"TargetValue": 70}),
		})},
	}))
	// AND each GSI's writes, and each replica's reads of the table and of
	// every GSI, auto-scale too
	for _, ix := range example.LeaderboardTable.Design.Indexes {
		has(t, "leaderboard", "AWS::DynamoDB::GlobalTable", like(m{"GlobalSecondaryIndexes": with(like(m{
			"IndexName": ix.Name,
			"WriteProvisionedThroughputSettings": m{"WriteCapacityAutoScalingSettings": like(m{
				"TargetTrackingScalingPolicyConfiguration": like(m{"TargetValue": 70})})},
		}))}))
		// the replica reads with its own capacity (Replica.Read), the
		// primary with Billing.Read
		for region, minMax := range map[string][2]int{"us-east-1": {5, 500}, "eu-west-1": {2, 100}} {
			has(t, "leaderboard", "AWS::DynamoDB::GlobalTable", like(m{"Replicas": with(like(m{
				"Region":                            region,
				"ReadProvisionedThroughputSettings": m{"ReadCapacityAutoScalingSettings": like(m{"MinCapacity": minMax[0], "MaxCapacity": minMax[1]})},
				"GlobalSecondaryIndexes": with(like(m{
					"IndexName":                         ix.Name,
					"ReadProvisionedThroughputSettings": m{"ReadCapacityAutoScalingSettings": like(m{})},
				})),
			}))}))
		}
	}
}

// The leaderboard's estimate counts its replica: every write again in
// eu-west-1, and the replica's own 2 RCU (Replica.Read) instead of the
// primary's reads.
func TestLeaderboardEstimateWithReplica(t *testing.T) {
	d := example.LeaderboardTable.Design
	reads := patterns.ReplicaReads{Region: "eu-west-1", Read: map[string]float64{model.BaseIndex: 2}}
	g := d.Cost.Global([]patterns.ReplicaReads{reads})
	want := fmt.Sprintf("estimate with 1 replica(s) (eu-west-1 %.0f RCU): %.1f replicated write units/s; on-demand $%.2f/month, provisioned $%.2f/month, all regions",
		g.Replicas[0].ReadCapacity, d.Cost.WriteUnits, g.OnDemand, g.Provisioned)
	ann := assertions.Annotations_FromStack(stackOf("leaderboard"))
	if found := *ann.FindInfo(jsii.String("*"), assertions.Match_Exact(jsii.String(want))); len(found) != 1 {
		t.Errorf("no info %q among %v", want, toString(*ann.FindInfo(jsii.String("*"), assertions.Match_AnyValue())))
	}
	// its GSIs read like the primary's (no Replica.Indexes)
	wantRCU := 2.0
	for _, l := range d.Cost.Indexes[1:] {
		wantRCU += patterns.ProvisionedUnits(l.ReadUnits)
	}
	if g.Replicas[0].ReadCapacity != wantRCU || g.Provisioned <= d.Cost.Provisioned {
		t.Errorf("replica %+v (want %v RCU), all regions %v vs primary %v", g.Replicas[0], wantRCU, g.Provisioned, d.Cost.Provisioned)
	}
}

func TestShopOnDemandStreamsForItsHandler(t *testing.T) {
	// GIVEN the shop (one region, on demand) THEN its stream still carries
	// both images: the fanout handler reads them
	has(t, "shop", "AWS::DynamoDB::GlobalTable", like(m{
		"BillingMode":         "PAY_PER_REQUEST",
		"StreamSpecification": m{"StreamViewType": "NEW_AND_OLD_IMAGES"},
	}))
}

func TestStreamHandlerIntent(t *testing.T) {
	// GIVEN the leaderboard's counters WHEN synthesized THEN the function
	// is Go on provided.al2023/arm64, traced, reading the design layer
	has(t, "leaderboard", "AWS::Lambda::Function", like(m{
		"Runtime": "provided.al2023", "Architectures": []any{"arm64"}, "Handler": "bootstrap",
		"TracingConfig": m{"Mode": "Active"},
		"Description":   "keyplan counters stream handler for Leaderboard",
		"Layers":        with(m{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^LeaderboardDesign"))}),
	}))
	// AND its mapping reports partial failures, bisects, bounds retries
	// and age, and filters to changes of Match items only
	has(t, "leaderboard", "AWS::Lambda::EventSourceMapping", like(m{
		"FunctionResponseTypes": []any{"ReportBatchItemFailures"}, "BisectBatchOnFunctionError": true,
		"MaximumRetryAttempts": 10, "MaximumRecordAgeInSeconds": 86400,
		"FilterCriteria": m{"Filters": []any{m{"Pattern": assertions.Match_SerializedJson(like(m{
			"eventName": []any{"INSERT", "MODIFY", "REMOVE"},
			"dynamodb":  m{"Keys": m{"SK": m{"S": []any{m{"prefix": "MATCH#"}}}}},
		}))}}},
	}))
	// AND the failure queue is encrypted
	has(t, "leaderboard", "AWS::SQS::Queue", like(m{"SqsManagedSseEnabled": true}))
}

func TestArenaLocalIndexes(t *testing.T) {
	// GIVEN a model whose strong reads need two sort orders besides the
	// base table's WHEN synthesized THEN the table has two LSIs on its own
	// partition key, each sorted by its own string attribute, projecting
	// what the plan says
	for _, ix := range []string{"LSI1", "LSI2"} {
		has(t, "arena", "AWS::DynamoDB::GlobalTable", like(m{
			"LocalSecondaryIndexes": with(m{
				"IndexName":  ix,
				"KeySchema":  []any{m{"AttributeName": "PK", "KeyType": "HASH"}, m{"AttributeName": ix + "SK", "KeyType": "RANGE"}},
				"Projection": m{"ProjectionType": "ALL"},
			}),
			"AttributeDefinitions": with(m{"AttributeName": ix + "SK", "AttributeType": "S"}),
		}))
	}
	// AND no GSI serves what an LSI does: the one GSI is the eventually
	// consistent read's in a third order
	has(t, "arena", "AWS::DynamoDB::GlobalTable", like(m{
		"GlobalSecondaryIndexes": []any{like(m{"IndexName": "GSI1"})},
	}))
	// AND a role granted an LSI-served pattern may Query that LSI's ARN
	has(t, "arena", "AWS::IAM::Policy", like(m{"PolicyDocument": like(m{"Statement": with(like(m{
		"Action":   "dynamodb:Query",
		"Resource": with(m{"Fn::Join": []any{"", []any{m{"Fn::GetAtt": []any{assertions.Match_AnyValue(), "Arn"}}, "/index/LSI2"}}}),
	}))})}))
}
