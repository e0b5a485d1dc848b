package test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/patterns/model"
)

// The settings the ledger's model decides (testdata/models/ledger.yaml):
// headroom 2, GetAccount at 1,000/s peaking at 30,000/s (0.5 RRU each)
// beside AccountWithEntries's 10 RRU/s and GetAccounts's 125 (5 batches/s
// of 50 ids, 0.5 RRU each) on the table, entries written at 500/s
// peaking at 6,000/s.

func TestLedgerThroughputFromTheModel(t *testing.T) {
	d := ledger.Design
	// GIVEN headroom 2 and the peaks WHEN synthesized THEN the table's
	// on-demand maximum is twice its peak load: 2 × 15,135 RRU/s, and its
	// warm throughput is the peak itself (above DynamoDB's 12,000)
	has(t, "ledger", "AWS::DynamoDB::GlobalTable", like(m{
		"BillingMode":                     "PAY_PER_REQUEST",
		"WarmThroughput":                  m{"ReadUnitsPerSecond": 15135, "WriteUnitsPerSecond": 6050},
		"Replicas":                        with(like(m{"Region": "us-east-1", "ReadOnDemandThroughputSettings": m{"MaxReadRequestUnits": 30270}})),
		"WriteOnDemandThroughputSettings": m{"MaxWriteRequestUnits": 12100},
	}))
	// AND every GSI is bounded and warmed as the design decides: its
	// writes (6,000/s at the peak, above the 4,000 default: warmed), its
	// reads (below 12,000: not warmed), each replica reading under the
	// same bound
	for _, ix := range d.Indexes {
		it := d.Cost.IndexThroughput(ix.Name)
		if it == nil || it.MaxReadUnits == 0 || it.MaxWriteUnits != 2*it.PeakWriteUnits || it.WarmReadUnits != 0 || it.WarmWriteUnits != 6000 {
			t.Fatalf("%s: %+v", ix.Name, it)
		}
		has(t, "ledger", "AWS::DynamoDB::GlobalTable", like(m{"GlobalSecondaryIndexes": with(like(m{
			"IndexName":                       ix.Name,
			"WarmThroughput":                  m{"WriteUnitsPerSecond": it.WarmWriteUnits},
			"WriteOnDemandThroughputSettings": m{"MaxWriteRequestUnits": it.MaxWriteUnits},
		}))}))
		for _, region := range []string{"us-east-1", "us-east-2"} {
			has(t, "ledger", "AWS::DynamoDB::GlobalTable", like(m{"Replicas": with(like(m{"Region": region,
				"GlobalSecondaryIndexes": with(like(m{"IndexName": ix.Name, "ReadOnDemandThroughputSettings": m{"MaxReadRequestUnits": it.MaxReadUnits}})),
			}))}))
		}
	}
	// AND a model that declares neither headroom nor peaks sets neither
	for _, stack := range []string{"shop", "tracker"} {
		has(t, stack, "AWS::DynamoDB::GlobalTable", like(m{"WarmThroughput": assertions.Match_Absent(), "WriteOnDemandThroughputSettings": assertions.Match_Absent()}))
	}
}

func TestLedgerStronglyConsistentWithAWitness(t *testing.T) {
	// GIVEN consistency: strong, one replica and a witness THEN the
	// global table is MRSC across us-east-1, us-east-2 and the witness
	// us-west-2
	has(t, "ledger", "AWS::DynamoDB::GlobalTable", like(m{
		"MultiRegionConsistency": "STRONG",
		"GlobalTableWitnesses":   []any{m{"Region": "us-west-2"}},
	}))
	if rs := list(props(one(t, templates["ledger"], "AWS::DynamoDB::GlobalTable"))["Replicas"]); len(rs) != 2 {
		t.Errorf("%d replicas, want us-east-1 and us-east-2", len(rs))
	}
	for _, region := range []string{"us-east-1", "us-east-2"} {
		has(t, "ledger", "AWS::DynamoDB::GlobalTable", like(m{"Replicas": with(like(m{"Region": region}))}))
	}
	for _, stack := range []string{"leaderboard", "shop"} {
		has(t, stack, "AWS::DynamoDB::GlobalTable", like(m{"MultiRegionConsistency": assertions.Match_Absent(), "GlobalTableWitnesses": assertions.Match_Absent()}))
	}
}

