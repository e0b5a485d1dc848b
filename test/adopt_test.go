package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/adopt"
	"github.com/keyplan/keyplan/patterns/dynamo/migrate"
)

// recorded reads one of testdata/adopt's recorded answers of DynamoDB.
func recorded(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "adopt", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// adopted is the recorded table imported as keyplan import table does:
// its description, TTL and backups, its items, the model and the lock of
// the table as deployed, written to a directory of their own.
func adopted(t *testing.T) (model string, desc *types.TableDescription, lt *patterns.LiveTable) {
	t.Helper()
	var d struct{ Table *types.TableDescription }
	recorded(t, "describe-table.json", &d)
	var ttl struct {
		TimeToLiveDescription struct{ TimeToLiveStatus, AttributeName string }
	}
	recorded(t, "describe-time-to-live.json", &ttl)
	var backups struct {
		ContinuousBackupsDescription struct {
			PointInTimeRecoveryDescription struct{ PointInTimeRecoveryStatus string }
		}
	}
	recorded(t, "describe-continuous-backups.json", &backups)
	var scan struct {
		Items []map[string]map[string]string
	}
	recorded(t, "scan.json", &scan)
	lt = migrate.LiveOf(d.Table)
	lt.TTL, lt.TTLStatus = ttl.TimeToLiveDescription.AttributeName, ttl.TimeToLiveDescription.TimeToLiveStatus
	pitr := backups.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == "ENABLED"
	lt.PointInTimeRecovery = &pitr
	var items []patterns.LiveItem
	for _, it := range scan.Items {
		li := patterns.LiveItem{}
		for name, av := range it {
			for typ, text := range av {
				li[name] = patterns.LiveValue{Type: typ, Text: text}
			}
		}
		items = append(items, li)
	}
	im, err := adopt.Infer(adopt.FromLive(lt, items, true, nil))
	if err != nil {
		t.Fatal(err)
	}
	lk, err := im.Lock(lt)
	if err != nil {
		t.Fatalf("%v\n%s", err, im.YAML)
	}
	model = filepath.Join(t.TempDir(), "payments.yaml")
	if err := os.WriteFile(model, im.YAML, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := lk.WriteFile(patterns.LockPath(model)); err != nil {
		t.Fatal(err)
	}
	return model, d.Table, lt
}

// The construct adopts a table without replacing it: with Adopt, the
// synthesized resource is the recorded DescribeTable answer field by
// field (what CloudFormation's resource import compares), retained and
// protected from deletion.
func TestAdoptMatchesDescribeTable(t *testing.T) {
	model, desc, lt := adopted(t)
	stack := newStack("us-east-1")
	tbl := singletable.New(stack, "Payments", &singletable.Props{ModelFile: model, TableName: *desc.TableName, Adopt: true})
	if got := validate(tbl); got != "" {
		t.Fatal(got)
	}
	r := one(t, toMap(assertions.Template_FromStack(stack, nil).ToJSON()), "AWS::DynamoDB::GlobalTable")
	if r["DeletionPolicy"] != "Retain" || r["UpdateReplacePolicy"] != "Retain" {
		t.Errorf("DeletionPolicy %v, UpdateReplacePolicy %v: want Retain", r["DeletionPolicy"], r["UpdateReplacePolicy"])
	}
	p := props(r)
	check := func(field string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: template %v, DescribeTable %v", field, got, want)
		}
	}
	keys := func(ks []types.KeySchemaElement) string {
		var out []string
		for _, k := range ks {
			out = append(out, *k.AttributeName+" "+string(k.KeyType))
		}
		return strings.Join(out, ", ")
	}
	tkeys := func(v any) string {
		var out []string
		for _, k := range list(v) {
			out = append(out, fmt.Sprint(obj(k)["AttributeName"], " ", obj(k)["KeyType"]))
		}
		return strings.Join(out, ", ")
	}
	check("TableName", p["TableName"], *desc.TableName)
	check("KeySchema", tkeys(p["KeySchema"]), keys(desc.KeySchema))
	var defs, tdefs []string
	for _, a := range desc.AttributeDefinitions {
		defs = append(defs, *a.AttributeName+" "+string(a.AttributeType))
	}
	for _, a := range list(p["AttributeDefinitions"]) {
		tdefs = append(tdefs, fmt.Sprint(obj(a)["AttributeName"], " ", obj(a)["AttributeType"]))
	}
	slices.Sort(defs)
	slices.Sort(tdefs)
	check("AttributeDefinitions", tdefs, defs)
	gsis := map[string]map[string]any{}
	for _, g := range list(p["GlobalSecondaryIndexes"]) {
		gsis[fmt.Sprint(obj(g)["IndexName"])] = obj(g)
	}
	check("GlobalSecondaryIndexes", len(gsis), len(desc.GlobalSecondaryIndexes))
	for _, g := range desc.GlobalSecondaryIndexes {
		tg := gsis[*g.IndexName]
		check("GlobalSecondaryIndexes "+*g.IndexName+" KeySchema", tkeys(tg["KeySchema"]), keys(g.KeySchema))
		check("GlobalSecondaryIndexes "+*g.IndexName+" Projection", obj(tg["Projection"])["ProjectionType"], g.Projection.ProjectionType)
		check("GlobalSecondaryIndexes "+*g.IndexName+" NonKeyAttributes", fmt.Sprint(obj(tg["Projection"])["NonKeyAttributes"]), fmt.Sprint(orNil(g.Projection.NonKeyAttributes)))
	}
	check("BillingMode", p["BillingMode"], desc.BillingModeSummary.BillingMode)
	check("StreamSpecification", obj(p["StreamSpecification"])["StreamViewType"], desc.StreamSpecification.StreamViewType)
	check("TimeToLiveSpecification", obj(p["TimeToLiveSpecification"])["AttributeName"], lt.TTL)
	replicas := list(p["Replicas"])
	check("Replicas", len(replicas), 1+len(desc.Replicas))
	rep := obj(replicas[0])
	check("Replicas[0].Region", rep["Region"], "us-east-1")
	check("TableClass", rep["TableClass"], desc.TableClassSummary.TableClass)
	check("PointInTimeRecoverySpecification", obj(rep["PointInTimeRecoverySpecification"])["PointInTimeRecoveryEnabled"], *lt.PointInTimeRecovery)
	check("DeletionProtectionEnabled", rep["DeletionProtectionEnabled"], true) // on, whatever the table had
}

func orNil(s []string) any {
	if len(s) == 0 {
		return nil
	}
	return s
}

// What keeps a table from being adopted as it is fails synthesis, each
// problem named: no physical name, a lock no import wrote, a table the
// model cannot hold, a prop that differs from the table.
func TestAdoptRefusals(t *testing.T) {
	model, desc, _ := adopted(t)
	off := false
	for _, tt := range []struct {
		name  string
		edit  func(p *singletable.Props)
		lock  func(l *patterns.Lock)
		wants string
	}{
		{"no table name", func(p *singletable.Props) { p.TableName = "" }, nil, "Adopt: TableName is required"},
		{"removal", func(p *singletable.Props) { p.RemovalPolicy = awscdk.RemovalPolicy_DESTROY }, nil, "Adopt: RemovalPolicy DESTROY"},
		{"unprotected", func(p *singletable.Props) { p.DeletionProtection = &off }, nil, "Adopt: DeletionProtection false"},
		{"pitr", func(p *singletable.Props) { p.PointInTimeRecovery = &off }, nil, "Adopt: PointInTimeRecovery false: the table has it on"},
		{"replicas", func(p *singletable.Props) { p.Replicas = []singletable.Replica{{Region: "eu-west-1"}} }, nil, "Adopt: Replicas [eu-west-1]: the table's replicas are []"},
		{"no record", nil, func(l *patterns.Lock) { l.Adopted = nil }, "Adopt: the lock records no adopted table"},
		{"unheld", nil, func(l *patterns.Lock) { l.Adopted.Unheld = []string{"local secondary index L (PK/x) is not held"} }, "Adopt: the table cannot be adopted as it is: local secondary index L"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &singletable.Props{ModelFile: model, TableName: *desc.TableName, Adopt: true}
			if tt.edit != nil {
				tt.edit(p)
			}
			if tt.lock != nil {
				lk, err := patterns.LoadLock(patterns.LockPath(model))
				if err != nil {
					t.Fatal(err)
				}
				tt.lock(lk)
				p.Lock = lk
			}
			got := validate(singletable.New(newStack("us-east-1"), "Payments", p))
			if !strings.Contains(got, tt.wants) {
				t.Errorf("got %q\nwant it to hold %q", got, tt.wants)
			}
		})
	}
}
