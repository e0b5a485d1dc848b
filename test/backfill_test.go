package test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// shopMigrating is the shop's model moving to ShopV2 and its lock at
// phase 1 (create GSI3, backfill Order and Product).
func shopMigrating(t *testing.T) (*model.Model, *patterns.Lock) {
	t.Helper()
	_, m2, lock := evolvetest.ShopMigration(t, "..")
	return m2, lock
}

// The backfill job of a migration phase: a Distributed Map over the Scan
// segments with bounded concurrency and no tolerated failure, each
// iteration invoking the Go worker in a loop until its segment is done;
// the worker built like the stream handlers and allowed exactly Scan and
// UpdateItem on the table; logs and tracing on; an output naming the
// state machine; cdk-nag's AwsSolutions and Serverless packs clean.
func TestBackfillJob(t *testing.T) {
	m, lock := shopMigrating(t)
	app := awscdk.NewApp(&awscdk.AppProps{Context: cdkContext()})
	stack := awscdk.NewStack(app, jsii.String("Migrating"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("us-east-1")}})
	tbl := singletable.New(stack, "Shop", &singletable.Props{
		Model: m, Lock: lock,
		StreamHandlers: &singletable.StreamHandlers{Disabled: true},
		Backfill:       &singletable.Backfill{Segments: 8, MaxConcurrency: 4, MaxWCU: 800},
		Acknowledge:    map[string]string{"KP401": "a test of the backfill job"},
	})
	if p := validate(tbl); p != "" {
		t.Fatal(p)
	}
	if tbl.Backfill == nil {
		t.Fatal("no backfill job")
	}
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	awscdk.Aspects_Of(app).Add(cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	tmpl := assertions.Template_FromStack(stack, nil)
	doc := toMap(tmpl.ToJSON())

	// The state machine.
	sm := props(one(t, doc, "AWS::StepFunctions::StateMachine"))
	def := definition(t, sm["DefinitionString"])
	start := obj(obj(def["States"])[def["StartAt"].(string)])
	if tasks := list(obj(start["Result"])["tasks"]); len(tasks) != 8 || obj(tasks[7])["segment"] != 7.0 || obj(tasks[7])["segments"] != 8.0 {
		t.Errorf("the segments: %v", start["Result"])
	}
	mp := obj(obj(def["States"])[start["Next"].(string)])
	proc := obj(mp["ItemProcessor"])
	if mp["Type"] != "Map" || obj(proc["ProcessorConfig"])["Mode"] != "DISTRIBUTED" || obj(proc["ProcessorConfig"])["ExecutionType"] != "STANDARD" ||
		mp["MaxConcurrency"] != 4.0 || (mp["ToleratedFailurePercentage"] != nil && mp["ToleratedFailurePercentage"] != 0.0) || mp["ItemsPath"] != "$.tasks" {
		t.Errorf("the map state: %v", mp)
	}
	inner := obj(proc["States"])
	rekey := obj(inner[proc["StartAt"].(string)])
	choice := obj(inner[rekey["Next"].(string)])
	var retries []string
	for _, r := range list(rekey["Retry"]) {
		for _, e := range list(obj(r)["ErrorEquals"]) {
			retries = append(retries, e.(string))
		}
	}
	if !slices.Contains(retries, "States.TaskFailed") || !slices.Contains(retries, "Lambda.TooManyRequestsException") {
		t.Errorf("the worker's retries: %v", retries)
	}
	var loops, fails bool
	for _, c := range list(choice["Choices"]) {
		c := obj(c)
		next := obj(inner[c["Next"].(string)])
		if c["Variable"] == "$.failed" && next["Type"] == "Fail" {
			fails = true
		}
		if c["Variable"] == "$.done" && next["Type"] == "Succeed" {
			loops = true
		}
	}
	if !fails || !loops || choice["Default"] != proc["StartAt"] {
		t.Errorf("the loop: %v", choice)
	}
	if obj(sm["LoggingConfiguration"])["Level"] != "ALL" || obj(sm["TracingConfiguration"])["Enabled"] != true {
		t.Errorf("logging %v, tracing %v", sm["LoggingConfiguration"], sm["TracingConfiguration"])
	}

	// The worker.
	_, fn := byPrefix(t, doc, "AWS::Lambda::Function", "ShopBackfillFunction")
	fp := props(fn)
	env := obj(obj(fp["Environment"])["Variables"])
	if fp["Runtime"] != "provided.al2023" || list(fp["Architectures"])[0] != "arm64" || len(list(fp["Layers"])) != 1 ||
		env[patterns.LockEnv] != patterns.DesignPath || env[patterns.TableNameEnv] == nil || env[patterns.BackfillMaxWCUEnv] != "200" {
		t.Errorf("the worker: %v", fp)
	}
	_, pol := byPrefix(t, doc, "AWS::IAM::Policy", "ShopBackfillRoleDefaultPolicy")
	var table []string
	for _, s := range statements(pol) {
		if strings.Contains(s, "dynamodb:") {
			table = append(table, s)
		}
	}
	if len(table) != 1 || !tableOnly.MatchString(table[0]) {
		t.Errorf("the worker's table access: %v (want DescribeTable, DescribeTimeToLive, Scan and UpdateItem on the table alone)", table)
	}
	outs := obj(doc["Outputs"])
	found := false
	for _, o := range outs {
		found = found || strings.Contains(obj(o)["Description"].(string), "keyplan backfill of Shop, phase 1 of 1")
	}
	if !found {
		t.Errorf("no output naming the state machine: %v", outs)
	}

	// cdk-nag: nothing unsuppressed.
	ann := assertions.Annotations_FromStack(stack)
	for _, a := range *ann.FindError(jsii.String("*"), assertions.Match_AnyValue()) {
		t.Errorf("error: %s", toString(a))
	}
	for _, a := range *ann.FindWarning(jsii.String("*"), assertions.Match_AnyValue()) {
		t.Errorf("warning: %s", toString(a))
	}
}

