package test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbackup"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
)

// A model of two tables whose entities state what they need of their
// table (needs:), synthesized in the shared app (KeyplanNeeds):
// Accounts (Account, Transfer: point-in-time recovery, a daily backup
// plan, provisioned, a replica in eu-west-1) and Events (Event: no
// point-in-time recovery, the daily plan, on demand, no replica); a
// role granted the write patterns application code runs as one
// transaction across the two (dynamo.TransactTables); and Audit, one
// table whose entities need different settings (KP310, acknowledged).

const (
	needsModel = "testdata/models/needs.yaml"
	keptModel  = "testdata/models/kept.yaml"
)

// transferGrants are MakeTransfer (Accounts: put a Transfer, check its
// Account) and RecordEvent (Events: put an Event): one
// dynamo.TransactTables call.
var transferGrants = []string{"MakeTransfer", "RecordEvent"}

// needsTableOf names the KeyplanNeeds table a logical id belongs to.
func needsTableOf(id string) string {
	for prefix, name := range map[string]string{"BankAccounts": "Accounts", "BankEvents": "Events", "Audit": "Audit"} {
		if strings.HasPrefix(id, prefix) {
			return name
		}
	}
	return "?" + id
}

// needsTables are KeyplanNeeds's tables' properties by table, with their
// metadata.
func needsTablesByName(t *testing.T) (map[string]map[string]any, map[string]map[string]any) {
	t.Helper()
	ps, meta := map[string]map[string]any{}, map[string]map[string]any{}
	for id, r := range resources(templates["needs"], "AWS::DynamoDB::GlobalTable") {
		ps[needsTableOf(id)], meta[needsTableOf(id)] = props(r), obj(r["Metadata"])
	}
	if len(ps) != 3 || ps["Accounts"] == nil || ps["Events"] == nil || ps["Audit"] == nil {
		t.Fatalf("tables %v", ps)
	}
	return ps, meta
}

