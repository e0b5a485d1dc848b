package test

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/constructs/tablerules"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

const scanModel = `table: Users
entities:
  User:
    id: [userId]
    attributes: {userId: {type: string, maxLength: 40}, email: {type: string, maxLength: 254}}
    keys: {table: {pk: "USER#{userId}", sk: USER}}
patterns:
  GetUser: {get: User}
  ByEmail: {get: User, where: [email], unique: true}
`

const hotModel = `table: Shop
entities:
  Order:
    id: [orderId]
    attributes: {orderId: {type: string, maxLength: 40}, status: {values: [PENDING, PAID]}, createdAt: time}
patterns:
  GetOrder: {get: Order}
  ByStatus: {query: Order, where: [status], sort: createdAt}
`

func modelFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "model.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// newStack is a fresh app and stack, so a failing construct does not
// break the shared example app.
func newStack(region string) awscdk.Stack {
	app := awscdk.NewApp(nil)
	var env *awscdk.Environment
	if region != "" {
		env = &awscdk.Environment{Region: jsii.String(region)}
	}
	return awscdk.NewStack(app, jsii.String("Test"), &awscdk.StackProps{Env: env})
}

func validate(tbl *singletable.Table) string {
	var msgs []string
	for _, m := range *tbl.Node().Validate() {
		msgs = append(msgs, *m)
	}
	return strings.Join(msgs, "\n")
}

// GIVEN a model whose pattern needs a Scan WHEN it is synthesized THEN
// synthesis fails naming the rule, the pattern and the model's line.
func TestScanFailsSynthesis(t *testing.T) {
	file := modelFile(t, scanModel)
	stack := newStack("us-east-1")
	singletable.New(stack, "Users", &singletable.Props{ModelFile: file})
	msg := jsiiPanic(func() { awscdk.Stage_Of(stack).Synth(nil) })
	for _, want := range []string{"[KP101]", "pattern ByEmail", file + ":9:3", "needs a Scan"} {
		if !strings.Contains(msg, want) {
			t.Errorf("synthesis error %q lacks %q", msg, want)
		}
	}
}