// statementShape is a resource policy statement as "Effect Sid: actions
// on resources", resources as arnShape or a GSI's policy ARN as
// "index/NAME".
func statementShape(st map[string]any) string {
	var actions, res []string
	for _, a := range many(st["Action"]) {
		actions = append(actions, a.(string))
	}
	for _, r := range many(st["Resource"]) {
		if s, ok := r.(string); ok {
			res = append(res, `"`+s+`"`)
			continue
		}
		if j, ok := obj(r)["Fn::Join"]; ok {
			parts := list(list(j)[1])
			last := parts[len(parts)-1].(string)
			if strings.HasPrefix(last, ":table/*/index/") && parts[0] == "arn:" && obj(parts[1])["Ref"] == "AWS::Partition" && parts[2] == ":dynamodb:*:" && obj(parts[3])["Ref"] == "AWS::AccountId" {
				res = append(res, strings.TrimPrefix(last, ":table/*/"))
				continue
			}
		}
		res = append(res, arnShape(r))
	}
	return st["Effect"].(string) + " " + st["Sid"].(string) + ": " + strings.Join(actions, ",") + " on " + strings.Join(res, ",")
}

// GIVEN principals in the model THEN each replica's resource policy
// grants each exactly its patterns' actions: the auditor (a role of
// another account) GetItem and BatchGetItem on the table (GetAccount,
// GetAccounts) and Query on the
// index EntriesByAccount reads; the reconciler (an account) Query on the
// index EntriesByDay reads and on the table (AccountWithEntries), which
// the table's "*" would give on every index: it is denied Query on the
// other index; nothing else.
func TestLedgerResourcePolicyGrantsThePrincipalsTheirPatterns(t *testing.T) {
	d := ledger.Design
	byAccount, byDay := d.Pattern("EntriesByAccount").Index, d.Pattern("EntriesByDay").Index
	want := []string{
		`Allow AuditorTable: dynamodb:BatchGetItem,dynamodb:GetItem on "*"`,
		"Allow Auditor" + byAccount + ": dynamodb:Query on index/" + byAccount,
		`Allow ReconcilerTable: dynamodb:Query on "*"`,
		"Allow Reconciler" + byDay + ": dynamodb:Query on index/" + byDay,
		"Deny ReconcilerOtherIndexes: dynamodb:Query on index/" + byAccount,
	}
	if byAccount == byDay || d.Pattern("AccountWithEntries").Index != model.BaseIndex {
		t.Fatalf("the ledger's plan changed: %s, %s", byAccount, byDay)
	}
	principals := map[string]string{"AuditorTable": "arn:aws:iam::111122223333:role/ledger-auditor", "Auditor" + byAccount: "arn:aws:iam::111122223333:role/ledger-auditor"}
	p := props(one(t, templates["ledger"], "AWS::DynamoDB::GlobalTable"))
	for _, r := range list(p["Replicas"]) {
		var got []string
		for _, s := range list(obj(obj(obj(r)["ResourcePolicy"])["PolicyDocument"])["Statement"]) {
			st := obj(s)
			got = append(got, statementShape(st))
			if arn, ok := principals[st["Sid"].(string)]; ok && obj(st["Principal"])["AWS"] != arn {
				t.Errorf("%s: principal %v, want %s", st["Sid"], st["Principal"], arn)
			}
			if strings.HasPrefix(st["Sid"].(string), "Reconciler") && !strings.Contains(toString(st["Principal"]), ":iam::444455556666:root") {
				t.Errorf("the reconciler's principal %v", st["Principal"])
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: statements\n%s\nwant\n%s", obj(r)["Region"], strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// GIVEN the ledger on demand with a maximum throughput THEN its capacity
// alarms go off at 80% of that maximum (TestAlarmsWatchEveryIndex
// accounts for every alarm).
func TestLedgerCapacityAlarmsAtItsMaximum(t *testing.T) {
	alarms := resources(templates["ledger"], "AWS::CloudWatch::Alarm")
	tableID := logicalID(t, templates["ledger"], "AWS::DynamoDB::GlobalTable")
	for _, it := range ledger.Design.Cost.Throughput {
		for dir, most := range map[string]float64{"Read": it.MaxReadUnits, "Write": it.MaxWriteUnits} {
			found := 0
			for _, a := range alarms {
				n, dims, expr := alarmMetric(props(a))
				if n == "Consumed"+dir+"CapacityUnits" && dims == wantDims(tableID, it.Name) && expr != "" {
					found++
					if th := props(a)["Threshold"]; th != 0.8*most {
						t.Errorf("%s %s: threshold %v, want 80%% of %v", it.Name, dir, th, most)
					}
				}
			}
			if found != 1 {
				t.Errorf("%s %s: %d capacity alarms", it.Name, dir, found)
			}
		}
	}
}

// Multi-Region strong consistency's limits, checked before synthesis
// (read from the construct tree: no synthesis).
func TestStrongConsistencyProps(t *testing.T) {
	strong := modelFile(t, `table: Ledger
consistency: strong
entities:
  Account:
    id: [accountId]
    attributes: {accountId: {type: string, maxLength: 36}}
patterns:
  GetAccount: {get: Account, rate: 10}
`)
	eventual := modelFile(t, hotModel)
	r := func(regions ...string) []singletable.Replica {
		var out []singletable.Replica
		for _, x := range regions {
			out = append(out, singletable.Replica{Region: x})
		}
		return out
	}
	ack := map[string]string{"KP401": "a test", singletable.NoLockWarning: "a test"}
	tests := []struct {
		name, region, model string
		props               singletable.Props
		want                []string
	}{
		{"no replicas", "us-east-1", strong, singletable.Props{},
			[]string{"Replicas: 0: a multi-Region strongly consistent table (consistency: strong, " + strong + ") spans 3 Regions: the stack's, two Replicas, or one and a WitnessRegion"}},
		{"a witness and two replicas", "us-east-1", strong, singletable.Props{Replicas: r("us-east-2", "us-west-2"), WitnessRegion: "us-west-2"},
			[]string{"Replicas: 2, with WitnessRegion us-west-2", "WitnessRegion us-west-2: a replica's Region (or the stack's)"}},
		{"across Region sets", "us-east-1", strong, singletable.Props{Replicas: r("eu-west-1"), WitnessRegion: "us-west-2"},
			[]string{"Region eu-west-1: not in the US Region set of the stack's region us-east-1 (us-east-1, us-east-2, us-west-2)"}},
		{"a region outside every set", "sa-east-1", strong, singletable.Props{Replicas: r("us-east-1", "us-east-2")},
			[]string{"the stack's region sa-east-1: a multi-Region strongly consistent table", "US (us-east-1, us-east-2, us-west-2); EU (eu-west-1, eu-west-2, eu-west-3, eu-central-1); AP (ap-northeast-1, ap-northeast-2, ap-northeast-3)"}},
		{"no region", "", strong, singletable.Props{Replicas: r("us-east-1", "us-east-2")},
			[]string{"needs the stack's region; give the stack an env with Region"}},
		{"a witness of an eventual table", "us-east-1", eventual, singletable.Props{Replicas: r("us-east-2"), WitnessRegion: "us-west-2"},
			[]string{"WitnessRegion us-west-2: a witness serves a multi-Region strongly consistent table; the model (" + eventual + ") asks for none"}},
		{"three regions in one set", "eu-west-1", strong, singletable.Props{Replicas: r("eu-west-2", "eu-central-1")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.props
			p.ModelFile, p.Acknowledge = tt.model, ack
			if tt.model == strong {
				p.Acknowledge = map[string]string{singletable.NoLockWarning: "a test"}
			}
			p.Monitoring = &singletable.Monitoring{Disabled: true}
			tbl := singletable.New(newStack(tt.region), "T", &p)
			got := validate(tbl)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems %q lack %q", got, w)
				}
			}
			if tt.want == nil && got != "" {
				t.Errorf("problems %q", got)
			}
		})
	}
}