// replicaSettings is each replica's Region and point-in-time recovery
// ("eu-west-1 pitr 35 days", "us-east-1 no pitr"), sorted.
func replicaSettings(p map[string]any) []string {
	var out []string
	for _, r := range list(p["Replicas"]) {
		r := obj(r)
		s := r["Region"].(string)
		switch pitr := obj(r["PointInTimeRecoverySpecification"]); {
		case pitr["PointInTimeRecoveryEnabled"] == true:
			s += fmt.Sprintf(" pitr %v days", pitr["RecoveryPeriodInDays"])
		default:
			s += " no pitr"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// GIVEN entities that state needs WHEN their tables are synthesized THEN
// each table has what its entities need: point-in-time recovery on every
// replica or on none, the billing mode, the replica Regions.
func TestNeedsSetTheTables(t *testing.T) {
	ps, meta := needsTablesByName(t)
	for _, c := range []struct{ table, billing, replicas string }{
		// Account: pointInTimeRecovery true, provisioned, replicas [eu-west-1]
		{"Accounts", "PROVISIONED", "[eu-west-1 pitr 35 days us-east-1 pitr 35 days]"},
		// Event: pointInTimeRecovery false, onDemand, replicas []
		{"Events", "PAY_PER_REQUEST", "[us-east-1 no pitr]"},
		// Login and Payment disagree (KP310, kept): pitr on, every Region
		// any names but the stack's own, Billing.Mode's on-demand
		{"Audit", "PAY_PER_REQUEST", "[eu-west-1 pitr 35 days us-east-1 pitr 35 days us-west-2 pitr 35 days]"},
	} {
		p := ps[c.table]
		if p["BillingMode"] != c.billing {
			t.Errorf("%s: BillingMode %v, want %s", c.table, p["BillingMode"], c.billing)
		}
		if got := fmt.Sprint(replicaSettings(p)); got != c.replicas {
			t.Errorf("%s: replicas %s, want %s", c.table, got, c.replicas)
		}
	}
	// AND provisioned capacity is auto-scaled, sized from the estimate
	if w := obj(ps["Accounts"]["WriteProvisionedThroughputSettings"]); w["WriteCapacityAutoScalingSettings"] == nil {
		t.Errorf("Accounts: no write auto-scaling: %v", w)
	}
	// AND the table the model turned point-in-time recovery off for is
	// exempt from the rule pack's KPG1, saying which entity's need
	// decided it (the others are not exempt)
	reason := fmt.Sprint(meta["Events"])
	for _, want := range []string{"KPG1", "entity Event (" + needsModel + ":33:", "pointInTimeRecovery: false"} {
		if !strings.Contains(reason, want) {
			t.Errorf("Events metadata %s lacks %q", reason, want)
		}
	}
	for _, name := range []string{"Accounts", "Audit"} {
		if strings.Contains(fmt.Sprint(meta[name]), "KPG1") {
			t.Errorf("%s is exempt from KPG1: %v", name, meta[name])
		}
	}
}

// GIVEN entities that need the backup plan daily, in three tables of one
// stack WHEN synthesized THEN the stack has one AWS Backup plan named
// daily (DefaultBackupPlanRule) and each table is selected into it, by
// its own selection, its ARN alone.
func TestNeedsBackUpTheTables(t *testing.T) {
	tmpl := templates["needs"]
	plans := resources(tmpl, "AWS::Backup::BackupPlan")
	if len(plans) != 1 {
		t.Fatalf("%d backup plans, want 1", len(plans))
	}
	var planID string
	for id, r := range plans {
		planID = id
		bp := obj(props(r)["BackupPlan"])
		rules := list(bp["BackupPlanRule"])
		if bp["BackupPlanName"] != "daily" || len(rules) != 1 || obj(rules[0])["ScheduleExpression"] != "cron(0 5 * * ? *)" ||
			obj(obj(rules[0])["Lifecycle"])["DeleteAfterDays"] != 35.0 {
			t.Errorf("plan %v", bp)
		}
	}
	var selected, names []string
	for _, r := range resources(tmpl, "AWS::Backup::BackupSelection") {
		p := props(r)
		if ga := list(obj(p["BackupPlanId"])["Fn::GetAtt"]); len(ga) != 2 || ga[0] != planID {
			t.Errorf("selection in plan %v, want %s", p["BackupPlanId"], planID)
		}
		sel := obj(p["BackupSelection"])
		for _, res := range list(sel["Resources"]) {
			ga := list(obj(res)["Fn::GetAtt"])
			if len(ga) != 2 || ga[1] != "Arn" {
				t.Errorf("selected %v, want a table's ARN", res)
				continue
			}
			selected = append(selected, needsTableOf(ga[0].(string)))
		}
		names = append(names, sel["SelectionName"].(string))
	}
	sort.Strings(selected)
	if fmt.Sprint(selected) != "[Accounts Audit Events]" {
		t.Errorf("selected %v, want each table once", selected)
	}
	if sort.Strings(names); len(slices.Compact(names)) != 3 {
		t.Errorf("selection names %v, want one per table", names)
	}
}

// Tables whose entities state no need are their props' alone: no
// backup, point-in-time recovery on (the default) on every replica (the
// golden templates prove the rest unchanged).
func TestNoNeedsNoChange(t *testing.T) {
	for _, name := range []string{"shop", "leaderboard", "storefront", "tracker", "arena", "ledger"} {
		tmpl := templates[name]
		for _, typ := range []string{"AWS::Backup::BackupPlan", "AWS::Backup::BackupSelection", "AWS::Backup::BackupVault"} {
			if n := len(resources(tmpl, typ)); n > 0 {
				t.Errorf("%s: %d %s", name, n, typ)
			}
		}
		for id, r := range resources(tmpl, "AWS::DynamoDB::GlobalTable") {
			for _, s := range replicaSettings(props(r)) {
				if !strings.Contains(s, " pitr 35 days") {
					t.Errorf("%s %s: replica %s", name, id, s)
				}
			}
		}
	}
}

// GIVEN props that contradict the model's needs THEN synthesis fails,
// naming the prop, the entity (and where it states the need) and the
// need; props that agree, or add what the needs leave open, pass.
func TestNeedsRefuseContradictingProps(t *testing.T) {
	at := func(line int) string { return fmt.Sprintf("(%s:%d:", needsModel, line) }
	for _, c := range []struct {
		name  string
		table string
		props func(awscdk.Stack) *singletable.Props
		want  []string // "" : no problem
	}{
		{"pitr off, needed on", "Accounts", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{PointInTimeRecovery: jsii.Bool(false)}
		}, []string{"PointInTimeRecovery false: entity Account " + at(14), "entity Transfer " + at(25), "need(s) pointInTimeRecovery: true", "remove the prop"}},
		{"pitr on, needed off", "Events", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{PointInTimeRecovery: jsii.Bool(true)}
		}, []string{"PointInTimeRecovery true: entity Event " + at(33), "need(s) pointInTimeRecovery: false"}},
		{"a recovery period, needed off", "Events", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{RecoveryPeriodDays: 7}
		}, []string{"RecoveryPeriodDays 7: entity Event " + at(33), "no period applies"}},
		{"on demand, needed provisioned", "Accounts", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{Billing: &singletable.Billing{Mode: singletable.OnDemand}}
		}, []string{"Billing.Mode on-demand: entity Account " + at(16), "need(s) billing: provisioned"}},
		{"provisioned, needed on demand", "Events", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{Billing: &singletable.Billing{Mode: singletable.Provisioned}}
		}, []string{"Billing.Mode provisioned: entity Event " + at(33), "need(s) billing: onDemand"}},
		{"another Region", "Accounts", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{Replicas: []singletable.Replica{{Region: "us-west-2"}}}
		}, []string{"Replicas: us-west-2 lack(s) eu-west-1: entity Account " + at(17), "need(s) replicas: [eu-west-1]",
			"Replicas: us-west-2: no entity needs its items there"}},
		{"a replica, needed none", "Events", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{Replicas: []singletable.Replica{{Region: "eu-west-1"}}}
		}, []string{"Replicas: eu-west-1: no entity needs its items there (entity Event " + at(33), "need(s) replicas: [])"}},
		{"a plan no entity names", "Accounts", func(s awscdk.Stack) *singletable.Props {
			return &singletable.Props{BackupPlans: map[string]awsbackup.IBackupPlan{
				"daily":  awsbackup.BackupPlan_FromBackupPlanId(s, jsii.String("Daily"), jsii.String("plan-1")),
				"weekly": awsbackup.BackupPlan_FromBackupPlanId(s, jsii.String("Weekly"), jsii.String("plan-2"))}}
		}, []string{`BackupPlans["weekly"]: no entity of table Accounts names it: entity Account ` + at(15), "need(s) backup: daily"}},
		// what agrees, or adds what the needs leave open
		{"agreeing props", "Accounts", func(s awscdk.Stack) *singletable.Props {
			return &singletable.Props{PointInTimeRecovery: jsii.Bool(true), RecoveryPeriodDays: 7,
				Billing:     &singletable.Billing{Mode: singletable.Provisioned, Write: singletable.Scaling{Max: 100}},
				Replicas:    []singletable.Replica{{Region: "eu-west-1", Read: &singletable.Scaling{Min: 1, Max: 5}}},
				BackupPlans: map[string]awsbackup.IBackupPlan{"daily": awsbackup.BackupPlan_FromBackupPlanId(s, jsii.String("Daily"), jsii.String("plan-1"))}}
		}, nil},
		// Billing's scaling, its mode left to the need
		{"Billing without a mode takes the need's", "Accounts", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{Billing: &singletable.Billing{Read: singletable.Scaling{Max: 50}}}
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			stack := newStack("us-east-1")
			p := c.props(stack)
			p.ModelFile, p.ModelTable = needsModel, c.table
			got := validate(singletable.New(stack, c.table, p))
			if c.want == nil && got != "" {
				t.Fatalf("refused: %s", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems\n%s\nlack %q", got, w)
				}
			}
		})
	}
}