func TestPropsProblems(t *testing.T) {
	good := modelFile(t, hotModel)
	tests := []struct {
		name   string
		region string
		props  func(stack awscdk.Stack) *singletable.Props
		after  func(tbl *singletable.Table, stack awscdk.Stack)
		want   []string
	}{
		{"no model", "", func(awscdk.Stack) *singletable.Props { return nil }, nil,
			[]string{"Props.Model or Props.ModelFile is required"}},
		{"unusable model", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: modelFile(t, strings.Replace(hotModel, "createdAt: time", "createdAt: tiem", 1))}
		}, nil, []string{`model.yaml:5:104: entities.Order.attributes.createdAt: unknown type "tiem"`, `did you mean "time"?`}},
		{"missing model file", "", func(awscdk.Stack) *singletable.Props { return &singletable.Props{ModelFile: "nope.yaml"} }, nil,
			[]string{"nope.yaml: the model file does not exist"}},
		{"unknown pattern granted", "", func(awscdk.Stack) *singletable.Props { return &singletable.Props{ModelFile: good} },
			func(tbl *singletable.Table, stack awscdk.Stack) {
				role := awsiam.NewRole(stack, jsii.String("R"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)})
				tbl.GrantPatterns(role, "GetOrder", "GetOrdr")
			}, []string{`GrantPatterns: unknown pattern "GetOrdr" (the design has ByStatus, GetOrder)`}},
		{"stale acknowledgement", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Acknowledge: map[string]string{"KP401:ByStatus": "fine", "KP402": "old"}}
		}, nil, []string{`Acknowledge["KP402"] matches no warning of this design; remove it`}},
		{"acknowledgement without reason", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Acknowledge: map[string]string{"KP401": " "}}
		}, nil, []string{`Acknowledge["KP401"]: give the reason the warning is accepted`}},
		{"customer managed without key", "us-east-1", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Encryption: &singletable.Encryption{Kind: singletable.CustomerManaged}, Replicas: []singletable.Replica{{Region: "eu-west-1"}}}
		}, nil, []string{"Encryption.Key: a customer managed table needs a KMS key", "Replicas[0].KeyArn: a customer managed table needs a key for replica eu-west-1"}},
		{"replicas without a region", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Replicas: []singletable.Replica{{Region: "eu-west-1"}, {Region: "eu-west-1"}, {}}}
		}, nil, []string{"Replicas need the stack's region", "Replicas[1].Region: eu-west-1 is listed twice", "Replicas[2].Region: expected a region"}},
		{"replica in the stack's region", "eu-west-1", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Replicas: []singletable.Replica{{Region: "eu-west-1"}}}
		}, nil, []string{"Replicas: eu-west-1 is the stack's own region"}},
		{"bad scaling", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Billing: &singletable.Billing{Mode: singletable.Provisioned,
				Read: singletable.Scaling{TargetUtilization: 95}, Write: singletable.Scaling{Min: 10, Max: 5},
				Indexes: map[string]singletable.IndexScaling{"GSI9": {}}}}
		}, nil, []string{"Billing.Read.TargetUtilization 95: expected 20 to 90", "Billing.Write: expected 1 <= Min <= Max, got Min 10, Max 5", `Billing.Indexes["GSI9"]: the table has no such GSI`}},
		{"a replica's reads on demand, and of a GSI that is not there", "us-east-1", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Replicas: []singletable.Replica{{Region: "eu-west-1", Read: &singletable.Scaling{Min: 1}}}}
		}, nil, []string{"Replicas[0].Read, .Indexes: a replica's own read capacity applies to Provisioned billing"}},
		{"a replica's reads out of range", "us-east-1", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Billing: &singletable.Billing{Mode: singletable.Provisioned},
				Replicas: []singletable.Replica{{Region: "eu-west-1", Read: &singletable.Scaling{Min: 20, Max: 2}, Indexes: map[string]singletable.Scaling{"GSI9": {Min: 1}}}}}
		}, nil, []string{"Replicas[0].Read: expected 1 <= Min <= Max, got Min 20, Max 2", `Replicas[0].Indexes["GSI9"]: the table has no such GSI`}},
		{"stream view with replicas", "us-east-1", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Stream: awsdynamodb.StreamViewType_KEYS_ONLY, Replicas: []singletable.Replica{{Region: "eu-west-1"}}}
		}, nil, []string{"Stream KEYS_ONLY: a table with replicas streams NEW_AND_OLD_IMAGES"}},
		{"a lock file that is not there", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, LockFile: filepath.Join(t.TempDir(), "shop.lock.json")}
		}, nil, []string{"shop.lock.json: no such file (keyplan lock writes it)"}},
		{"a lock for another table", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, LockFile: "../examples/leaderboard.lock.json"}
		}, nil, []string{"the lock is for table Leaderboard, the model (" + good + ") for Shop"}},
		{"a lock file that is not a lock", "", func(awscdk.Stack) *singletable.Props {
			bad := filepath.Join(t.TempDir(), "bad.lock.json")
			os.WriteFile(bad, []byte(`{"format": 1, "table": "Shop"`), 0o644)
			return &singletable.Props{ModelFile: good, LockFile: bad}
		}, nil, []string{"bad.lock.json: not valid JSON"}},
		{"handler options", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: "../examples/leaderboard.yaml", StreamHandlers: &singletable.StreamHandlers{
				Handlers: map[patterns.Handler]singletable.HandlerOptions{patterns.HandlerFanout: {}, "counter": {}, patterns.HandlerArchive: {ParallelizationFactor: 11}}}}
		}, nil, []string{`StreamHandlers.Handlers["counter"]: expected one of fanout, counters, archive`,
			`StreamHandlers.Handlers["fanout"]: the model needs no fanout handler`,
			"StreamHandlers archive: ParallelizationFactor 11: expected 1 to 10"}},
		{"handlers read both images", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: "../examples/ecommerce.yaml", Stream: awsdynamodb.StreamViewType_NEW_IMAGE}
		}, nil, []string{"Stream NEW_IMAGE: the stream handlers read NEW_AND_OLD_IMAGES"}},
		{"numbers that are not numbers", "us-east-1", func(awscdk.Stack) *singletable.Props {
			nan, inf := math.NaN(), math.Inf(1)
			return &singletable.Props{ModelFile: "../examples/leaderboard.yaml", RecoveryPeriodDays: nan,
				Billing: &singletable.Billing{Mode: singletable.Provisioned,
					Read:    singletable.Scaling{Min: nan, TargetUtilization: inf},
					Write:   singletable.Scaling{Max: math.Inf(-1)},
					Indexes: map[string]singletable.IndexScaling{"GSI1": {Read: singletable.Scaling{TargetUtilization: nan}}}},
				Replicas:       []singletable.Replica{{Region: "eu-west-1", Read: &singletable.Scaling{Max: inf}}},
				StreamHandlers: &singletable.StreamHandlers{Defaults: singletable.HandlerOptions{BatchSize: nan}, Handlers: map[patterns.Handler]singletable.HandlerOptions{patterns.HandlerCounters: {ParallelizationFactor: nan, MemorySize: inf}}},
				Backfill:       &singletable.Backfill{MaxWCU: nan, MemorySize: inf},
			}
		}, nil, []string{"RecoveryPeriodDays NaN: expected a finite number",
			"Billing.Read.Min NaN: expected a finite number", "Billing.Read.TargetUtilization +Inf: expected a finite number",
			"Billing.Write.Max -Inf: expected a finite number", `Billing.Indexes["GSI1"].Read.TargetUtilization NaN: expected a finite number`,
			"Replicas[0].Read.Max +Inf: expected a finite number",
			"StreamHandlers.Defaults.BatchSize NaN", `StreamHandlers.Handlers["counters"].ParallelizationFactor NaN`, `StreamHandlers.Handlers["counters"].MemorySize +Inf`,
			"Backfill.MaxWCU NaN: expected a finite number", "Backfill.MemorySize +Inf"}},
		{"scaling on demand", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Billing: &singletable.Billing{Read: singletable.Scaling{Min: 10, Max: 5}, Write: singletable.Scaling{Min: math.NaN()}}}
		}, nil, []string{"Billing.Read: capacity and its auto-scaling apply to Provisioned billing (Billing.Mode); an on-demand table has none (Min 10, Max 5",
			"Billing.Write: capacity and its auto-scaling apply to Provisioned billing (Billing.Mode); an on-demand table has none (Min NaN"}},
		{"monitoring out of range", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Monitoring: &singletable.Monitoring{CapacityPercent: 150}}
		}, nil, []string{"Monitoring.CapacityPercent 150: expected 1 to 100 (percent of the most capacity)"}},
		{"monitoring disabled, and told where to alarm", "", func(stack awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Monitoring: &singletable.Monitoring{Disabled: true, NoDashboard: true, CapacityPercent: math.NaN()}}
		}, nil, []string{"Monitoring.CapacityPercent NaN: expected a finite number",
			"Monitoring.Disabled: nothing is monitored, so AlarmActions, CapacityPercent and NoDashboard do not apply"}},
		{"a recovery period without recovery", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, PointInTimeRecovery: jsii.Bool(false), RecoveryPeriodDays: 7}
		}, nil, []string{"RecoveryPeriodDays 7: point-in-time recovery is off (PointInTimeRecovery false)"}},
		{"a recovery period of part of a day", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, RecoveryPeriodDays: 7.5}
		}, nil, []string{"RecoveryPeriodDays 7.5: expected a whole number of days, 1 to 35"}},
		{"tags DynamoDB refuses", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, Tags: map[string]string{
				"aws:owner": "me", "AWS:Team": "x", "": "empty key", strings.Repeat("k", 129): "v",
				"long": strings.Repeat("é", 257), "ok": "", strings.Repeat("ü", 128): strings.Repeat("ü", 256), "semi;colon": "v", "app": "a|b"}}
		}, nil, []string{`Tags["aws:owner"]: keys starting with aws: are reserved for AWS`, `Tags["AWS:Team"]: keys starting with aws: are reserved for AWS`,
			`Tags: an empty key (value "empty key"): expected 1 to 128 characters`, `Tags["` + strings.Repeat("k", 129) + `"]: the key is 129 characters, expected at most 128`,
			`Tags["long"]: the value is 257 characters, expected at most 256`, `Tags["semi;colon"]: the key holds ';'`, `Tags["app"]: the value holds '|'`}},
		{"a model that does not load, and the props' own problems", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: modelFile(t, strings.Replace(hotModel, "createdAt: time", "createdAt: tiem", 1)),
				TableName: "x", Tags: map[string]string{"aws:team": "a"}, RecoveryPeriodDays: 40, Billing: &singletable.Billing{Mode: "reserved"},
				Replicas: []singletable.Replica{{Region: "eu-west-1"}, {Region: "eu-west-1"}}, Backfill: &singletable.Backfill{Segments: -1},
				StreamHandlers: &singletable.StreamHandlers{Handlers: map[patterns.Handler]singletable.HandlerOptions{"counter": {}}}}
		}, nil, []string{`unknown type "tiem"`, `TableName "x": expected ` + model.NameRule, `Tags["aws:team"]: keys starting with aws: are reserved`,
			"RecoveryPeriodDays 40: expected a whole number of days, 1 to 35", `Billing.Mode "reserved"`, "Replicas[1].Region: eu-west-1 is listed twice",
			"Backfill.Segments -1: expected 1 to", `StreamHandlers.Handlers["counter"]: expected one of`}},
		{"bad table name", "", func(awscdk.Stack) *singletable.Props {
			return &singletable.Props{ModelFile: good, TableName: "my table"}
		}, nil,
			[]string{`TableName "my table": expected ` + model.NameRule}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack := newStack(tt.region)
			tbl := singletable.New(stack, "Tbl", tt.props(stack))
			if tt.after != nil {
				tt.after(tbl, stack)
			}
			got := validate(tbl)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("validation:\n%s\nwant it to contain:\n%s", got, w)
				}
			}
		})
	}
}