// The lock that ends a migration, deployed with Backfill, synthesizes the
// job for the migration's cleanup: the same Distributed Map over the
// segments, the worker (which tells the cleanup by the lock it carries)
// allowed DescribeTable, DescribeTimeToLive, Scan and UpdateItem on the
// table alone (it checks the table is at the lock's design before it
// removes anything), an
// output saying it is the cleanup and that keyplan migrate --verify then
// drops it from the lock; cdk-nag clean.
func TestCleanupJob(t *testing.T) {
	m, lock := shopMigrating(t)
	for lock.Migration != nil {
		if err := lock.Advance(); err != nil {
			t.Fatal(err)
		}
	}
	if lock.Cleanup == nil {
		t.Fatal("the migration's end records no cleanup")
	}
	app := awscdk.NewApp(&awscdk.AppProps{Context: cdkContext()})
	stack := awscdk.NewStack(app, jsii.String("Finished"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("us-east-1")}})
	tbl := singletable.New(stack, "Shop", &singletable.Props{
		Model: m, Lock: lock,
		StreamHandlers: &singletable.StreamHandlers{Disabled: true},
		Backfill:       &singletable.Backfill{Segments: 4},
		Acknowledge:    map[string]string{"KP401": "a test of the cleanup job"},
	})
	if p := validate(tbl); p != "" {
		t.Fatal(p)
	}
	if tbl.Backfill == nil {
		t.Fatal("no cleanup job")
	}
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	awscdk.Aspects_Of(app).Add(cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	doc := toMap(assertions.Template_FromStack(stack, nil).ToJSON())
	sm := props(one(t, doc, "AWS::StepFunctions::StateMachine"))
	def := definition(t, sm["DefinitionString"])
	start := obj(obj(def["States"])[def["StartAt"].(string)])
	if tasks := list(obj(start["Result"])["tasks"]); len(tasks) != 4 {
		t.Errorf("the segments: %v", start["Result"])
	}
	if mp := obj(obj(def["States"])[start["Next"].(string)]); mp["Type"] != "Map" || obj(obj(mp["ItemProcessor"])["ProcessorConfig"])["Mode"] != "DISTRIBUTED" {
		t.Errorf("the map state: %v", mp)
	}
	if c, _ := def["Comment"].(string); !strings.Contains(c, "the migration's cleanup: "+lock.Cleanup.String()) {
		t.Errorf("the state machine's comment: %q", c)
	}
	_, fn := byPrefix(t, doc, "AWS::Lambda::Function", "ShopBackfillFunction")
	if d, _ := props(fn)["Description"].(string); !strings.Contains(d, "the migration's cleanup") || len([]rune(d)) > 256 {
		t.Errorf("the worker's description: %q", d)
	}
	_, pol := byPrefix(t, doc, "AWS::IAM::Policy", "ShopBackfillRoleDefaultPolicy")
	var table []string
	for _, s := range statements(pol) {
		if strings.Contains(s, "dynamodb:") {
			table = append(table, s)
		}
	}
	if len(table) != 1 || !tableOnly.MatchString(table[0]) {
		t.Errorf("the cleanup worker's table access: %v (want DescribeTable, DescribeTimeToLive, Scan and UpdateItem on the table alone)", table)
	}
	found := false
	for _, o := range obj(doc["Outputs"]) {
		d := obj(o)["Description"].(string)
		found = found || strings.Contains(d, "keyplan backfill of Shop, the migration's cleanup") && strings.Contains(d, "--verify drops the cleanup from the lock")
	}
	if !found {
		t.Errorf("no output naming the cleanup job: %v", doc["Outputs"])
	}
	ann := assertions.Annotations_FromStack(stack)
	for _, a := range *ann.FindError(jsii.String("*"), assertions.Match_AnyValue()) {
		t.Errorf("error: %s", toString(a))
	}
	for _, a := range *ann.FindWarning(jsii.String("*"), assertions.Match_AnyValue()) {
		t.Errorf("warning: %s", toString(a))
	}
}