// Entities of one table that need different billing modes (KP310):
// without Billing.Mode the construct cannot choose, and says so.
func TestNeedsDisagreeingBillingNeedsAMode(t *testing.T) {
	stack := newStack("us-east-1")
	got := validate(singletable.New(stack, "Audit", &singletable.Props{ModelFile: keptModel, Acknowledge: map[string]string{"KP310": "test"}}))
	for _, want := range []string{"Billing.Mode: the entities of table Audit need different billing modes (entity Login (" + keptModel + ":10:", ": onDemand; entity Payment (", ": provisioned; KP310): split the table, or choose one with Billing.Mode"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems\n%s\nlack %q", got, want)
		}
	}
}

// A role granted the write patterns of both tables that application
// code runs as one transaction (dynamo.TransactTables(MakeTransfer on
// Accounts, RecordEvent on Events)): exactly their item actions, each on
// its own table's ARN; no index (writes need none, though Events has a
// GSI), no wildcard, nothing on the other table.
func TestTransactionAcrossTablesGrants(t *testing.T) {
	var got []string
	for _, st := range list(obj(props(policyOf(t, templates["needs"], "Transfers"))["PolicyDocument"])["Statement"]) {
		st := obj(st)
		if st["Effect"] != "Allow" || st["Condition"] != nil || st["NotAction"] != nil || st["NotResource"] != nil {
			t.Errorf("statement %v", st)
		}
		for _, a := range many(st["Action"]) {
			for _, r := range many(st["Resource"]) {
				res := "?"
				if ga := list(obj(r)["Fn::GetAtt"]); len(ga) == 2 && ga[1] == "Arn" {
					res = needsTableOf(ga[0].(string))
				}
				got = append(got, a.(string)+" on "+res)
			}
		}
	}
	sort.Strings(got)
	want := []string{
		"dynamodb:ConditionCheckItem on Accounts", // MakeTransfer's check of the Account
		"dynamodb:PutItem on Accounts",            // MakeTransfer's put of the Transfer
		"dynamodb:PutItem on Events",              // RecordEvent
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("grants\n got %q\nwant %q", got, want)
	}
}