// Warnings become CDK warnings (so `cdk synth --strict` fails), and an
// acknowledgement with a reason silences exactly that one.
func TestWarningsAndAcknowledgements(t *testing.T) {
	file := modelFile(t, hotModel)
	stack := newStack("")
	singletable.New(stack, "Loud", &singletable.Props{ModelFile: file})
	singletable.New(stack, "Quiet", &singletable.Props{ModelFile: file, Acknowledge: map[string]string{
		"KP401:ByStatus":          "an internal dashboard at 1 read/s",
		singletable.NoLockWarning: "a table for this test, never deployed"}})
	ann := assertions.Annotations_FromStack(stack)
	// The warning names the key Props.Acknowledge takes.
	loud := *ann.FindWarning(jsii.String("/Test/Loud"), assertions.Match_StringLikeRegexp(jsii.String(`\[KP401\] pattern ByStatus.*\[ack: KP401:ByStatus\]`)))
	quiet := *ann.FindWarning(jsii.String("/Test/Quiet"), assertions.Match_AnyValue())
	// A model without a lock is warned about: its plan may move on the
	// next edit.
	nolock := *ann.FindWarning(jsii.String("/Test/Loud"), assertions.Match_StringLikeRegexp(jsii.String(`model.yaml has no lock.*keyplan lock .*model.yaml.*\[ack: keyplan:NoLock\]`)))
	if len(loud) != 1 || len(nolock) != 1 || len(quiet) != 0 {
		t.Errorf("%d KP401 warnings on Loud (want 1), %d NoLock (want 1), %d warnings on Quiet (want 0)", len(loud), len(nolock), len(quiet))
	}
	// AND the acknowledged warning's reason stays in the cloud assembly.
	kept := *ann.FindInfo(jsii.String("/Test/Quiet"), assertions.Match_StringLikeRegexp(jsii.String(`acknowledged KP401:ByStatus \(pattern ByStatus\): an internal dashboard at 1 read/s`)))
	if len(kept) != 1 {
		t.Errorf("%d info annotations keep the acknowledgement's reason, want 1", len(kept))
	}
}