// The worker's table access, backfill or cleanup: the drift check's
// describes (DescribeContinuousBackups is never asked), Scan and UpdateItem.
var tableOnly = regexp.MustCompile(`^dynamodb:DescribeTable,dynamodb:DescribeTimeToLive,dynamodb:Scan,dynamodb:UpdateItem on ShopTable[0-9A-F]{8}\.Arn$`)

// definition resolves a DefinitionString (an Fn::Join of text and
// tokens) into the definition's JSON, tokens as placeholders.
func definition(t *testing.T, v any) map[string]any {
	t.Helper()
	var b strings.Builder
	switch x := v.(type) {
	case string:
		b.WriteString(x)
	default:
		for _, p := range list(list(obj(x)["Fn::Join"])[1]) {
			if s, ok := p.(string); ok {
				b.WriteString(s)
			} else {
				b.WriteString("TOKEN")
			}
		}
	}
	var def map[string]any
	if err := json.Unmarshal([]byte(b.String()), &def); err != nil {
		t.Fatalf("definition: %v\n%s", err, b.String())
	}
	return def
}

// Without a migration, or with bad options, no job: an info, or a
// problem naming the option.
func TestBackfillJobNotMade(t *testing.T) {
	m, lock := shopMigrating(t)
	stack := newStack("")
	tbl := singletable.New(stack, "Done", &singletable.Props{Model: lock.Accepted.Model(), Lock: patterns.NewLock(lock.Accepted),
		StreamHandlers: &singletable.StreamHandlers{Disabled: true}, Backfill: &singletable.Backfill{},
		Acknowledge: map[string]string{"KP401": "test"}})
	if p := validate(tbl); p != "" || tbl.Backfill != nil {
		t.Errorf("no migration: %q, job %v", p, tbl.Backfill)
	}
	info := *assertions.Annotations_FromStack(stack).FindInfo(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String("Backfill: no migration is in progress")))
	if len(info) != 1 {
		t.Errorf("%d infos saying why there is no job", len(info))
	}
	for _, tt := range []struct {
		b    singletable.Backfill
		want string
	}{
		{singletable.Backfill{Segments: -1}, "Backfill.Segments -1: expected 1 to 1000000"},
		{singletable.Backfill{MaxConcurrency: 20000}, "Backfill.MaxConcurrency 20000: expected 1 to 10000"},
		{singletable.Backfill{MaxWCU: -3}, "Backfill.MaxWCU -3: expected a positive number"},
		{singletable.Backfill{Timeout: awscdk.Duration_Minutes(jsii.Number(20))}, "Backfill.Timeout 1200s: expected 60 to 900 seconds"},
	} {
		b := tt.b
		tbl := singletable.New(newStack(""), "Bad", &singletable.Props{Model: m, Lock: lock,
			StreamHandlers: &singletable.StreamHandlers{Disabled: true}, Backfill: &b, Acknowledge: map[string]string{"KP401": "test"}})
		if p := validate(tbl); !strings.Contains(p, tt.want) {
			t.Errorf("validation %q, want %q", p, tt.want)
		}
	}
}
