package test

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/stacks"
)

var update = flag.Bool("update", false, "rewrite golden templates in testdata/")

// The shared example app: its templates as plain JSON (for the golden
// files) and as CDK assertion templates (for intent-level matchers).
var (
	example   *stacks.Stacks
	templates = map[string]map[string]any{}
	asserted  = map[string]assertions.Template{}
	// tracker is examples/tracker.yaml's table, planned with native GSI
	// keys, in a stack of its own beside the example app's.
	tracker *singletable.Table
	// arena is patterns/testdata/models/arena.yaml's table, with two LSIs,
	// and a role granted three of its patterns (ArenaReader).
	arena *singletable.Table
	// ledger is testdata/models/ledger.yaml's table: the settings a
	// model decides (multi-Region strong consistency with a witness,
	// headroom, peaks, principals), in a stack of its own.
	ledger *singletable.Table
	// storefront is a model of two tables (Orders, Sessions): one Table
	// construct each (tables_test.go).
	storefront *singletable.Tables
	// needsTables is a model of two tables whose entities state needs:
	// (point-in-time recovery, backup, billing, replicas), and a role
	// granted one cross-table transaction's write patterns
	// (needs_test.go).
	needsTables *singletable.Tables
	needsStack  awscdk.Stack
	// keptTable is one table whose entities need different settings
	// (KP310 acknowledged), in needsStack.
	keptTable *singletable.Table
)

// trackerGrants are the roles granted tracker's patterns in the shared
// app, one per case of TestGrantPatternsLeastPrivilege.
var trackerGrants = map[string][]string{
	"TrackerTask":   {"GetTask"},
	"TrackerOwner":  {"GetTenant", "TenantWithTasks", "TasksByStatus"},
	"TrackerBoards": {"TasksByStatus", "TasksByAssignee"},
}

// assemblyDir is where the shared app's cloud assembly is written.
var assemblyDir string

var exampleConfig = stacks.Config{Models: "../examples", Region: "us-east-1", ReplicaRegion: "eu-west-1"}

func TestMain(m *testing.M) {
	flag.Parse()
	out, err := os.MkdirTemp("", "keyplan-cdk-out")
	if err != nil {
		panic(err)
	}
	assemblyDir = out
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(out), Context: cdkContext()})
	example = stacks.New(app, exampleConfig)
	trackerStack := awscdk.NewStack(app, jsii.String("KeyplanTracker"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String(exampleConfig.Region)}})
	tracker = singletable.New(trackerStack, "Tracker", &singletable.Props{ModelFile: "../examples/tracker.yaml"})
	for role, patterns := range trackerGrants {
		tracker.GrantPatterns(awsiam.NewRole(trackerStack, jsii.String(role), &awsiam.RoleProps{
			AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		}), patterns...)
	}
	ledgerStack := awscdk.NewStack(app, jsii.String("KeyplanLedger"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String(exampleConfig.Region)}})
	ledger = singletable.New(ledgerStack, "Ledger", &singletable.Props{ModelFile: "testdata/models/ledger.yaml",
		Replicas: []singletable.Replica{{Region: "us-east-2"}}, WitnessRegion: "us-west-2"})
	ledger.GrantPatterns(awsiam.NewRole(ledgerStack, jsii.String("LedgerBatchReader"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)}), "GetAccounts")
	arenaStack := awscdk.NewStack(app, jsii.String("KeyplanArena"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String(exampleConfig.Region)}})
	arena = singletable.New(arenaStack, "Arena", &singletable.Props{ModelFile: "../patterns/testdata/models/arena.yaml"})
	reader := awsiam.NewRole(arenaStack, jsii.String("ArenaReader"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)})
	arena.GrantPatterns(reader, "GetMatch", "MatchesByScore", "MatchesByKills")
	storefrontStack := awscdk.NewStack(app, jsii.String("KeyplanStorefront"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String(exampleConfig.Region)}})
	storefront = singletable.NewTables(storefrontStack, "Storefront", &singletable.Props{ModelFile: storefrontModel})
	storefront.GrantPatterns(awsiam.NewRole(storefrontStack, jsii.String("Checkout"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)}), storefrontGrants...)
	needsStack = awscdk.NewStack(app, jsii.String("KeyplanNeeds"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String(exampleConfig.Region)}})
	needsTables = singletable.NewTables(needsStack, "Bank", &singletable.Props{ModelFile: needsModel})
	needsTables.GrantPatterns(awsiam.NewRole(needsStack, jsii.String("Transfers"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)}), transferGrants...)
	keptTable = singletable.New(needsStack, "Audit", &singletable.Props{ModelFile: keptModel,
		Billing: &singletable.Billing{Mode: singletable.OnDemand}, Acknowledge: map[string]string{"KP310": "kept in one table: the test of KP310's keep-one-table settings"}})
	for name, s := range map[string]awscdk.Stack{"leaderboard": example.Leaderboard, "shop": example.Shop, "tracker": trackerStack, "ledger": ledgerStack, "arena": arenaStack, "storefront": storefrontStack, "needs": needsStack} {
		asserted[name] = assertions.Template_FromStack(s, nil)
		templates[name] = toMap(asserted[name].ToJSON())
	}
	app.Synth(nil)
	code := m.Run()
	os.RemoveAll(out)
	singletable.Close() // the jsii runtime and its temporary directory
	os.Exit(code)
}

// cdkContext is cdk.json's context, so the tests synthesize what
// `make synth` does.
func cdkContext() *map[string]any {
	b, err := os.ReadFile("../cdk.json")
	if err != nil {
		panic(err)
	}
	var c struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return &c.Context
}

// toMap round-trips a jsii JSON value into plain Go values.
func toMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// resources returns a template's resources of one type, by logical id.
func resources(tmpl map[string]any, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range tmpl["Resources"].(map[string]any) {
		r := r.(map[string]any)
		if r["Type"] == typ {
			out[id] = r
		}
	}
	return out
}

// one returns the only resource of a type, failing otherwise.
func one(t *testing.T, tmpl map[string]any, typ string) map[string]any {
	t.Helper()
	rs := resources(tmpl, typ)
	if len(rs) != 1 {
		t.Fatalf("%d %s resources, want 1", len(rs), typ)
	}
	for _, r := range rs {
		return r
	}
	return nil
}

func props(r map[string]any) map[string]any { return r["Properties"].(map[string]any) }

func list(v any) []any {
	if v == nil {
		return nil
	}
	return v.([]any)
}

func obj(v any) map[string]any {
	if v == nil {
		return nil
	}
	return v.(map[string]any)
}

// jsiiPanic runs f and returns the message of a jsii error it raised.
func jsiiPanic(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = toString(r)
		}
	}()
	f()
	return ""
}

func toString(r any) string {
	if err, ok := r.(error); ok {
		return err.Error()
	}
	if s, ok := r.(string); ok {
		return s
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func stackOf(name string) awscdk.Stack {
	if name == "leaderboard" {
		return example.Leaderboard
	}
	if name == "storefront" {
		return awscdk.Stack_Of(storefront)
	}
	if name == "needs" {
		return needsStack
	}
	return example.Shop
}