// twoPlans is a model of two tables whose entities need different plans.
const twoPlans = `tables: {Hot: {}, Cold: {}}
entities:
  Item:
    table: Hot
    id: [itemId]
    needs: {backup: daily, replicas: [eu-west-1]}
    attributes: {itemId: {type: string, maxLength: 36}}
  Archive:
    table: Cold
    id: [archiveId]
    needs: {backup: monthly}
    attributes: {archiveId: {type: string, maxLength: 36}}
patterns:
  GetItem:    {get: Item, rate: 1}
  GetArchive: {get: Archive, rate: 1}
`

// One BackupPlans map for the tables of a model (as NewTables passes
// it): a plan another table's entities need is not refused; a name no
// entity of the model needs is. A need for replicas on a stack of no
// Region is refused, naming the entity.
func TestNeedsPlansOfTheModelsTables(t *testing.T) {
	file := modelFile(t, twoPlans)
	plans := func(s awscdk.Stack, names ...string) map[string]awsbackup.IBackupPlan {
		out := map[string]awsbackup.IBackupPlan{}
		for _, n := range names {
			out[n] = awsbackup.BackupPlan_FromBackupPlanId(s, jsii.String("Plan"+n), jsii.String("id-"+n))
		}
		return out
	}
	stack := newStack("us-east-1")
	if got := validate(singletable.New(stack, "Hot", &singletable.Props{ModelFile: file, ModelTable: "Hot", BackupPlans: plans(stack, "daily", "monthly")})); got != "" {
		t.Errorf("a plan the Cold table needs, given to Hot: %s", got)
	}
	stack = newStack("us-east-1")
	got := validate(singletable.New(stack, "Hot", &singletable.Props{ModelFile: file, ModelTable: "Hot", BackupPlans: plans(stack, "daily", "weekly")}))
	if want := `BackupPlans["weekly"]: no entity of table Hot names it: entity Item (` + file + `:6:`; !strings.Contains(got, want) {
		t.Errorf("problems\n%s\nlack %q", got, want)
	}
	got = validate(singletable.New(newStack(""), "Hot", &singletable.Props{ModelFile: file, ModelTable: "Hot"}))
	if want := "entity Item (" + file + ":6:"; !strings.Contains(got, want) || !strings.Contains(got, "need(s) replicas: [eu-west-1]: a global table's replicas need the stack's region") {
		t.Errorf("problems\n%s\nlack %q and the stack's region", got, want)
	}
}