// A customer managed key encrypts the table and each replica with its own
// key, and GrantPatterns adds kms:Decrypt on it.
func TestCustomerManagedKey(t *testing.T) {
	stack := newStack("us-east-1")
	key := awskms.NewKey(stack, jsii.String("Key"), &awskms.KeyProps{EnableKeyRotation: jsii.Bool(true)})
	tbl := singletable.New(stack, "Tbl", &singletable.Props{
		ModelFile:  modelFile(t, hotModel),
		Encryption: &singletable.Encryption{Kind: singletable.CustomerManaged, Key: key},
		Replicas:   []singletable.Replica{{Region: "eu-west-1", KeyArn: "arn:aws:kms:eu-west-1:111122223333:key/replica"}},
	})
	role := awsiam.NewRole(stack, jsii.String("R"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)})
	tbl.GrantPatterns(role, "GetOrder")
	tmpl := toMap(assertions.Template_FromStack(stack, nil).ToJSON())
	p := props(one(t, tmpl, "AWS::DynamoDB::GlobalTable"))
	if sse := obj(p["SSESpecification"]); sse["SSEEnabled"] != true || sse["SSEType"] != "KMS" {
		t.Errorf("SSESpecification %v", sse)
	}
	for _, r := range list(p["Replicas"]) {
		r := obj(r)
		if obj(r["SSESpecification"])["KMSMasterKeyId"] == nil {
			t.Errorf("replica %s has no key", r["Region"])
		}
	}
	pol := props(one(t, tmpl, "AWS::IAM::Policy"))
	var actions []string
	for _, st := range list(obj(pol["PolicyDocument"])["Statement"]) {
		switch a := obj(st)["Action"].(type) {
		case string:
			actions = append(actions, a)
		case []any:
			for _, x := range a {
				actions = append(actions, x.(string))
			}
		}
	}
	if strings.Join(actions, ",") != "dynamodb:GetItem,kms:Decrypt" {
		t.Errorf("actions %v", actions)
	}
}

// The GlobalTable rule pack flags a replica without point-in-time recovery
// (cdk-nag's DynamoDB rules never look at AWS::DynamoDB::GlobalTable):
// error annotations, and synthesis fails naming each finding.
func TestRulePackOnRawTable(t *testing.T) {
	stack := newStack("us-east-1")
	awsdynamodb.NewTableV2(stack, jsii.String("Raw"), &awsdynamodb.TablePropsV2{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("PK"), Type: awsdynamodb.AttributeType_STRING},
		Replicas:     &[]*awsdynamodb.ReplicaTableProps{{Region: jsii.String("eu-west-1")}},
	})
	awscdk.Aspects_Of(stack).Add(tablerules.NewAspect(), nil)
	msg := jsiiPanic(func() { awscdk.Stage_Of(stack).Synth(nil) })
	for _, want := range []string{"[KPG1] replica eu-west-1 has no point-in-time recovery", "[KPG2] replica eu-west-1 has no deletion protection"} {
		if !strings.Contains(msg, want) {
			t.Errorf("synthesis failed with %q, which lacks %q", msg, want)
		}
	}
	for _, id := range []string{"KPG3", "KPG4"} {
		if strings.Contains(msg, "["+id+"]") {
			t.Errorf("%s fired on a compliant table: %s", id, msg)
		}
	}
}

// The README's app shape (an environment-agnostic stack, whose replica
// region is {"Ref": "AWS::Region"}) with the rule pack over the app:
// it synthesizes, and a finding on such a stack names the region as
// CloudFormation will resolve it.
func TestRulePackOnAgnosticStack(t *testing.T) {
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Game"), nil)
	tbl := singletable.New(stack, "Leaderboard", &singletable.Props{ModelFile: modelFile(t, hotModel), Acknowledge: map[string]string{"KP401": "test"}})
	awscdk.Aspects_Of(app).Add(tablerules.NewAspect(), nil)
	if got := validate(tbl); got != "" {
		t.Fatal(got)
	}
	app.Synth(nil) // panics on a finding or an error
	if errs := *assertions.Annotations_FromStack(stack).FindError(jsii.String("*"), assertions.Match_AnyValue()); len(errs) != 0 {
		t.Errorf("errors on a compliant table: %v", toString(errs))
	}

	bad := awscdk.NewApp(nil)
	stack = awscdk.NewStack(bad, jsii.String("Game"), nil)
	awsdynamodb.NewTableV2(stack, jsii.String("Raw"), &awsdynamodb.TablePropsV2{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("PK"), Type: awsdynamodb.AttributeType_STRING},
	})
	awscdk.Aspects_Of(bad).Add(tablerules.NewAspect(), nil)
	msg := jsiiPanic(func() { bad.Synth(nil) })
	if want := "[KPG1] replica ${AWS::Region} has no point-in-time recovery"; !strings.Contains(msg, want) {
		t.Errorf("synthesis failed with %q, which lacks %q", msg, want)
	}
}

// Under go run with CDK_OUTDIR (how the CDK CLI runs an app), the rule
// pack's finding fails the run: the app exits non-zero naming it, and a
// compliant app exits 0 with its cloud assembly written.
func TestRulePackFailsTheRun(t *testing.T) {
	t.Parallel() // a process of its own: it runs beside the tests that synthesize in this one
	if testing.Short() {
		t.Skip("builds and runs an app")
	}
	model := modelFile(t, hotModel)
	bin := filepath.Join(t.TempDir(), "agnostic")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/agnostic").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, bad := range []bool{false, true} {
		out := t.TempDir()
		args := []string{model}
		if bad {
			args = append(args, "bad")
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "CDK_OUTDIR="+out)
		stderr, err := cmd.CombinedOutput()
		switch {
		case !bad && err != nil:
			t.Errorf("a compliant app: %v\n%s", err, stderr)
		case !bad:
			if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
				t.Errorf("a compliant app synthesized nothing: %v", err)
			}
		case err == nil:
			t.Errorf("an app with a finding exited 0:\n%s", stderr)
		case !strings.Contains(string(stderr), "[KPG1] replica ${AWS::Region} has no point-in-time recovery"):
			t.Errorf("an app with a finding failed without naming it:\n%s", stderr)
		}
	}
}

// Handler options reach the function and its event source mapping; a
// disabled set of handlers leaves the model's features to the application.
func TestHandlerOptions(t *testing.T) {
	stack := newStack("")
	tbl := singletable.New(stack, "Game", &singletable.Props{ModelFile: "../examples/leaderboard.yaml",
		Acknowledge: map[string]string{"KP401": "test"},
		StreamHandlers: &singletable.StreamHandlers{
			Defaults: singletable.HandlerOptions{BatchSize: 50},
			Handlers: map[patterns.Handler]singletable.HandlerOptions{patterns.HandlerCounters: {ReservedConcurrency: 5, LogRetention: "ONE_WEEK"}},
		}})
	if got := validate(tbl); got != "" {
		t.Fatal(got)
	}
	tmpl := toMap(assertions.Template_FromStack(stack, nil).ToJSON())
	_, fn := byPrefix(t, tmpl, "AWS::Lambda::Function", "GameCountersFunction")
	_, esm := byPrefix(t, tmpl, "AWS::Lambda::EventSourceMapping", "GameCountersFunction")
	_, logs := byPrefix(t, tmpl, "AWS::Logs::LogGroup", "GameCountersLogs")
	_, archive := byPrefix(t, tmpl, "AWS::Lambda::EventSourceMapping", "GameArchiveFunction")
	if props(fn)["ReservedConcurrentExecutions"] != 5.0 || props(esm)["BatchSize"] != 50.0 || props(logs)["RetentionInDays"] != 7.0 || props(archive)["BatchSize"] != 50.0 {
		t.Errorf("function %v, mapping %v, logs %v", props(fn)["ReservedConcurrentExecutions"], props(esm)["BatchSize"], props(logs)["RetentionInDays"])
	}
	off := newStack("")
	singletable.New(off, "Game", &singletable.Props{ModelFile: "../examples/leaderboard.yaml", Acknowledge: map[string]string{"KP401": "test"},
		StreamHandlers: &singletable.StreamHandlers{Disabled: true}})
	quiet := toMap(assertions.Template_FromStack(off, nil).ToJSON())
	if n := len(resources(quiet, "AWS::Lambda::Function")); n != 0 {
		t.Errorf("%d functions with the handlers disabled", n)
	}
	if _, ok := props(one(t, quiet, "AWS::DynamoDB::GlobalTable"))["StreamSpecification"]; ok {
		t.Error("a table without handlers or replicas streams")
	}
}

// Pass-through props reach the table: a fixed name, the table class,
// contributor insights on the table and every replica, AWS managed keys.
func TestTableProps(t *testing.T) {
	stack := newStack("us-east-1")
	tbl := singletable.New(stack, "Tbl", &singletable.Props{
		ModelFile: modelFile(t, hotModel), TableName: "orders-prod",
		TableClass: awsdynamodb.TableClass_STANDARD_INFREQUENT_ACCESS, ContributorInsights: true,
		Encryption:  &singletable.Encryption{Kind: singletable.AWSManaged},
		Replicas:    []singletable.Replica{{Region: "eu-west-1"}},
		Acknowledge: map[string]string{"KP401": "test"},
	})
	if got := validate(tbl); got != "" {
		t.Fatal(got)
	}
	p := props(one(t, toMap(assertions.Template_FromStack(stack, nil).ToJSON()), "AWS::DynamoDB::GlobalTable"))
	if p["TableName"] != "orders-prod" || obj(p["SSESpecification"])["SSEType"] != "KMS" {
		t.Errorf("table %v", p)
	}
	for _, r := range list(p["Replicas"]) {
		r := obj(r)
		if r["TableClass"] != "STANDARD_INFREQUENT_ACCESS" || obj(r["ContributorInsightsSpecification"])["Enabled"] != true {
			t.Errorf("replica %s: class %v, insights %v", r["Region"], r["TableClass"], r["ContributorInsightsSpecification"])
		}
	}
}

// The usage doc.go shows, with a typo in the model: code that touches the
// table (its name, grants) runs, and synthesis ends in the model's own
// error, file:line and all, never a nil pointer.
func TestDocumentedUsageEndsInTheModelsError(t *testing.T) {
	file := modelFile(t, strings.Replace(hotModel, "createdAt: time", "createdAt: tiem", 1))
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Game"), nil)
	msg := jsiiPanic(func() {
		table := singletable.New(stack, "Leaderboard", &singletable.Props{ModelFile: file})
		fn := awslambda.NewFunction(stack, jsii.String("Fn"), &awslambda.FunctionProps{
			Runtime: awslambda.Runtime_NODEJS_20_X(), Handler: jsii.String("index.handler"),
			Code: awslambda.Code_FromInline(jsii.String("x")),
		})
		if g := table.GrantPatterns(fn, "GetOrder"); g == nil {
			t.Error("GrantPatterns returned nil")
		}
		if g := table.GrantReadData(fn); g == nil {
			t.Error("GrantReadData returned nil")
		}
		fn.AddEnvironment(jsii.String(singletable.TableNameEnv), table.Table.TableName(), nil)
		app.Synth(nil)
	})
	for _, want := range []string{"model.yaml:5:104", `unknown type "tiem"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("synthesis ended in %q, want it to name %q", msg, want)
		}
	}
}

// Props that are not numbers fail synthesis once, every problem named,
// before anything reaches jsii: the app's jsii runtime stays usable (a
// NaN marshaled to jsii panics and kills it for the rest of the app), no
// number is reported twice (not a number, then out of range), and tags at
// DynamoDB's limits pass.
func TestPropsProblemsFailOnce(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	stack := newStack("us-east-1")
	tbl := singletable.New(stack, "Tbl", &singletable.Props{ModelFile: "../examples/leaderboard.yaml", RecoveryPeriodDays: inf,
		Billing:        &singletable.Billing{Mode: singletable.Provisioned, Read: singletable.Scaling{Min: nan, Max: inf, TargetUtilization: inf}},
		Replicas:       []singletable.Replica{{Region: "eu-west-1", Read: &singletable.Scaling{Min: nan}}},
		StreamHandlers: &singletable.StreamHandlers{Defaults: singletable.HandlerOptions{ParallelizationFactor: nan}},
		Backfill:       &singletable.Backfill{MaxWCU: inf},
		Tags:           map[string]string{"aws:x": "y"},
	})
	problems := *tbl.Node().Validate()
	var got []string
	for _, p := range problems {
		got = append(got, *p)
	}
	want := []string{"RecoveryPeriodDays +Inf", "Billing.Read.Min NaN", "Billing.Read.Max +Inf", "Billing.Read.TargetUtilization +Inf",
		"Replicas[0].Read.Min NaN", "StreamHandlers.Defaults.ParallelizationFactor NaN", "Backfill.MaxWCU +Inf", `Tags["aws:x"]`}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	msg := jsiiPanic(func() { awscdk.Stage_Of(stack).Synth(nil) })
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("synthesis failed with %q, which lacks %q", msg, w)
		}
	}
	// jsii still works: a good table in a new app synthesizes, with tags
	// at DynamoDB's limits.
	good := newStack("")
	tbl = singletable.New(good, "Good", &singletable.Props{ModelFile: modelFile(t, hotModel), Acknowledge: map[string]string{"KP401": "test"},
		Tags: map[string]string{"ok": "", strings.Repeat("ü", 128): strings.Repeat("ü", 256), "team/name:x": "a+b=c d.e_f@g"}})
	if got := validate(tbl); got != "" {
		t.Fatal(got)
	}
	tags := props(one(t, toMap(assertions.Template_FromStack(good, nil).ToJSON()), "AWS::DynamoDB::GlobalTable"))["Replicas"]
	if !strings.Contains(toString(tags), strings.Repeat("ü", 256)) {
		t.Errorf("the table's tags %v", tags)
	}
}
